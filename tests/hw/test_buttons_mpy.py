"""Button capture (firmware/hw/buttons.py) under the real MicroPython interpreter.

tests/mp/buttons_driver.py installs a fake `machine` (Pin with irq handlers, mem32 with
a test-controlled GPIO_IN word, disable_irq/enable_irq), drives the capture with a
simulated clock, and prints one `RESULT <json>` line per case. It runs under the unix
MicroPython binary (heap of 150K, like a device) and under CPython; the checks below
apply to both, and the two must agree. The heap_lock case (MicroPython only) fires the
interrupt handler with the heap locked, so any allocation in it raises MemoryError.
"""

import pytest

from tests.helpers import ROOT, driver_fixtures

pytestmark = pytest.mark.mp

DRIVER = ROOT / "tests" / "mp" / "buttons_driver.py"
PERIOD = 1 << 30
DB = 10_000
# The pin map's order: (P0 A, P0 B, P1 A, P1 B) = indices 0..3 of presses/bounces.


mp_results, cp_results, res = driver_fixtures(DRIVER)


def test_start_configures_pins_with_one_hard_handler(res):
    r = res["start"]
    assert r["gpios"] == [2, 3, 14, 15]
    assert r["one_handler"]  # the same cached bound method on every pin
    assert r["modes"] == [0] * 4  # Pin.IN
    assert r["pulls"] == [1] * 4  # Pin.PULL_UP
    assert r["triggers"] == [4 | 8] * 4  # IRQ_FALLING | IRQ_RISING
    assert r["hard"] == [True] * 4
    assert r["events"] == []


def test_without_a_debounce_time_the_lock_out_is_the_boards_10_ms(res):
    r = res["default_lockout"]
    assert r["before_end"] == [[r["t"], 0, "A", 1]]
    assert [e[1:] for e in r["after_end"]] == [[0, "A", 0]]


def test_button_held_at_start_is_one_press(res):
    r = res["held_at_start"]
    assert r["first"] == [[500, 1, "B", 1]]
    assert r["second"] == []


def test_events_in_stamp_order(res):
    r = res["order"]
    assert r["events"] == [
        [1000, 1, "A", 1],
        [1500, 0, "B", 1],
        [2000, 0, "A", 1],
        [40000, 1, "A", 0],
        [40300, 0, "B", 0],
        [41000, 0, "A", 0],
    ]
    stamps = [e[0] for e in r["events"]]
    assert stamps == sorted(stamps)
    assert r["again"] == []
    assert r["presses"] == [1, 1, 1, 0] and r["bounces"] == [0] * 4 and r["dropped"] == 0
    assert r["bad_reads"] == 0  # only ever read mem32[0xd0000004]


def test_buttons_changed_in_one_interrupt_share_the_stamp(res):
    # R21: two buttons seen by one interrupt are one instant, a tie -- whichever pin's
    # handler the port happens to call first, and the second call adds nothing.
    r = res["tie"]
    assert r["events"] == [[5000, 0, "A", 1], [5000, 1, "A", 1]]
    assert r["events2"] == [[70000, 0, "B", 1], [70000, 1, "A", 0]]


def test_bounce_burst_is_one_press_and_one_release(res):
    r = res["bounce"]
    assert r["end_level_pressed"]
    assert r["press"] == [[100000, 0, "A", 1]]  # the first edge is the touch
    assert r["release"] == [[400000, 0, "A", 0]]
    assert r["presses"] == [1, 0, 0, 0]
    assert r["bounces"] == [60, 0, 0, 0]  # 30 ignored edges on each side
    assert r["dropped"] == 0


def test_stuck_button_is_one_press_no_flood(res):
    r = res["stuck"]
    assert r["b0_events"] == [[2000, 0, "B", 1]]
    assert r["b0_down"] is True
    assert r["presses"][1] == 1
    assert r["n_events"] == 1 + 125  # plus the other player's 125 clean edges
    assert r["dropped"] == 0


