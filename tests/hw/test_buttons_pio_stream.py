"""The PIO capture's handler on the words its sampler pushes, without a PIO
(tests/mp/pio_stream_driver.py: a fake DMA ring, transfer count, FDEBUG and clock),
under the real MicroPython unix interpreter (with the heap locked, as in a hard IRQ) and
under CPython. The state machine and DMA themselves: tests/pico/test_pico_buttons.py."""

import pytest

from tests.helpers import ROOT, driver_fixtures

pytestmark = pytest.mark.mp

DRIVER = ROOT / "tests" / "mp" / "pio_stream_driver.py"


mp_results, cp_results, res = driver_fixtures(DRIVER)


def test_each_stamp_is_its_samples_microsecond(res):
    r = res["stamps"]
    downs_and_ups = [e[0] for e in r["events"]]
    assert downs_and_ups == r["expected"] and r["errors"] == 0


def test_samples_inside_one_microsecond_keep_their_order(res):
    r = res["sub_us"]
    t = r["t"]
    assert r["events"] == [[t, 0, "A", 1], [t + 1, 1, "A", 1], [t + 2, 0, "B", 1],
                           [r["late"], 1, "B", 1]]
    assert r["tie"] == [[t, 0, "A", 1], [t, 1, "A", 1]]       # one sample: one instant


def test_the_loop_count_wraps_and_the_stamps_go_on(res):
    r = res["wrap"]
    assert [e[0] for e in r["events"]] == r["expected"]


def test_after_a_long_silence_the_handler_counts_the_wraps_from_the_clock(res):
    r = res["silence"]
    assert r["events"] == [[r["expected"], 1, "B", 1]]


def test_after_whole_turns_of_silence_a_sample_is_placed_in_its_own_turn(res):
    # From the sample's own µs to 2 µs before its loop count comes round again.
    cases = res["silence_edges"]["cases"]
    assert len(cases) == 24
    for turns, rest, when, stamps, expected in cases:
        assert stamps == [expected], (turns, rest, when)


def test_a_release_a_whole_clock_period_later_has_its_own_samples_stamp(res):
    r = res["a_period_later"]
    assert r["release"] == (r["press"] - 500) % (1 << 30)
    assert r["events"] == [[r["press"], 0, "A", 1], [r["release"], 0, "A", 0]]


def test_other_state_machines_fifo_flags_are_not_lost_words(res):
    r = res["other_fifo_flags"]
    assert r["events"] == [[r["press"], 0, "A", 1]]
    assert r["fifo"] == 0 and r["dropped"] == 0 and r["fdebug_left"]


def test_a_change_inside_the_lock_out_is_an_event_at_its_end(res):
    r = res["lockout"]
    assert r["mid"] == [[r["press"], 0, "A", 1]] and r["still"] == []
    assert r["after"] == [[(r["press"] + 10000) % (1 << 30), 0, "A", 0]]
    assert r["bounces"] == [3, 0, 0, 0] and r["irq_left_off"] == 0


def test_a_lapped_ring_and_dropped_words_are_counted(res):
    r = res["overflow"]
    assert r["lost"] == 4 and r["dropped"] == 2
    assert r["first"][0][0] == r["expected"][0] and len(r["first"]) == 4
    assert [e[0] for e in r["later"]] == r["expected"][1:]
    assert r["lost_after"] == 6                      # a lone count word, a lone state word
    assert r["fifo"] == 1 and r["dropped_after"] == 3


def test_one_handler_run_takes_the_whole_batch_after_lost_words(res):
    r = res["lost_then_batch"]
    assert r["lost"] == 2
    assert r["events"] == [[r["expected"][0], 0, "A", 1], [r["expected"][1], 1, "B", 1]]


def test_a_change_sampled_in_the_lock_outs_last_microsecond_is_a_bounce_one_after_is_not(res):
    end = res["lockout_edge"]["at_end"]
    press = end["press"]
    t_end = (press + 10000) % (1 << 30)
    assert end["handler"] == [[press, 0, "A", 1], [t_end, 0, "A", 0]]
    assert end["bounces"] == [0, 0, 0, 0] and end["later"] == []
    before = res["lockout_edge"]["before_end"]
    assert before["handler"] == [[press, 0, "A", 1]] and before["bounces"] == [1, 0, 0, 0]
    assert before["later"] == [[t_end, 0, "A", 0]]


@pytest.mark.parametrize("case", ["idle_frames", "idle_frames_after_many"])
def test_an_ordinary_frame_costs_no_processing(res, case):
    assert res[case] == {"process_calls": 0, "irq_left_off": 0}


