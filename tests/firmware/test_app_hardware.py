"""The hardware layer without hardware: the display port sends exactly the drawn
columns of each page, the buzzer steps through a tune without blocking, storage works
on the real filesystem, identically under CPython and MicroPython; the self-test and
the boot helpers run on fakes; no module sets up hardware when imported."""
import subprocess
import sys

import pytest

from desktop_emulator import framebuf
from firmware import sound
from tests.helpers import ROOT, MICROPYTHON, run_micropython

SCRIPT = ROOT / "tests" / "mp" / "fw_hw.py"


def results(out):
    return [line for line in out.splitlines() if line.startswith("RESULT")]


def test_hw_layer_under_cpython(tmp_path):
    p = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True,
                       text=True, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stdout + p.stderr
    lines = results(p.stdout)
    disp, buz, sto = lines
    # one window command and one data write a page: page 6 (x 10-17), then page 0
    # (x 100-102): player 0's band goes with player 1's (pages 6 and 1) before 7 and 0
    assert disp.startswith("RESULT display cmd:0 33 10 17 34 6 6,data:64 ")
    assert ",cmd:0 33 100 102 34 0 0,data:64 " in disp
    assert "ok=True pages=2 bytes=11" in disp
    # buzzer: 440 Hz at once, a rest after 10 ms, 880 Hz after 5 more, silence at the end
    assert buz == "RESULT buzzer d0,f440,d32768,d0,f880,d32768,d0"
    assert sto.startswith("RESULT storage True None SAVED DATA CORRUPT")


@pytest.mark.mp
def test_hw_layer_is_the_same_under_micropython(tmp_path):
    if not MICROPYTHON.exists():
        pytest.skip("no micropython binary")
    (tmp_path / "mp").mkdir()
    mp = run_micropython(SCRIPT, str(tmp_path / "mp"), heap="512K")
    cp = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True,
                        text=True, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert mp.returncode == 0, mp.stdout + mp.stderr
    assert results(mp.stdout) == results(cp.stdout)


def test_tunes_are_well_formed_and_distinct():
    names = set()
    for t in sound.ALL:
        assert isinstance(t[0], str) and t[0] not in names
        names.add(t[0])
        assert len(t) % 2 == 1 and len(t) >= 3
        for f, ms in sound.notes(t):
            assert f == 0 or 100 <= f <= 5000
            assert 5 <= ms <= 500
        assert sound.length_ms(t) <= 1000
        assert t[0] in sound.PRIORITY
    # an illegal press and a lost race never sound alike
    assert sound.notes(sound.ILLEGAL) != sound.notes(sound.LOST)


class FakeCapture:
    def __init__(self):
        self.n = 4
        self.players = (0, 0, 1, 1)
        self.names = ("A", "B", "A", "B")
        self.gpios = (2, 3, 14, 15)
        self.presses = [0, 0, 0, 0]
        self.bounces = [0, 0, 0, 0]
        self.dropped = 0
        self.down = [False] * 4

    def drain(self, out=None):
        return out if out is not None else []

    def is_down(self, i):
        return self.down[i]


class FakeDisp:
    def __init__(self):
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.shows = 0

    def show(self):
        self.shows += 1


class FakeBuzzer:
    def __init__(self):
        self.beeps = 0

    def beep(self, freq=2000, ms=120):
        self.beeps += 1

    def play(self, t):
        self.beeps += 1

    def step(self, now):
        pass


def test_selftest_shows_pattern_then_live_buttons():
    from firmware.selftest import SelfTest, PATTERN_US
    cap = FakeCapture()
    d = FakeDisp()
    bz = FakeBuzzer()
    st = SelfTest(d, cap, bz, now_us=0)
    st.step(1000)
    assert d.shows == 1 and bz.beeps == 1 and any(d.buf)
    pattern = bytes(d.buf)
    st.step(PATTERN_US + 1000)
    assert d.shows == 2 and bytes(d.buf) != pattern
    st.step(PATTERN_US + 2000)
    assert d.shows == 2                          # nothing changed: no redraw
    cap.down[2] = True
    cap.presses[2] = 1
    cap.bounces[2] = 3
    st.step(PATTERN_US + 3000)
    assert d.shows == 3
    assert bz.beeps == 2                         # a click for each new press