def test_ring_overflow_is_counted_and_keeps_unread_events(res):
    r = res["overflow"]
    assert r["pending"] == 8
    assert r["dropped"] == 4
    # The 8 oldest survive (never overwritten); the 4 newest were lost and counted.
    assert r["first"] == [[10000 + 20000 * k, 0, "A", 1 - k % 2] for k in range(8)]
    assert r["presses"][0] == 6  # presses count what the buttons did, dropped or not
    assert r["after"] == [[250000, 1, "B", 1]]


def test_stamps_and_debounce_across_the_tick_wrap(res):
    r = res["wrap"]
    # Pressed 2 ms before the wrap; edges 1-9.5 ms later (after the wrap) are bounce;
    # 11 ms after the press the release is real and stamped 9000 (wrapped).
    assert r["across"] == [[PERIOD - 2000, 0, "A", 1], [9000, 0, "A", 0]]
    assert r["bounces"] == [6, 0, 0, 0]
    # 2**29 + 100 us idle: ticks_diff turns negative; the lock-out still counts as over.
    assert r["idle"] == [[1000, 1, "B", 1], [(1000 + (1 << 29) + 100) % PERIOD, 1, "B", 0]]
    # A whole period later ticks_diff is 5 again; poll() had retired the lock-out.
    assert r["full_period"] == [[1000, 1, "A", 1], [1005, 1, "A", 0]]


def test_release_inside_lockout_is_reconciled(res):
    r = res["lost_release"]
    assert r["mid"] == [[100000, 0, "A", 1]]  # the early release is not emitted yet ...
    assert r["after"] == [[112000, 0, "A", 0]]  # ... but the poll after the lock-out does
    # Or the next interrupt does (another button's), with that interrupt's stamp.
    assert r["via_irq"] == [[200000, 0, "B", 1], [215000, 0, "B", 0], [215000, 1, "A", 1]]
    # poll() disables IRQs only to apply a change, never on ordinary frames.
    assert r["disable_before"] == 0
    assert r["disable_reconcile"] == 1
    assert r["disable_idle"] == 0
    assert r["irq_left_disabled"] == 0


def test_poll_with_a_slightly_stale_now_keeps_the_lockout(res):
    r = res["stale_now"]
    assert r["events"] == [[100000, 0, "A", 1]]
    assert r["bounces"] == [2, 0, 0, 0]


def test_default_clock_stamps_wrap_at_2_pow_30(res):
    r = res["default_clock"]
    assert r["n"] == 1 and r["in_range"]
    assert r["between"]  # stamped in microseconds, between two readings of that clock


def test_handler_allocates_nothing_under_heap_lock(mp_results):
    r = mp_results["heap_lock"]
    assert r["micropython"] is True
    assert r["lock_effective"]  # an allocation under heap_lock() does raise
    assert r["memory_errors"] == 0  # ... and the handler (and idle poll) never did
    assert r["events"] == [
        [PERIOD - 3000, 0, "A", 1],
        [PERIOD - 3000, 1, "A", 1],
        [9000, 0, "A", 0],
        [9000, 1, "A", 0],
    ]
    assert r["dropped"] == 2  # ring of 4 full: both of B0's edges counted, not stored
    assert r["bounces"] == [2, 0, 0, 0]
    assert r["presses"] == [1, 1, 1, 0]


def test_r19_a_change_exactly_debounce_us_after_an_edge_is_emitted_at_once(res):
    r = res["exact_debounce"]
    assert r["at_irq"] == [[100000, 0, "A", 1], [100000 + DB, 0, "A", 0]]
    assert r["before"] == [[200000, 0, "B", 1]]          # 1 us early: still locked out
    assert r["at_poll"] == [[200000 + DB, 0, "B", 0]]    # not one poll late
    assert r["bounces"] == [0, 1, 0, 0]


