"""``--engine pico``: the project's firmware, unchanged, on an emulated Pico.

:class:`PicoMachine` stands where :class:`desktop_emulator.session.AppEngine` stands for
the app engine: the same window, keys, headless runs, replays, screenshots and
``--print-state`` line, but the app runs inside MicroPython on the emulated RP2040 and
everything the host knows comes from the board's own pins:

- the picture is the OLED's memory, rebuilt from the real ssd1306 driver's I2C traffic;
- a key press is a falling edge on the button's GPIO, applied at an exact guest time,
  stamped by the firmware's hard IRQ like a finger on a real board;
- where the game is (screen, phase, round) comes from the status lines ``firmware.main``
  prints on the USB serial console;
- at the end the host stops the game with Ctrl-C, as mpremote would, and reads the
  game's snapshot and the device's own recording through the raw REPL.

Time is the emulator's guest time: a headless run takes as long as the chip needs,
and the window shows the game at the speed the emulator reaches (the caption says).
"""

import json
import re
import time

from desktop_emulator.clock import ticks_diff
from desktop_emulator.display import FrameDisplay
from desktop_emulator.pico.device import Pico, DeviceError, DeviceTimeout, US, MS, S, exception_line
from desktop_emulator import replays
from desktop_emulator.window import WINDOW_FRAME_US
from firmware.app import FRAME_US as DEVICE_FRAME_US
from firmware.boards import pico as board
from host.clock import MAX_SIM_US
from host.engine import Engine
from host.seats import CPU_CODE, names_of
from host.state import state_line, summary_line
KEY_HOLD_US = 30000          # the shortest press a key makes on the board's pins
HOLD_US = 50000              # how long a replayed press keeps the contact closed
MIN_GAP_US = 12000           # > the firmware's 10 ms debounce lock-out
# Where inside its recorded microsecond a replayed contact closes. The board stamps a
# press with the time of the PIO sample that saw it (0-136 ns after the pin changed)
# less the 2-cycle input synchroniser (which rp2040js does not model), on a µs grid its
# calibration places to within a few cycles. A contact closing exactly on a µs boundary
# was stamped 1 µs early whenever its sample fell within those cycles of the boundary,
# and which presses did depended on the sampling loop's phase against the timer, that
# is on how long the firmware took to start (a press made just as a fumble's dead time
# ended then fell inside it). 0.4 µs in, every press gets its recorded stamp.
EDGE_PHASE_NS = 400
REPLAY_TAIL_US = 1000000    # a replay runs this long past its last recorded frame (a save, a slow frame)
BOOT_MS = 3000               # guest time the board may take to reach its title screen
STATUS = re.compile(rb"spit: ([^\r\n]*)\r?\n")


def button_gpios(buttons=board.BUTTONS):
    """{(player, name): gpio} of the board's pin map."""
    return {(p, name): gpio for gpio, p, name in buttons}


