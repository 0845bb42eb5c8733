"""Golden playthrough transcripts: seed -> actions -> a readable state after each one.

A change to any rule, the deal or the PRNG shows up here as a readable diff. Regenerate
only when such a change is intended: `make golden` (pytest --regen-golden).
"""
from pathlib import Path

import pytest

from shared_rules.game import Rules
from shared_rules.transcript import playthrough

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CASES = {
    "standard_seed0": (0, Rules()),
    "manual_flip_seed5": (5, Rules(manual_flip=True)),
    "points_seed1": (1, Rules(points=True, target=60)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_playthrough(case, regen_golden):
    seed, rules = CASES[case]
    lines = []
    playthrough(seed, rules, seed + 1, 20000, lines.append)
    text = "\n".join(lines) + "\n"
    path = GOLDEN / (case + ".txt")
    if regen_golden:
        path.write_text(text)
        pytest.skip("regenerated " + path.name)
    assert path.exists(), "missing golden file; run make golden"
    expected = path.read_text().splitlines()
    got = text.splitlines()
    for n, (a, b) in enumerate(zip(expected, got), 1):
        assert a == b, "first difference at line %d" % n
    assert len(expected) == len(got)
    assert got[-1].split(" | ")[1].startswith("over")
