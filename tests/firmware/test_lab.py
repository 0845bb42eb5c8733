"""The reaction lab's experiment without a screen (firmware/lab.py): the seeded wait,
practice then counted trials, false starts rerun, anticipations, choice errors and
misses recorded but not counted, reaction times from the press stamps (R19), a duel's
exact winner and margin (ties R21), and the integer figures."""
import statistics

import pytest

from firmware import lab
from shared_rules.arbiter import ticks_add
from shared_rules.pad import A, B
from shared_rules.rng import Rng

MS = 1000


def begun(task=lab.SIMPLE, signal=lab.VISUAL, trials=3, practice=0, seed=7, now=1000,
          player=0):
    run = lab.Run(seed, task, signal, trials, practice, player)
    assert run.tick(now) and run.state == lab.WAITING
    return run


def to_signal(run):
    now = run.due
    assert run.tick(now) and run.state == lab.SIGNAL and run.signalled
    return now


def test_the_wait_is_one_to_four_seconds_from_the_seeded_prng():
    run = lab.Run(11, lab.SIMPLE, lab.VISUAL, 40, 0)
    rng = Rng(11)
    waits = []
    now = 0
    for _ in range(40):
        run.begin(now)
        assert run.wait_ms == 1000 + rng.below(3001)
        assert run.due == now + run.wait_ms * MS
        waits.append(run.wait_ms)
    assert min(waits) >= 1000 and max(waits) <= 4000
    assert len(set(waits)) > 30                       # not one wait again and again


def test_the_signal_comes_at_the_first_tick_at_or_after_the_wait():
    run = begun()
    assert not run.tick(run.due - 1) and run.state == lab.WAITING
    assert not run.signalled
    assert run.tick(run.due + 5) and run.onset == run.due + 5 and run.signalled
    assert not run.tick(run.due + 6) and not run.signalled     # said once


def test_the_reaction_time_is_the_press_stamp_minus_the_onset_to_the_microsecond():
    run = begun()
    on = to_signal(run)
    # Read in a later frame, stamped when touched (R19): the stamp counts, not the frame.
    assert run.press(on + 234567, 0, A)
    assert run.rows == [[0, 1, run.wait_ms, 234567, lab.OK]]
    assert run.state == lab.FEEDBACK


def test_practice_trials_come_first_with_negative_numbers_then_the_set_number():
    run = lab.Run(3, lab.SIMPLE, lab.VISUAL, 2, 3)
    now = 0
    numbers = []
    while run.state != lab.DONE:
        run.tick(now)
        if run.state == lab.SIGNAL:
            run.press(now + 200 * MS, 0, B)
            numbers.append(run.rows[-1][1])
        now += 10 * MS
    assert numbers == [-3, -2, -1, 1, 2]
    assert lab.valid(run.rows, 0) == [200 * MS, 200 * MS]     # practice is never counted


def test_the_default_run_is_twenty_trials_after_three_practice():
    run = lab.Run(1, lab.SIMPLE, lab.VISUAL)
    assert run.trials == 20 and run.practice == 3 and run.trial == -3


def test_a_press_before_the_signal_is_a_false_start_recorded_and_the_trial_run_again():
    run = begun(trials=1)
    wait1 = run.wait_ms
    t = run.start + 500 * MS
    assert run.press(t, 0, A)
    assert run.rows == [[0, 1, wait1, t - run.due, lab.FALSE_START]]
    assert run.rows[0][3] < 0                              # how early
    assert run.state == lab.FEEDBACK and run.rerun
    run.tick(run.until)
    assert run.state == lab.WAITING and run.trial == 1     # the same trial, a fresh wait
    on = to_signal(run)
    run.press(on + 300 * MS, 0, A)
    run.tick(run.until)
    assert run.state == lab.DONE
    assert lab.valid(run.rows, 0) == [300 * MS]
    assert lab.flag_counts(run.rows, 0)[lab.FALSE_START] == 1


