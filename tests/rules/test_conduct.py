"""The device's conduct in the rules core (shared_rules/conduct.py, shared_rules/match.py):
R41's escalating fumble, R43's bound on a linked peer's stamps in the arbiter, and
R44's slap signal with its false starts, as the press pipeline that the handheld's
table and the self-play simulation share decides them."""
import pytest

from shared_rules import match as M
from shared_rules import selfplay
from shared_rules.arbiter import Arbiter, BEATEN, TICKS_PERIOD
from shared_rules.cards import card
from shared_rules.conduct import (Conduct, Fumbles, signal_delay_us, FUMBLE_US,
                                  SIGNAL_MIN_US, SIGNAL_MAX_US, SLAP_IGNORE_US,
                                  SLAP_LIMIT_US)
from shared_rules.game import NO_FIT, READY, SLAP, Game
from shared_rules.pad import A, B
from shared_rules.replay import parse
from tests.helpers import layout

E = ""
MS = 1000
S = 1000000


class Log(M.Match):
    """A match that writes down what it decides."""

    def __init__(self, *a, **kw):
        M.Match.__init__(self, *a, **kw)
        self.out = []
        self.signals = []

    def on_outcome(self, kind, p, action, t, reason, now):
        self.out.append((kind, p, action, t, reason))

    def on_signal(self, now):
        self.signals.append(now)


# ---- R41: a repeated fumble lasts longer ----------------------------------------------

def fumble(f, p, t):
    assert f.settled(("play", p, 1, 0), t, NO_FIT)
    return f.length[p]


def test_r41_a_repeated_fumble_lasts_twice_the_previous_one_up_to_four_fumble_times():
    f = Fumbles(FUMBLE_US, 3 * S)
    t = 1000
    lengths = []
    for _ in range(5):
        n = fumble(f, 0, t)
        lengths.append(n)
        t += n + 1 * S                  # touched 1 s after the buttons came back
    assert lengths == [500 * MS, 1 * S, 2 * S, 2 * S, 2 * S]
    assert f.length[1] == 0 and f.count == [5, 0]      # the other player's run is theirs


def test_r41_three_seconds_of_live_buttons_end_the_run():
    for gap, want in ((3 * S - 1, 1 * S), (3 * S, 500 * MS)):
        f = Fumbles(FUMBLE_US, 3 * S)
        fumble(f, 1, 0)
        assert fumble(f, 1, 500 * MS + gap) == want, gap


def test_r41_the_run_counts_across_the_tick_wrap():
    f = Fumbles(FUMBLE_US, 3 * S)
    fumble(f, 0, TICKS_PERIOD - 100 * MS)
    assert fumble(f, 0, (TICKS_PERIOD - 100 * MS + 500 * MS + 2 * S) % TICKS_PERIOD) == 1 * S
    assert f.dead(0, (f.start[0] + 1 * S - 1) % TICKS_PERIOD)
    assert not f.dead(0, (f.start[0] + 1 * S) % TICKS_PERIOD)


def test_r41_a_played_card_ends_the_run():
    f = Fumbles(FUMBLE_US, 3 * S)
    fumble(f, 0, 0)
    f.played(0)
    assert fumble(f, 0, 1 * S) == 500 * MS
    f.played(1)                                        # the other player's play: no matter
    assert fumble(f, 0, 2 * S) == 1 * S


def test_r41_with_no_repeat_window_every_fumble_lasts_the_fumble_time():
    f = Fumbles(FUMBLE_US, 0)                          # recordings from before the escalation
    assert [fumble(f, 0, t * S) for t in range(4)] == [500 * MS] * 4


def fumble_table():
    # Player 0: 5C fits 6S, 9D fits nothing, QD fits KD, 4S 2S fills an empty slot.
    return layout(["5C", "9D", "QD", "4S 2S", ""], ["5H", "8S", "", "", ""], ["6S", "KD"],
                  hands=("2C", "3D"))


def test_r19_tick_says_the_state_changed_in_the_frame_that_settles_a_press():
    # The table redraws when tick() says the game changed: a press settled once its
    # window has passed, in a frame with no press of its own, must say so.
    m = Log(fumble_table(), Conduct())
    t = 1000
    m.press(t, 0, B)                                   # 5C onto 6S
    assert m.tick(t + 1 * MS) is False and m.out == []  # still inside the 2 ms window
    assert m.tick(t + 3 * MS) is True
    assert m.out[-1][0] == M.APPLIED and m.out[-1][2] == ("play", 0, 0, 0)
    assert m.tick(t + 4 * MS) is False                 # nothing more to settle
    m.press(t + 5 * MS, 0, A)                          # cursor to 9D
    m.press(t + 6 * MS, 0, B)                          # 9D fits nothing: a fumble
    assert m.tick(t + 9 * MS) is True and m.out[-1][0] == M.FUMBLE


