"""The first-touch arbiter: touch order, the settle window, the tick wrap, ties."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules.arbiter import BEATEN, TICKS_PERIOD, Arbiter, ticks_add, ticks_diff
from tests.helpers import layout

E = ""


def race_game():
    return layout(["9D", "KC", "4C", E, E], ["7C", "2H", E, E, E], ["8S", "5D"],
                  hands=("3C", "4S"))


def micropython_ticks_diff(end, start):
    # py/modtime / extmod/utime_mphal.c: the reference this must equal.
    mask = TICKS_PERIOD - 1
    diff = (end - start) & mask
    return ((diff + TICKS_PERIOD // 2) & mask) - TICKS_PERIOD // 2


@given(st.integers(0, TICKS_PERIOD - 1), st.integers(0, TICKS_PERIOD - 1))
def test_ticks_diff_equals_micropython(a, b):
    assert ticks_diff(a, b) == micropython_ticks_diff(a, b)
    assert -TICKS_PERIOD // 2 <= ticks_diff(a, b) < TICKS_PERIOD // 2


def test_ticks_diff_argument_order_and_wrap():
    assert ticks_diff(10, 3) == 7 and ticks_diff(3, 10) == -7
    assert ticks_diff(5, TICKS_PERIOD - 5) == 10          # across the wrap
    assert ticks_add(TICKS_PERIOD - 5, 10) == 5


def test_actions_wait_for_the_settle_window():
    g = race_game()
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 0, 0, 0), 10_000)
    before = g.snapshot()
    assert arb.settle(11_999) == [] and arb.pending() == 1
    assert g.snapshot() == before
    assert arb.settle(12_000) == [(("play", 0, 0, 0), 10_000, None)]
    assert arb.pending() == 0


def test_a_late_arrival_inside_the_window_still_wins():
    g = race_game()
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 0, 0, 0), 5000)
    assert arb.settle(6000) == []                  # not yet: 1 ms old
    arb.press(("play", 1, 0, 0), 4990)             # arrives later, touched 10 µs earlier
    res = arb.settle(7500)
    assert [(a[1], r) for a, t, r in res] == [(1, None), (0, BEATEN)]
    assert arb.races == 1


@pytest.mark.parametrize("base", [TICKS_PERIOD - 1500, TICKS_PERIOD - 1, 0])
def test_touch_order_holds_across_the_tick_wrap(base):
    g = race_game()
    arb = Arbiter(g, window_us=2000)
    late = ticks_add(base, 300)                    # may have wrapped to a small number
    early = ticks_add(base, 100)
    arb.press(("play", 0, 0, 0), late)
    arb.press(("play", 1, 0, 0), early)
    res = arb.settle(ticks_add(base, 5000))
    assert res[0][0] == ("play", 1, 0, 0) and res[0][2] is None
    assert res[1][2] == BEATEN and arb.beaten_by_us[0] == 200


def test_the_window_holds_across_the_wrap():
    g = race_game()
    arb = Arbiter(g, window_us=2000)
    t = TICKS_PERIOD - 500
    arb.press(("play", 0, 0, 0), t)
    assert arb.settle(ticks_add(t, 1999)) == []
    assert len(arb.settle(ticks_add(t, 2000))) == 1


def test_same_player_actions_in_one_instant_apply_in_press_order():
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 0, 2, 1), 100)       # 4C on 5D
    arb.press(("play", 0, 0, 0), 100)       # 9D on 8S
    res = arb.settle(5000)
    assert [r for a, t, r in res] == [None, None]
    assert arb.ties == 0


def test_refusals_from_the_game_pass_through():
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 0, 1, 0), 100)       # KC on 8S
    arb.press(("dance", 0), 200)
    res = arb.settle(5000)
    assert [r for a, t, r in res] == ["doesn't fit", "bad action"]


def test_three_way_tie_alternation_over_many_ties():
    winners = []
    prio = None
    for n in range(6):
        g = race_game()
        if prio is not None:
            g.tie_priority = prio
        arb = Arbiter(g)
        arb.press(("play", 0, 0, 0), 50)
        arb.press(("play", 1, 0, 0), 50)
        res = arb.settle(3000)
        winners.append([a[1] for a, t, r in res if r is None][0])
        prio = g.tie_priority
    # Alternating priority: the winners alternate.
    assert all(winners[k] != winners[k + 1] for k in range(5))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 4), st.integers(0, 1),
                          st.integers(0, 3000)), min_size=1, max_size=12),
       st.integers(0, TICKS_PERIOD - 1))
def test_settle_result_does_not_depend_on_arrival_order(presses, base):
    """Presses all inside one window: any arrival order gives the same outcome."""
    def run(order):
        g = race_game()
        arb = Arbiter(g)
        for p, i, j, dt in order:
            arb.press(("play", p, i, j), ticks_add(base, dt))
        return arb.settle(ticks_add(base, 10_000)), g.snapshot()
    uniq = {}
    for p, i, j, dt in presses:           # distinct stamps per player keep it a pure order test
        uniq[(p, dt)] = (p, i, j, dt)
    presses = list(uniq.values())
    a = run(presses)
    b = run(list(reversed(presses)))
    assert a[1] == b[1]
    assert sorted(a[0], key=repr) == sorted(b[0], key=repr)


def test_junk_pressed_into_the_arbiter_is_refused_not_raised():
    g = race_game()
    before = g.snapshot()
    arb = Arbiter(g)
    for n, junk in enumerate([None, (), "play", ("play",), ("play", 7, 0, 0), ["slap", 0, 0],
                              ("play", 0, "x", 0), ("play", True, 0, 0), 42]):
        arb.press(junk, 100 + n)
    res = arb.settle(10_000)
    assert len(res) == 9
    assert all(isinstance(r, str) and r != BEATEN for a, t, r in res)
    assert g.snapshot() == before


def test_junk_in_the_same_instant_as_real_presses_is_refused_and_the_rest_applies():
    g = race_game()
    arb = Arbiter(g)
    arb.press(None, 100)
    arb.press(("play", 0, 0, 0), 100)
    arb.press(("play", 1, 1, 0), 100)        # 2H on 8S: doesn't fit
    res = {repr(a): r for a, t, r in arb.settle(9000)}
    assert res["None"] == "bad action"
    assert res[repr(("play", 0, 0, 0))] is None
    assert res[repr(("play", 1, 1, 0))] == "doesn't fit"


@given(st.integers(0, TICKS_PERIOD - 1), st.integers(-(2**29) + 1, 2**29 - 1))
def test_ticks_add_equals_micropython(t, delta):
    assert ticks_add(t, delta) == (t + delta) % TICKS_PERIOD
    assert ticks_diff(ticks_add(t, delta), t) == delta


def test_r20_beaten_when_the_pad_re_aimed_after_the_race_was_lost():
    # Player 0's 9D fitted 8S on pile 0; player 1 covered it with 7C 5 ms earlier. By
    # the time player 0's press is read, the pad aims at pile 1 (nothing fits there
    # either): still a lost race, not a misplay.
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 0), 1000)
    arb.settle(5000)
    arb.press(("play", 0, 0, 1), 6000)
    assert arb.settle(9000) == [(("play", 0, 0, 1), 6000, BEATEN)]
    assert arb.beaten_by_us[0] == 5000


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), base=st.integers(0, TICKS_PERIOD - 1),
       steps=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 50), st.integers(0, 3),
                                st.integers(0, 7)), min_size=10, max_size=300))
def test_r29_r19_random_presses_with_ties_keep_the_cards_and_touch_order(seed, base, steps):
    """Both players press what is legal for them, often on the same microsecond (gap 0),
    settling at random moments: no card is lost, nothing raises, and what is applied in
    one settle is applied in touch order."""
    from shared_rules.game import Game
    from tests.helpers import all_cards
    g = Game(seed=seed)
    arb = Arbiter(g)
    t = base
    for p, pick, gap, settle_every in steps:
        acts = g.legal_actions(p)
        if acts:
            arb.press(acts[pick % len(acts)], t)
        t = ticks_add(t, gap * 700)
        if settle_every == 0:
            res = arb.settle(ticks_add(t, 3000))
            applied = [rt for a, rt, r in res if r is None]
            assert all(ticks_diff(b, a) >= 0 for a, b in zip(applied, applied[1:]))
            assert all(r is None or isinstance(r, str) for a, rt, r in res)
        assert sorted(all_cards(g)) == list(range(52))
    assert g.tie_priority in (0, 1)
