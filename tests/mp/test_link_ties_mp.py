"""R43's ties by the bound, past the arbiter's window, are decided the same under the
real MicroPython binary as on CPython (across the tick wrap)."""

import pytest

from tests.helpers import MICROPYTHON, ROOT, same_on_micropython_and_cpython

pytestmark = [pytest.mark.mp,
              pytest.mark.skipif(not MICROPYTHON.exists(),
                                 reason="micropython binary missing (run `make setup`)")]


def test_r43_ties_within_the_bound_past_the_window_on_micropython_and_cpython():
    lines = same_on_micropython_and_cpython(ROOT / "tests/mp/link_ties.py")
    got = {tuple(int(x) for x in ln.split()[1:4]): ln.split()[5::2] for ln in lines}
    assert len(got) == 8
    for first in (0, 1):
        # Within the bound: a tie, won by player 1's priority; beyond: the earlier.
        assert got[(first, 3000, 5000)] == ["1", "1", "0"]
        assert got[(first, 5000, 5000)] == ["1", "1", "0"]
        assert got[(first, 5001, 5000)] == ["0", str(first), "0"]
        assert got[(first, 1500, 1000)] == ["0", str(first), "0"]
