"""Snapshots, restore of corrupt data, bad decks and layouts (bad input loses nothing)."""
import json

import pytest

from shared_rules.game import Game, Rules


def test_snapshot_round_trip_is_exact():
    g = Game(seed=12, rules=Rules(points=True, manual_flip=True, target=50))
    g.apply(("spit", 0))
    d = g.snapshot()
    assert Game.restore(json.loads(json.dumps(d))).snapshot() == d


CORRUPTIONS = [
    ("not a dict", lambda d: [1, 2]),
    ("version", lambda d: dict(d, v=99)),
    ("missing stock", lambda d: {k: v for k, v in d.items() if k != "stock"}),
    ("phase", lambda d: dict(d, phase="dancing")),
    ("duplicate card", lambda d: dict(d, hand=[d["hand"][0] + [d["hand"][1][0]], d["hand"][1]])),
    ("not a card", lambda d: dict(d, hand=[d["hand"][0] + [52], d["hand"][1]])),
    ("six stockpiles", lambda d: dict(d, stock=[d["stock"][0] + [[]], d["stock"][1]])),
    ("rng zero", lambda d: dict(d, rng=0)),
    ("scores", lambda d: dict(d, scores=[0])),
    ("rules", lambda d: dict(d, rules={"points": False, "colour": 1})),
    ("target", lambda d: dict(d, rules={"points": True, "target": -5})),
    ("tie", lambda d: dict(d, tie=2)),
    ("winner", lambda d: dict(d, winner=3)),
    ("slap without ending", lambda d: dict(d, phase="slap")),
    ("round", lambda d: dict(d, round=0)),
    ("down", lambda d: dict(d, down=[[0] * 5, [False] * 5])),
]


@pytest.mark.parametrize("what,corrupt", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_restore_of_a_corrupt_snapshot_raises_value_error(what, corrupt):
    d = Game(seed=1).snapshot()
    with pytest.raises(ValueError) as e:
        Game.restore(corrupt(d))
    assert "snapshot" in str(e.value)
    assert Game(seed=1).snapshot() == d        # the source is untouched


@pytest.mark.parametrize("deck", [
    list(range(51)), list(range(51)) + [0], list(range(1, 53)), "abc", None if False else [],
    [str(c) for c in range(52)], list(range(50)) + [True, 51],
])
def test_game_with_a_bad_deck_raises_value_error(deck):
    with pytest.raises(ValueError):
        Game(deck=deck)


def test_from_layout_rejects_bad_layouts():
    empty5 = [[], [], [], [], []]
    with pytest.raises(ValueError):
        Game.from_layout([empty5], [[], []], [])
    with pytest.raises(ValueError):
        Game.from_layout([[[1]] + empty5[:4], [[1]] + empty5[:4]], [[], []], [])
    with pytest.raises(ValueError):
        Game.from_layout([empty5, empty5], [[], []], [[5], []])
    with pytest.raises(ValueError):
        Game.from_layout([empty5, empty5], [[], []], [[5], [6], [7]])
    with pytest.raises(ValueError):
        Game.from_layout([empty5, empty5], [[], []], [5])
    with pytest.raises(ValueError):
        Game.from_layout([empty5, [[], [], [], [], 3]], [[], []], [])


def test_from_layout_copies_its_inputs():
    stock = [[[1], [], [], [], []], [[9], [], [], [], []]]
    hands = [[20], [21]]
    piles = [[5]]
    g = Game.from_layout(stock, hands, piles)
    g.apply(("spit", 0))
    stock[0][0].append(30)
    assert g.stock[0][0] == [1]


def test_rules_reject_bad_options():
    with pytest.raises(ValueError):
        Rules(target=0)
    with pytest.raises(ValueError):
        Rules.from_dict({"speed": 3})


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.sampled_from(["play", "slap", "x"]),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(
        st.sampled_from(["end", "out", "points", "x"]), inner, max_size=3),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(sorted(Game(seed=2).snapshot())), value=json_values,
       seed=st.integers(0, 50), steps=st.integers(0, 400))
def test_restore_of_any_mutated_snapshot_is_a_value_error_or_a_working_game(key, value, seed,
                                                                           steps):
    from shared_rules.rng import Rng
    g = Game(seed=seed)
    pick = Rng(seed)
    for _ in range(steps):
        acts = g.legal_actions(0) + g.legal_actions(1)
        if not acts:
            break
        g.apply(acts[pick.below(len(acts))])
    d = g.snapshot()
    d[key] = value
    try:
        h = Game.restore(d)
    except ValueError:
        return
    # Whatever restore accepted must be playable without raising.
    for _ in range(50):
        acts = h.legal_actions(0) + h.legal_actions(1)
        if not acts:
            break
        assert h.apply(acts[pick.below(len(acts))]) is None