def test_r41_through_the_pipeline_a_play_ends_the_run_and_a_fill_or_a_lost_race_does_not():
    m = Log(fumble_table(), Conduct())
    t = 1000
    m.press(t, 0, A)                                   # cursor to 9D
    m.press(t + 1, 0, B)                               # fumble: 0.5 s
    m.tick(t + 10 * MS)
    assert m.out[-1][0] == M.FUMBLE and m.fumbles.length[0] == 500 * MS
    t += 600 * MS
    m.press(t, 0, A)                                   # QD
    m.press(t + 1, 0, A)                               # 4S 2S
    m.press(t + 2, 0, B)                               # fills the empty slot: no play
    m.tick(t + 10 * MS)
    assert m.out[-1][0] == M.APPLIED and m.out[-1][2][0] == "fill"
    m.pads[0].cursor = 1
    m.press(t + 20 * MS, 0, B)                         # 9D again: the run goes on, 1 s
    m.tick(t + 30 * MS)
    assert m.out[-1][0] == M.FUMBLE and m.fumbles.length[0] == 1 * S
    t += 1100 * MS
    m.pads[0].cursor = 2
    m.press(t, 0, B)                                   # QD onto KD: a play
    m.tick(t + 10 * MS)
    assert m.out[-1][0] == M.APPLIED and m.out[-1][2][0] == "play"
    m.pads[0].cursor = 1
    m.press(t + 20 * MS, 0, B)                         # 9D: a new run, 0.5 s
    m.tick(t + 30 * MS)
    assert m.out[-1][0] == M.FUMBLE and m.fumbles.length[0] == 500 * MS


def test_r41_presses_during_a_repeated_fumble_are_ignored_and_do_not_lengthen_it():
    m = Log(fumble_table(), Conduct())
    m.press(0, 0, A)
    m.press(1, 0, B)                                   # 0.5 s from 1
    m.tick(10 * MS)
    m.press(600 * MS, 0, B)                            # still on 9D: 1 s from 600 ms
    m.tick(610 * MS)
    assert m.fumbles.length[0] == 1 * S
    for t in (700 * MS, 900 * MS, 1599 * MS):
        assert m.press(t, 0, B) == M.DEAD
    assert m.fumbles.length[0] == 1 * S and m.fumbles.count[0] == 2
    assert m.press(1600 * MS, 0, A) == M.MOVED         # live again after exactly 1 s


# ---- R43: a linked peer's stamps carry an error bound ---------------------------------

def race_layout():
    # Both players' 5s fit the 6S pile; only one of them can go there first.
    return layout(["5C", E, E, E, E], ["5H", "KC", E, E, E], ["6S", "9D"], hands=("2C", "3D"))


def test_r43_conflicting_presses_within_the_bound_are_a_tie_decided_by_r21():
    for first in (0, 1):
        g = race_layout()
        g.tie_priority = first
        arb = Arbiter(g, window_us=20 * MS)
        arb.press(("play", 1, 0, 0), 10_015, bound_us=20)  # the peer's, converted: ±20 µs
        arb.press(("play", 0, 0, 0), 10_000)               # the authority's own
        res = arb.settle(50 * MS)
        won = [a[1] for a, t, r in res if r is None]
        lost = [(a[1], r) for a, t, r in res if r is not None]
        assert won == [first] and lost == [(1 - first, BEATEN)]
        assert arb.ties == 1 and g.tie_priority == 1 - first    # the loser gets the next


def test_r43_outside_the_bound_the_earlier_stamp_wins_whichever_arrived_first():
    for gap in (21, -21, 500):
        g = race_layout()
        arb = Arbiter(g, window_us=20 * MS)
        arb.press(("play", 0, 0, 0), 10_000)
        arb.press(("play", 1, 0, 0), 10_000 + gap, bound_us=20)   # arrives second
        res = arb.settle(50 * MS)
        earlier = 0 if gap > 0 else 1
        assert [a[1] for a, t, r in res if r is None] == [earlier], gap
        assert arb.ties == 0


def test_r43_a_bound_of_zero_is_the_single_device_rule_equal_stamps_only():
    g = race_layout()
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 10_001)
    arb.press(("play", 1, 0, 0), 10_000)
    res = arb.settle(20 * MS)
    assert res[0] == (("play", 1, 0, 0), 10_000, None) and arb.ties == 0


def test_r43_the_bound_is_read_across_the_tick_wrap():
    g = race_layout()
    g.tie_priority = 1
    arb = Arbiter(g, window_us=20 * MS)
    arb.press(("play", 0, 0, 0), TICKS_PERIOD - 5)
    arb.press(("play", 1, 0, 0), 5, bound_us=10)           # 10 µs later, past the wrap
    res = arb.settle(30 * MS)
    assert [a[1] for a, t, r in res if r is None] == [1] and arb.ties == 1


# ---- R44: the slap signal -------------------------------------------------------------

T0 = 5000


def slap_round(conduct=None, piles=("4H", "7S 8S 9S"), p1=("9C", "KD QD", E, E, E)):
    """Player 0 plays their last card (5H onto 4H) at T0: the round ends, the slap."""
    g = layout(["5H", E, E, E, E], list(p1), list(piles), hands=("2C 3C", "4D"))
    m = Log(g, conduct if conduct is not None else Conduct())
    assert m.press(T0, 0, B) == M.QUEUED
    m.tick(T0 + 3 * MS)
    assert g.phase == SLAP and m.end_t == T0
    return m


