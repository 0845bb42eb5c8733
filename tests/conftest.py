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

_hypothesis_settings.register_profile("mutate", derandomize=True, database=None)
