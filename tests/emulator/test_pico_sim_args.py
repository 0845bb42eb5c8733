"""tools/pico_sim.py's command line (the runs themselves need minutes on the emulated
Pico): a seed list, and bad arguments refused with their reason."""
import argparse
import sys

import pytest

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
try:
    import pico_sim
finally:
    sys.path.pop(0)


def test_a_seed_list_names_ranges_and_single_seeds():
    assert pico_sim.seed_list("1-3,7") == [1, 2, 3, 7]
    assert pico_sim.seed_list("12") == [12]


@pytest.mark.parametrize("bad", ["x", "3-1", "1-", "1,,2", "-"])
def test_a_bad_seed_list_is_refused_in_one_line(bad):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        pico_sim.seed_list(bad)
    assert "\n" not in str(e.value) and repr(bad) in str(e.value)


@pytest.mark.parametrize("args,word", [(["--seeds", "a-b"], "--seeds"),
                                       (["--minutes", "-1"], "--minutes")])
def test_bad_arguments_exit_2_with_their_reason(capsys, args, word):
    with pytest.raises(SystemExit) as e:
        pico_sim.main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert word in err.splitlines()[-1]
