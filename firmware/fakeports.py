# Fake ports for running the app without hardware: the tests (CPython), and
# tools/firmware_sim.py and tools/bench_firmware.py (the real MicroPython binary).
# Not deployed to the device. Runs unchanged on CPython and MicroPython; the framebuf
# module is passed in (MicroPython's own, or desktop_emulator.framebuf on CPython).

import json

from shared_rules.arbiter import ticks_diff, ticks_add, TICKS_PERIOD
from shared_rules.bot import Bot

FRAME_US = 33333                 # 30 frames a second
NAMES = ("A", "B", "L", "R", "U", "D")


class SimClock:
    def __init__(self, start=0):
        self.now = start & (TICKS_PERIOD - 1)

    def ticks_us(self):
        return self.now

    def advance(self, us):
        self.now = ticks_add(self.now, us)
        return self.now


class ScriptInput:
    """Button events pushed by a script, delivered once the clock has reached their
    stamp, in stamp order, like the IRQ ring buffer (hw/buttons.py)."""

    def __init__(self, clock):
        self.clock = clock
        self.queue = []
        self.dropped = 0

    def push(self, t, player, button, down=True):
        if isinstance(button, int):
            button = NAMES[button]
        q = self.queue
        e = (t, player, button, down)
        i = len(q)
        while i > 0 and ticks_diff(q[i - 1][0], t) > 0:
            i -= 1
        q.insert(i, e)

    def press(self, t, player, button, hold_us=60000):
        self.push(t, player, button, True)
        self.push(ticks_add(t, hold_us), player, button, False)

    def drain(self, out=None):
        if out is None:
            out = []
        now = self.clock.now
        q = self.queue
        k = 0
        while k < len(q) and ticks_diff(q[k][0], now) <= 0:
            out.append(q[k])
            k += 1
        if k:
            del q[:k]
        return out


class ReplayInput:
    """Feeds a recorded game's button events back, frame by frame."""

    def __init__(self):
        self.events = []
        self.dropped = 0

    def drain(self, out=None):
        if out is None:
            out = []
        for e in self.events:
            out.append(e)
        del self.events[:]
        return out


class FrameDisplay:
    """A 128x64 MONO_VLSB framebuf and a record of what each show sent. With check,
    show_spans() verifies that every byte that changed lies inside the spans the view
    reported (so the device, which sends only the spans, never shows stale pixels)."""

    def __init__(self, framebuf_module, check=True):
        self.buf = bytearray(1024)
        self.fb = framebuf_module.FrameBuffer(self.buf, 128, 64, framebuf_module.MONO_VLSB)
        self.shadow = bytearray(1024)
        self.check = check
        self.shows = 0
        self.span_errors = 0
        self.last_pages = 0
        self.last_widths = []

    def show(self):
        self.shows += 1
        n = 0
        for p in range(8):
            o = p * 128
            if self.buf[o:o + 128] != self.shadow[o:o + 128]:
                n += 1
        self.last_pages = n
        self.shadow[:] = self.buf

    def show_spans(self, spans):
        self.shows += 1
        n = 0
        buf = self.buf
        sh = self.shadow
        widths = self.last_widths
        del widths[:]
        for p in range(8):
            x0 = spans[2 * p]
            x1 = spans[2 * p + 1]
            o = p * 128
            if x0 <= x1:
                n += 1
                widths.append(x1 - x0 + 1)
            if self.check:
                for x in range(128):
                    if buf[o + x] != sh[o + x] and not (x0 <= x <= x1):
                        self.span_errors += 1
            if x0 <= x1:
                sh[o + x0:o + x1 + 1] = buf[o + x0:o + x1 + 1]
        self.last_pages = n
        if self.check:
            for i in range(1024):
                if buf[i] != sh[i]:
                    self.span_errors += 1
                    sh[i] = buf[i]


class LogSound:
    def __init__(self, keep=True):
        self.keep = keep
        self.played = []
        self.count = 0

    def play(self, tune):
        self.count += 1
        if self.keep:
            self.played.append(tune[0])