class GuestClock:
    """The clock the session loops see: the emulated chip's own. advance(us) runs it."""

    def __init__(self, machine):
        self.m = machine
        self.start_ns = None

    def ticks_us(self):
        return self.m.pico.ticks_us()

    def elapsed_us(self):
        return int((self.m.pico.t_ns - (self.start_ns or 0)) // US)

    def advance(self, us):
        self.m.run_guest(us)
        return self.ticks_us()


class DeviceGame:
    """What the host knows of the game on the board (from its status lines)."""

    def __init__(self, fields):
        self.phase = fields.get("phase", "ready")
        self.round = int(fields.get("round", 1))
        s = fields.get("scores", "0:0").split(":")
        self.scores = (int(s[0]), int(s[1]))
        w = fields.get("winner", "-")
        self.winner = int(w) if w in ("0", "1") else None


class DeviceApp:
    """A read-only stand-in for firmware.app.App, fed by the board's status lines."""

    seats = ()

    def __init__(self):
        self.screen = "title"
        self.game = None
        self.cpu = [None, None]
        self.start_t = None
        self.seed = None

    def screen_name(self):
        return self.screen

    def seat_levels(self):
        """Who plays each side (CPU level or None), as far as the host knows."""
        return (self.cpu[0], self.cpu[1])

    def status(self, text):
        fields = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
        if text.startswith("start"):
            self.start_t = int(fields["t"])
            self.seed = int(fields["seed"])
            return
        self.screen = fields.get("screen", self.screen)
        if "phase" in fields:
            self.game = DeviceGame(fields)


class PicoMachine(Engine):
    """The firmware on the emulated Pico, behind the engine interface (host.engine)."""

    def __init__(self, firmware, display=None, sound=None, keyboard=None, buttons=board.BUTTONS,
                 start_near_wrap=False, wall_limit_s=600.0, start_spin=0):
        self.buttons = tuple(buttons)
        self.gpio = button_gpios(self.buttons)
        lead = 2 * S // US                    # as the desktop's --start-near-wrap
        self.pico = Pico(firmware, buttons=[g for g, _p, _n in self.buttons],
                         timer_start_us=((1 << 30) - lead - 1500000) if start_near_wrap else 0)
        self.clock = GuestClock(self)
        self.display = display if display is not None else FrameDisplay()
        self.sound = sound
        self.keyboard = keyboard
        self.app = DeviceApp()
        self.replay_in = None
        self.seats = None
        self.steps = 0
        self.wall_limit_s = wall_limit_s
        self._wall_end = None
        self._shown = 0
        self._edges = []            # replay edges not yet handed to the emulator
        self._replay_end_ns = None
        self._finished = None       # what the board said when it was stopped
        self._tone = PwmTone(sound)
        self._seen_title = False
        self._window_ns = 0
        self._down_ns = {}
        self.on_status = None        # callback(t_ns, status line) for tools and tests
        # Loop turns the board spins before it runs the game: a start-up that costs
        # more, as another firmware's would (tests: a replay must not depend on it).
        self.start_spin = start_spin

    #: No pause button on the board (a player holds A and B); Esc freezes the emulator.
    has_pause_button = False

    # ---- lifecycle ------------------------------------------------------------------
    def attach(self, display, sound=None, keyboard=None):
        """The window's or the headless run's display, sound and keyboard."""
        self.display = display
        self.sound = sound
        self.keyboard = keyboard
        self._tone = PwmTone(sound)
        return self

    def boot(self):
        """Power on with the deployed files; wait for the title screen."""
        self._wall_end = time.monotonic() + self.wall_limit_s
        self.pico.boot()
        self.clock.start_ns = self.pico.t_ns
        self._wait_status(lambda: self._seen_title, BOOT_MS, "the title screen")
        return self

    def close(self):
        self._tone.stop()
        self.pico.close()

    def _wall_left(self):
        if self._wall_end is None:
            return 120.0
        left = self._wall_end - time.monotonic()
        if left <= 0:
            raise DeviceError("the emulated Pico ran out of its %.0f s of wall time"
                              % self.wall_limit_s)
        return left

    # ---- starting a game ------------------------------------------------------------
    def start_game(self, seats, seed, rules, keep_saved=True):
        # The emulated board's flash holds no saved game of the player's: nothing to keep.
        self.seats = tuple(seats)
        cpu = [CPU_CODE[seats[0]] or 0, CPU_CODE[seats[1]] or 0]    # 0: a person, on the wire
        self._start({"seed": seed & 0x3FFFFFFF, "points": int(rules.points),
                     "flip": int(rules.manual_flip), "cpu": cpu})
        self.app.cpu = [c or None for c in cpu]

    def start_replay(self, loaded):
        """Play a recording through the pins: its game starts on the board, and each
        recorded press becomes a press of that button at the same time after the start."""
        if loaded.bounds:
            # The pins carry presses, not the bounds a linked game decided them with (R43).
            raise DeviceError("a linked game's recording (it has bound records) replays on "
                              "the app engine only, not through the board's pins")
        self.replay_in = loaded
        self.seats = ("human", "human")
        start = {"seed": loaded.seed, "points": int(loaded.rules.points),
                 "flip": int(loaded.rules.manual_flip), "cpu": [0, 0]}
        if loaded.snapshot is not None:
            start["snapshot"] = loaded.snapshot
        start["conduct"] = loaded.replay.played_conduct().format()
        self._start(start)
        t0 = self.pico.guest_ns(self.app.start_t)
        edges = replay_edges(loaded, self.gpio)
        if edges and t0 + edges[0][0] * US < self.pico.t_ns:
            raise DeviceError("the replay's first press comes %d µs after its start, before "
                              "the board could be told of it" % edges[0][0])
        self._edges = [(t0 + dt * US + EDGE_PHASE_NS, g, lv) for dt, g, lv in edges]
        last = loaded.frames[-1][0] if loaded.frames else loaded.start_t
        self._replay_end_ns = t0 + (ticks_diff(last, loaded.start_t) + REPLAY_TAIL_US) * US
        self.pico.schedule(self._edges)

    def _start(self, start):
        self.pico.interrupt(wall_s=self._wall_left())
        self.pico.enter_raw(soft_reset=True, wall_s=self._wall_left())
        self.app = DeviceApp()
        spin = "for _ in range(%d): pass\n" % self.start_spin if self.start_spin else ""
        self.pico.exec_start(spin + "import firmware.main as m\nm.run(start=%s)\n"
                             % json.dumps(start), wall_s=self._wall_left())
        self._wait_status(lambda: self.app.start_t is not None, BOOT_MS, "the game to start")

    # ---- running --------------------------------------------------------------------
    def _wait_status(self, cond, guest_ms, what):
        end = self.pico.t_ns + guest_ms * MS
        while not cond():
            if self.pico.t_ns >= end:
                raise DeviceError("the board did not reach %s within %d ms of guest time "
                                  "(it printed: %s)" % (what, guest_ms, _tail(self.pico.transcript)))
            self.pico.run_to(min(end, self.pico.t_ns + 100 * MS), wall_s=self._wall_left(),
                             stop_on_serial=True)
            self._after_run()

    def run_guest(self, us):
        self.pico.run_to(self.pico.t_ns + us * US, wall_s=self._wall_left())
        self._after_run()

    def _after_run(self):
        for line in self._status_lines():
            if line.startswith("screen=title"):
                self._seen_title = True
            self.app.status(line)
            if self.on_status is not None:
                self.on_status(self.pico.t_ns, line)
        self._check_crash()
        if self.pico.oled.data_writes != self._shown:
            self._shown = self.pico.oled.data_writes
            d = self.display
            pic = self.pico.oled.visible()
            d.buf[:] = pic
            d.panel[:] = pic
            d.shows += 1
            d.dirty = True
            if d.on_show is not None:
                d.on_show(d.panel)
        self._tone.update(self.pico)

    def _status_lines(self):
        out = []
        ser = self.pico.serial
        while True:
            m = STATUS.search(ser)
            if not m:
                break
            out.append(m.group(1).decode(errors="replace"))
            del ser[:m.end()]
        return out

    def _check_crash(self):
        t = bytes(self.pico.serial)
        if b"Traceback (most recent call last)" in t and (b"\x04" in t or b">>> " in t):
            tb = t.decode(errors="replace")
            raise DeviceError("exception on the device: %s" % exception_line(tb), tb)
        if self.pico.resets and self.pico.resets[-1][1] == "watchdog":
            raise DeviceError("the board was reset by its watchdog (a frame took over 4 s)")

    def step(self):
        """A frame of the headless loop: the clock's advance() already ran the chip."""
        self.steps += 1
        return self.clock.ticks_us()

    def step_window(self, now):
        """A window frame: presses since the last frame become pin edges now, then the
        chip runs one window frame of guest time (its own pace, not the wall clock's).
        A key let go within KEY_HOLD_US of its press keeps the contact closed that long,
        as a finger would (a shorter pulse is a glitch to the debounce)."""
        kb = self.keyboard
        if kb is not None and self.replay_in is None:
            t = self.pico.t_ns + US
            edges = []
            for _stamp, player, button, down in kb.drain():
                g = self.gpio.get((player, button))
                if g is None:
                    continue
                if down:
                    self._down_ns[g] = t
                    edges.append((t, g, 0))
                else:
                    edges.append((max(t, self._down_ns.get(g, 0) + KEY_HOLD_US * US), g, 1))
                t += US
            self.pico.schedule(edges)
        # A window frame of guest time, unless the window's clock already ran it.
        due = self._window_ns + WINDOW_FRAME_US * US
        if self.pico.t_ns < due:
            self.run_guest((due - self.pico.t_ns) // US)
        self._window_ns = self.pico.t_ns
        self.steps += 1

    def replay_done(self):
        return self._replay_end_ns is not None and self.pico.t_ns >= self._replay_end_ns

    def run_headless(self, until=None, frames=None, max_us=MAX_SIM_US):
        start = self.pico.t_ns
        while True:
            self.clock.advance(DEVICE_FRAME_US)
            self.step()
            if frames is not None and self.steps >= frames:
                return "frames"
            if until and self.reached(until):
                return until
            if self.replay_in is not None and self.replay_done():
                return "replay end"
            if (self.pico.t_ns - start) // US > max_us:
                raise DeviceError("no end after %d minutes of guest time (screen %s)" % (
                    max_us // 60000000, self.app.screen))

    # ---- the end: stop the game, read the board ------------------------------------
    def finish(self):
        """Ctrl-C the game (the firmware then turns its watchdog off) and read, through
        the raw REPL, the game's snapshot and the board's recording of it."""
        if self._finished is not None:
            return self._finished
        p = self.pico
        # A Ctrl-C that lands while a timer callback runs (the buzzer's next note) stops
        # that callback only, and the game goes on: like mpremote, press it again.
        for attempt in range(3):
            p.write(b"\x03")
            try:
                got = p.read_until(re.compile(rb"\x04[^\x04]*\x04>"),
                                   guest_ms=2000 if attempt == 2 else 500,
                                   wall_s=self._wall_left(), what="the game to stop")
                break
            except DeviceTimeout:
                if attempt == 2:
                    raise
        if b"KeyboardInterrupt" not in got and b"Traceback" in got:
            text = got.decode(errors="replace")
            raise DeviceError("exception on the device: %s" % exception_line(text), text)
        code = ("import firmware.main as m, json\n"
                "a = m.app\n"
                "g = a.game\n"
                "print(json.dumps({'snap': g.snapshot() if g else None, 'cpu': a.cpu,"
                " 'resume': a.replay_snapshot, 'lost': getattr(a.replay.records, 'lost', 0)"
                " if a.replay else 0, 'seed': a.replay.seed if a.replay else 0}))\n"
                # Line by line: after a long game the board's heap has no room for the
                # whole text at once.
                "if a.replay:\n"
                " r = a.replay.rules\n"
                " print('rules points=%d manual_flip=%d target=%d' % (r.points, r.manual_flip,"
                " r.target))\n"
                " if a.replay.conduct is not None:\n"
                "  print(a.replay.conduct.format())\n"
                " for rec in a.replay.records:\n"
                "  if rec[0] == 'digest':\n"
                "   print('digest %d %d %06x' % (rec[1], rec[2], rec[3]))\n"
                "  else:\n"
                "   print(' '.join([str(x) for x in rec]))\n")
        out = p.exec(code, guest_ms=20000, wall_s=self._wall_left())
        lines = out.replace("\r", "").split("\n")
        info = json.loads(lines[0])
        # The board's recording in the replay format (shared_rules.replay), as the app
        # engine writes it: the magic line and the seed, then what the board printed
        # (the rules, the conduct and every record).
        from shared_rules.replay import MAGIC, VERSION
        body = [x for x in lines[1:] if x.strip()]
        info["records"] = (["%s %d" % (MAGIC, VERSION), "seed %d" % info["seed"]] + body
                           if body else [])
        self._finished = info
        return info

    def state_line(self):
        info = self.finish()
        return state_line(info["snap"], self.pico.oled.ram)

    def summary_line(self):
        return summary_line(self.app.screen, self.app.game, self.steps,
                            " guest_s=%.1f" % (self.clock.elapsed_us() / 1e6))

    def replay_divergence(self, finished):
        """None, or one line on how the board's replay left its recording (from the
        digest records the board's own recording kept at each round's end)."""
        from host.replays import divergence, digests_of
        from shared_rules.replay import parse
        records = self.finish()["records"]
        got = digests_of(parse("\n".join(records)).records) if records else []
        return divergence(self.replay_in, got, finished)

    def replay_text(self):
        """The board's recording of its game, as a replay file (same format as the app
        engine's --record): replayable with --engine app or --engine pico."""
        from host.replays import header
        info = self.finish()
        lines = info["records"]
        if not lines:
            return None
        seats = self.seats or names_of(info["cpu"])
        head = header(seats, lost=info["lost"], engine="pico", snapshot=info["resume"])
        return "\n".join(lines[:1] + head + lines[1:]) + "\n"

    # The session's recordings, as the command line writes them (session.AppEngine has
    # the same): the board keeps only the game it played last.
    def end_recording(self):
        pass

    @property
    def games(self):
        text = self.replay_text() if self.app.start_t is not None else None
        return [BoardGame(text, self.finish()["lost"])] if text else []


class BoardGame:
    """The board's recording, shaped like replays.RecordedGame."""

    def __init__(self, text, lost):
        self._text = text
        self.lost = lost

    @property
    def replay(self):
        return self

    @property
    def records(self):
        return self

    def text(self):
        return self._text


def replay_edges(loaded, gpio):
    """A recording's button presses as pin edges: [(µs after its start, gpio, level)].
    Each press closes the contact at its recorded time and opens it HOLD_US later (or
    sooner, before the same button's next press, but never within the debounce)."""
    presses = []
    for _t, events in loaded.frames:
        for t, player, code, down in events:
            if not down:
                continue
            name = "AB"[code] if code in (0, 1) else None
            g = gpio.get((player, name))
            if g is None:
                raise DeviceError("the replay presses player %d's button %d, which the "
                                  "board's two-button pads do not have" % (player, code))
            presses.append((ticks_diff(t, loaded.start_t), g))
    presses.sort()
    edges = []
    for i, (dt, g) in enumerate(presses):
        nxt = None
        for dt2, g2 in presses[i + 1:]:
            if g2 == g:
                nxt = dt2
                break
        up = dt + HOLD_US
        if nxt is not None:
            if nxt - dt < 2 * MIN_GAP_US:
                raise DeviceError("two presses of one button %d µs apart in the replay: a "
                                  "real button cannot (debounce)" % (nxt - dt))
            up = min(up, nxt - MIN_GAP_US)
        edges.append((dt, g, 0))
        edges.append((up, g, 1))
    edges.sort()
    return edges


class PwmTone:
    """The buzzer's PWM, heard: each change of the buzzer pin's frequency or duty
    starts or stops a square wave in the mixer (silent with no mixer)."""

    def __init__(self, sound, gpio=board.BUZZER, clk_hz=125_000_000):
        self.sound = sound
        self.slice = (gpio >> 1) & 7
        self.channel_b = gpio & 1
        self.clk = clk_hz
        self.regs = [0, 0x10, 0, 0, 0xFFFF]     # CSR, DIV (1.0), CTR, CC, TOP
        self.seen = 0
        self.notes = []                        # (t_ns, freq or 0)
        self._playing = None

    def update(self, pico):
        base = self.slice * 0x14
        pwm = pico.pwm
        for t, off, value in pwm[self.seen:]:
            if base <= off < base + 0x14:
                self.regs[(off - base) // 4] = value
                f = self.freq()
                if not self.notes or self.notes[-1][1] != f:
                    self.notes.append((t, f))
        self.seen = len(pwm)
        if len(pwm) > 4096:
            del pwm[:]
            self.seen = 0
        if self.notes:
            self._play(self.notes[-1][1])
        if len(self.notes) > 1000:
            del self.notes[:500]

    def freq(self):
        csr, div, _ctr, cc, top = self.regs
        if not csr & 1:
            return 0
        duty = (cc >> 16) if self.channel_b else (cc & 0xFFFF)
        if duty == 0:
            return 0
        d = (div >> 4 & 0xFF) + (div & 0xF) / 16.0
        return int(round(self.clk / ((d or 256) * ((top & 0xFFFF) + 1))))

    def _play(self, f):
        if f == self._playing or self.sound is None or not hasattr(self.sound, "tone"):
            return
        self._playing = f
        self.sound.tone(f)

    def stop(self):
        if self.sound is not None and hasattr(self.sound, "tone"):
            self.sound.tone(0)


def _tail(b, n=160):
    s = bytes(b[-n:]).decode(errors="replace")
    return repr(s) if s else "nothing"

