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