def test_bad_pin_maps_and_options_are_refused(res):
    r = res["bad_config"]
    assert r == {
        "no pins": "ValueError",
        "gpio 29": "ok",
        "gpio 30": "ValueError",   # would make the masked GPIO_IN word a heap int
        "gpio 31": "ValueError",
        "gpio -1": "ValueError",
        "gpio -1 says": "gpio out of range: -1",
        "gpio 30 says": "gpio out of range: 30",
        "gpio twice": "ValueError",
        "thirty pins": "ok",
        "thirty-one pins": "ValueError",
        "size 0": "ValueError",
        "size 1": "ok",
        "debounce -1": "ValueError",
        "debounce 0": "ok",
        "debounce 2**28 - 1": "ok",
        "debounce 2**28": "ValueError",
    }


def test_the_default_ring_holds_64_events(res):
    r = res["default_ring"]
    assert r["pending"] == 64 and r["n"] == 64 and r["dropped"] == 1
    assert r["first"] == [10000, 1, "A", 1]
    assert r["last"] == [10000 + 63 * 20000, 1, "A", 0]


def test_the_ring_wraps_round_and_counts_what_is_waiting(res):
    r = res["ring_wrap"]
    assert r["first"] == 6
    assert r["pending"] == 5 and r["after"] == 0 and r["dropped"] == 0
    assert r["events"] == [[130000 + 20000 * k, 0, "A", 1 - k % 2] for k in range(5)]


def test_a_poll_during_another_buttons_lockout_leaves_irqs_alone(res):
    r = res["poll_in_lockout"]
    assert r["idle"] == [] and r["disable_idle"] == 0
    assert r["due"] == [[111000, 1, "B", 0]] and r["disable_due"] == 1


def test_a_lockout_is_retired_at_exactly_2_pow_28_us_of_negative_age(res):
    r = res["retire_boundary"]
    assert r["at"] == [[1000 + 3 * (1 << 28), 0, "A", 0]]
    assert r["irq"] == [[1000, 0, "B", 1], [1000 + 3 * (1 << 28), 0, "B", 0]]


def test_an_idle_poll_retires_a_lockout_2_pow_28_us_old_either_way(res):
    r = res["retired_by_an_idle_poll"]
    for name in ("at_2_pow_28", "past_2_pow_29"):
        assert r[name] == [[1000, 1, "A", 1], [1005, 1, "A", 0]], name
        assert r[name + "_bounces"] == [0, 0, 0, 0], name


def test_frames_while_a_held_back_press_still_reads_open_leave_irqs_alone(res):
    r = res["held_back_poll_quiet"]
    assert r["early"] == [[100100, 0, "B", 1]]
    assert r["quiet"] == [] and r["disable_quiet"] == 0
    assert r["disable_closed"] == 1 and r["closed"] == [[100000, 0, "A", 1]]


def test_an_injected_gpio_reader_replaces_mem32(res):
    r = res["read_gpio"]
    assert r["held"] == [[0, 0, "B", 1]]
    assert r["later"] == [[50000, 0, "B", 0], [90000, 1, "A", 1]]
    assert r["bad_reads"] == 0 and r["down"] is True


def test_micropython_and_cpython_agree(mp_results, cp_results):
    for case, r in cp_results.items():
        if case != "heap_lock":
            assert mp_results[case] == r, case


def test_first_edge_is_the_touch_even_when_the_read_sees_the_contact_open(res):
    r = res["first_edge"]
    assert r["held"] == [] and r["down_while_held"] is False  # not a press until seen closed
    assert r["confirmed"] == [[100000, 0, "A", 1]]  # ... then stamped at the first edge
    assert r["down"] is True
    assert r["release"] == [[200000, 0, "A", 0]]
    assert r["again"] == [[300000, 1, "B", 1]]  # a stray call for a held button adds nothing
    assert r["presses"] == [1, 0, 0, 1]


def test_presses_held_back_together_read_released_and_each_comes_out_at_its_first_edge(res):
    r = res["held_back_neighbours"]
    assert r["down_held_a0"] == [False] * 4 and r["down_held_both"] == [False] * 4
    assert r["first"] == [[100100, 1, "A", 1]]
    assert r["second"] == [[100000, 0, "A", 1]]
    assert r["down"] == [True, False, True, False]


