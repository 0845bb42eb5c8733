# The trickiest rules, checked under MicroPython itself (no pytest there): each check
# prints "ok <name>" or "FAIL <name>: <why>". Runs unchanged under CPython too.
import json

from shared_rules.arbiter import BEATEN, TICKS_PERIOD, Arbiter, ticks_add, ticks_diff
from shared_rules.cards import adjacent, card
from shared_rules.game import Game, Rules

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def cs(text):
    return [card(t) for t in text.split()]


def lay(p0, p1, piles, hands, rules=None):
    return Game.from_layout([[cs(s) for s in p0], [cs(s) for s in p1]],
                            [cs(hands[0]), cs(hands[1])], [cs(p) for p in piles], rules)


def race():
    return lay(["9D", "KC", "4C", "", ""], ["7C", "2H", "", "", ""], ["8S", "5D"], ("3C", "4S"))


@check
def r3_wrap_adjacency():
    assert adjacent(card("AS"), card("2H")) and adjacent(card("KS"), card("AH"))
    assert not adjacent(card("KS"), card("2H")) and not adjacent(card("7S"), card("7H"))


@check
def r7_deal_order():
    g = Game(deck=list(range(52)))
    assert g.stock[0] == [[0], [1, 5], [2, 6, 9], [3, 7, 10, 12], [4, 8, 11, 13, 14]]
    assert g.hand[0][-1] == 25 and g.hand[1][-1] == 51


@check
def r15_fill_needs_two():
    g = lay(["9D", "QC", "", "", ""], ["KH", "", "", "", ""], ["4H", "6S"], ("2C", "3D"))
    assert g.apply(("fill", 0, 1, 2)) == "lone card"
    g = lay(["9D", "JC QC", "", "", ""], ["KH", "", "", "", ""], ["4H", "6S"], ("2C", "3D"))
    assert g.apply(("fill", 0, 1, 2)) is None and g.stock[0][2] == cs("QC")


@check
def r19_touch_order_across_wrap():
    g = race()
    arb = Arbiter(g)
    base = TICKS_PERIOD - 100
    arb.press(("play", 0, 0, 0), ticks_add(base, 150))
    arb.press(("play", 1, 0, 0), base)
    res = arb.settle(ticks_add(base, 5000))
    assert res[0][2] is None and res[0][0][1] == 1 and res[1][2] == BEATEN
    assert arb.beaten_by_us[0] == 150
    assert ticks_diff(5, TICKS_PERIOD - 5) == 10


@check
def r19_one_players_same_stamp_presses_apply_in_press_order():
    # MicroPython's list.sort is not stable: only the press counter keeps one player's
    # presses of the same microsecond in the order pressed. 9D onto 8S, then 10C onto it.
    g = lay(["9D", "10C", "4C", "", ""], ["KC", "2H", "", "", ""], ["8S", "5D"], ("3C", "4S"))
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 100)
    arb.press(("play", 0, 1, 0), 100)
    res = arb.settle(5000)
    assert [(a, r) for a, t, r in res] == [(("play", 0, 0, 0), None), (("play", 0, 1, 0), None)]
    assert g.piles[0][-2:] == cs("9D 10C")
    # Pressed the other way round: the 10C comes first and does not fit yet.
    g = lay(["9D", "10C", "4C", "", ""], ["KC", "2H", "", "", ""], ["8S", "5D"], ("3C", "4S"))
    arb = Arbiter(g)
    arb.press(("play", 0, 1, 0), 100)
    arb.press(("play", 0, 0, 0), 100)
    res = arb.settle(5000)
    assert [a for a, t, r in res] == [("play", 0, 1, 0), ("play", 0, 0, 0)]
    assert res[0][2] is not None and res[1][2] is None and g.piles[0][-1] == card("9D")
    # Three presses of one stamp (a three-element sort reorders differently again).
    g = lay(["9D", "10C", "JD", "", ""], ["KC", "2H", "", "", ""], ["8S", "5D"], ("3C", "4S"))
    arb = Arbiter(g)
    for i in range(3):
        arb.press(("play", 0, i, 0), 100)
    res = arb.settle(5000)
    assert [r for a, t, r in res] == [None, None, None]
    assert g.piles[0][-3:] == cs("9D 10C JD")


@check
def r21_tie_alternates():
    g = race()
    first = g.tie_priority
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 9)
    arb.press(("play", 1, 0, 0), 9)
    res = arb.settle(9000)
    won = [a[1] for a, t, r in res if r is None]
    assert won == [first] and g.tie_priority == 1 - first and arb.ties == 1


@check
def r26_first_slap():
    g = lay(["5H", "", "", "", ""], ["9C", "KD QD", "", "", ""], ["4H", "7S 8S 6S"], ("2C 3C", "4D"))
    g.apply(("play", 0, 0, 0))
    arb = Arbiter(g)
    arb.press(("slap", 0, 0), 2000)
    arb.press(("slap", 1, 0), 1990)
    res = arb.settle(10000)
    assert res[0][2] is None and res[1][2] == BEATEN
    assert g.last_round["took"] == [3, 2]


@check
def r30_r33_single_pile_ends():
    g = lay(["KC", "QC", "", "", ""], ["5H", "", "", "", ""], ["3S 4H"], ("", "7C 8C"))
    g.apply(("play", 1, 0, 0))
    assert g.last_round["took"] == [3, 0] and g.last_round["cards"] == [5, 2]
    g = lay(["10C", "KC", "", "", ""], ["2D", "5D", "", "", ""], ["9H"], ("", ""))
    g.apply(("play", 0, 0, 0))
    assert g.last_round["out"] == 0 and g.last_round["cards"] == [1, 4]


@check
def r38_points_redeal():
    used = cs("5H 9C KD QD 4H")
    rest = [c for c in range(52) if c not in used]
    g = Game.from_layout([[cs("5H"), [], [], [], []], [cs("9C"), cs("KD QD"), [], [], []]],
                         [[], rest], [cs("4H")], Rules(points=True))
    g.apply(("play", 0, 0, 0))
    assert g.last_round["redeal"] and g.cards_held(0) == 26 and g.cards_held(1) == 26


@check
def r39_bad_input_changes_nothing():
    g = race()
    before = json.dumps(g.snapshot())
    for a in [("play", 0, 9, 0), ("play", 5, 0, 0), ("x",), (), ("play", 0, 0), ("slap", 0, 0),
              ("play", 0, "1", 0), None]:
        r = g.apply(a)
        assert isinstance(r, str), a
    assert json.dumps(g.snapshot()) == before


@check
def snapshot_json_restore():
    g = Game(seed=77, rules=Rules(manual_flip=True))
    g.apply(("spit", 0))
    g.apply(("spit", 1))
    text = json.dumps(g.snapshot())
    h = Game.restore(json.loads(text))
    assert json.dumps(h.snapshot()) == text
    try:
        Game.restore({"v": 9})
        raise AssertionError("restored garbage")
    except ValueError:
        pass


for fn in CHECKS:
    try:
        fn()
        print("ok", fn.__name__)
    except Exception as e:
        print("FAIL", fn.__name__ + ":", repr(e))