class MemoryStorage:
    """A dict kept as JSON text, as a file would be."""

    def __init__(self, text=None):
        self.text = text
        self.saves = 0
        self.message = None

    def load(self):
        if self.text is None:
            return None
        return json.loads(self.text)

    def save(self, d):
        self.text = json.dumps(d)
        self.saves += 1


class BotHand:
    """A scripted 'human': a CPU player whose presses come in through the input port
    (with releases), exactly as a person's IRQ-stamped buttons would."""

    def __init__(self, app, player, level, seed, inp, hold_us=60000):
        self.app = app
        self.player = player
        self.level = level
        self.seed = seed
        self.inp = inp
        self.hold_us = hold_us
        self.bot = None
        self.game = None
        self.presses = 0
        self._signal = None           # the slap signal (R44) it has seen: (round, time)

    def pump(self, now):
        app = self.app
        if app.screen != 1 or app.game is None:       # firmware.app.GAME
            self.bot = None
            return
        if self.bot is None or self.game is not app.game:
            self.game = app.game
            self.bot = Bot(self.player, self.level, self.seed + self.presses)
            self.bot.awaits_signal = app.conduct.signal
        p = self.player
        self.bot.observe(app.game, now, app.pads[p].cursor)
        tb = app.table
        if tb.signal_t is not None and tb.signalled:
            seen = (app.game.round, tb.signal_t)
            if seen != self._signal:
                # Shown on the screen at the last step: it reacts from there, as a
                # person sees the pixels.
                self._signal = seen
                self.bot.signal(app.now)
        while True:
            press = self.bot.next_press(now)
            if press is None:
                return
            self.presses += 1
            self.inp.press(press[0], p, press[1], self.hold_us)

    def pause_bot(self):
        self.bot = None


def run(app, clock, frames, hands=(), until=None, frame_us=FRAME_US):
    """Step the app `frames` times (or until until(app) is true); returns frames run."""
    n = 0
    while n < frames:
        now = clock.advance(frame_us)
        for h in hands:
            h.pump(now)
        app.step(now)
        n += 1
        if until is not None and until(app):
            break
    return n


def press_menu(app, clock, inp, buttons, player=0, gap_us=150000):
    """Press buttons one after another on the menus, stepping the app between."""
    for b in buttons:
        t = clock.advance(gap_us)
        inp.press(t, player, b, 40000)
        app.step(clock.now)
        run(app, clock, 3)


class Rig:
    """An app on fake ports with its clock, input, display, sound and storage, for
    tests and tools: rig.frames(n), rig.tap(player, button), rig.menu([...])."""

    def __init__(self, framebuf_module, storage=None, start=0, check=True, display=None,
                 inp=None, **app_kw):
        from firmware.app import App, Ports
        self.clock = SimClock(start)
        self.inp = inp if inp is not None else ScriptInput(self.clock)
        self.disp = display if display is not None else FrameDisplay(framebuf_module, check)
        self.sound = LogSound()
        self.storage = storage if storage is not None else MemoryStorage()
        self.app = App(Ports(self.inp, self.disp, self.sound, self.storage),
                       now_us=self.clock.now, **app_kw)
        self.hands = []

    def frames(self, n=1, until=None):
        return run(self.app, self.clock, n, self.hands, until)

    def until(self, cond, limit=200000):
        n = run(self.app, self.clock, limit, self.hands, cond)
        if not cond(self.app):
            raise AssertionError("condition not reached in %d frames" % limit)
        return n

    def tap(self, player, button, after_us=1000, hold_us=40000, frames=1):
        """Press (and release) a button after_us from now, then step `frames` frames."""
        t = ticks_add(self.clock.now, after_us)
        self.inp.press(t, player, button, hold_us)
        return self.frames(frames)

    def menu(self, buttons, player=0):
        press_menu(self.app, self.clock, self.inp, buttons, player)

    def add_bots(self, levels=("hard", "hard"), seed=1, players=(0, 1)):
        for p in players:
            self.hands.append(BotHand(self.app, p, levels[p], seed * 2 + p, self.inp))
        return self.hands
