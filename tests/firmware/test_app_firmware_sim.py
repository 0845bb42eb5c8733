"""`make firmware-sim`: one whole game of the firmware app under the real MicroPython
interpreter (the 64-bit unix port, with tools/firmware_sim.py's heap), real framebuf,
simulated clock and buttons; its last line names the winner, rounds, frames and the
peak live heap."""
import re
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT, MICROPYTHON

pytestmark = pytest.mark.mp

sys.path.insert(0, str(ROOT / "tools"))
try:
    import firmware_sim
finally:
    sys.path.pop(0)

LAST = re.compile(r"^game over: winner=(0|1|draw) rounds=(\d+) frames=(\d+) peak_heap=(\d+)$")


def _last_line(out):
    lines = [ln for ln in out.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


@pytest.mark.skipif(not MICROPYTHON.exists(), reason="no micropython binary")
def test_make_firmware_sim():
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    p = subprocess.run(["make", "-s", "firmware-sim"], cwd=str(ROOT), capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    m = LAST.match(_last_line(p.stdout))
    assert m, p.stdout
    rounds, frames, peak = int(m.group(2)), int(m.group(3)), int(m.group(4))
    assert rounds >= 1 and frames > 100
    assert firmware_sim.HEAP.endswith("K")
    assert 0 < peak < int(firmware_sim.HEAP[:-1]) * 1024
    assert "span_errors=0" in p.stdout


@pytest.mark.skipif(not MICROPYTHON.exists(), reason="no micropython binary")
@pytest.mark.parametrize("args", [["--seed", "4", "--points", "--level", "1"],
                                  ["--seed", "9", "--flip", "--level", "2"]])
def test_firmware_sim_other_games(args):
    p = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "tools/firmware_sim.py"] + args,
                       cwd=str(ROOT), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert LAST.match(_last_line(p.stdout)), p.stdout


@pytest.mark.skipif(not MICROPYTHON.exists(), reason="no micropython binary")
def test_r40_a_recording_larger_than_the_heaps_limit_is_kept_whole_on_flash():
    # With a 4 KB limit on what the heap may hold, the whole game is still recorded:
    # between rounds the device's storage port takes the full chunks to a file.
    p = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "tools/firmware_sim.py",
                        "--seed", "9", "--flip", "--level", "2", "--record-limit", "4096"],
                       cwd=str(ROOT), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert LAST.match(_last_line(p.stdout)), p.stdout
    fields = dict(kv.split("=") for kv in p.stdout.split() if kv.startswith("replay_"))
    assert int(fields["replay_lost"]) == 0
    assert int(fields["replay_bytes"]) <= 4096 < int(fields["replay_flash"])
