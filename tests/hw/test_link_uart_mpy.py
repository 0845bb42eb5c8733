"""The link's UART port and start-bit watcher (firmware/hw/link_uart.py) under the real
MicroPython interpreter, and under CPython: tests/mp/link_uart_driver.py drives them on a
fake `machine` and `rp2` and prints one `RESULT <json>` line per case; the two
interpreters must give the same results. The watcher's handler runs with the heap locked
under MicroPython, as a hard interrupt does, so any allocation in it raises MemoryError."""
import pytest

from tests.helpers import ROOT, driver_fixtures

pytestmark = pytest.mark.mp

DRIVER = ROOT / "tests" / "mp" / "link_uart_driver.py"
PERIOD = 1 << 30


mp_results, cp_results, res = driver_fixtures(DRIVER)


def test_a_whole_buffer_fits_an_idle_line_and_one_byte_more_never(res):
    r = res["frame_sizes"]
    assert r["writes"] == [1024, 0, 0, 1023]
    assert r["dropped"] == 2 and r["sent"] == 2047 and r["byte_us"] == 10


def test_the_handler_stamps_wraps_and_drops_with_the_heap_locked(res):
    r = res["handler"]
    assert r["errors"] == 0 and r["handler"]
    assert r["first"] == [[PERIOD - 40 + k, "RX" if k % 2 else "TX"] for k in range(20)]
    # 40 interrupts with a start on both lines: the ring keeps the oldest 31.
    kept = [[3 * k, line] for k in range(16) for line in ("TX", "RX")][:31]
    assert r["second"] == kept
    assert r["dropped"] == 80 - 31
    assert r["words_left"] == [0, 0]           # every word taken, kept or not


def test_micropython_and_cpython_agree(mp_results, cp_results):
    assert mp_results == cp_results