def test_main_picks_the_buttons_and_scheme_from_the_board():
    from firmware.hw import board
    from firmware.boards import pico
    pins, scheme = board.button_pins()
    assert pins == pico.BUTTONS and scheme == 2
    pico.ACTIVE_BUTTONS = pico.BUTTONS_SIX
    try:
        pins, scheme = board.button_pins()
        assert scheme == 6 and len(pins) == 12
    finally:
        del pico.ACTIVE_BUTTONS


def test_main_loop_check_rearms_the_input_irq_and_reports_it(capsys):
    from firmware import main

    class Input:
        kind = "gpio"
        errors = 0
        rearmed = 0
        checks = 0

        def check(self):
            self.checks += 1
            if self.checks == 2:                 # the IRQ was found switched off
                self.rearmed += 1
                return 1
            return 0

    inp = Input()
    seen = [0, 0]
    assert main.check_input(inp, seen, True) is False
    assert main.check_input(inp, seen, True) is True
    assert capsys.readouterr().out == "spit: input gpio errors=0 rearmed=1\n"
    inp.errors = 3                               # the handler caught exceptions
    assert main.check_input(inp, seen, True) is True
    assert "errors=3 rearmed=1" in capsys.readouterr().out
    assert main.check_input(inp, seen, True) is False and seen == [3, 1]


def test_the_jumper_signal_drives_low_between_two_timer_reads():
    # firmware.hw.jumper: the self-test's known signal. The line is only ever driven low
    # (output enable on, output latch low) or let go, and the timer is read just before
    # and just after the write, with interrupts off.
    from firmware.hw.jumper import JumperSignal
    log = []

    class Mem:
        t = [(1 << 30) + 500]                    # TIMERAWL past 2**30: masked to ticks

        def __getitem__(self, addr):
            assert addr == 0x40054028
            log.append(("read", self.t[0]))
            self.t[0] += 3
            return self.t[0]

        def __setitem__(self, addr, value):
            log.append(("write", hex(addr), value))

    class Machine:
        mem32 = Mem()
        irq_off = 0

        class Pin:
            IN = 0

            def __init__(self, gpio, mode):
                log.append(("pin", gpio, mode))

        @classmethod
        def disable_irq(cls):
            cls.irq_off += 1
            return 1

        @classmethod
        def enable_irq(cls, s):
            cls.irq_off -= 1

    sig = JumperSignal(Machine, 22)
    assert log == [("pin", 22, 0), ("write", "0xd0000018", 1 << 22)]   # latch low, input
    del log[:]
    a, b = sig.drive()
    assert log == [("read", (1 << 30) + 500), ("write", "0xd0000024", 1 << 22),
                   ("read", (1 << 30) + 503)]
    assert (a, b) == (503, 506) and Machine.irq_off == 0
    sig.release()
    assert log[-1] == ("write", "0xd0000028", 1 << 22)
    assert JumperSignal(Machine, 5, "RP2350")._timer == 0x400B0028


