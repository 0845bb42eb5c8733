# The firmware app on a web page: the page's query, the app wired to the web ports,
# and what JavaScript calls. JavaScript owns the requestAnimationFrame loop and calls
# `frame()` once per animation frame (the interpreter's garbage collector cannot see
# WebAssembly locals, so memory is reclaimed safely only between calls from JavaScript:
# a whole game inside one Python call has been seen to grow the heap to megabytes).
# Everything else -- keys, pads, pause, the clock, the test mode, replays -- is
# decided here.
#
# Two ways to run, as the desktop emulator has (desktop_emulator/session.py):
# - live: the app steps at each animation frame on the page's clock (WebClock);
# - fast (?fast=1): CPU against CPU, or a replay, on a simulated clock stepped every
#   device frame as fast as it goes, in batches JavaScript asks for; at the end the
#   page shows the same `state <sha1> frame <sha1>` line as
#   `python -m desktop_emulator --headless ... --print-state`.
# The App is built exactly as desktop_emulator.session.AppEngine builds it (same
# defaults, recording limit, title hint and start of the game), which the tests
# check, so both print the same line for the same game.

import json

from shared_rules.arbiter import ticks_diff
from shared_rules.game import Rules, MAX_SEED
from firmware.app import App, Ports, FRAME_US
from host.clock import SimClock, MAX_SIM_US
from host.engine import Engine
from host.ports import FrameInput, MemoryStorage
from host.replays import (RECORD_LIMIT, ReplayError, parse_replay, format_replay,
                          divergence, digests_of, start_loaded, step_loaded)
from host.seats import LEVELS, CPU_CODE, CPU_NAME, DESKTOP_DEFAULTS, names_of
from host.state import game_state_line, summary_line
from host.lights import CpuLights
from host import upright as turn
from spitweb import ports

HINT = "Z/N: NEXT  X/M: CHOOSE"
#: How long a CPU's press lights its pad button.

# frame() returns these bits (spit.js has the same names).
REDRAW = 1          # the OLED changed: draw the panel bytes
LIT_SHIFT = 1       # bits 1-4: p0 A, p0 B, p1 A, p1 B lit
FROZEN = 32         # a replay is frozen (Esc or a hidden tab)
DONE = 64           # the run reached its end: stop the loop


def device_frame_us():
    """The handheld's frame period (firmware/app.py FRAME_US), as the desktop's."""
    return FRAME_US


class QueryError(ValueError):
    """A query parameter the page cannot use: one line, shown on the page."""


# ---------------------------------------------------------------- the query

PARAMS = ("seed", "p0", "p1", "rules", "flip", "until", "frames", "fast", "replay",
          "wrap", "stats", "upright")


def _hex(c):
    c = ord(c)
    if 48 <= c <= 57:
        return c - 48
    c |= 32
    if 97 <= c <= 102:
        return c - 87
    return -1


def unquote(s):
    """application/x-www-form-urlencoded text -> str ('+' is a space, %XX a byte)."""
    out = bytearray()
    i = 0
    n = len(s)
    while i < n:
        ch = s[i]
        if ch == "+":
            out.append(32)
        elif ch == "%" and i + 2 < n and _hex(s[i + 1]) >= 0 and _hex(s[i + 2]) >= 0:
            out.append(_hex(s[i + 1]) * 16 + _hex(s[i + 2]))
            i += 2
        else:
            out.extend(ch.encode())
        i += 1
    try:
        return out.decode()
    except UnicodeError:
        raise QueryError("a query value is not UTF-8 text")


def _whole(name, text, lo, hi):
    t = text.strip()
    ok = len(t) > 0 and len(t) <= 12
    for c in t:
        if c < "0" or c > "9":
            ok = False
    if not ok:
        raise QueryError("%s=%s: not a whole number (%d to %d)" % (name, text, lo, hi))
    n = int(t)
    if n < lo or n > hi:
        raise QueryError("%s=%s: must be %d to %d" % (name, text, lo, hi))
    return n


def _choice(name, text, choices):
    if text not in choices:
        raise QueryError("%s=%s: must be one of %s" % (name, text, ", ".join(choices)))
    return text


def _flag(name, text):
    if text not in ("0", "1"):
        raise QueryError("%s=%s: must be 0 or 1" % (name, text))
    return text == "1"