def test_r44_the_signal_comes_0_6_to_1_5_s_after_the_last_touch_a_draw_per_seed_and_round():
    c = Conduct()
    delays = [signal_delay_us(c, seed, rnd) for seed in range(40) for rnd in range(1, 26)]
    assert min(delays) >= SIGNAL_MIN_US == 600 * MS and max(delays) <= SIGNAL_MAX_US == 1500 * MS
    assert all(d % MS == 0 for d in delays)             # 1 ms steps
    assert len(set(delays)) > 500                       # spread, not a few values
    assert min(delays) < 650 * MS and max(delays) > 1450 * MS
    assert signal_delay_us(c, 7, 3) == signal_delay_us(c, 7, 3)
    assert signal_delay_us(c, 7, 3) != signal_delay_us(c, 7, 4) or \
        signal_delay_us(c, 7, 3) != signal_delay_us(c, 8, 3)
    m = slap_round()
    assert m.signal_t == T0 + signal_delay_us(c, 0, 1)
    assert m.due_us() == m.signal_t
    m.tick(m.signal_t - 1)
    assert m.signals == [] and m.slap_left_us(m.signal_t - 1) == -1
    m.tick(m.signal_t)
    assert m.signals == [m.signal_t] and m.slap_left_us(m.signal_t) == SLAP_LIMIT_US


def test_r44_the_signal_draws_nothing_from_the_games_generator_so_the_deals_are_the_same():
    ends = []
    for signal in (1, 0):
        m = slap_round(Conduct(signal=signal))
        t = m.signal_t if signal else T0
        m.press(t + 200 * MS, 1, A)                     # player 1 slaps pile 1 (their left)
        m.tick(t + 210 * MS)
        assert m.game.phase == READY and m.game.round == 2
        ends.append(m.game.snapshot())
    assert ends[0] == ends[1]


def test_r44_a_slap_within_0_4_s_of_the_last_touch_is_ignored():
    m = slap_round()
    assert m.press(T0 + SLAP_IGNORE_US - 1, 1, A) == M.IGNORED
    assert m.press(T0 + 1, 0, B) == M.IGNORED
    m.tick(T0 + SLAP_IGNORE_US + 10 * MS)
    assert m.game.phase == SLAP and m.out[-1][2][0] == "play"      # nothing decided
    assert m.press(T0 + SLAP_IGNORE_US, 1, A) == M.QUEUED          # this one counts


def test_r44_a_slap_before_the_signal_is_a_false_start_and_takes_the_larger_pile():
    for who, button in ((0, A), (0, B), (1, A), (1, B)):
        m = slap_round()                                # piles: 2 cards (0), 3 cards (1)
        t = m.signal_t - 1
        m.press(t, who, button)
        m.tick(t + 3 * MS)                              # decided at once, not at the signal
        kind, p, action, at, reason = m.out[-1]
        assert (kind, p, at, reason) == (M.FALSE_START, who, t, None)
        lr = m.game.last_round
        took = lr["took"]
        assert took[who] == 3 and took[1 - who] == 2, (who, button)
        assert m.false_starts[who] == 1 and m.game.round == 2 and m.ended


def test_r44_a_real_slap_equal_to_a_false_starts_converted_one_is_not_a_false_start():
    # Player 0's false start becomes player 1's slap of a pile; player 1's own slap of
    # that same pile, just after the signal, is settled after it: refused, and no
    # second false start of player 0.
    for button in (A, B):
        m = slap_round()
        s = m.signal_t
        m.press(s - 1, 0, A)
        m.press(s + 1, 1, button)
        m.tick(s + 3 * MS)
        assert m.false_starts == [1, 0], button
        assert [o[0] for o in m.out[-2:]].count(M.FALSE_START) == 1, button


def test_r44_of_two_equal_piles_the_false_starter_takes_the_one_they_did_not_slap():
    for who, button, slapped in ((0, A, 0), (0, B, 1), (1, A, 1), (1, B, 0)):
        m = slap_round(piles=("4H", "7S 9S"))           # 2 and 2 after the play
        m.press(T0 + 500 * MS, who, button)
        m.tick(T0 + 503 * MS)
        assert m.out[-1][0] == M.FALSE_START
        # The other player took the pile the false starter slapped.
        assert m.game.last_round["slap"] == [1 - who, slapped], (who, button)


def test_r44_in_r33s_tie_the_false_starter_is_not_the_one_who_went_out_first():
    for who in (0, 1):
        g = layout(["10C", "KC", E, E, E], ["2D", E, E, E, E], ["9H"], hands=("", ""))
        m = Log(g, Conduct())
        m.press(T0, 0, B)                               # 10C onto 9H: stalled, 1 card each
        m.tick(T0 + 3 * MS)
        assert g.phase == SLAP and g.ending == {"end": "stalled", "out": None}
        m.press(T0 + 450 * MS, who, A)
        m.tick(T0 + 453 * MS)
        assert m.out[-1][0] == M.FALSE_START and m.out[-1][1] == who
        assert g.last_round["out"] == 1 - who


def test_r44_if_both_false_start_the_earlier_false_start_decides():
    for first in (0, 1):
        m = slap_round()
        m.press(T0 + 500 * MS, first, A)
        m.press(T0 + 500 * MS + 1, 1 - first, A)        # 1 µs later, in the same window
        m.tick(T0 + 510 * MS)
        kinds = [(o[0], o[1], o[4] is None) for o in m.out[1:]]
        assert kinds == [(M.FALSE_START, first, True), (M.FALSE_START, 1 - first, False)]
        assert m.game.last_round["took"][first] == 3    # the larger pile, to the first


def test_r44_two_false_starts_at_one_instant_are_a_tie_whose_loser_is_penalised():
    for prio in (0, 1):
        m = slap_round()
        m.game.tie_priority = prio
        m.press(T0 + 500 * MS, 0, A)
        m.press(T0 + 500 * MS, 1, A)
        m.tick(T0 + 510 * MS)
        loser = 1 - prio
        assert m.game.last_round["took"][loser] == 3 and m.game.tie_priority == loser


