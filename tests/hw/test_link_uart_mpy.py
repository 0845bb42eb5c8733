"""The link's UART port and start-bit watcher (firmware/hw/link_uart.py) under the real
MicroPython interpreter, and under CPython: tests/mp/link_uart_driver.py drives them on a
fake `machine` and `rp2` and prints one `RESULT <json>` line per case; the two
interpreters must give the same results. The watcher's handler runs with the heap locked
under MicroPython, as a hard interrupt does, so any allocation in it raises MemoryError."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.mp

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "tests" / "mp" / "link_uart_driver.py"
MICROPYTHON = Path(sys.executable).parent / "micropython"
PERIOD = 1 << 30


def _run(cmd, env):
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, "driver failed (%d)\nstdout:\n%s\nstderr:\n%s" % (
        p.returncode, p.stdout, p.stderr)
    results = {}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[len("RESULT "):])
            results[r["case"]] = r
    assert set(results) == {"frame_sizes", "handler"}, p.stdout + p.stderr
    return results


@pytest.fixture(scope="module")
def mp_results():
    if not MICROPYTHON.exists():
        pytest.skip("MicroPython unix binary not found at %s (run `make setup`)" % MICROPYTHON)
    env = dict(os.environ, MICROPYPATH=str(ROOT))
    return _run([str(MICROPYTHON), "-X", "heapsize=150K", str(DRIVER)], env)


@pytest.fixture(scope="module")
def cp_results():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return _run([sys.executable, str(DRIVER)], env)


@pytest.fixture(params=["micropython", "cpython"])
def res(request):
    return request.getfixturevalue("mp_results" if request.param == "micropython" else "cp_results")


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
