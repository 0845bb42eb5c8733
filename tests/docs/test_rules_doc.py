"""The players' pages in the repository: docs/RULES.md holds every rule and ruling
(R1-R44) that the tests and the messages cite, docs/HOW_TO_PLAY.md is one page for
players and teachers, and the README points to both, never outside the repository.
The rules keep getting rulings in the project's authoritative RULES.md beside the
repository (../shared): every R-number there must be on the players' page and have a
test named after it (test_r25_...). Without ../shared (a clone on its own) those two
checks are skipped."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "RULES.md"
PAGE = ROOT / "docs" / "RULES.md"
HOW = ROOT / "docs" / "HOW_TO_PLAY.md"

# A rule or ruling as the rules text states it: "- R12." or "**Ruling R41 (fumble).**".
STATED = re.compile(r"(?:^- R(\d+)\.|Ruling R(\d+)\b)", re.M)


def stated(text):
    return sorted({int(a or b) for a, b in STATED.findall(text)})


def _rule_tests():
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.update(int(n) for n in re.findall(r"^def test_r(\d+)_", path.read_text(), re.M))
    return names


def shared_rules():
    if not SHARED.exists():
        pytest.skip("no %s beside the repository" % SHARED)
    return stated(SHARED.read_text())


def test_every_rule_of_the_shared_rules_is_on_the_players_page():
    want = shared_rules()
    assert len(want) >= 44
    have = stated(PAGE.read_text())
    assert [n for n in want if n not in have] == []


def test_every_rule_of_the_shared_rules_has_a_test_named_after_it():
    want = shared_rules()
    named = _rule_tests()
    assert [n for n in want if n not in named] == []


def test_the_players_page_states_r1_to_r44_in_order():
    text = PAGE.read_text()
    nums = stated(text)
    assert nums == list(range(1, 45))
    order = [int(a or b) for a, b in STATED.findall(text)]
    assert order == sorted(order)
    for n in range(1, 45):
        assert n in _rule_tests(), "no test_r%d_..." % n


def test_how_to_play_is_one_page_and_the_readme_points_to_both_pages():
    how = HOW.read_text()
    assert len(how.split("\n")) < 120                 # one page
    for word in ("fumble", "slap", "Spit!", "A", "B", "RULES.md"):
        assert word in how
    readme = (ROOT / "README.md").read_text()
    assert "docs/RULES.md" in readme and "docs/HOW_TO_PLAY.md" in readme
    for doc in [readme, how, PAGE.read_text()]:
        assert "../shared" not in doc and "/work/" not in doc
    # Every relative link of the three pages points to a file in the repository.
    for path in (ROOT / "README.md", HOW, PAGE):
        for target in re.findall(r"\]\(([^)#]+)\)", path.read_text()):
            if "://" in target:
                continue
            assert (path.parent / target).resolve().exists(), (path.name, target)