@pytest.mark.parametrize("case", ["lockout_due", "lockout_due_bit_1", "lockout_due_debounce_bit_1"])
def test_poll_wakes_on_time_alone_exactly_when_a_lock_out_ends(res, case):
    # After a poll() that read the ring while a lock-out runs, frames before that
    # lock-out's end (+ 2 µs margin) cost no processing; the frame at it emits the
    # release the lock-out swallowed, stamped at the lock-out's end (also with a
    # debounce time whose bit 1 is set: its end + 2 µs is no mere bit set).
    r = res[case]
    assert r["taken"] == [[r["press"], 0, "A", 1], [r["b"], 0, "B", 1]]
    assert r["quiet"] == [] and r["calls_before"] == 0
    assert r["calls_at_end"] == 1
    assert r["at_end"] == [[(r["press"] + r["debounce"]) % (1 << 30), 0, "A", 0]]


def test_a_held_buttons_lock_out_ends_quietly_beside_another_buttons_swallowed_release(res):
    r = res["overlapping_lockouts"]
    assert r["pressed"] == [[r["p"], 0, "A", 1], [r["q"], 1, "A", 1]]
    assert r["first_end"] == []                          # P0 A is still held: nothing
    assert r["second_end"] == [[(r["q"] + 10000) % (1 << 30), 1, "A", 0]]
    assert r["down"] == [True, False, False, False]


@pytest.mark.parametrize("case,debounce", [("handler_due", 10000), ("handler_due_debounce_bit_1", 10002),
                                           ("handler_due_a_us_before_fresh", 10000)])
def test_after_the_handler_took_a_press_poll_wakes_exactly_when_its_lock_out_ends(res, case, debounce):
    # No poll() read the ring since the handler did: the handler's own note says when
    # poll() has work, the lock-out's end + 2 µs, not a µs sooner nor later (also when
    # that is just before the wake poll() had set to keep the time anchor fresh).
    r = res[case]
    assert r.get("target", r["press"]) == r["press"]
    assert r["handled"] == [[r["press"], 0, "A", 1]]
    assert r["quiet"] == [] and r["calls_before"] == 0
    assert r["calls_at_end"] == 1
    assert r["at_end"] == [[(r["press"] + debounce) % (1 << 30), 0, "A", 0]]


@pytest.mark.parametrize("case", ["fresh_due", "fresh_due_young_anchor", "fresh_due_at_ticks_0",
                                  "fresh_due_at_ticks_1", "fresh_due_time_base_before_its_us",
                                  "fresh_due_time_base_past_its_us"])
def test_with_nothing_pressed_poll_works_once_a_second_to_keep_the_anchor_fresh(res, case):
    # Also when the anchor was under half a second old (left where it was), and when
    # poll() runs at ticks 0 or 1 (its "2 µs ago" is across the wrap).
    r = res[case]
    assert r == {"before": 0, "at_wake": 1, "after": 0}


def test_a_release_while_another_button_is_held_is_a_release(res):
    r = res["release_beside_held"]
    assert r["events"] == r["expected"]
    assert r["down"] == [False, True, False, False]


def test_two_count_words_in_a_row_are_skipped_never_read_as_a_sample(res):
    r = res["two_lone_count_words"]
    assert r["events"] == r["expected"] and r["lost"] == 2


@pytest.mark.parametrize("case", ["retrigger", "retrigger_rebased"])
def test_when_the_ring_channel_runs_out_the_next_frame_restarts_it_and_nothing_is_lost(res, case):
    r = res[case]
    assert r["handled"] == r["expected"][:1] and r["stopped"] == 0
    assert r["triggers"] == 1                     # restarted by the first frame after
    assert r["later"] == r["expected"][1:]
    assert r["lost"] == 0 and r["dropped"] == 0


@pytest.mark.parametrize("loop", ["0", "1", "2"])
def test_a_press_in_the_first_samples_after_start_has_its_samples_stamp(res, loop):
    r = res["first_samples"][loop]
    assert r["events"] == r["expected"]


def test_a_bounce_is_counted_for_the_button_that_bounced_only(res):
    r = res["bounce_counts_its_own_button"]
    assert r["events"] == [[r["press"], 0, "B", 1], [r["press"], 1, "A", 1]]
    assert r["bounces"] == [0, 2, 0, 0]


@pytest.mark.parametrize("where", ["before", "before_at_0", "after", "after_at_top"])
def test_a_time_base_placed_across_a_microsecond_still_stamps_each_samples_microsecond(res, where):
    r = res["time_base_across_a_microsecond"][where]
    assert r["stamps"] == r["expected"]


def test_a_change_emitted_at_a_lock_outs_end_starts_a_lock_out_of_its_own(res):
    r = res["lockout_after_a_swallowed_change"]
    end = (r["press"] + 10000) % (1 << 30)
    assert r["first"] == [[r["press"], 0, "A", 1], [end, 0, "A", 0]]
    assert r["later"] == [] and r["bounces"][0] == 3


def test_the_handler_allocates_nothing(mp_results):
    r = mp_results["heap_lock"]
    assert r["micropython"] is True
    assert r["memory_errors"] == 0 and r["handler_errors"] == 0
    assert r["events"] >= 4 and r["lost"] == 4


def test_micropython_and_cpython_agree(mp_results, cp_results):
    for case, r in cp_results.items():
        if case != "heap_lock":
            assert mp_results[case] == r, case
