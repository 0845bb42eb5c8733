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
    # one window command and one data write a page: page 0 (x 100-102), page 6 (x 10-17)
    assert disp.startswith("RESULT display cmd:0 33 100 102 34 0 0,data:64 ")
    assert ",cmd:0 33 10 17 34 6 6,data:64 " in disp
    assert "ok=True pages=2 bytes=11" in disp
    # buzzer: 440 Hz at once, a rest after 10 ms, 880 Hz after 5 more, silence at the end
    assert buz == "RESULT buzzer d0,f440,d32768,d0,f880,d32768,d0"
    assert sto.startswith("RESULT storage True None SAVED DATA CORRUPT")


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
    from firmware import main
    from firmware.boards import pico
    pins, scheme = main.button_pins()
    assert pins == pico.BUTTONS and scheme == 2
    pico.ACTIVE_BUTTONS = pico.BUTTONS_SIX
    try:
        pins, scheme = main.button_pins()
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
            "firmware.hw.buttons_pio, firmware.hw.jumper, "
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

    class PWM:
        def __init__(self, log):
            self.log = log

        def freq(self, f):
            self.log.append(("freq", f))

        def duty_u16(self, d):
            self.log.append(("duty", d))

    class Machine:
        def __init__(self):
            self.log = []

        def Pin(self, n):
            return n

        def PWM(self, pin):
            return PWM(self.log)

    m = Machine()
    b = Buzzer(16, m)
    b.play(("typo", 440, 10, 880))
    for now in (0, 10_000, 20_000):
        b.step(now)
    assert b.tune is None
    assert m.log == [("duty", 0), ("freq", 440), ("duty", 32768), ("duty", 0)]
