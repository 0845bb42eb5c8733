"""The computer's tools against a board that is running the game: the real mpremote
(what `make repl`, `make deploy` and `make device-test` use) talks to the emulated Pico
through a pseudo-terminal, exactly as to /dev/ttyACM0.

The game runs a watchdog; on rp2 machine.WDT cannot be stopped and survives Ctrl-C and
a soft reset, so before the firmware switched it off on Ctrl-C every tool that
interrupted the game saw the board reset four seconds later."""
import subprocess
import sys
import time

import pytest

from desktop_emulator.pico.device import Pico, S
from desktop_emulator.pico.serial_port import SerialPort
from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import deploy  # noqa: E402
sys.path.pop(0)

BUTTONS = (2, 3, 14, 15)
# The self-test's table and the left of its bottom line ("PIO DROP 0"); the right end
# shows the jumper timing check, timed by the board (tests/pico/test_pico_buttons.py).
TABLE = 896 + 40
MPREMOTE = [sys.executable, "-m", "mpremote"]

pytestmark = [pytest.mark.pico,
              pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")]


def game_board(fw, files, extra=None):
    pico = Pico(fw, files=files, extra=extra, buttons=BUTTONS)
    pico.boot()
    return pico


def test_repl_tools_on_a_board_running_the_game(pico_firmware, pico_files):
    with game_board(pico_firmware, pico_files) as pico:
        pico.read_until(b"spit: screen=title", guest_ms=3000, what="the game")
        with SerialPort(pico) as port:
            r = subprocess.run(MPREMOTE + ["connect", port.name, "exec",
                                           "import os; print(sorted(os.listdir()))"],
                               capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, r.stderr
            assert r.stdout.strip() == "['firmware', 'lib', 'main.py', 'shared_rules']"
            with port.lock:
                t_repl = pico.t_ns
        # Five seconds of guest time at the REPL: a watchdog still running would have
        # reset the board four seconds after the game stopped.
        pico.run_to(t_repl + 5 * S)
        assert [why for _t, why in pico.resets] == ["power"]


def test_self_test_runs_through_mpremote_on_a_running_board(pico_firmware, pico_files):
    from tests.pico.test_pico_board import FakeCapture, FakeDisplay
    from firmware.selftest import SelfTest
    table = FakeDisplay()                  # what the self-test shows: every button up
    t = SelfTest(table, FakeCapture([False] * 4, [0] * 4), None, 0)
    t.step(0)
    t.step(2_000_000)
    with game_board(pico_firmware, pico_files) as pico:
        pico.read_until(b"spit: screen=title", guest_ms=3000, what="the game")
        with SerialPort(pico) as port:
            with port.lock:
                t0 = pico.t_ns
            proc = subprocess.Popen(MPREMOTE + ["connect", port.name, "run",
                                                str(ROOT / "firmware" / "selftest.py")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                end = time.monotonic() + 120
                while time.monotonic() < end:
                    with port.lock:
                        up = pico.t_ns - t0
                        ram = bytes(pico.oled.ram)
                    if up > 6 * S and ram[:TABLE] == bytes(table.buf)[:TABLE]:
                        break
                    time.sleep(0.2)
            finally:
                proc.kill()
                proc.wait()
        assert ram[:TABLE] == bytes(table.buf)[:TABLE]   # the self-test's live table
        assert up > 6 * S                       # still running after the watchdog's 4 s
        assert [why for _t, why in pico.resets] == ["power"]


def test_deploy_replaces_the_files_of_a_running_board(pico_firmware, pico_files):
    # A board from an older version: a stale firmware/app.py shadows the new app.mpy
    # (MicroPython imports .py first) and an old module is left over.
    stale = {"firmware/app.py": b"raise ImportError('stale app.py')\n",
             "shared_rules/old_module.mpy": b"M\x06"}
    with game_board(pico_firmware, pico_files, extra=stale) as pico:
        pico.read_until(b"stale app.py", guest_ms=3000, what="the stale module's error")
        with SerialPort(pico) as port:
            r = subprocess.run([sys.executable, str(ROOT / "tools" / "deploy.py"),
                                "--port", port.name], capture_output=True, text=True,
                               timeout=900)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "SSD1306 driver present" in r.stdout and "mip" not in r.stdout
        assert "2 stale to remove" in r.stdout
        pico.read_until(b"spit: screen=title", guest_ms=3000, what="the new version")
        assert [why for _t, why in pico.resets] == ["power", "reset"]
        files = pico.files_on_flash()
    build = {k: v.read_bytes() for k, v in deploy.devicefiles.build(
        ROOT / "build" / "device", driver=None).items()}
    for name, data in build.items():
        assert files.get(name) == data, name
    assert "firmware/app.py" not in files and "shared_rules/old_module.mpy" not in files
    assert "lib/ssd1306.mpy" in files


def test_the_deploy_plan():
    build = {"firmware/app.mpy": 0, "shared_rules/game.mpy": 0, "main.py": 0}
    board = {"firmware/app.mpy": 9, "firmware/app.py": 9, "firmware/gone.mpy": 9,
             "lib/ssd1306.mpy": 9, "spit.json": 9, "notes.txt": 9}
    install, remove, copy = deploy.plan(board, build)
    assert not install
    assert remove == ["firmware/app.py", "firmware/gone.mpy"]   # never the saves, notes
    assert copy == sorted(build)
    assert deploy.plan({"main.py": 1}, build)[0]                  # no driver: install it
    assert not deploy.plan({"ssd1306.py": 1}, build)[0]


def test_deploy_to_a_missing_port_says_so_in_one_line(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "deploy.py"), "--port",
                        str(tmp_path / "ttyNONE")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("deploy: ")
    # No board at all is likelier than a port held by another program: said first.
    line = err[0]
    assert "plugged in" in line and "charge-only cable" in line
    assert line.index("plugged in") < line.index("another program")


def test_no_board_found_names_the_cable_before_anything_else():
    line = deploy.no_board("", "mpremote: no device found")
    assert "plugged in" in line and "charge-only" in line and "PORT=" in line
    assert deploy.no_board("COM3", "mpremote: failed to access COM3 (it may be in use by "
                                   "another program)").startswith("cannot open COM3: is the Pico")
    assert deploy.no_board("COM3", "mpremote: could not enter raw repl") is None


def test_bench_gc_sees_the_collectors_mark_stack_overflow(pico_firmware, pico_files_no_main):
    # docs/BENCHMARKS.md's account of the 23-29 ms collections rests on this: on the
    # stock image, one object with more fresh children than the collector's mark stack
    # holds makes the whole live heap be scanned again. A changed image (a bigger
    # stack, another collector) would show it here, and the account would need redoing.
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_gc
    rows = dict((int(n), us) for n, _live, us in
                bench_gc.measure(pico_firmware, pico_files_no_main, "_widths((32, 62, 66, 100))"))
    assert sorted(rows) == [32, 62, 66, 100]
    assert rows[62] < 1.2 * rows[32]             # narrow: the pause follows the live heap
    assert rows[66] > 2 * rows[62]               # one more wide list: the heap again
    assert rows[100] < 1.2 * rows[66]            # however wide: once more, not per child
