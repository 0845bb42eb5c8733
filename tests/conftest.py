import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def pytest_addoption(parser):
    parser.addoption("--regen-golden", action="store_true",
                     help="rewrite golden transcripts/screenshots instead of comparing")


@pytest.fixture
def regen_golden(request):
    return request.config.getoption("--regen-golden")


# `make mutate` runs each mutant's tests with --hypothesis-profile=mutate: the same
# examples every run (a score is repeatable) and no example database (a failing example
# found for one mutant must not be replayed against the next).
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("mutate", derandomize=True, database=None, deadline=None)
# No example has a time limit: speed is the benchmarks' business, and on a loaded
# machine a deadline fails a test (or "kills" a mutant) for no fault of the code.
_hypothesis_settings.register_profile("spit", deadline=None)
_hypothesis_settings.load_profile("spit")


# ---- the emulated Pico ------------------------------------------------------------------
# Its tests need Node.js with rp2040js (`make pico-setup`) and the MicroPython image in
# ../shared/rp2/ (as CI has). Without them they skip, saying what is missing.

@pytest.fixture(scope="session")
def pico_firmware():
    from desktop_emulator.pico.image import find_firmware, ImageError
    from desktop_emulator.pico.device import node_command, DeviceError
    try:
        fw = find_firmware()
        node_command()
    except (ImageError, DeviceError) as e:
        pytest.skip("emulated Pico unavailable: %s" % e)
    return fw


@pytest.fixture(scope="session")
def pico_files(pico_firmware, tmp_path_factory):
    """The device build (what `make deploy` copies), compiled once: {board path: Path}."""
    from desktop_emulator import devicefiles
    return devicefiles.build(tmp_path_factory.mktemp("device"), driver=pico_firmware.ssd1306)


@pytest.fixture(scope="session")
def pico_files_no_main(pico_files):
    """The same files without /main.py: the board boots to the REPL."""
    return {k: v for k, v in pico_files.items() if k != "main.py"}


@pytest.fixture(scope="module")
def board_repl(pico_firmware, pico_files_no_main):
    """A board of the reference wiring (buttons on GP2, 3, 14, 15) at its REPL prompt,
    one per test module."""
    from desktop_emulator.pico.device import Pico
    pico = Pico(pico_firmware, files=pico_files_no_main, buttons=(2, 3, 14, 15))
    pico.boot()
    pico.run_for(50_000)
    pico.interrupt()
    yield pico
    pico.close()