def parse_query(search):
    """location.search -> options (a dict); QueryError with one line for anything
    unknown, repeated or out of range."""
    s = search or ""
    if s.startswith("?"):
        s = s[1:]
    raw = {}
    for part in s.split("&"):
        if not part:
            continue
        k, eq, v = part.partition("=")
        k = unquote(k)
        if k not in PARAMS:
            raise QueryError("unknown parameter '%s' (this page takes: %s)" % (
                k, ", ".join(PARAMS)))
        if k in raw:
            raise QueryError("parameter '%s' given twice" % k)
        raw[k] = unquote(v)
    o = {"seed": None, "p0": None, "p1": None, "rules": None, "flip": False,
         "until": None, "frames": None, "fast": False, "replay": None, "wrap": False,
         "stats": False, "upright": False}
    if "seed" in raw:
        o["seed"] = _whole("seed", raw["seed"], 0, MAX_SEED)
    for p in ("p0", "p1"):
        if p in raw:
            o[p] = _choice(p, raw[p], LEVELS)
    if "rules" in raw:
        o["rules"] = _choice("rules", raw["rules"], ("standard", "points"))
    if "until" in raw:
        o["until"] = _choice("until", raw["until"], ("over", "round"))
    if "frames" in raw:
        o["frames"] = _whole("frames", raw["frames"], 1, 10000000)
    for f in ("flip", "fast", "wrap", "stats", "upright"):
        if f in raw:
            o[f] = _flag(f, raw[f])
    if "replay" in raw:
        if not raw["replay"].strip():
            raise QueryError("replay= is empty (it takes the text of a recording)")
        o["replay"] = raw["replay"]
        for k in ("seed", "p0", "p1", "rules", "flip", "wrap"):
            if k in raw:
                raise QueryError("%s= cannot be used with replay= (the recording sets it)" % k)
    elif o["fast"]:
        seats = (o["p0"] or "normal", o["p1"] or "normal")
        if "human" in seats:
            raise QueryError("fast=1 has no keyboard: give each seat a CPU level "
                             "(p0=, p1= easy, normal or hard), or replay= a game")
    return o


# ---------------------------------------------------------------- replays

# ---------------------------------------------------------------- the page's session