# ---- A power cut during the slap (R25-R26, R33) -----------------------------------------
# The handheld saves the game when the round ends; if the power goes before anyone slaps,
# the restored game must still be waiting for the slap, and the slap must then hand out
# the piles exactly as it would have without the power cut.

from shared_rules.arbiter import BEATEN, Arbiter  # noqa: E402
from shared_rules.game import NOT_NOW, SLAP  # noqa: E402
from tests.helpers import all_cards, layout  # noqa: E402

E = ""


def slap_game(how):
    """A game in the slap phase, reached by real play."""
    if how == "player 0 went out":
        g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
                   hands=("2C 3C", "4D"))
        assert g.apply(("play", 0, 0, 0)) is None
    elif how == "player 1 went out":
        g = layout(["9C", "KD QD", E, E, E], ["5H", E, E, E, E], ["7S 8S", "4H"],
                   hands=("4D", "2C 3C"))
        assert g.apply(("play", 1, 0, 1)) is None
    elif how == "stalled":
        g = layout(["5H", "KC", E, E, E], ["2D", E, E, E, E], ["4H", "9S"], hands=("7C", "JD"))
        assert g.apply(("play", 0, 0, 0)) is None
        assert g.apply(("spit", 0)) is None and g.apply(("spit", 1)) is None
    else:   # R33: a single-pile round stalled with equal stockpile counts
        g = layout(["10C", "KC", E, E, E], ["2D", E, E, E, E], ["9H"])
        assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == SLAP
    return g


SLAP_ENDINGS = ["player 0 went out", "player 1 went out", "stalled", "single pile"]


@pytest.mark.parametrize("how", SLAP_ENDINGS)
def test_r26_a_power_cut_during_the_slap_restores_a_game_waiting_for_the_slap(how):
    g = slap_game(how)
    saved = json.loads(json.dumps(g.snapshot()))
    h = Game.restore(saved)
    assert h.phase == SLAP
    assert h.snapshot() == g.snapshot()
    assert h.ending == g.ending and h.ending["end"] == ("stalled" if "out" not in how else "out")
    if how == "player 0 went out":
        assert h.ending["out"] == 0
    for p in (0, 1):
        assert h.legal_actions(p) == g.legal_actions(p) != []
        assert h.apply(("play", p, 0, 0)) == NOT_NOW


@pytest.mark.parametrize("how", SLAP_ENDINGS)
@pytest.mark.parametrize("slapper", [0, 1])
def test_r26_after_the_power_cut_the_slap_hands_out_the_piles_as_it_would_have(how, slapper):
    g = slap_game(how)
    h = Game.restore(json.loads(json.dumps(g.snapshot())))
    pile = len(g.piles) - 1
    assert g.apply(("slap", slapper, pile)) is None
    assert h.apply(("slap", slapper, pile)) is None
    assert h.snapshot() == g.snapshot()
    assert h.last_round == g.last_round and h.last_round["slap"] == [slapper, pile]
    assert sorted(all_cards(h)) == sorted(all_cards(slap_game(how)))
    # ... and both games go on identically.
    from shared_rules.rng import Rng
    pick_g, pick_h = Rng(5), Rng(5)
    for _ in range(40):
        acts = g.legal_actions(0) + g.legal_actions(1)
        if not acts:
            break
        a = acts[pick_g.below(len(acts))]
        assert a == (h.legal_actions(0) + h.legal_actions(1))[pick_h.below(len(acts))]
        assert g.apply(a) is None and h.apply(a) is None
    assert h.snapshot() == g.snapshot()


@pytest.mark.parametrize("how", SLAP_ENDINGS)
def test_r26_a_copy_made_during_the_slap_keeps_the_pending_round_ending(how):
    g = slap_game(how)
    before = g.snapshot()
    c = g.copy()
    assert c.snapshot() == before
    assert c.apply(("slap", 1, 0)) is None          # the copy can be slapped ...
    assert g.snapshot() == before                   # ... and the original is untouched
    assert g.apply(("slap", 1, 0)) is None
    assert c.snapshot() == g.snapshot()


