"""`make firmware-sim`: one whole game of the firmware app under the real MicroPython
interpreter with the device's heap (150K), real framebuf, simulated clock and buttons;
its last line names the winner, rounds, frames and the peak live heap."""
import re
import shutil
import subprocess

import pytest

from tests.helpers import ROOT, MICROPYTHON

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
    assert 0 < peak < 150 * 1024
    assert "span_errors=0" in p.stdout


@pytest.mark.skipif(not MICROPYTHON.exists(), reason="no micropython binary")
@pytest.mark.parametrize("args", [["--seed", "4", "--points", "--level", "1"],
                                  ["--seed", "9", "--flip", "--level", "2"]])
def test_firmware_sim_other_games(args):
    p = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "tools/firmware_sim.py"] + args,
                       cwd=str(ROOT), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert LAST.match(_last_line(p.stdout)), p.stdout
