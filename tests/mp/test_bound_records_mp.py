"""A linked game's bound records (R43) are packed, read back, formatted and parsed the
same under the real MicroPython binary as on CPython."""

import pytest

from tests.helpers import MICROPYTHON, ROOT, same_on_micropython_and_cpython

pytestmark = [pytest.mark.mp,
              pytest.mark.skipif(not MICROPYTHON.exists(),
                                 reason="micropython binary missing (run `make setup`)")]


def test_bound_records_are_the_same_on_micropython_and_cpython():
    script = ROOT / "tests/mp/bound_records.py"
    lines = same_on_micropython_and_cpython(script)
    assert lines[0].startswith("packed ") and lines[0].endswith(" 0 True")
    assert int(lines[0].split()[1]) > 0
    assert lines[1].endswith(" True")
    assert lines[2] == "refused replay line 3: bound 65536 us is not 0 .. 65535"
    assert lines[3] == "refused replay line 3: bound: player 2 is not 0 or 1"
    assert lines[4] == "refused replay line 3: bound: not an integer: 'x'"
    # Stamp order without a bound; the tie's priority within it: the other winner.
    by_stamp, tied = lines[5], lines[6]
    assert by_stamp.startswith("bound 0 ") and tied.startswith("bound 2000 ")
    assert by_stamp.split()[-1] != tied.split()[-1]