def test_r44_after_the_signal_slaps_go_by_stamp_and_the_limit_counts_from_the_signal():
    m = slap_round()
    s = m.signal_t
    m.tick(s)
    m.press(s + 250 * MS, 0, A)                         # pile 0 (2 cards), later
    m.press(s + 240 * MS, 1, B)                         # pile 0 too, 10 ms earlier
    m.tick(s + 260 * MS)
    assert m.game.last_round["slap"] == [1, 0]
    assert [o[0] for o in m.out[1:]] == [M.APPLIED, M.BEATEN_TO_IT]
    # Nobody slaps: the table's own slap comes at the signal + the limit, not before.
    m = slap_round()
    s = m.signal_t
    m.tick(s)
    assert m.due_us() == s + SLAP_LIMIT_US
    m.tick(s + SLAP_LIMIT_US - 1)
    assert m.game.phase == SLAP
    m.tick(s + SLAP_LIMIT_US + 3 * MS)
    assert m.game.round == 2 and m.game.last_round["slap"] == [0, 0]
    m.press(s + SLAP_LIMIT_US + 1 * MS, 1, B)           # after the table's own: too late
    assert m.out[-1][0] in (M.APPLIED,) and m.ended


def test_r26_the_slap_time_left_counts_down_to_the_last_us_then_0():
    m = slap_round()
    s = m.signal_t
    m.tick(s)
    end = s + SLAP_LIMIT_US
    assert m.slap_left_us(end - 2) == 2 and m.slap_left_us(end - 1) == 1
    assert m.slap_left_us(end) == 0 and m.slap_left_us(end + 5) == 0


def test_r26_the_tables_own_slap_waits_for_the_time_limits_very_us():
    m = slap_round()
    s = m.signal_t
    m.tick(s)
    end = s + SLAP_LIMIT_US
    m.tick(end - 1)
    assert m.auto is None and m.due_us() == end       # not yet: one µs to go
    m.tick(end)
    assert m.auto is not None


def test_r44_with_the_signal_off_the_slap_is_on_sight_as_before():
    m = slap_round(Conduct(signal=0))
    assert m.signal_t is None and m.signalled and m.deadline == T0 + SLAP_LIMIT_US
    assert m.press(T0 + 10 * MS, 1, B) == M.QUEUED      # no ignore window either
    m.tick(T0 + 20 * MS)
    assert m.out[-1][0] == M.APPLIED and m.game.last_round["slap"] == [1, 0]


def test_r44_the_cpu_waits_for_the_signal_and_the_masher_false_starts():
    levels = ("normal", "masher")
    rec = []
    st = selfplay.play(4, levels, record=rec)
    assert not st["violations"] and st["false1"] > 0 and st["false0"] == 0
    # With the signal off the masher slaps first far more often.
    off = selfplay.play(4, levels, conduct=Conduct(signal=0))
    assert off["slaps1"] > st["slaps1"]


def test_r44_and_r41_the_recording_keeps_every_parameter_and_replays_under_its_own_conduct():
    c = Conduct(1250 * MS, 2000 * MS, 3, 1, 700 * MS, 1200 * MS, 300 * MS, 4 * S)
    line = c.format()
    assert line == ("conduct fumble=1250 repeat=2000 cap=3 signal=1 signal_min=700 "
                    "signal_max=1200 ignore=300 limit=4000 empty=1")
    rp = parse("spit-replay 1\nseed 3\n%s\n" % line)
    assert rp.conduct == c and rp.played_conduct() is rp.conduct
    assert parse(rp.format()) == rp
    for bad, why in (("cap=0", "cap"), ("signal=2", "signal"), ("fumble=-1", "fumble"),
                     ("bogus=1", "bogus"), ("limit=x", "limit")):
        key = bad.split("=")[0]
        fields = [f for f in line.split()[1:] if not f.startswith(key + "=")]
        text = "spit-replay 1\nseed 3\nconduct %s %s\n" % (" ".join(fields), bad)
        with pytest.raises(ValueError) as e:
            parse(text)
        assert "line 3" in str(e.value) and why in str(e.value), bad
    with pytest.raises(ValueError):
        parse("spit-replay 1\nconduct fumble=500\n")                  # a field missing
    with pytest.raises(ValueError):
        parse("spit-replay 1\nfumble 500\n%s\n" % line)                # two conduct lines
    with pytest.raises(ValueError):
        Conduct(signal_min_us=900 * MS, signal_max_us=800 * MS)


# ---- pinned, so that a change to the draw or the parameters shows (R40, R44) -------------

def test_r44_the_signal_delays_of_a_seed_are_pinned():
    # The delay is part of the game a seed names (R40): pinned like the PRNG's numbers.
    c = Conduct()
    assert [signal_delay_us(c, s, r) for s, r in ((0, 1), (0, 2), (1, 1), (7, 3),
                                                  (123456, 9))] == [
        1445000, 813000, 742000, 1399000, 826000]


