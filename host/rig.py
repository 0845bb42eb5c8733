# An app on simulated ports, for the tests (CPython) and tools/firmware_sim.py and
# tools/bench_firmware.py (the real MicroPython binary): Rig builds it, run() and
# press_menu() step it at the device's frame rate, and BotHand is a CPU player pressing
# through the input port as a person's IRQ-stamped buttons would. Runs unchanged on
# CPython and MicroPython; the framebuf module is passed in.

from shared_rules.arbiter import ticks_add
from shared_rules.bot import Bot
from firmware.app import FRAME_US
from host.clock import SimClock
from host.ports import ScriptInput, FrameInput, Panel, LogSound, MemoryStorage

# The names the tests and tools know these by.
ReplayInput = FrameInput


def FrameDisplay(framebuf_module, check=True):
    """The display port of a test: a Panel that checks every show's spans."""
    return Panel(framebuf_module, check)


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