@pytest.mark.parametrize("how", SLAP_ENDINGS)
@pytest.mark.parametrize("priority", [0, 1])
def test_r21_r26_both_players_slap_at_the_same_instant(how, priority):
    # Both hands land in the same microsecond: a tie (R21). The player with the tie
    # priority slapped first (R26); the other lost the race, and gets the next tie.
    g = slap_game(how)
    g.tie_priority = priority
    cards_before = sorted(all_cards(g))
    arb = Arbiter(g)
    last = len(g.piles) - 1
    arb.press(("slap", 0, 0), 50_000)
    arb.press(("slap", 1, last), 50_000)
    res = arb.settle(60_000)
    assert {a[1]: r for a, t, r in res} == {priority: None, 1 - priority: BEATEN}
    assert g.last_round["slap"] == [priority, 0 if priority == 0 else last]
    assert arb.ties == 1 and arb.races == 1 and g.tie_priority == 1 - priority
    assert sorted(all_cards(g)) == cards_before and g.phase != SLAP


def test_r21_a_same_instant_double_slap_after_a_power_cut():
    g = slap_game("player 0 went out")
    h = Game.restore(json.loads(json.dumps(g.snapshot())))
    outcomes = []
    for game in (g, h):
        arb = Arbiter(game)
        arb.press(("slap", 1, 1), 7)
        arb.press(("slap", 0, 1), 7)
        outcomes.append(arb.settle(5000))
    assert outcomes[0] == outcomes[1]
    assert h.snapshot() == g.snapshot()


# ---- R39: bools are not ints, and every snapshot field is checked ----------------------

BOOL_CORRUPTIONS = [
    ("tie True", lambda d: dict(d, tie=True)),
    ("tie False", lambda d: dict(d, tie=False)),
    ("winner True", lambda d: dict(d, winner=True)),
    ("winner False", lambda d: dict(d, winner=False)),
    ("round True", lambda d: dict(d, round=True)),
    ("seed True", lambda d: dict(d, seed=True)),
    ("rng True", lambda d: dict(d, rng=True)),
    ("score True", lambda d: dict(d, scores=[True, 0])),
    ("score False", lambda d: dict(d, scores=[0, False])),
    ("said 0 first", lambda d: dict(d, said=[0, False])),
    ("said 1 second", lambda d: dict(d, said=[False, 1])),
    ("down ints", lambda d: dict(d, down=[[False] * 5, [0] * 5])),
    ("ending out True", lambda d: dict(d, ending={"end": "out", "out": True})),
    ("target True", lambda d: dict(d, rules={"points": True, "target": True})),
]

OTHER_CORRUPTIONS = [
    ("rng too big", lambda d: dict(d, rng=2 ** 32)),
    ("rng negative", lambda d: dict(d, rng=-1)),
    ("tie -1", lambda d: dict(d, tie=-1)),
    ("winner 2", lambda d: dict(d, winner=2)),
    ("round -3", lambda d: dict(d, round=-3)),
    ("scores 3", lambda d: dict(d, scores=[0, 0, 0])),
    ("scores not a list", lambda d: dict(d, scores="00")),
    ("stock one side", lambda d: dict(d, stock=[d["stock"][0]])),
    ("stock side of four", lambda d: dict(d, stock=[d["stock"][0][:4], d["stock"][1]])),
    ("down one side", lambda d: dict(d, down=[[False] * 5])),
    ("down side of six", lambda d: dict(d, down=[[False] * 6, [False] * 5])),
    ("hand three", lambda d: dict(d, hand=[[], [], []])),
    ("three piles", lambda d: dict(d, piles=[[1], [2], [3]])),
    ("a pile not a list", lambda d: dict(d, piles=[7])),
    ("empty pile", lambda d: dict(d, piles=[[]])),
    ("said one", lambda d: dict(d, said=[False])),
    ("ending end", lambda d: dict(d, ending={"end": "bored", "out": None})),
    ("ending out 2", lambda d: dict(d, ending={"end": "out", "out": 2})),
    ("ending not a dict", lambda d: dict(d, ending=["out", 0])),
    ("last_round", lambda d: dict(d, last_round=[1])),
    ("rules not a dict", lambda d: dict(d, rules=[1])),
    ("missing v", lambda d: {k: v for k, v in d.items() if k != "v"}),
    ("missing ending", lambda d: {k: v for k, v in d.items() if k != "ending"}),
]


