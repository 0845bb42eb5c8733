"""tools/check_variant.py, the pupils' check of a changed game: the core and the worked
examples pass; each way a change can break the game -- a card lost (R29), an illegal
play accepted or a legal one refused (R39), a refusal that changes the game (R39),
legal_actions out of step, a stall never called or called too soon (R22), an error
raised, a game that never ends -- is a FAIL naming the seed and the action; a file that
cannot be used is one line and exit status 2."""
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def tool():
    spec = importlib.util.spec_from_file_location("check_variant_tool",
                                                  ROOT / "tools/check_variant.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


CV = tool()


def check(tmp_path, source, games=6, max_actions=20000):
    """Check a variant written here; -> (exit code, the lines after the header)."""
    path = tmp_path / "variant.py"
    path.write_text(textwrap.dedent(source))
    lines = []
    code = CV.main(["--variant", str(path), "--games", str(games),
                    "--max-actions", str(max_actions)], out=lines.append)
    assert lines[0].startswith("check_variant: %s (class Variant" % path)
    return code, lines[1:]


def test_r29_r39_the_core_game_passes():
    lines = []
    assert CV.main(["--games", "6"], out=lines.append) == 0
    assert lines[0] == "check_variant: the core game (shared_rules/game.py)"
    assert lines[-1] == "PASS: it keeps all 52 cards and refuses illegal plays."
    assert "  yes  all 52 cards, each once, after every action" in lines


def test_r3_the_same_rank_hook_example_passes_against_its_own_fit():
    lines = []
    code = CV.main(["--variant", str(ROOT / "tools/variants/same_rank.py"), "--games", "6"],
                   out=lines.append)
    assert code == 0, lines
    assert "its own fits()" in lines[0]


def test_r3_a_hook_variant_without_wrap_passes(tmp_path):
    code, lines = check(tmp_path, """
        from variants.hook import HookGame

        class Variant(HookGame):
            def fits(self, card, top):          # no Ace between King and 2
                d = (card >> 2) - (top >> 2)
                return d == 1 or d == -1
        """)
    assert code == 0, lines


def test_r29_a_variant_that_loses_a_card_fails(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game

        class Variant(Game):
            def apply(self, action):
                reason = Game.apply(self, action)
                if reason is None and action[0] == "play" and len(self.piles[action[3]]) > 3:
                    self.piles[action[3]].pop(0)     # burns the pile's bottom card
                return reason
        """)
    assert code == 1
    assert "cards, not the 52, each once" in lines[0] and lines[0].startswith("FAIL: game ")
    assert "R29" in lines[1]
    assert "--variant" in lines[2] and "--games 1" in lines[2]


def test_r39_a_variant_that_accepts_a_card_that_does_not_fit_fails(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game, NO_FIT

        class Variant(Game):
            def why_not(self, action):
                reason = Game.why_not(self, action)
                return None if reason == NO_FIT else reason
        """)
    assert code == 1
    assert "accepted the illegal ('play'" in lines[0]
    assert " onto " in lines[0]                  # the cards are named


def test_r39_a_variant_that_refuses_a_legal_play_fails(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game

        class Variant(Game):
            def why_not(self, action):
                if action and action[0] == "play" and self.stock[action[1]][action[2]]:
                    if self.stock[action[1]][action[2]][-1] >> 2 == 12:
                        return "no aces"
                return Game.why_not(self, action)
        """)
    assert code == 1
    assert "refused the legal ('play'" in lines[0] and "(no aces)" in lines[0]


def test_r39_a_refusal_that_changes_the_game_fails(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game

        class Variant(Game):
            def apply(self, action):
                reason = Game.apply(self, action)
                if reason is not None:
                    self.round += 1
                return reason
        """)
    assert code == 1 and "changed the game" in lines[0]


def test_r39_a_variant_that_raises_on_junk_fails(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game

        class Variant(Game):
            def why_not(self, action):
                return Game.why_not(self, tuple(action))
        """)
    assert code == 1 and "raised TypeError" in lines[0]


def test_a_fits_hook_that_raises_is_a_fail_line_not_a_traceback(tmp_path):
    code, lines = check(tmp_path, """
        from variants.hook import HookGame

        class Variant(HookGame):
            def fits(self, card, top):
                return card / (top - top)
        """)
    assert code == 1
    assert "raised ZeroDivisionError: division by zero (in variant.py line 6)" in lines[0]


def test_a_variant_failing_outside_apply_is_a_fail_line_not_a_traceback(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game

        class Variant(Game):
            def snapshot(self):
                raise RuntimeError("no snapshots here")
        """)
    assert code == 1
    assert lines[0].endswith("the variant raised RuntimeError: no snapshots here "
                             "(in variant.py line 6)")


def test_a_fit_changed_in_why_not_only_is_caught_in_legal_actions(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game, NO_FIT

        class Variant(Game):
            def fits(self, card, top):
                return (card >> 2) == (top >> 2) or abs((card >> 2) - (top >> 2)) in (1, 12)

            def why_not(self, action):
                reason = Game.why_not(self, action)
                if reason == NO_FIT:
                    s = self.stock[action[1]][action[2]]
                    if self.fits(s[-1], self.piles[action[3]][-1]):
                        return None
                return reason
        """)
    assert code == 1
    assert "legal_actions(" in lines[0] and "misses legal ('play'" in lines[0]


def test_r22_a_fit_the_stall_check_does_not_know_leaves_the_game_stuck(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game
        from variants.hook import HookGame

        class Variant(HookGame):
            def fits(self, card, top):
                d = (card >> 2) - (top >> 2)
                return d == 1 or d == -1

            can_progress = Game.can_progress     # still lets the Ace wrap round
        """, games=12)
    assert code == 1
    assert "waits in play but nobody can move" in lines[0]
    assert "R22" in lines[1]


def test_r22_a_stall_called_too_soon_fails(tmp_path):
    code, lines = check(tmp_path, """
        from shared_rules.game import Game
        from variants.hook import HookGame

        class Variant(HookGame):
            def fits(self, card, top):            # a 7 on a 7 as well
                return (card >> 2) == (top >> 2) or HookGame.fits(self, card, top)

            can_progress = Game.can_progress     # does not know about 7 on 7
        """, games=12)
    assert code == 1
    assert "a stall was called but somebody can still move" in lines[0]


def test_a_game_that_does_not_end_in_time_fails():
    lines = []
    assert CV.main(["--games", "1", "--max-actions", "40"], out=lines.append) == 1
    assert "did not end within 40 actions" in lines[1]


@pytest.mark.parametrize("name,source,words", [
    ("missing.py", None, "missing.py: no such file"),
    ("variant.txt", "x = 1\n", "a variant is a Python file (.py)"),
    ("v.py", "class Variant(:\n", "v.py: line 1: syntax error"),
    ("v.py", "import nothing_called_this\n", "cannot be loaded: ModuleNotFoundError"),
    ("v.py", "x = 1\n", "defines no class Variant"),
    ("v.py", "class Variant:\n    pass\n", "Variant must be a class made from"),
])
def test_a_file_that_cannot_be_checked_is_one_line_and_status_2(tmp_path, capsys, name,
                                                                 source, words):
    path = tmp_path / name
    if source is not None:
        path.write_text(source)
    assert CV.main(["--variant", str(path)], out=lambda line: None) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("check_variant: error: ")
    assert words in err


def test_r37_a_house_rules_file_plays_every_game_under_its_rules(tmp_path):
    path = tmp_path / "house.txt"
    path.write_text("rules = points\ntarget = 30\nflip = manual\nfumble = 1000\n")
    lines = []
    assert CV.main(["--house", str(path), "--games", "3"], out=lines.append) == 0
    assert "(seeds 1-3; the house rules: points game to 30, manual flip)" in lines[1]
    assert lines[-1].startswith("PASS")


@pytest.mark.parametrize("text,words", [
    (b"rules = points\ntarget = lots\n",
     "house.txt: line 2: target must be a whole number 1-999 (got 'lots')"),
    (b"\xff\xfe", "house.txt: is not a text file"),
    (None, "house.txt: cannot be read"),
])
def test_a_bad_house_file_is_one_line_and_status_2(tmp_path, capsys, text, words):
    path = tmp_path / "house.txt"
    if text is not None:
        path.write_bytes(text)
    assert CV.main(["--house", str(path)], out=lambda line: None) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_bad_numbers_are_one_line_and_status_2(capsys):
    assert CV.main(["--games", "0"], out=lambda line: None) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_command_prints_its_verdict():
    r = subprocess.run([sys.executable, str(ROOT / "tools/check_variant.py"), "--games", "2",
                        "--seed", "9"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "2 games (seeds 9-10" in r.stdout
    assert r.stdout.rstrip().endswith("PASS: it keeps all 52 cards and refuses illegal plays.")