def test_an_irq_after_the_lock_out_that_finds_the_level_unchanged_adds_nothing(res):
    r = res["late_bounces"]
    assert r["events"] == [[100000, 0, "A", 1], [200000, 0, "A", 0]]
    assert r["down_pressed"] is True and r["down"] is False
    assert r["presses"] == [1, 0, 0, 0] and r["bounces"] == [2, 0, 0, 0]


def test_a_button_on_gpio_0_is_released_at_start_and_then_pressed(res):
    r = res["gpio_zero"]
    assert r["at_start"] == [False] * 4 and r["quiet"] == []
    assert r["down"] is True and r["up"] is False
    assert r["events"] == [[50000, 0, "A", 1], [90000, 0, "A", 0]]


def test_a_spike_dropped_beside_a_held_back_press_leaves_that_press_waiting(res):
    r = res["spike_beside_held"]
    assert r["mid"] == [] and r["down_mid"] == [False] * 4
    assert r["events"] == [[105000, 1, "A", 1]]
    assert r["down"] == [False, False, True, False] and r["bounces"][0] == 1   # the spike


def test_a_real_press_beside_a_held_back_one_is_one_press_and_stays_down(res):
    r = res["held_back_beside_a_real_press"]
    assert r["events"] == [[100000, 0, "A", 1], [106500, 1, "B", 1], [105000, 1, "A", 1]]
    assert r["down"] == [True, False, True, True] and r["bounces"][0] == 0


def test_buttons_on_gpio_0_and_1_alone_are_read(res):
    r = res["gpio_zero_and_one"]
    assert r["at_start"] == [False, False] and r["quiet"] == []
    assert r["events"] == [[50000, 1, "A", 1], [80000, 0, "A", 1]]
    assert r["down"] == [True, True]


def test_a_spike_never_seen_closed_is_not_a_press(res):
    r = res["spike"]
    assert r["mid"] == [] and r["after"] == []
    assert r["bounces_after"] == [0, 1, 0, 0]  # the first poll after its lock-out counts it
    assert r["real"] == [[130000, 0, "B", 1]] and r["down"] is True
    assert r["presses"] == [0, 1, 0, 0]
    assert r["bounces"] == [0, 1, 0, 0]  # the spike, counted


def test_an_exception_in_the_handler_is_counted_and_the_handler_stays(res):
    r = res["handler_raises"]
    assert r["escaped"] == 0
    assert r["errors"] == 2
    assert r["still_attached"] is True
    assert r["events"] == [[50000, 1, "A", 1]]


def test_poll_and_drain_before_start_read_nothing(res):
    r = res["not_started"]
    assert r["idle"] == []
    assert r["untouched"] == {"bad_reads": 0, "disable_calls": 0, "presses": [0, 0, 0, 0],
                              "errors": 0}
    assert r["held"] == [[1000, 1, "A", 1]] and r["disable_calls"] == 0


def test_check_rearms_a_switched_off_irq(res):
    r = res["rearm"]
    assert r["dead"] is True
    assert r["first"] == 1 and r["second"] == 0 and r["rearmed"] == 1
    assert r["trigger"] == 12 and r["hard"] is True
    assert r["events"] == [[5000, 0, "A", 1]]


def test_r19_a_held_back_first_touch_is_published_by_poll_once_read_closed(res):
    # The first edge read the contact open; poll() then reads it closed (before that
    # edge's interrupt is serviced): the press comes out at once, at the first edge.
    r = res["first_edge_poll"]
    assert r["held"] == []
    assert r["confirmed"] == [[100000, 0, "A", 1]] and r["down"] is True
    assert r["presses"] == [1, 0, 0, 0]
    assert r["bounces"] == [1, 0, 0, 0]      # the reclosing edge, inside the lock-out


def test_a_ring_of_odd_size_holds_that_many_events(res):
    r = res["odd_ring"]
    assert r == {"pending_1": 1, "dropped_1": 1, "n_1": 1,
                 "pending_5": 5, "dropped_5": 1, "n_5": 5}
