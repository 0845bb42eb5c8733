"""The first-touch arbiter: touch order, the settle window, the tick wrap, ties."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules.arbiter import BEATEN, TICKS_PERIOD, Arbiter, ticks_add, ticks_diff
from shared_rules.cards import card
from shared_rules.game import PLAY
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


# ---- How races are classified (R20, R21) -------------------------------------------------

from shared_rules.game import NO_FIT  # noqa: E402


def test_r19_one_players_presses_in_one_instant_apply_in_the_order_pressed():
    # Player 0 taps 9D onto 8S and then 10C onto the 9D so fast that both carry the same
    # stamp: applied in the order pressed, both stand.
    g = layout(["9D", "10C", "4C", E, E], ["KC", "2H", E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 100)
    arb.press(("play", 0, 1, 0), 100)
    assert arb.settle(5000) == [(("play", 0, 0, 0), 100, None), (("play", 0, 1, 0), 100, None)]
    assert g.piles[0][-2:] == [card("9D"), card("10C")]


def test_r19_one_players_presses_in_one_instant_keep_their_order_when_it_fails():
    # Pressed the other way round, the 10C does not fit yet: it is refused (no race, the
    # player raced nobody) and the 9D that followed it still goes down.
    g = layout(["9D", "10C", "4C", E, E], ["KC", "2H", E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    arb = Arbiter(g)
    arb.press(("play", 0, 1, 0), 100)
    arb.press(("play", 0, 0, 0), 100)
    assert arb.settle(5000) == [(("play", 0, 1, 0), 100, NO_FIT), (("play", 0, 0, 0), 100, None)]
    assert arb.races == 0 and arb.ties == 0


def test_r20_a_plain_misplay_right_after_the_opponent_played_is_not_a_lost_race():
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 0), 1000)          # 7C onto 8S
    arb.settle(5000)
    arb.press(("play", 0, 1, 1), 6000)          # KC never fitted 8S, 7C or 5D
    assert arb.settle(9000) == [(("play", 0, 1, 1), 6000, NO_FIT)]
    assert arb.races == 0 and arb.beaten_by_us == [0, 0]


def test_r20_a_card_that_fitted_only_what_the_player_covered_themself_is_not_a_lost_race():
    # Player 0 covers 8S with 9D; player 1 does something else meanwhile; then player 0
    # presses a 7 that fitted the 8S they covered themselves: a misplay, not a race.
    g = layout(["9D", "7H", "4C", E, E], ["6C", "2H", E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 1000)
    arb.press(("play", 1, 0, 1), 1500)          # 6C on 5D
    arb.settle(5000)
    arb.press(("play", 0, 1, 0), 6000)          # 7H: fitted 8S, which player 0 covered
    assert arb.settle(9000)[0][2] == NO_FIT
    assert arb.races == 0


def test_r20_a_card_that_fitted_a_pile_covered_in_the_previous_round_is_not_a_lost_race():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"))
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 1), 1000)          # 9C covers 8S ...
    arb.press(("play", 0, 0, 0), 1200)          # ... and player 0 goes out: slap
    arb.press(("slap", 0, 0), 1400)
    arb.settle(10_000)
    assert g.round == 2 and g.phase == "ready"
    arb.press(("spit", 0), 11_000)
    arb.press(("spit", 1), 11_000)
    arb.settle(20_000)
    misplays = [a for a in g.legal_actions(0) if a[0] == "play"]
    # Any play of player 0 that does not fit now is a plain misplay in the new round,
    # whatever the 8S of the last round would have taken.
    for i in range(5):
        for j in range(len(g.piles)):
            if ("play", 0, i, j) not in misplays and g.stock[0][i]:
                before = arb.races
                arb.press(("play", 0, i, j), 30_000)
                res = arb.settle(40_000)
                assert res[0][2] != BEATEN
                assert arb.races == before


def test_r21_a_ties_loser_is_beaten_even_where_no_race_window_applies():
    # race_us=0: only an exact tie can be a race. Both play onto 8S at the same instant;
    # the player without the tie priority lost a race, by 0 µs.
    for prio in (0, 1):
        g = race_game()
        g.tie_priority = prio
        arb = Arbiter(g, race_us=0)
        arb.press(("play", 0, 0, 0), 500)
        arb.press(("play", 1, 0, 0), 500)
        reasons = {a[1]: r for a, t, r in arb.settle(5000)}
        assert reasons == {prio: None, 1 - prio: BEATEN}
        assert arb.races == 1 and arb.ties == 1 and arb.beaten_by_us[1 - prio] == 0


def test_r21_a_ties_loser_whose_press_never_fitted_is_not_beaten():
    # Player 1's KC at the same instant never fitted anything: refused with its reason.
    g = layout(["9D", "KC", "4C", E, E], ["7C", "KH", E, E, E], ["8S", "5D"], hands=("3C", "4S"))
    g.tie_priority = 0
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 500)
    arb.press(("play", 1, 1, 0), 500)
    reasons = {a[1]: r for a, t, r in arb.settle(5000)}
    assert reasons == {0: None, 1: NO_FIT}
    assert arb.races == 0


@pytest.mark.parametrize("first_pile", [0, 1])
def test_r20_beaten_by_the_smallest_gap_when_both_piles_were_covered(first_pile):
    # 9D fitted both 8S (pile 0) and 10H (pile 1). Player 1 covers one pile 4 ms before
    # player 0's press and the other 1.5 ms before it: beaten by 1.5 ms, the closer race.
    g = layout(["9D", "KC", "4C", E, E], ["7C", "JC", "2H", E, E], ["8S", "10H"],
               hands=("3C", "4S"))
    covers = {0: ("play", 1, 0, 0), 1: ("play", 1, 1, 1)}
    arb = Arbiter(g)
    arb.press(covers[first_pile], 1000)
    arb.press(covers[1 - first_pile], 3500)
    assert [r for a, t, r in arb.settle(5500)] == [None, None]
    arb.press(("play", 0, 0, 0), 5000)
    assert arb.settle(9000) == [(("play", 0, 0, 0), 5000, BEATEN)]
    assert arb.beaten_by_us[0] == 1500 and arb.beaten_by_us[1] == 0
    assert arb.races == 1


@pytest.mark.parametrize("loser", [0, 1])
def test_r20_beaten_by_the_gap_to_the_opponents_touch_when_the_press_was_legal(loser):
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", loser, 0, 0), 4700)      # legal when pressed (8S on top) ...
    arb.press(("play", 1 - loser, 0, 0), 1000)  # ... but the other card touched 3.7 ms earlier
    res = arb.settle(9000)
    assert res[0] == (("play", 1 - loser, 0, 0), 1000, None)
    assert res[1] == (("play", loser, 0, 0), 4700, BEATEN)
    assert arb.beaten_by_us[loser] == 3700 and arb.beaten_by_us[1 - loser] == 0
    assert arb.races == 1


@pytest.mark.parametrize("read", ["before_the_play_was_applied", "after_the_play_was_applied"])
@pytest.mark.parametrize("gap,lost_a_race", [(249_999, True), (250_000, False)])
def test_r20_the_race_window_is_250_ms_by_default(gap, lost_a_race, read):
    # Player 1 covers 8S with 7C; player 0 touches 9D onto the 8S `gap` µs later. Inside
    # the default 250 ms the refusal is a lost race ("beaten", not a fumble); from 250 ms
    # on it is a plain misplay. Both when player 0's press was read while the 8S was
    # still on top (legal when pressed) and when it was read after the 7C went down.
    g = race_game()
    arb = Arbiter(g)
    t1 = TICKS_PERIOD - 100_000                 # across the tick wrap as well
    t0 = ticks_add(t1, gap)
    arb.press(("play", 1, 0, 0), t1)
    if read == "after_the_play_was_applied":
        assert arb.settle(ticks_add(t1, 5000)) == [(("play", 1, 0, 0), t1, None)]
        arb.press(("play", 0, 0, 0), t0)
        res = arb.settle(ticks_add(t0, 5000))
    else:
        arb.press(("play", 0, 0, 0), t0)
        res = arb.settle(ticks_add(t0, 5000))
        assert res[0] == (("play", 1, 0, 0), t1, None)
        res = res[1:]
    assert res == [(("play", 0, 0, 0), t0, BEATEN if lost_a_race else NO_FIT)]
    assert arb.races == (1 if lost_a_race else 0)
    assert arb.beaten_by_us == [gap if lost_a_race else 0, 0]


JUNK_AFTER_PLAY = [("play", 0, 7, 0), ("play", 0, -1, 0), ("play", 0, 3, 0), ("play", 0, 0, 7),
                   ("play", 2, 0, 0), ("play", -1, 0, 0), ("play", 1.0, 0, 0), ("play", 0.0, 0, 0),
                   ("play", True, 0, 0), ("play", 0, 1.0, 0), ("play", 0, "1", 0), ("play", 0, 0),
                   ("fill", 0, 9, 3), ("fill", 2, 2, 3), ("take", 0, 0, 0), ("zap", 0, 0, 0), ("slap", 0, 0), ("spit", 0), ("play",),
                   (), None, "play", 42]


@pytest.mark.parametrize("junk", JUNK_AFTER_PLAY, ids=[repr(j) for j in JUNK_AFTER_PLAY])
def test_r39_junk_after_a_real_opponent_action_is_refused_not_raised(junk):
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 0), 1000)          # the opponent really played: 7C on 8S
    assert arb.settle(5000)[0][2] is None
    before = g.snapshot()
    arb.press(junk, 6000)                       # within race_us of that play
    res = arb.settle(9000)
    assert len(res) == 1 and isinstance(res[0][2], str) and res[0][2] != BEATEN
    assert g.snapshot() == before
    assert arb.races == 0 and arb.beaten_by_us == [0, 0]
    # ... and in the same instant as a real press of the opponent
    arb.press(junk, 10_000)
    arb.press(("play", 1, 1, 0), 10_000)        # 2H onto 7C: doesn't fit either
    res = arb.settle(20_000)
    assert all(isinstance(r, str) and r != BEATEN for a, t, r in res)
    assert g.snapshot() == before


def test_r19_r20_a_press_stamped_at_the_instant_of_the_opponents_play_but_read_late_lost():
    # Player 1's 7C and player 0's 9D touched 8S in the same microsecond, but player 0's
    # press reached the arbiter only after the 7C had been settled: still a race, lost
    # by 0 µs (the same as a tie lost on priority), not a misplay.
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 0), 1000)
    assert arb.settle(3000)[0][2] is None
    arb.press(("play", 0, 0, 0), 1000)
    assert arb.settle(3100) == [(("play", 0, 0, 0), 1000, BEATEN)]
    assert arb.races == 1 and arb.beaten_by_us == [0, 0]


@pytest.mark.parametrize("priority", [0, 1])
def test_r21_a_tie_after_an_earlier_press_in_the_same_settle_still_goes_by_priority(priority):
    # Player 0 plays 4C on 5D first; 0.4 ms later both touch 8S in the same instant and
    # player 0's press happens to be read first. The tie goes to the priority player.
    g = race_game()
    g.tie_priority = priority
    arb = Arbiter(g)
    arb.press(("play", 0, 2, 1), 100)
    arb.press(("play", 0, 0, 0), 500)
    arb.press(("play", 1, 0, 0), 500)
    res = arb.settle(5000)
    assert res[0] == (("play", 0, 2, 1), 100, None)
    assert {a[1]: r for a, t, r in res[1:]} == {priority: None, 1 - priority: BEATEN}
    assert arb.ties == 1 and g.tie_priority == 1 - priority


@pytest.mark.parametrize("priority", [0, 1])
def test_r21_one_players_own_presses_never_tie_with_each_other(priority):
    # Player 0 taps 9D and 7H, both fitting 8S, in one instant: the first pressed goes
    # down, the second no longer fits. No race, no tie, the priority is unchanged.
    g = layout(["9D", "7H", "4C", E, E], ["KC", "2H", E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    g.tie_priority = priority
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 100)
    arb.press(("play", 0, 1, 0), 100)
    assert arb.settle(5000) == [(("play", 0, 0, 0), 100, None), (("play", 0, 1, 0), 100, NO_FIT)]
    assert arb.ties == 0 and arb.races == 0 and g.tie_priority == priority


def test_r20_a_spit_counts_as_its_own_players_action_for_a_lost_race():
    # R20: a refused press is "beaten" only if the *other* player acted just before it.
    # Player 1 says Spit long before player 0 does; player 0's second press on a card
    # it has just played is then its own mistake, not a race lost to player 1.
    g = layout(["5C", "KC", E, E, E], ["10D", E, E, E, E], [], hands=("2H 6S", "3H 9D"))
    arb = Arbiter(g)
    arb.press(("spit", 1), 1000)
    arb.press(("spit", 0), 400_000)
    arb.settle(410_000)
    assert g.phase == PLAY and g.piles[0][-1] == card("6S")
    arb.press(("play", 0, 0, 0), 500_000)
    arb.press(("play", 0, 0, 0), 500_001)     # legal when pressed, not once the first lands
    res = arb.settle(510_000)
    assert [r for a, t, r in res] == [None, "stockpile empty"] and arb.races == 0


def test_ticks_add_lands_on_zero_and_on_the_last_tick():
    assert ticks_add(5, -5) == 0 and ticks_add(0, 0) == 0
    assert ticks_add(TICKS_PERIOD - 5, 5) == 0
    assert ticks_add(5, -6) == TICKS_PERIOD - 1 and ticks_add(TICKS_PERIOD - 1, 0) == TICKS_PERIOD - 1


def test_r43_presses_chained_within_the_bound_are_one_instant_however_many():
    # Four presses each 10 µs after the one before, all with a 15 µs bound: one chain,
    # so one instant (R43) though the first and the last are 30 µs apart. Player 1's
    # last press conflicts with player 0's second: a tie (R21), decided by priority.
    g = layout(["9D", "KC", "4C", E, E], ["7C", "10H", E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    g.tie_priority = 0
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 0, 2, 1), 1000, 15)      # 4C on 5D
    arb.press(("play", 0, 0, 0), 1010, 15)      # 9D on 8S
    arb.press(("play", 0, 1, 0), 1020, 15)      # KC fits nothing: player 0's own mistake
    arb.press(("play", 1, 0, 0), 1030, 15)      # 7C on 8S: conflicts with the 9D
    res = arb.settle(10_000)
    assert [(a, r) for a, t, r in res] == [
        (("play", 0, 2, 1), None), (("play", 0, 0, 0), None),
        (("play", 0, 1, 0), "doesn't fit"), (("play", 1, 0, 0), BEATEN)]
    assert arb.ties == 1 and arb.beaten_by_us[1] == 0     # a tie's loser lost by 0 µs
    assert g.tie_priority == 1                            # the loser has the next tie


def test_r20_the_margin_of_a_lost_race_is_the_smallest_even_when_it_is_zero():
    # Player 1 covers pile 1's 8D 5 µs before, and pile 0's 8S at the very µs of,
    # player 0's 9C (which fitted both): read after those were settled, it lost by 0 µs.
    g = layout(["9C", "KC", E, E, E], ["7C", "9H", E, E, E], ["8S", "8D"], hands=("3C", "4S"))
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 1, 0, 1), 4995)          # 7C on 8D
    arb.press(("play", 1, 1, 0), 5000)          # 9H on 8S
    assert [r for a, t, r in arb.settle(8000)] == [None, None]
    arb.press(("play", 0, 0, 0), 5000)          # 9C, aimed at pile 0 when read
    assert [r for a, t, r in arb.settle(8001)] == [BEATEN]
    assert arb.beaten_by_us[0] == 0 and arb.races == 1


def test_ticks_diff_of_half_the_period_is_negative_as_micropythons():
    half = TICKS_PERIOD // 2
    assert ticks_diff(half, 0) == -half == micropython_ticks_diff(half, 0)
    assert ticks_diff(0, half) == -half and ticks_diff(half + 5, 5) == -half
    assert ticks_diff(half - 1, 0) == half - 1


def test_r20_a_late_press_lost_the_race_to_the_card_on_top_not_the_one_below():
    # Pile 0 holds 3C under 8S. Player 1 covers the 8S with 7C; player 0's 9D, touched
    # 100 µs later but read after that play was settled, fitted the 8S it covered: a
    # lost race (R20), though it fits neither the 7C now on top nor the 3C below.
    g = layout(["9D", "KC", E, E, E], ["7C", "2H", E, E, E], ["3C 8S", "5D"],
               hands=("4C", "4S"))
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 1, 0, 0), 10_000)
    assert [r for a, t, r in arb.settle(13_000)] == [None]
    arb.press(("play", 0, 0, 0), 10_100)
    assert [r for a, t, r in arb.settle(13_001)] == [BEATEN]
    assert arb.beaten_by_us[0] == 100


def test_r43_presses_within_the_bound_tie_even_further_apart_than_the_window():
    # Player 0 touches at 10 ms; player 1's press, converted from a linked clock with a
    # 5 ms bound, at 13 ms: 3 ms apart, past the 2 ms window but within the bound, so
    # one instant (R43) and a tie (R21) that player 1's priority wins. Player 0's press
    # waits for the whole instant: settling it alone at 12.5 ms would split the tie.
    g = race_game()
    g.tie_priority = 1
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 0, 0, 0), 10_000)             # 9D on 8S
    arb.press(("play", 1, 0, 0), 13_000, 5000)       # 7C on 8S: conflicts
    assert arb.settle(12_500) == [] and arb.pending() == 2
    assert arb.settle(14_999) == [] and arb.pending() == 2
    res = arb.settle(15_000)
    assert [(a, r) for a, t, r in res] == [(("play", 1, 0, 0), None),
                                           (("play", 0, 0, 0), BEATEN)]
    assert arb.ties == 1 and g.tie_priority == 0


def test_r43_presses_further_apart_than_the_bound_go_by_stamp_whichever_came_first():
    # The same two presses 3 ms apart with a 2.5 ms bound: not one instant; the earlier
    # stamp wins (R19) though its press reached the arbiter last, and no tie is used up.
    g = race_game()
    g.tie_priority = 1
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 1, 0, 0), 13_000, 2500)
    arb.press(("play", 0, 0, 0), 10_000)
    res = arb.settle(15_000)
    assert [(a, r) for a, t, r in res] == [(("play", 0, 0, 0), None),
                                           (("play", 1, 0, 0), BEATEN)]
    assert arb.ties == 0 and g.tie_priority == 1


def test_r43_the_reach_of_queued_bounds_and_a_later_instant_of_its_own():
    # A press 6 ms after the 5 ms-bound one is an instant of its own, settled after the
    # tie once it is old enough. reach_us says how far back a new press may still tie.
    g = race_game()
    g.tie_priority = 0
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 0, 0, 0), 10_000)
    arb.press(("play", 1, 0, 0), 13_000, 5000)
    assert arb.reach_us(0) == 5000
    arb.press(("play", 0, 2, 1), 19_000)             # 4C on 5D, 6 ms later: its own instant
    assert arb.settle(14_000) == []
    res = arb.settle(20_000)
    assert [a for a, t, r in res] == [("play", 0, 0, 0), ("play", 1, 0, 0)]
    assert arb.ties == 1 and arb.pending() == 1
    assert [(a, r) for a, t, r in arb.settle(21_000)] == [(("play", 0, 2, 1), None)]


def test_r20_player_1_also_loses_a_race_to_a_card_player_0_covered():
    # The mirror of the re-aimed race above: player 0 covers the 8S with 9D; player 1's
    # 7C, touched 5 ms later and read after that play, fitted the 8S and is aimed at the
    # 5D when read: player 1 lost a race by 5 ms.
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 1000)
    assert [r for a, t, r in arb.settle(5000)] == [None]
    arb.press(("play", 1, 0, 1), 6000)
    assert arb.settle(9000) == [(("play", 1, 0, 1), 6000, BEATEN)]
    assert arb.beaten_by_us == [0, 5000] and arb.races == 1


@pytest.mark.parametrize("fill", [("fill", 0, 0, 1), ("fill", 0, 0, 0), ("fill", 0, 3, 4)])
def test_r20_a_refused_fill_right_after_the_opponent_played_is_not_a_lost_race(fill):
    # Player 1 covers the 8S with 7C; 5 ms later player 0 tries to move the 9D (which
    # fitted that 8S) onto another slot, or moves from an empty one: only a play can
    # lose a race, so the fill is refused with its own reason.
    g = race_game()
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 0), 1000)
    assert [r for a, t, r in arb.settle(5000)] == [None]
    want = g.why_not(fill)
    assert want not in (None, BEATEN)
    arb.press(fill, 6000)
    assert arb.settle(9000) == [(fill, 6000, want)]
    assert arb.races == 0 and arb.beaten_by_us == [0, 0]


@pytest.mark.parametrize("gap", [1, 299, 500])
def test_r43_the_later_presss_bound_alone_makes_a_tie_up_to_its_last_us(gap):
    # Player 0's press carries no bound; player 1's, `gap` µs later, a bound of 500 µs
    # (a linked peer's converted stamp): within that bound the two are one instant
    # (R43), a tie that player 1's priority wins (R21); 1 µs beyond it, first touch.
    for extra, tie in ((0, True), (501 - gap, False)):
        g = race_game()
        g.tie_priority = 1
        arb = Arbiter(g)
        arb.press(("play", 0, 0, 0), 1000)                      # 9D on 8S
        arb.press(("play", 1, 0, 0), 1000 + gap + extra, 500)   # 7C on 8S
        reasons = {a[1]: r for a, t, r in arb.settle(10_000)}
        assert reasons == ({1: None, 0: BEATEN} if tie else {0: None, 1: BEATEN}), (gap, extra)
        assert arb.ties == (1 if tie else 0)


@pytest.mark.parametrize("priority", [0, 1])
def test_r21_the_priority_players_own_second_press_in_a_lost_tie_is_no_lost_race(priority):
    # Both players play onto 8S at one instant (a tie) and the priority player also
    # plays the same 9D/7C onto the other pile in that instant. The other player lost
    # the tie (beaten, by 0 µs); the priority player's second press was refused by their
    # own first one (the card is gone): a plain refusal, not a lost race.
    g = layout(["9D", "KC", "4C", E, E], ["7C", "2H", E, E, E], ["8S", "8D"], hands=("3C", "4S"))
    g.tie_priority = priority
    arb = Arbiter(g)
    arb.press(("play", priority, 0, 0), 500)
    arb.press(("play", priority, 0, 1), 500)
    arb.press(("play", 1 - priority, 0, 0), 500)
    res = {(a[1], a[3]): r for a, t, r in arb.settle(5000)}
    assert res[(priority, 0)] is None and res[(1 - priority, 0)] == BEATEN
    assert res[(priority, 1)] not in (None, BEATEN)
    assert arb.races == 1 and arb.ties == 1
    assert arb.beaten_by_us == [0, 0]


@pytest.mark.parametrize("age,lost_a_race", [(249_999, True), (250_000, False)])
def test_r20_a_card_covered_250_ms_before_the_press_no_longer_makes_a_race(age, lost_a_race):
    # Player 1 covers 8S with 7C, then plays 2H elsewhere 100 ms later; player 0's 9D,
    # which fitted the 8S, is touched `age` µs after the 8S was covered and read after
    # both plays: inside the 250 ms race window a lost race, from 250 ms on a misplay.
    g = layout(["9D", "KC", "6H", E, E], ["7C", "2H", "QH", E, E], ["8S", "3D"], hands=("3C", "4S"))
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 0), 1000)          # 7C on 8S
    arb.press(("play", 1, 1, 1), 101_000)       # 2H on 3D
    assert [r for a, t, r in arb.settle(200_000)] == [None, None]
    arb.press(("play", 0, 0, 0), 1000 + age)
    res = arb.settle(1000 + age + 3000)
    assert res[0][2] == (BEATEN if lost_a_race else NO_FIT)
    assert arb.races == (1 if lost_a_race else 0)


def test_r19_r21_presses_at_distinct_stamps_after_others_in_one_settle_go_by_first_touch():
    # Four presses settled together, each at its own stamp: player 0 plays 4C and 3H,
    # then 9D onto 8S at 300 µs; player 1's 7C onto 8S at 400 µs is no tie (R21) even
    # with player 1's tie priority: the earlier touch wins (R19).
    g = layout(["9D", "4C", "3H", E, E], ["7C", "2H", "QH", E, E], ["8S", "5D"], hands=("3C", "4S"))
    g.tie_priority = 1
    arb = Arbiter(g)
    arb.press(("play", 0, 1, 1), 100)
    arb.press(("play", 0, 2, 1), 200)
    arb.press(("play", 0, 0, 0), 300)
    arb.press(("play", 1, 0, 0), 400)
    res = arb.settle(10_000)
    assert [r for a, t, r in res] == [None, None, None, BEATEN]
    assert arb.ties == 0 and arb.beaten_by_us == [0, 100]


def test_r43_the_earlier_press_s_bound_alone_makes_a_tie():
    # Player 1's press, converted from a linked clock with a 5 ms bound, at 10 ms;
    # player 0's own press 3 ms later. Within the earlier press's bound: one instant
    # (R43), a tie (R21) that player 0's priority wins although it touched later.
    g = race_game()
    g.tie_priority = 0
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 1, 0, 0), 10_000, 5000)       # 7C on 8S
    arb.press(("play", 0, 0, 0), 13_000)             # 9D on 8S: conflicts
    res = arb.settle(20_000)
    assert [(a, r) for a, t, r in res] == [(("play", 0, 0, 0), None),
                                           (("play", 1, 0, 0), BEATEN)]
    assert arb.ties == 1 and g.tie_priority == 1


def test_r20_a_card_covered_longer_ago_than_the_race_window_is_no_race_after_a_later_play():
    # Player 1 covers the 8S (which player 0's 9C fitted) at 1 ms, then plays 4H on 5D
    # at 201 ms. Player 0's 9C, touched at 301 ms, still aimed at pile 0: the opponent
    # acted 100 ms before it, but the card it fitted was covered 300 ms before it,
    # longer than the 250 ms window (R20): a plain misplay, not a lost race.
    g = layout(["9C", "KC", E, E, E], ["7C", "4H", "6D", E, E], ["8S", "5D"], hands=("3C", "4S"))
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 1, 0, 0), 1000)               # 7C on 8S
    arb.press(("play", 1, 1, 1), 201_000)            # 4H on 5D
    assert [r for a, t, r in arb.settle(210_000)] == [None, None]
    arb.press(("play", 0, 0, 0), 301_000)            # 9C on 7C: doesn't fit
    assert arb.settle(310_000) == [(("play", 0, 0, 0), 301_000, NO_FIT)]
    assert arb.races == 0 and arb.beaten_by_us == [0, 0]