def test_a_press_touched_before_the_signal_but_read_after_it_is_a_false_start():
    run = begun()
    on = to_signal(run)
    assert run.press(on - 1, 0, A)
    assert run.rows[-1][4] == lab.FALSE_START


def test_a_press_touched_before_the_trial_began_is_not_this_trials():
    run = begun(now=5000)
    assert not run.press(4999, 0, A)
    assert run.rows == [] and run.state == lab.WAITING


def test_a_response_under_100_ms_is_an_anticipation_recorded_not_counted():
    run = begun(trials=2)
    on = to_signal(run)
    run.press(on + 99999, 0, A)
    assert run.rows[-1][3:] == [99999, lab.ANTICIPATION]
    run.tick(run.until)
    on = to_signal(run)
    run.press(on + 100000, 0, A)
    assert run.rows[-1][3:] == [100000, lab.OK]
    assert lab.valid(run.rows, 0) == [100000]
    assert run.rows[0][1] == 1 and run.rows[1][1] == 2     # it used up its trial


def test_a_choice_signal_says_a_or_b_and_the_other_button_is_an_error():
    run = lab.Run(5, lab.CHOICE, lab.SOUND, 12, 0)
    now = 0
    targets = []
    while run.state != lab.DONE:
        run.tick(now)
        if run.state == lab.SIGNAL:
            targets.append(run.target)
            wrong = len(targets) % 3 == 0
            run.press(now + 250 * MS, 0, (B if run.target == A else A) if wrong else run.target)
        now += 10 * MS
    assert set(targets) == {A, B}
    flags = [r[4] for r in run.rows]
    assert flags.count(lab.ERROR) == 4 and flags.count(lab.OK) == 8
    assert len(lab.valid(run.rows, 0)) == 8


def test_no_press_within_two_seconds_is_a_miss():
    run = begun()
    on = to_signal(run)
    assert not run.tick(on + 1999999)
    assert run.tick(on + 2000000)
    assert run.rows == [[0, 1, run.wait_ms, None, lab.MISS]]
    assert lab.valid(run.rows, 0) == []


def test_presses_between_trials_are_nobodys_response():
    run = begun(trials=3)
    run.press(run.start + 10, 0, A)                  # a false start: its feedback now
    assert not run.press(run.start + 20, 0, A)
    run.tick(run.until)
    on = to_signal(run)
    run.tick(on + lab.MISS_US)                        # a miss: its feedback now
    assert not run.press(on + lab.MISS_US + 10, 0, A)
    assert [r[4] for r in run.rows] == [lab.FALSE_START, lab.MISS]
    fresh = lab.Run(1, lab.SIMPLE, lab.VISUAL, 1, 0)
    assert not fresh.press(5, 0, A) and fresh.rows == []    # not begun yet


def test_only_the_runs_player_and_the_a_and_b_buttons_respond():
    run = begun(player=1)
    on = to_signal(run)
    assert not run.press(on + 200 * MS, 0, A)             # the other pad
    assert not run.press(on + 200 * MS, 1, 2)             # a six-button pad's LEFT
    assert run.press(on + 300 * MS, 1, B)
    assert run.rows == [[1, 1, run.wait_ms, 300 * MS, lab.OK]]


def test_r19_r21_a_duels_winner_and_margin_are_exact_and_equal_stamps_tie():
    run = begun(task=lab.DUEL, trials=3)
    results = ((250000, 250001), (300000, 280000), (222222, 222222))
    for a, b in results:
        on = to_signal(run)
        run.press(on + b, 1, B)
        assert run.state == lab.SIGNAL                   # waits for the other player
        run.press(on + a, 0, A)                          # stamped earlier, read later
        assert run.state == lab.FEEDBACK
        run.tick(run.until)
    assert run.state == lab.DONE
    w0, w1, ties, margin, n = lab.duel(run.rows)
    assert (w0, w1, ties, n) == (1, 1, 1, 3)
    assert margin == (1 + 20000 + 0) // 3