def test_r44_every_ms_of_the_signal_range_can_come_both_ends_included():
    for lo, hi in ((600, 601), (600, 603), (1000, 1000)):
        c = Conduct(signal_min_us=lo * MS, signal_max_us=hi * MS)
        seen = {signal_delay_us(c, s, 1) // MS for s in range(300)}
        assert seen == set(range(lo, hi + 1)), (lo, hi)


def test_r44_and_r41_conduct_parameters_out_of_range_or_in_parts_of_a_ms_are_refused():
    for kw in ({"fumble_us": 60001 * MS}, {"signal_min_us": -1 * MS}, {"ignore_us": -MS},
               {"cap": 0}, {"signal": 2}, {"limit_us": 0}, {"empty": 2},
               {"repeat_us": 60001 * MS}, {"signal_max_us": 60001 * MS},
               {"signal_min_us": 60001 * MS, "signal_max_us": 60001 * MS}, {"ignore_us": 60001 * MS},
               {"cap": 65}, {"limit_us": 600001 * MS}):
        with pytest.raises(ValueError):
            Conduct(**kw)
    assert Conduct(signal_min_us=60000 * MS, signal_max_us=60000 * MS).signal_max_us == 60000 * MS
    with pytest.raises(ValueError) as e:
        Conduct(fumble_us=500500)
    assert "fumble must be whole ms" in str(e.value)
    assert Conduct(fumble_us=60000 * MS).fumble_us == 60000 * MS      # the top is allowed
    assert Conduct(signal_min_us=0, ignore_us=0).ignore_us == 0


def test_conducts_are_equal_only_when_every_parameter_is():
    assert Conduct() == Conduct() and not Conduct() != Conduct()
    for other in (Conduct(1000 * MS), Conduct(400 * MS), Conduct(signal=0),
                  Conduct(empty=0), Conduct(limit_us=2 * S)):
        assert other != Conduct() and Conduct() != other
        assert not other == Conduct() and not Conduct() == other
    assert Conduct() != "conduct"


# ---- the pipeline's edges --------------------------------------------------------------

def test_the_match_settles_a_press_only_once_its_window_has_passed():
    m = Log(race_layout(), Conduct())
    m.press(10_000, 0, B)
    m.tick(10_000 + 1999)
    assert m.out == []
    m.tick(10_000 + 2000)
    assert [o[0] for o in m.out] == [M.APPLIED]


def test_saying_spit_twice_is_refused_quietly():
    g = Game(3)
    m = Log(g, Conduct())
    m.press(1000, 0, A)
    m.press(2000, 0, B)                                # again: "already said spit"
    m.tick(10_000)
    assert [(o[0], o[4]) for o in m.out] == [(M.APPLIED, None), (M.QUIET, "already said spit")]


def test_a_spit_outcome_names_the_player_who_said_it():
    g = Game(3)
    m = Log(g, Conduct())
    m.press(1000, 1, A)
    m.press(1500, 0, B)
    m.tick(10_000)
    assert [(o[0], o[1], o[2]) for o in m.out] == [(M.APPLIED, 1, ("spit", 1)),
                                                   (M.APPLIED, 0, ("spit", 0))]


def test_r44_a_slap_touched_at_the_signals_own_stamp_is_no_false_start():
    m = slap_round()
    m.press(m.signal_t, 1, A)
    m.tick(m.signal_t + 3 * MS)
    assert m.out[-1][0] == M.APPLIED and m.false_starts == [0, 0]


def test_r26_nobody_slapped_two_piles_each_takes_the_pile_they_started_whoever_has_the_tie():
    for prio in (0, 1):
        m = slap_round()
        m.game.tie_priority = prio
        m.tick(m.signal_t)
        m.tick(m.deadline + 3 * MS)
        assert m.game.last_round["slap"] == [0, 0], prio
        assert m.out[-1][0] == M.APPLIED and m.out[-1][2] is m.auto


def test_r26_a_slap_touched_after_the_table_s_own_is_too_late_even_the_same_slap():
    m = slap_round()
    m.tick(m.signal_t)
    d = m.deadline
    m.tick(d - 1)
    assert m.press(d + 1 * MS, 0, A) == M.QUEUED          # ("slap", 0, 0): the auto's twin
    m.tick(d + 5 * MS)
    kinds = [o[0] for o in m.out[1:]]
    assert kinds == [M.APPLIED, M.TOO_LATE]
    assert m.out[-1][2] == m.auto and m.out[-1][2] is not m.auto


def test_after_a_round_ends_the_slap_timers_do_nothing():
    m = slap_round()
    m.tick(m.signal_t)
    m.press(m.signal_t + 300 * MS, 0, A)
    m.tick(m.signal_t + 310 * MS)
    assert m.ended and m.game.phase == READY
    n = len(m.out)
    assert m.tick(m.deadline + 10 * MS) is False and len(m.out) == n
    assert m.due_us() is None


def test_r43_the_bound_of_either_press_makes_the_tie_the_earlier_or_the_later():
    # The converted (remote) stamp may be the earlier or the later of the two.
    for remote_first in (True, False):
        g = race_layout()
        g.tie_priority = 1
        arb = Arbiter(g, window_us=20 * MS)
        if remote_first:
            arb.press(("play", 1, 0, 0), 10_000, bound_us=20)
            arb.press(("play", 0, 0, 0), 10_015)
        else:
            arb.press(("play", 0, 0, 0), 10_000)
            arb.press(("play", 1, 0, 0), 10_015, bound_us=20)
        res = arb.settle(50 * MS)
        assert [a[1] for a, t, r in res if r is None] == [1] and arb.ties == 1, remote_first


def test_the_arbiters_window_is_2_ms_by_default():
    g = race_layout()
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 10_000)
    assert arb.settle(10_000 + 1999) == [] and arb.pending() == 1
    assert arb.settle(10_000 + 2000)[0][2] is None


