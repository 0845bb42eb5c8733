"""The captures' default clock (firmware/hw/capture.py) on each kind of port, with the
port's `time` module replaced by a fake whose readings the test chooses.

The capture stamps with the project's clock port: microseconds wrapping at 2**30. Which
clock it takes depends on the port: the device's own ticks_us (period 2**30), the unix
port's wider ticks folded to 2**30, or CPython's perf_counter. A test on the real clock
cannot pin the fold: a stamp read from the capture's ring (a 32-bit array, which
MicroPython fills with the low bits of any int) hides an off fold for a quarter of every
hour of the machine's uptime. Fixed readings can: each case loads a fresh copy of the
module with a fake `time` in sys.modules, so no other test sees it.
"""

import importlib.util
import sys
import types
from pathlib import Path

from shared_rules.arbiter import ticks_add as shared_ticks_add
from shared_rules.arbiter import ticks_diff as shared_ticks_diff

SOURCE = Path(__file__).resolve().parents[2] / "firmware" / "hw" / "capture.py"
PERIOD = 1 << 30


def load_capture_with(fake_time, monkeypatch):
    monkeypatch.setitem(sys.modules, "time", fake_time)
    spec = importlib.util.spec_from_file_location("capture_on_a_fake_port", SOURCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unix_port_time(readings):
    """The 64-bit unix port: ticks wrap at 2**62."""
    fake = types.ModuleType("time")
    wide = (1 << 62) - 1
    fake.ticks_add = lambda a, b: (a + b) & wide
    fake.ticks_us = lambda: readings.pop(0)
    fake.ticks_diff = lambda a, b: "the unix port's own ticks_diff"
    return fake


def test_the_unix_ports_wider_ticks_fold_to_2_pow_30(monkeypatch):
    readings = [0, 5, PERIOD - 1, PERIOD, PERIOD + 7, (1 << 40) + 123, (1 << 62) - 1]
    capture = load_capture_with(unix_port_time(list(readings)), monkeypatch)
    stamps = [capture.ticks_us() for _ in readings]
    assert stamps == [0, 5, PERIOD - 1, 0, 7, 123, PERIOD - 1]
    # ... and compared with the 2**30 arithmetic, not the port's 2**62 one.
    assert capture.ticks_diff is shared_ticks_diff
    assert capture.ticks_diff(3, PERIOD - 2) == 5
    # Sums too: the capture's stamps plus a lock-out wrap at 2**30 (and the shared
    # arithmetic never makes an int of 2**30 or more on the way).
    assert capture.ticks_add is shared_ticks_add
    assert capture.ticks_add(PERIOD - 2, 10_002) == 10_000


def test_the_devices_ticks_are_used_as_they_are(monkeypatch):
    fake = types.ModuleType("time")
    fake.ticks_add = lambda a, b: (a + b) & (PERIOD - 1)
    fake.ticks_us = lambda: 12345
    fake.ticks_diff = lambda a, b: "the device's own ticks_diff"
    capture = load_capture_with(fake, monkeypatch)
    assert capture.ticks_us is fake.ticks_us
    assert capture.ticks_diff is fake.ticks_diff
    # The device's own ticks_add (C: it allocates nothing near the wrap, where a + b
    # would be a heap int in an interrupt handler).
    assert capture.ticks_add is fake.ticks_add


def test_cpython_stamps_perf_counter_microseconds_folded_to_2_pow_30(monkeypatch):
    readings = [0, 999, 1000, 7_654_321, (PERIOD - 1) * 1000 + 999, PERIOD * 1000,
                ((1 << 40) + 42) * 1000 + 500]
    fake = types.ModuleType("time")   # no ticks_add: CPython
    fake.perf_counter_ns = lambda: readings.pop(0)
    capture = load_capture_with(fake, monkeypatch)
    stamps = [capture.ticks_us() for _ in range(7)]
    assert stamps == [0, 0, 1, 7654, PERIOD - 1, 0, 42]
    assert capture.ticks_diff is shared_ticks_diff
    assert capture.ticks_add is shared_ticks_add