def test_a_duel_trial_where_one_missed_goes_to_the_other_without_a_margin():
    run = begun(task=lab.DUEL, trials=1)
    on = to_signal(run)
    run.press(on + 300 * MS, 1, A)
    run.tick(on + 2000000)
    assert [r[4] for r in run.rows] == [lab.OK, lab.MISS]
    assert lab.duel(run.rows) == (0, 1, 0, None, 0)


def test_a_false_start_in_a_duel_reruns_the_trial_for_both():
    run = begun(task=lab.DUEL, trials=1)
    run.press(run.start + 10, 1, A)
    assert run.rerun and run.state == lab.FEEDBACK
    run.tick(run.until)
    assert run.trial == 1 and run.state == lab.WAITING
    assert lab.duel(run.rows) == (0, 0, 0, None, 0)


def test_a_pause_drops_the_trial_under_way_and_it_starts_afresh():
    run = begun(task=lab.DUEL, trials=1)
    on = to_signal(run)
    run.press(on + 200 * MS, 0, A)
    run.abandon(on + 300 * MS)
    assert run.rows == [] and run.state == lab.READY
    run.tick(on + 900 * MS)
    assert run.state == lab.WAITING and run.start == on + 900 * MS


def test_a_run_that_reaches_its_row_limit_ends_there():
    run = begun(trials=lab.MAX_TRIALS)
    while run.state != lab.DONE:
        run.press(ticks_add(run.start, 10), 0, A)        # false start after false start
        run.tick(run.until)
    assert run.full and len(run.rows) <= lab.MAX_ROWS


def test_the_clock_may_wrap_during_a_run():
    start = (1 << 30) - 1500 * MS
    run = begun(now=start, seed=2)
    on = to_signal(run)
    assert on < start                                     # wrapped past 2**30
    run.press(ticks_add(on, 180 * MS), 0, A)
    assert run.rows[-1][3] == 180 * MS


def test_bad_settings_are_refused():
    for args in ((9, lab.VISUAL), (lab.SIMPLE, 5)):
        with pytest.raises(ValueError):
            lab.Run(1, *args)
    with pytest.raises(ValueError):
        lab.Run(1, lab.SIMPLE, lab.VISUAL, lab.MAX_TRIALS + 1)


@pytest.mark.parametrize("values", [[250000], [200000, 300000], [187000, 243000, 251000, 199000,
                                                                   402000, 310000, 222000],
                                    list(range(150000, 450000, 7919))])
def test_the_figures_are_the_integer_median_mean_and_sample_sd(values):
    n, med, mean, sd = lab.summary(values)
    assert n == len(values)
    assert med == int(statistics.median(values))
    assert mean == sum(values) // len(values)
    if len(values) > 1:
        assert abs(sd - statistics.stdev(values)) < 1
    else:
        assert sd is None


def test_no_values_give_no_figures():
    assert lab.summary([]) == (0, None, None, None)
    assert lab.ms(None) == "-"


def test_isqrt_is_the_floor_square_root():
    for n in list(range(200)) + [10 ** 12, 10 ** 12 - 1, 2 ** 61 + 12345]:
        r = lab.isqrt(n)
        assert r * r <= n < (r + 1) * (r + 1)


def test_the_histogram_bins_are_50_ms_from_100_ms_the_last_open():
    h = lab.histogram([100000, 149999, 150000, 449999, 450000, 2000000, 90000])
    assert h == [3, 1, 0, 0, 0, 0, 1, 2]
    assert sum(h) == 7


def test_milliseconds_with_one_decimal():
    assert lab.ms(243567) == "243.5"
    assert lab.ms(-763000) == "-763.0"
    assert lab.ms(0) == "0.0"


def test_conditions_name_task_and_signal():
    assert lab.condition(lab.CHOICE, lab.SOUND) == "choice-sound"
    assert lab.Run(1, lab.DUEL, lab.VISUAL).condition() == "duel-visual"