def test_conduct_bounds_at_their_edges():
    with pytest.raises(ValueError):
        Conduct(repeat_us=-MS)
    assert Conduct(limit_us=600000 * MS).limit_us == 600000 * MS
    with pytest.raises(ValueError):
        Conduct(limit_us=600001 * MS)


# Each conduct field's whole range, as the conduct line's reference gives it (ms).
CONDUCT_RANGES = (("fumble_us", 0, 60000 * MS), ("repeat_us", 0, 60000 * MS), ("cap", 1, 64),
                  ("signal", 0, 1), ("signal_min_us", 0, 60000 * MS),
                  ("signal_max_us", 0, 60000 * MS), ("ignore_us", 0, 60000 * MS),
                  ("limit_us", 1 * MS, 600000 * MS), ("empty", 0, 1))


@pytest.mark.parametrize("attr, lo, hi", CONDUCT_RANGES)
def test_r41_r44_every_conduct_field_takes_both_ends_of_its_range_and_nothing_beyond(attr, lo, hi):
    step = MS if attr.endswith("_us") else 1
    # signal_max may not be below signal_min: move both together at the edges.
    pair = {"signal_min_us": "signal_max_us", "signal_max_us": "signal_min_us"}.get(attr)
    for v in (lo, hi):
        kw = {attr: v}
        if pair:
            kw[pair] = v
        assert getattr(Conduct(**kw), attr) == v
    for v in (lo - step, hi + step):
        kw = {attr: v}
        if pair:
            kw[pair] = v
        with pytest.raises(ValueError) as e:
            Conduct(**kw)
        assert "is not %d .. %d" % (lo // step, hi // step) in str(e.value)


def test_r41_r44_a_time_under_a_ms_is_named_as_out_of_range_when_it_is():
    # 0.5 ms of slap time limit is below its 1 ms floor: the message gives the range.
    with pytest.raises(ValueError) as e:
        Conduct(limit_us=500)
    assert "conduct limit 500 is not 1 .. 600000" in str(e.value)


def test_r44_r41_the_switches_take_booleans_as_0_and_1():
    c = Conduct(signal=True, empty=False)
    assert c.signal == 1 and c.empty == 0
    assert type(c.signal) is int and type(c.empty) is int
    assert c == Conduct(signal=1, empty=0)
    assert Conduct(signal=False).signal == 0 and Conduct(empty=True).empty == 1


def test_the_outcome_kinds_are_distinct():
    kinds = (M.APPLIED, M.BEATEN_TO_IT, M.FUMBLE, M.FALSE_START, M.TOO_LATE, M.REFUSED,
             M.QUIET)
    assert len(set(kinds)) == len(kinds)
    presses = (M.ENDED, M.DEAD, M.MOVED, M.QUEUED, M.IGNORED)
    assert len(set(presses)) == len(presses)


def test_r41_a_refused_flip_is_a_fumble_not_a_quiet_refusal():
    from shared_rules.game import Rules
    from shared_rules.pad import SIX_BUTTON, DOWN
    g = layout(["5C", "9D", E, E, E], ["5H", E, E, E, E], ["6S", "KD"], hands=("2C", "3D"),
               rules=Rules(manual_flip=True))
    m = Log(g, Conduct(), scheme=SIX_BUTTON)
    m.press(1000, 0, DOWN)                              # flip 5C: it is face up already
    m.tick(10_000)
    assert [(o[0], o[4]) for o in m.out] == [(M.FUMBLE, "already face up")]


def test_r44_the_tick_that_shows_the_signal_says_the_state_changed():
    m = slap_round()
    assert m.tick(m.signal_t - 1) is False
    assert m.tick(m.signal_t) is True and m.signals == [m.signal_t]
    assert m.tick(m.signal_t + 1) is False


def test_a_conduct_shows_its_line_when_printed():
    assert repr(Conduct()) == "Conduct(%s)" % Conduct().format()
    assert repr(Conduct()).startswith("Conduct(conduct fumble=500 repeat=3000 ")


def test_a_spit_refused_for_want_of_spit_cards_is_told_not_crashed_on():
    # A partial layout can leave nobody spit cards (52 cards never do): the refusal is
    # an ordinary one, and no slot is looked at for a Spit!.
    g = layout(["5C", E, E, E, E], ["9H", E, E, E, E], [], hands=("", ""))
    m = Log(g, Conduct())
    assert m.press(1000, 0, A) == M.QUEUED
    m.tick(10_000)
    assert [(o[0], o[4]) for o in m.out] == [(M.REFUSED, "no spit cards")]


FULL_H0 = "2C 3C 6C 7C 8C 10C JC QC AC 2D 3D 5D 6D 7D 8D 9D 10D JD"
FULL_H1 = "4D 2S 3S 4S 5S 6S 10S JS QS KS AS 2H 3H 6H 7H 8H"


def next_round_in_play(end_round):
    """slap_round's table with every card in play: player 0 goes out at T0, then
    `end_round(m)` ends the slap and returns a time t; both say Spit! just after t,
    without the owner calling enter() (the table's slap timers of the last round are
    still set). Returns the match and the time the new round's play began."""
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S 9S"],
               hands=(FULL_H0, FULL_H1))
    m = Log(g, Conduct())
    assert m.press(T0, 0, B) == M.QUEUED
    m.tick(T0 + 3 * MS)
    assert g.phase == SLAP
    t = end_round(m)
    assert g.round == 2 and m.ended
    for k, p in enumerate((0, 1)):
        assert m.press(t + (4 + 4 * k) * MS, p, A) == M.QUEUED
        m.tick(t + (7 + 4 * k) * MS)
    assert g.phase == "play"
    return m, t + 12 * MS