class Web(Engine):
    """What the page runs. Built by start(); JavaScript then calls frame(now_ms) once
    per animation frame (live) or run_fast(n) until it returns True (fast), and
    forwards key(), pad(), visibility() and blur()."""

    def __init__(self, bridge, search, now_ms, fb_module=None):
        self.bridge = bridge
        self.error = None
        self.done = False
        self.reason = None
        self.line = None
        self.steps = 0
        self.seats = None
        self.loaded = None
        self._replay_i = 0
        self._cpu_lights = CpuLights()   # the CPU's presses, lit on the pads for a moment
        self._names = None
        self._hidden_frozen = False
        self.status_text = ""
        try:
            self.opts = parse_query(search)
            if self.opts["replay"] is not None:
                self.loaded = parse_replay(self.opts["replay"])
        except (QueryError, ReplayError) as e:
            self.opts = None
            self.error = str(e)
            bridge.fail(self.error)
            return
        o = self.opts
        self.fast = o["fast"]
        self.until = o["until"]
        if self.until is None and self.fast and self.loaded is None:
            self.until = "over"
        self.frame_us = device_frame_us()
        start = 0
        if self.loaded is not None:
            start = self.loaded.start_t
        elif o["wrap"]:
            start = ports.TICKS_PERIOD - 2000000    # 2 s before the wrap, like --start-near-wrap
        if self.fast:
            self.clock = SimClock(start)
        else:
            self.clock = ports.WebClock(now_ms, start)
        live_keys = not self.fast and self.loaded is None
        self.keys = ports.WebInput(self.clock) if live_keys else None
        self.input = self.keys if live_keys else FrameInput()
        if fb_module is None:
            import framebuf as fb_module     # MicroPython's own, in the browser
        self.display = ports.WebDisplay(fb_module)
        # What the canvas shows: the panel, or with player 1's half upright for two
        # players side by side (upright=1, the page's control; host/upright.py).
        # The panel, and so the state line, is never changed.
        self.upright = o["upright"]
        self.picture = bytearray(len(self.display.panel))
        self._layout = -1
        self.sound = ports.WebSound(None if self.fast else bridge)
        if live_keys:
            storage = ports.web_storage(bridge)
            if storage is None:
                self.status("This browser keeps no storage for this page: settings and "
                            "saved games will not be kept.")
        else:
            storage = MemoryStorage()
        self.storage = storage
        self.app = App(Ports(self.input, self.display, self.sound, storage, self.clock),
                       now_us=self.clock.ticks_us(), record_limit=RECORD_LIMIT,
                       defaults=DESKTOP_DEFAULTS, hint=HINT)
        self.app.on_cpu_press = self._cpu_lights.pressed
        msg = getattr(storage, "message", None)
        if msg:
            self.status("This browser's saved data was unreadable (%s): starting clean, "
                        "as the handheld does." % msg.lower().replace("saved data ", ""))
        if self.loaded is not None:
            L = self.loaded
            self.seats = ("human", "human")
            start_loaded(self.app, L)
        elif self.fast or any(o[k] is not None for k in ("p0", "p1", "seed", "rules")) \
                or o["flip"]:
            dflt0 = "normal" if self.fast else "human"
            seats = (o["p0"] or dflt0, o["p1"] or "normal")
            seed = o["seed"]
            if seed is None:
                seed = 0 if self.fast else bridge.random_seed()
            rules = Rules(points=o["rules"] == "points", manual_flip=o["flip"])
            self.seats = seats
            # Started by the address, not the menu: a saved game stays the player's.
            self.app.start_game(seed & ports.TICKS_MASK, rules,
                                (CPU_CODE[seats[0]], CPU_CODE[seats[1]]),
                                self.clock.ticks_us(), keep_saved=True)

    # -- messages to the page
    def status(self, text):
        self.status_text = text
        self.bridge.status(text)

    def state_line(self):
        return game_state_line(self.app.game, self.display.buf)

    def summary_line(self):
        return summary_line(self.app.screen_name(), self.app.game, self.steps)

    def _finish(self, reason):
        self.done = True
        self.reason = reason
        self.line = self.state_line()
        if self.loaded is not None:
            # R40: a replay reaches the states its recording says it did, or says not.
            why = self.replay_divergence(reason == "replay end")
            if why is not None:
                self.status("replay: " + why)
        self.bridge.finished(self.summary_line() + " (" + reason + ")", self.line)

    @property
    def replay_in(self):
        return self.loaded

    def reached(self, until=None):
        return Engine.reached(self, self.until if until is None else until)

    def replay_divergence(self, finished):
        return divergence(self.loaded, digests_of(self.app.replay.records), finished)

    def _check_end(self):
        f = self.opts["frames"]
        if f is not None and self.steps >= f:
            self._finish("frames")
        elif self.until and self.reached():
            self._finish(self.until)
        return self.done

    # -- fast mode
    def run_fast(self, n):
        """Step up to n device frames on the simulated clock; True once done (the
        state line is then on the page)."""
        if self.error is not None or self.done:
            return True
        clock = self.clock
        L = self.loaded
        for _ in range(n):
            if L is not None:
                if self._replay_i >= len(L.frames):
                    self._finish("replay end")
                    return True
                k = self._replay_i
                self._replay_i += 1
                clock.advance_to_ticks(L.frames[k][0])
                step_loaded(self.app, self.input, L, k)
            else:
                self.app.step(clock.advance(self.frame_us))
            self.steps += 1
            if self._check_end():
                return True
            if clock.elapsed_us() > MAX_SIM_US:
                self.error = "no end after %d simulated minutes (screen %s)" % (
                    MAX_SIM_US // 60000000, self.app.screen_name())
                self.bridge.fail(self.error)
                return True
        return False

    # -- live mode
    def frame(self, now_ms):
        """One animation frame: move the clock to performance.now(), step the app
        (or the replay up to now), and return the REDRAW/LIT/FROZEN/DONE bits."""
        if self.error is not None:
            return DONE
        if not self.fast and not self.done:
            now = self.clock.frame(now_ms)
            if self.loaded is not None:
                L = self.loaded
                if not self.clock.frozen:
                    while self._replay_i < len(L.frames) and \
                            ticks_diff(L.frames[self._replay_i][0], now) <= 0:
                        step_loaded(self.app, self.input, L, self._replay_i)
                        self._replay_i += 1
                        self.steps += 1
                        if self._check_end():
                            break
                    if not self.done and self._replay_i >= len(L.frames):
                        self._finish("replay end")
            else:
                self.app.step(now)
                self.steps += 1
                self._check_end()
        flags = 0
        d = self.display
        layout = self._picture_layout()
        if d.dirty or layout != self._layout:
            d.dirty = False
            self._present(layout)
            flags |= REDRAW
            self._send_names()
        flags |= self._lights() << LIT_SHIFT
        if self.clock.frozen:
            flags |= FROZEN
        if self.done:
            flags |= DONE
        return flags

    def _picture_layout(self):
        return turn.layout_of(self.app.screen_name()) if self.upright else 0

    def _present(self, layout):
        turn.upright(self.display.panel, layout, self.picture)
        self._layout = layout

    def set_upright(self, on):
        """The page's control: player 1's half upright (True) or as on the device.
        The picture is remade at once (the page then draws it, even after a fast
        run has ended)."""
        self.upright = bool(on)
        self._present(self._picture_layout())

    def picture_address(self):
        """Where the picture the canvas shows lives (1024 bytes, as the panel's;
        the page reads it after a REDRAW)."""
        import uctypes
        return uctypes.addressof(self.picture)

    def picture_hex(self):
        """The picture as hex (for the tests)."""
        return "".join(["%02x" % b for b in self.picture])

    def panel_address(self):
        """Where the OLED's 1024 bytes live in the interpreter's memory (the page
        reads them there after a REDRAW; MicroPython never moves an object)."""
        import uctypes
        return uctypes.addressof(self.display.panel)

    def heap_bytes(self):
        """The interpreter's heap in use (for `make bench-web`); -1 without gc."""
        try:
            import gc
            return gc.mem_alloc()
        except (ImportError, AttributeError):
            return -1

    def panel_hex(self):
        """The OLED's bytes as hex (for the tests; the page reads memory directly)."""
        return "".join(["%02x" % b for b in self.display.panel])

    # -- input from the page
    def key(self, code, down, repeat, t_ms, now_ms):
        """A keydown (down) or keyup; True if the page should not let the browser act
        on the key."""
        if code == ports.PAUSE_KEY:
            if down and not repeat:
                self._escape(now_ms)
            return True
        if self.keys is None or self.done:
            return code in ports.KEYS
        return self.keys.key(code, bool(down), bool(repeat), t_ms, now_ms)

    def pad(self, player, button, down, pointer, t_ms, now_ms):
        if self.keys is None or self.done:
            return False
        return self.keys.pad(player, button, bool(down), pointer, t_ms, now_ms)

    def blur(self, now_ms):
        if self.keys is not None:
            self.keys.release_all(now_ms)

    def visibility(self, hidden, now_ms):
        """The tab was hidden or shown. Hidden: held buttons go up and a game in
        play pauses (its pause screen, as Esc or holding A+B); a replay freezes.
        Nothing runs while hidden, and the gap is not game time (WebClock)."""
        if self.error is not None or self.fast or self.done:
            return
        if hidden:
            self.blur(now_ms)
            if self.loaded is not None:
                if not self.clock.frozen:
                    self.clock.frozen = True
                    self._hidden_frozen = True
                return
            app = self.app
            if (app.screen_name() == "game" and app.game.phase in ("ready", "play")) or \
                    (app.screen_name() == "lab" and app.cur.run is not None and
                     app.cur.mode == 1):     # a reaction lab run (screens/lab.py RUN)
                self.keys.inject(self._pause_player(), "PAUSE", now_ms)
            self.frame(now_ms)       # the last frame before the page stops animating
        elif self._hidden_frozen:
            self._hidden_frozen = False
            self.clock.frame(now_ms)
            self.clock.frozen = False

    def _escape(self, now_ms):
        """Esc: the app's own PAUSE button (a stamped event, recorded and replayed
        like any other), as in the desktop window; during a replay it freezes time."""
        if self.error is not None or self.fast or self.done:
            return
        if self.loaded is not None:
            self.clock.frame(now_ms)
            self.clock.frozen = not self.clock.frozen
            self._hidden_frozen = False
            return
        self.keys.inject(self._pause_player(), "PAUSE", now_ms)

    def _pause_player(self):
        app = self.app
        return 0 if app.game is None or app.seats[0].human else 1

    # -- the skin
    def _lights(self):
        bits = 0
        if self.keys is not None:
            for p, b in self.keys.pressed():
                bits |= 1 << (2 * p + (0 if b == "A" else 1))
        for p, b in self._cpu_lights.lit(self.clock.ticks_us()):
            if b in (0, 1):
                bits |= 1 << (2 * p + b)
        return bits

    def seat_names(self):
        app = self.app
        out = []
        for p in (0, 1):
            # The reaction lab has people at both pads, whatever the last game had.
            cpu = app.cpu[p] if app.game is not None and app.screen_name() != "lab" else None
            if self.loaded is not None:
                who = self.loaded.meta.get("p%d" % p, "human")
                out.append("REPLAY " + (who.upper() if who != "human" else "P%d" % p))
            elif cpu:
                out.append("CPU " + CPU_NAME[cpu].upper())
            else:
                out.append("P%d" % p)
        return out

    def _send_names(self):
        names = self.seat_names()
        if names != self._names:
            self._names = names
            self.bridge.names(names[0], names[1])

    # -- recordings and the tests' view
    def replay_text(self):
        """The current (or last) game's recording, in the desktop emulator's format
        (`python -m desktop_emulator --replay FILE` plays it), or None."""
        app = self.app
        if self.error is not None or app.replay is None:
            return None
        seats = self.seats
        if seats is None or self.loaded is not None:
            seats = names_of(app.cpu)
        return format_replay(app.replay, seats, app.replay_snapshot, engine="web")

    def lab_csv(self):
        """The reaction lab's saved runs as CSV (firmware/lab_store.py), for the page's
        download, or None when there are none. On the lab's screen, its own store:
        with it the runs a full or missing storage could not keep."""
        from firmware import lab_store
        app = self.app
        store = app.cur.store if app.screen_name() == "lab" else \
            lab_store.Store(lab_store.port(app.ports))
        runs = store.runs()
        return lab_store.csv_text(runs) if runs else None

    def debug_json(self):
        """What the page's tests look at: the app's screen, menu, cursors, sound."""
        app = self.app
        d = {"error": self.error, "done": self.done, "steps": self.steps}
        if self.error is None:
            g = app.game
            d["screen"] = app.screen_name()
            d["phase"] = g.phase if g is not None else None
            d["round"] = g.round if g is not None else None
            pads = app.pads
            d["cursors"] = [pads[0].cursor, pads[1].cursor] if pads else [0, 0]
            d["menu"] = [app.menu_text(i) for i in app.menu_items()] \
                if app.screen_name() == "title" else []
            d["note"] = app.note
            d["played"] = self.sound.played[-16:]
            d["ticks"] = self.clock.ticks_us()
            d["status"] = self.status_text
            d["dropped"] = app.dropped
            d["frozen"] = bool(getattr(self.clock, "frozen", False))
            d["capped"] = getattr(self.clock, "capped", 0)
            d["events"] = [[e[0], e[1], e[2], 1 if e[3] else 0]
                           for e in (self.keys.log if self.keys is not None else [])]
            d["settings"] = app.settings
            d["seats"] = list(self.seats) if self.seats else None
            if app.screen_name() == "lab":
                d["lab"] = self._lab_debug(app.cur)
        return json.dumps(d)

    def _lab_debug(self, scr):
        """The reaction lab's menu settings and its run's trial, so the page's tests
        can press at a chosen time after the signal (or during the wait)."""
        run = scr.run
        d = {"mode": scr.mode, "task": scr.task, "signal": scr.signal,
             "trials": scr.trials, "practice": scr.practice}
        if run is not None:
            d.update(seed=run.seed, state=run.state, trial=run.trial, start=run.start,
                     onset=run.onset)
        return d


def start(bridge, search, now_ms):
    """The page's entry point: a Web for location.search (bad parameters are shown on
    the page by the bridge, and the Web then does nothing)."""
    return Web(bridge, search, now_ms)
