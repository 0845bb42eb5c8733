"""The self-play loop's own bookkeeping (shared_rules/selfplay.py): what it reports for a
game cut short, and its invariant checker catching a game whose legal_actions and
why_not disagree in either direction. (Whole games and the rest of the checker are in
test_bot.py.)"""
import pytest

from shared_rules import selfplay
from shared_rules.game import NO_FIT, Game


def test_a_game_cut_short_has_no_winner_and_is_not_over():
    st = selfplay.play(1, ("easy", "easy"), max_us=20 * 10 ** 6)
    assert any("never ends" in v for v in st["violations"])
    assert st["winner"] == -1 and st["over"] is False
    assert " winner=-1 " in selfplay.summary(st)


class OffersWhatItRefuses(Game):
    """Offers every play in the play phase, also those that fit nowhere."""

    def legal_actions(self, p):
        out = Game.legal_actions(self, p)
        if self.phase == "play":
            for i in range(5):
                for j in range(len(self.piles)):
                    if ("play", p, i, j) not in out:
                        out.append(("play", p, i, j))
        return out


class HidesWhatItTakes(Game):
    """Takes plays onto pile 1 but leaves them out of legal_actions."""

    def legal_actions(self, p):
        return [a for a in Game.legal_actions(self, p) if not (a[0] == "play" and a[3] == 1)]


def test_the_checker_catches_legal_actions_and_why_not_disagreeing_either_way(monkeypatch):
    for game_class in (OffersWhatItRefuses, HidesWhatItTakes):
        monkeypatch.setattr(selfplay, "Game", game_class)
        st = selfplay.play(2, ("easy", "easy"), max_us=60 * 10 ** 6)
        assert any(v.startswith("legal_actions and why_not disagree on ('play', ")
                   for v in st["violations"]), (game_class.__name__, st["violations"][:3])
    monkeypatch.setattr(selfplay, "Game", Game)
    st = selfplay.play(1, ("hard", "hard"))
    assert st["violations"] == [] and st["over"] is True and st["winner"] in (0, 1)


def test_r29_a_game_missing_only_its_highest_card_fails_the_card_check():
    g = Game(4)
    assert selfplay.all_cards_ok(g)
    for pile in g.piles:
        if 51 in pile:
            pile.remove(51)
    for side in g.stock:
        for s in side:
            if 51 in s:
                s.remove(51)
    for hand in g.hand:
        if 51 in hand:
            hand.remove(51)
    assert selfplay.all_cards_ok(g) is False
    g.hand[0].append(50)                         # 52 again, but one card twice
    assert selfplay.all_cards_ok(g) is False


class RefusesPlaysAsNotNow(Game):
    """Refuses offered plays onto a pile of more than two cards as "not now", a refusal
    the table tells nobody about (QUIET)."""

    def apply(self, action):
        if action[0] == "play" and self.why_not(action) is None and len(self.piles[action[3]]) > 2:
            return "not now"
        return Game.apply(self, action)


def test_the_checker_catches_an_offered_action_refused_quietly(monkeypatch):
    monkeypatch.setattr(selfplay, "Game", RefusesPlaysAsNotNow)
    st = selfplay.play(1, ("hard", "hard"), max_us=60 * 10 ** 6)
    assert any(v.startswith("refused an offered action ('play', ") and v.endswith(": not now")
               for v in st["violations"]), st["violations"][:3]


def table_of(game):
    st = {"false0": 0, "false1": 0, "actions": 0, "plays": 0, "plays0": 0, "plays1": 0,
          "slaps0": 0, "slaps1": 0, "refused": 0, "fumbles": 0, "fumbles0": 0,
          "fumbles1": 0, "dead_us0": 0, "dead_us1": 0}
    bad = []
    return selfplay._Table(game, selfplay.Conduct(), 2000, [], st, bad), bad


@pytest.mark.parametrize("theirs_settled_first", [False, True])
@pytest.mark.parametrize("theirs_queued_first", [False, True])
def test_the_checker_tells_presses_of_one_stamp_apart(theirs_queued_first, theirs_settled_first):
    # Both players press at the same µs (a tie, R21): the checker must take each
    # settled press for its own queued entry, whatever order the two were queued and
    # settled in, or it blames the wrong one for a refusal.
    table, bad = table_of(Game(seed=1))
    mine, theirs = ("play", 0, 1, 0), ("play", 1, 0, 0)     # mine < theirs, as tuples
    entries = [[500, mine, False], [500, theirs, True]]
    table.inflight.extend(entries[::-1] if theirs_queued_first else entries)
    order = [(1, theirs), (0, mine)] if theirs_settled_first else [(0, mine), (1, theirs)]
    p, action = order[0]
    table.on_outcome(selfplay.M.REFUSED, p, action, 500, NO_FIT, 600)
    assert [e[1] for e in table.inflight] == [order[1][1]]     # the other one waits
    p, action = order[1]
    table.on_outcome(selfplay.M.REFUSED, p, action, 500, NO_FIT, 600)
    assert bad == ["refused an offered action ('play', 1, 0, 0) at 500: doesn't fit"]
    assert table.inflight == []


def test_the_checker_counts_a_refusal_of_an_action_it_never_queued_as_no_offered_one():
    # An outcome for an action no bot pressed (not in flight) is counted as refused,
    # but it was never offered, so it is no violation.
    table, bad = table_of(Game(seed=1))
    table.on_outcome(selfplay.M.REFUSED, 0, ("play", 0, 1, 0), 500, NO_FIT, 600)
    assert bad == [] and table.st["refused"] == 1


class LosesACard(Game):
    """Its first applied play takes the card off the stockpile but puts nothing down."""

    def apply(self, action):
        if action[0] == "play" and self.why_not(action) is None and not getattr(self, "lost", 0):
            self.lost = 1
            self.stock[action[1]][action[2]].pop()
            return None
        return Game.apply(self, action)


def test_r29_the_checker_names_when_a_card_went_missing(monkeypatch):
    import re
    monkeypatch.setattr(selfplay, "Game", LosesACard)
    st = selfplay.play(1, ("hard", "hard"), max_us=30 * 10 ** 6)
    missing = [v for v in st["violations"] if v.startswith("cards not conserved (R29)")]
    assert missing and re.fullmatch(r"cards not conserved \(R29\) after settle at \d+", missing[0])


def test_the_simulations_next_step_is_the_sooner_of_two_times_and_none_is_minus_1():
    # _sooner(nxt, due, now, T): nxt in simulated µs since the start (-1: nothing yet),
    # due a tick (None: nothing); a due tick already past counts as now (T).
    assert selfplay._sooner(-1, None, 0, 0) == -1
    assert selfplay._sooner(-1, 500, 100, 1000) == 1400
    assert selfplay._sooner(0, 500, 100, 0) == 0              # a step at the start, sooner
    assert selfplay._sooner(700, 500, 0, 0) == 500
    assert selfplay._sooner(300, 500, 0, 0) == 300
    assert selfplay._sooner(900, 50, 100, 800) == 800          # due in the past: now