def test_r44_a_play_of_the_next_round_before_the_last_rounds_signal_time_is_a_play():
    # A false start ends the round well before the signal was due; the next round's
    # plays touched before that time are plays: only a slap can be a false start (R44).
    def false_start(m):
        t = T0 + SLAP_IGNORE_US + 1 * MS
        assert m.press(t, 0, A) == M.QUEUED
        m.tick(t + 3 * MS)
        assert m.out[-1][0] == M.FALSE_START
        return t
    m, t = next_round_in_play(false_start)
    assert M.ticks_diff(m.signal_t, t + 1 * MS) > 0
    assert m.press(t + 1 * MS, 0, B) == M.QUEUED
    assert m.last_action == ("play", 0, 0, 1)
    m.tick(t + 4 * MS)
    assert m.out[-1] == (M.APPLIED, 0, ("play", 0, 0, 1), t + 1 * MS, None)


def test_r26_a_refusal_in_the_round_after_the_tables_own_slap_is_not_too_late():
    # Nobody slapped: the table's own slap at the time limit ends the round (R26). In
    # the next round a misplay touched after that round's time limit is a misplay:
    # only a slap is too late.
    def nobody_slaps(m):
        m.tick(m.signal_t)
        m.tick(m.deadline)
        m.tick(m.deadline + 3 * MS)
        assert m.auto is not None
        return m.deadline + 3 * MS
    m, t = next_round_in_play(nobody_slaps)
    assert M.ticks_diff(t, m.deadline) > 0
    g = m.game
    j = [k for k in range(5) if g.stock[1][k] and not g.down[1][k]
         and all(g.why_not(("play", 1, k, pile)) == NO_FIT for pile in (0, 1))]
    assert j, "player 1 has a card that fits nowhere"
    m.pads[1].cursor = j[0]
    assert m.press(t + 1 * MS, 1, B) == M.QUEUED
    assert m.last_action[0] == "play"
    m.tick(t + 4 * MS)
    assert m.out[-1][0] in (M.FUMBLE, M.REFUSED) and m.out[-1][4] == NO_FIT


def test_r44_r26_play_resumed_in_the_slap_keeps_its_signal_and_time_limit():
    # A pause during the slap, then play resumes (enter()): the signal still comes when
    # it was drawn (R44) and the time limit still counts from it (R26).
    m = slap_round()
    signal_t, deadline = m.signal_t, m.deadline
    m.tick(T0 + 100 * MS)
    m.enter()
    assert (m.signal_t, m.deadline, m.end_t) == (signal_t, deadline, T0)
    assert m.due_us() == signal_t
    assert m.press(signal_t - 1, 1, A) == M.QUEUED        # still a false start
    m.tick(signal_t + 2 * MS)
    assert m.out[-1][0] == M.FALSE_START and m.false_starts == [0, 1]


def test_r44_a_false_starter_takes_pile_0_when_it_is_the_larger():
    # Pile 0 (6C 4H 5H after the last play) is larger than pile 1 (9S): whichever pile
    # the false start slapped, its player takes pile 0 and the other player pile 1.
    for who, button in ((0, A), (0, B), (1, A), (1, B)):
        m = slap_round(piles=("6C 4H", "9S"))
        assert [len(p) for p in m.game.piles] == [3, 1]
        t = m.signal_t - 1
        m.press(t, who, button)
        m.tick(t + 3 * MS)
        assert m.out[-1][0] == M.FALSE_START
        took = m.game.last_round["took"]
        assert took[who] == 3 and took[1 - who] == 1, (who, button)


def test_r41_a_flip_pressed_on_an_empty_slot_puts_no_card_down_so_is_no_fumble():
    # Six-button pad, manual flip: DOWN with the cursor on an empty slot is refused as
    # an empty stockpile, not a fumble; on a face-up card it is a fumble (above).
    from shared_rules.game import Rules, EMPTY
    from shared_rules.pad import SIX_BUTTON, DOWN
    g = layout(["5C", E, "9D", E, E], ["5H", E, E, E, E], ["6S", "KD"], hands=("2C", "3D"),
               rules=Rules(manual_flip=True))
    m = Log(g, Conduct(), scheme=SIX_BUTTON)
    m.pads[0].cursor = 1
    assert m.press(1000, 0, DOWN) == M.QUEUED and m.last_action == ("flip", 0, 1)
    m.tick(10_000)
    assert [(o[0], o[4]) for o in m.out] == [(M.REFUSED, EMPTY)]
    assert m.fumbles.length == [0, 0] and not m.fumbles.dead(0, 10_001)


def test_r26_a_slap_touched_at_the_deadline_that_loses_the_tie_is_too_late():
    # Player 1 slaps in the very µs of the time limit: the table's own slap is touched
    # then too, a tie (R21) that player 0's priority gives the table. The slap was not
    # in time, so it is "too late", not a race lost to the other player.
    m = slap_round()
    m.game.tie_priority = 0
    m.tick(m.signal_t)
    d = m.deadline
    m.tick(d - 1)
    assert m.press(d, 1, A) == M.QUEUED
    m.tick(d + 5 * MS)
    assert [(o[0], o[1]) for o in m.out[1:]] == [(M.APPLIED, 0), (M.TOO_LATE, 1)]
    assert m.out[1][2] is m.auto and m.arbiter.ties == 1