def test_importing_the_device_modules_touches_no_hardware():
    # `machine` does not exist on CPython: importing these must not need it.
    code = ("import firmware.main, firmware.selftest, firmware.hw.display, "
            "firmware.hw.buzzer, firmware.hw.storage, firmware.hw.buttons, "
            "firmware.hw.buttons_pio, firmware.hw.capture, firmware.hw.board, "
            "firmware.hw.jumper, "
            "firmware.app, firmware.view; print('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert p.stdout.strip() == "ok", p.stderr


def test_app_modules_do_not_import_hardware_or_desktop_modules():
    import re
    for path in (ROOT / "firmware").glob("*.py"):
        if path.name in ("main.py", "selftest.py"):
            continue
        text = path.read_text()
        for mod in ("machine", "framebuf", "rp2", "pygame", "time", "desktop_emulator",
                    "typing", "dataclasses", "enum", "abc", "random", "itertools", "functools"):
            assert not re.search(r"^\s*(import|from)\s+%s\b" % mod, text, re.M), (path.name, mod)


def test_display_without_a_driver_builds_the_ssd1306_128x64_at_0x3c(monkeypatch):
    # On the device Display(i2c) loads micropython-lib's ssd1306 driver itself.
    import types

    from firmware.hw.display import Display
    made = []

    class FakeSSD1306(framebuf.FrameBuffer):
        def __init__(self, width, height, i2c, addr):
            made.append((width, height, i2c, addr))
            self.buffer = bytearray(width * height // 8)
            super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)
            self.shown = 0

        def show(self):
            self.shown += 1

    monkeypatch.setitem(sys.modules, "ssd1306", types.SimpleNamespace(SSD1306_I2C=FakeSSD1306))
    d = Display("i2c-bus", framebuf_module=framebuf)
    assert made[0] == (128, 64, "i2c-bus", 0x3C)
    assert d.width == 128 and d.pages == 8 and d.ok
    # The app draws into the port's own buffer (kept whatever happens to the driver),
    # and the driver's own set-up is the only clear: no second full frame is sent.
    assert d.fb is not d.oled and len(d.buffer) == 1024 and d.oled.shown == 0


def test_buzzer_ends_a_tune_with_a_frequency_but_no_duration_quietly():
    # A tune is (name, freq, ms, freq, ms, ...); a last frequency without its duration
    # (a typo in a tune table) ends the tune instead of raising in the main loop.
    from firmware.hw.buzzer import Buzzer

    m = _BuzzerMachine()
    b = Buzzer(16, m)
    b.play(("typo", 440, 10, 880))
    for now in (0, 10_000, 20_000):
        b.step(now)
    assert b.tune is None
    assert m.log == [("duty", 0), ("freq", 440), ("duty", 32768), ("duty", 0)]


class _BuzzerMachine:
    """machine for the buzzer: a PWM that logs what the pin does; with `timer`, a
    machine.Timer whose one-shot the test fires by hand (callback)."""

    def __init__(self, timer=False):
        self.log = []
        self.timers = []
        log = self.log
        timers = self.timers

        class PWM:
            def __init__(self, pin):
                pass

            def freq(self, f):
                log.append(("freq", f))

            def duty_u16(self, d):
                log.append(("duty", d))

        class Timer:
            ONE_SHOT = 0
            PERIODIC = 1

            def __init__(self):
                self.armed = None            # (mode, period_ms, callback) or None
                timers.append(self)

            def init(self, mode, period, callback):
                self.armed = (mode, period, callback)

            def deinit(self):
                self.armed = None

        self.PWM = PWM
        if timer:
            self.Timer = Timer

    def Pin(self, n):
        return n

    def sounding(self):
        """The frequency the piezo sounds now (0: silent)."""
        f = duty = 0
        for k, v in self.log:
            if k == "freq":
                f = v
            else:
                duty = v
        return f if duty else 0


def test_buzzer_a_new_tune_starts_at_once_even_in_the_middle_of_a_note():
    # Stepped from the main loop (no machine.Timer): play() replaces the tune and the
    # next step starts its first note then, not when the old note would have ended.
    from firmware.hw.buzzer import Buzzer
    m = _BuzzerMachine()
    b = Buzzer(16, m)
    b.play(("long", 440, 100))
    b.step(1_000_000)
    assert m.sounding() == 440
    b.step(1_050_000)
    assert m.sounding() == 440
    b.play(("short", 880, 10))
    b.step(1_050_001)                             # 50 ms before the long note's end
    assert m.sounding() == 880


def test_buzzer_stepped_notes_last_their_length_to_the_microsecond():
    # A note starts at the step that starts it and lasts exactly its ms, whatever the
    # clock read before the tune was played.
    from firmware.hw.buzzer import Buzzer
    m = _BuzzerMachine()
    b = Buzzer(16, m)
    start = (1 << 30) - 4000                      # across the ticks wrap too
    b.play(("t", 440, 10, 880, 7))
    b.step(start)
    assert m.sounding() == 440
    b.step((start + 9_999) % (1 << 30))
    assert m.sounding() == 440                    # 1 µs before the note's end
    b.step((start + 10_000) % (1 << 30))
    assert m.sounding() == 880
    b.step((start + 16_999) % (1 << 30))
    assert m.sounding() == 880 and b.tune is not None
    b.step((start + 17_000) % (1 << 30))
    assert m.sounding() == 0 and b.tune is None


def test_buzzer_with_a_timer_starts_each_note_when_its_one_shot_fires(monkeypatch):
    # With machine.Timer the first note starts in play() and each next one when the
    # one-shot timer (period = the note's ms) calls back; the end of the tune silences
    # the pin and stops the timer. The main loop's step() then does nothing.
    import firmware.hw.buzzer as buzzer
    now = [5_000]
    monkeypatch.setattr(buzzer, "ticks_us", lambda: now[0])
    m = _BuzzerMachine(timer=True)
    b = buzzer.Buzzer(16, m)
    timer = m.timers[0]
    b.play(("t", 440, 10, 0, 5, 880, 20))
    assert m.sounding() == 440
    mode, period, callback = timer.armed
    assert mode == timer.ONE_SHOT and period == 10
    b.step(now[0] + 12_000)                       # the loop's step: not its job here
    assert m.sounding() == 440
    now[0] = 15_000
    callback(timer)
    assert m.sounding() == 0 and timer.armed[1] == 5 and b.tune is not None    # the rest
    now[0] = 20_000
    timer.armed[2](timer)
    assert m.sounding() == 880 and timer.armed[1] == 20
    now[0] = 40_000
    timer.armed[2](timer)
    assert m.sounding() == 0 and b.tune is None and timer.armed is None


def test_buzzer_skips_a_stale_timer_callback_of_a_replaced_tune(monkeypatch):
    # A callback fired more than _EARLY_US (1 ms) before its note's end belongs to a
    # note play() has since replaced: it is skipped. One fired within 1 ms of the end
    # (a timer a little early) starts the next note, timed from the note's exact end.
    import firmware.hw.buzzer as buzzer
    now = [0]
    monkeypatch.setattr(buzzer, "ticks_us", lambda: now[0])
    m = _BuzzerMachine(timer=True)
    b = buzzer.Buzzer(16, m)
    timer = m.timers[0]
    b.play(("old", 440, 100))
    old_callback = timer.armed[2]
    now[0] = 20_000
    b.play(("new", 880, 10, 660, 10))             # the new first note ends at 30 ms
    now[0] = 21_000
    old_callback(timer)                           # queued by the old tune: stale
    assert m.sounding() == 880
    now[0] = 28_999
    old_callback(timer)                           # 1,001 µs early: still stale
    assert m.sounding() == 880
    now[0] = 29_000
    timer.armed[2](timer)                         # exactly 1 ms early: the next note
    assert m.sounding() == 660
    now[0] = 38_990
    timer.armed[2](timer)                         # it ends at 40 ms (30 + 10), not at 39
    assert m.sounding() == 660
    now[0] = 39_500
    timer.armed[2](timer)
    assert m.sounding() == 0 and b.tune is None


def test_buzzer_beep_is_2000_hz_for_120_ms():
    from firmware.hw.buzzer import Buzzer
    m = _BuzzerMachine()
    b = Buzzer(16, m)
    b.beep()
    assert b.tune == ("beep", 2000, 120)
    b.step(0)
    assert m.sounding() == 2000


def test_buzzer_counts_the_tunes_it_was_asked_to_play():
    from firmware.hw.buzzer import Buzzer
    m = _BuzzerMachine()
    b = Buzzer(16, m)
    assert b.played == 0 and m.sounding() == 0
    b.play(("one", 440, 10))
    b.beep()
    assert b.played == 2
