"""Every .py meant for the device compiles with mpy-cross (DESIGN.md "Checks")."""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.mp

ROOT = Path(__file__).resolve().parents[2]
MPY_CROSS = Path(sys.executable).parent / "mpy-cross"
SOURCES = sorted(p for d in ("firmware", "shared_rules") for p in (ROOT / d).rglob("*.py")
                 if "__pycache__" not in p.parts)


def test_there_are_device_sources():
    assert SOURCES


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_compiles_with_mpy_cross(src, tmp_path):
    if not MPY_CROSS.exists():
        pytest.skip("mpy-cross not found at %s (run `make setup`)" % MPY_CROSS)
    out = tmp_path / (src.stem + ".mpy")
    p = subprocess.run([str(MPY_CROSS), "-o", str(out), str(src)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert out.stat().st_size > 0