@pytest.mark.parametrize("what,corrupt", BOOL_CORRUPTIONS + OTHER_CORRUPTIONS,
                         ids=[c[0] for c in BOOL_CORRUPTIONS + OTHER_CORRUPTIONS])
def test_r39_restore_refuses_bools_for_ints_and_every_malformed_field(what, corrupt):
    d = json.loads(json.dumps(Game(seed=3).snapshot()))
    with pytest.raises(ValueError) as e:
        Game.restore(corrupt(d))
    assert str(e.value).startswith("corrupt snapshot")
    assert "\n" not in str(e.value)


def test_r39_restore_accepts_what_snapshot_writes_in_every_phase():
    for how in SLAP_ENDINGS:
        g = slap_game(how)
        assert Game.restore(g.snapshot()).snapshot() == g.snapshot()
    g = Game(seed=3)
    d = g.snapshot()
    d["winner"] = 1
    d["tie"] = 1
    d["said"] = [True, False]
    assert Game.restore(d).snapshot() == d      # valid values of each field still pass


@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("n", [4, 6])
def test_r39_from_layout_refuses_a_side_without_exactly_five_stockpiles(side, n):
    stock = [[[], [], [], [], []], [[], [], [], [], []]]
    stock[side] = [[] for _ in range(n)]
    stock[side][0] = [7]
    with pytest.raises(ValueError):
        Game.from_layout(stock, [[], []], [[20]])


@pytest.mark.parametrize("hands,piles", [([[]], [[20]]), ([[], [], []], [[20]]), ("ab", [[20]]),
                                         ([[], []], "x"), ([[], []], [[20], [21], [22]])])
def test_r39_from_layout_refuses_bad_hands_and_piles(hands, piles):
    with pytest.raises(ValueError):
        Game.from_layout([[[7], [], [], [], []], [[8], [], [], [], []]], hands, piles)


def test_rules_are_equal_exactly_when_their_options_are():
    assert Rules() == Rules() == Rules.from_dict({})
    assert Rules(points=True, target=50) == Rules.from_dict({"points": True, "target": 50})
    assert Rules(points=True) != Rules() and Rules(manual_flip=True) != Rules()
    assert Rules(target=99) != Rules()
    assert Rules() != {"points": False, "manual_flip": False, "target": 100}
    assert Game.restore(Game(seed=1, rules=Rules(points=True)).snapshot()).rules == Rules(points=True)


@pytest.mark.parametrize("winner", [0, 1])
def test_r31_r34_a_won_game_is_over_clean_and_restores_with_its_winner(winner):
    # A single-pile round (R30): the winner goes out first holding no spit cards (R31)
    # and so holds no cards at all (R34). The finished game keeps no piles and nobody
    # has said Spit; its snapshot, through JSON as the device stores it, restores it.
    from tests.helpers import layout
    sides = [["6C", "", "", "", ""], ["9D", "KC", "2H", "", ""]]
    if winner == 1:
        sides.reverse()
    g = layout(sides[0], sides[1], ["7S"], hands=("", "4D 5D") if winner == 0 else ("4D 5D", ""))
    assert g.apply(("play", winner, 0, 0)) is None
    assert g.phase == "over" and g.winner == winner
    assert g.piles == [] and g.said == [False, False]
    assert g.cards_held(winner) == 0
    d = json.loads(json.dumps(g.snapshot()))
    h = Game.restore(d)
    assert h.winner == winner and h.phase == "over"
    assert h.snapshot() == g.snapshot()


def test_r39_a_stored_slap_phase_without_its_round_ending_is_refused():
    # What the device reads back from storage is JSON text: its "slap" is not the
    # program's own string object, and must be refused all the same.
    d = json.loads(json.dumps(Game(seed=1).snapshot()))
    d = json.loads(json.dumps(dict(d, phase="slap")))
    with pytest.raises(ValueError) as e:
        Game.restore(d)
    assert "slap without an ending" in str(e.value)


def test_restore_refuses_a_slap_with_no_spit_pile():
    # A saved slap (R25) whose pile cards are all in the hands instead: every card is
    # there once, the ending is set, but there is no pile to slap.
    from tests.helpers import layout
    g = layout(["5H", "", "", "", ""], ["9C", "KD QD", "", "", ""], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"))
    assert g.apply(("play", 0, 0, 0)) is None
    d = g.snapshot()
    d["hand"][0] += d["piles"][0] + d["piles"][1]
    d["piles"] = []
    with pytest.raises(ValueError, match="slap without an ending"):
        Game.restore(d)