def test_r43_a_press_waits_for_a_linked_press_it_may_still_tie_with():
    # Player 1's play came over the cable, stamped at 10 ms with a 5 ms bound; player 0's
    # own B, 3 ms later, must not settle it first: within the bound the two are one
    # instant (R43), a tie (R21) that player 0's priority wins.
    g = layout(["9D", "KC", "4C", E, E], ["7C", "2H", E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    g.tie_priority = 0
    m = Log(g, Conduct())
    m.arbiter.press(("play", 1, 0, 0), 10_000, 5000)          # 7C on 8S, from the peer
    assert m.press(13_000, 0, B) == M.QUEUED and m.last_action == ("play", 0, 0, 0)
    m.tick(20_000)
    assert [(o[0], o[2]) for o in m.out] == [(M.APPLIED, ("play", 0, 0, 0)),
                                             (M.BEATEN_TO_IT, ("play", 1, 0, 0))]
    assert m.arbiter.ties == 1


@pytest.mark.parametrize("junk", [("aaa", 0), ("fill", 0), ("flip", 1), ("play", 0, 1), ("aaa",),
                                  ("aaa", 0, 9), (), None, "slap", ("slap", 0.0, 1),
                                  ("play", 5, 1, 0), ("fill", 2, 0, 1), ("play", 0, -1, 0),
                                  ("play", 1, 5, 0), ("fill", 0, 1, True)])
def test_r39_junk_handed_to_the_match_is_refused_never_raised(junk):
    # Whatever reaches the match's arbiter that no pad makes (a host's bug) is settled as
    # a refusal with the rules' reason, naming no player: nothing raises, nobody's
    # buttons go dead (R41), and the game is unchanged.
    g = fumble_table()
    before = g.snapshot()
    m = Log(g, Conduct())
    m.arbiter.press(junk, 1000)
    m.tick(5000)
    assert m.out == [(M.REFUSED, -1, junk, 1000, g.why_not(junk))]
    assert g.snapshot() == before and m.fumbles.count == [0, 0]


def test_r44_no_signal_comes_once_a_false_start_has_decided_the_slap():
    m = slap_round()
    t = m.signal_t - 100 * MS
    m.press(t, 1, A)
    m.tick(t + 3 * MS)
    assert m.out[-1][0] == M.FALSE_START and m.ended and m.game.phase != SLAP
    m.tick(m.signal_t)
    m.tick(m.signal_t + 3 * MS)
    assert m.signals == []


def test_r26_a_slap_lost_to_the_opponent_1_us_before_the_deadline_is_beaten_not_too_late():
    # Player 0 slaps 100 µs before the time limit, player 1 one µs before it: player 1
    # lost a race (R20), in time; the table's own slap at the deadline comes to nothing.
    m = slap_round()
    m.tick(m.signal_t)
    d = m.deadline
    m.tick(d - 1 * MS)
    assert m.press(d - 100, 0, A) == M.QUEUED
    assert m.press(d - 1, 1, A) == M.QUEUED
    m.tick(d + 5 * MS)
    assert [(o[0], o[1], o[3]) for o in m.out[1:]] == [
        (M.APPLIED, 0, d - 100), (M.BEATEN_TO_IT, 1, d - 1), (M.QUIET, 0, d)]


@pytest.mark.parametrize("slot", [-1, 5])
def test_r41_a_refused_flip_of_a_slot_that_does_not_exist_is_a_fumble_not_an_empty_slot(slot):
    # Player 0's last slot is empty; a flip of slot -1 or 5 is refused by the rules
    # first ("flip is automatic"), like any flip, and so is a fumble: -1 is not that last
    # slot, and 5 no slot at all.
    g = fumble_table()
    m = Log(g, Conduct())
    m.arbiter.press(("flip", 0, slot), 1000)
    m.tick(5000)
    assert m.out == [(M.FUMBLE, 0, ("flip", 0, slot), 1000, "flip is automatic")]


@pytest.mark.parametrize("gap,aim", [(7000, 0), (6999, 1)])
def test_r43_a_press_reads_the_table_with_what_was_settled_before_its_reach(gap, aim):
    # Player 1's play came over the cable, stamped at 10 ms with a 5 ms bound. Player
    # 0's B at 17 ms (the bound plus the 2 ms window after it) reads the table with that
    # play settled: its 6H goes onto the 7C. 1 µs earlier the peer's play may still tie
    # with it, so it stays queued and the pad aims at the 5D it sees.
    g = layout(["6H", "KC", "4C", E, E], ["7C", "2H", E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    m = Log(g, Conduct())
    m.arbiter.press(("play", 1, 0, 0), 10_000, 5000)          # 7C on 8S, from the peer
    assert m.press(10_000 + gap, 0, B) == M.QUEUED
    assert m.last_action == ("play", 0, 0, aim)


def test_r26_no_slap_time_is_left_once_the_slap_is_decided():
    m = slap_round()
    m.tick(m.signal_t)
    assert m.slap_left_us(m.signal_t) == m.conduct.limit_us
    m.press(m.signal_t + 300 * MS, 1, A)
    m.tick(m.signal_t + 303 * MS)
    assert m.game.phase != SLAP and m.ended
    assert m.slap_left_us(m.signal_t + 303 * MS) == -1
