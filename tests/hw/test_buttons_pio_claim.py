"""PioCapture's start(), check() and stop() on the host (CPython), against the fake chip
of tests/hw/fake_chip.py: fake `rp2`, `uctypes` and `machine` modules that deliver the
calibrator's timer reads and the sampler's words only where the real chip would, and
raise the PIO interrupt only while its handler is attached. What the real state machine
and DMA do: tests/pico/test_pico_buttons.py (the emulated RP2040)."""
import sys
import time
import types

import pytest

from firmware.boards import pico as board
from firmware.hw.buttons_pio import CaptureUnavailable, PioCapture, calibrator_delays
from shared_rules.arbiter import ticks_diff
from tests.helpers import SmallInt
from tests.hw.fake_chip import MACHINE, MASK29, PIO_BASE, Chip


def started(chip, **kw):
    cap = PioCapture(board.BUTTONS, board.DEBOUNCE_US, ticks_us=chip.ticks, **kw)
    return cap.start(chip.machine)


def ev(events):
    return [[e[0], e[1], e[2], 1 if e[3] else 0] for e in events]


def test_the_fake_chip_delivers_a_press_to_a_started_capture(monkeypatch):
    chip = Chip(monkeypatch)
    cap = started(chip)
    assert cap.kind == "pio" and cap.sample_ns == 17 * 1000 // 125
    assert sorted(g for g, _m, _p in chip.pins) == [2, 3, 14, 15]
    chip.press(cap, 5000, 0b0100)                  # P1 A
    got = ev(cap.drain(poll=False))
    assert len(got) == 1 and got[0][1:] == [1, "A", 1]
    assert abs(got[0][0] - chip.stamp(5000, cap)) <= 1


@pytest.mark.parametrize("chip_name,mhz", [("RP2040", 125), ("RP2350", 150)])
def test_calibration_reads_the_timer_of_the_chip_it_runs_on(monkeypatch, chip_name, mhz):
    # The RP2350's µs timer is at another address: read the RP2040's there and the
    # calibration sees no clock at all.
    chip = Chip(monkeypatch, chip=chip_name, mhz=mhz)
    cap = started(chip)
    chip.press(cap, 90000, 0b0001)                 # P0 A
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1]]
    assert abs(got[0][0] - chip.stamp(90000, cap)) <= 1
    assert 0 < cap.phase_window <= calibrator_delays(mhz)[1] - mhz + 8


def test_a_chip_that_is_not_what_the_firmware_says_fails_calibration(monkeypatch):
    # The other way round (the fake's own check): firmware told RP2040 on an RP2350.
    chip = Chip(monkeypatch, chip="RP2350", mhz=150)
    monkeypatch.setattr(sys.implementation, "_machine", MACHINE["RP2040"])
    with pytest.raises(CaptureUnavailable, match="calibration"):
        started(chip)
    assert all(d.closed for d in chip.dmas)


@pytest.mark.parametrize("busy0", [0b0111, 0b1011, 0b1101])
def test_a_capture_on_pio1_is_paced_by_pio1s_rx_fifo(monkeypatch, busy0):
    # Three of PIO0's state machines are taken: the capture runs on PIO1, and its DMA
    # channels must wait on PIO1's RX FIFOs, or no word ever reaches the ring.
    chip = Chip(monkeypatch, busy=(busy0, 0b0001))
    cap = started(chip)
    assert {(s.pio_id, s.index) for s in chip.sms} == {(1, 1), (1, 2)}
    chip.press(cap, 7000, 0b1000)                  # P1 B
    chip.press(cap, 7001, 0b1010)                  # P0 B one sample later
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[1, "B", 1], [0, "B", 1]]
    assert got[1][0] == got[0][0] + 1              # the next sample: the next µs at least


@pytest.mark.parametrize("busy", [(0, 0), (0b0001, 0), (0b0111, 0b0011)])
def test_check_leaves_a_healthy_interrupt_alone_and_rearms_one_switched_off(monkeypatch, busy):
    # Re-armed for the sampler's own state machine's flag, wherever it runs (SM 0, SM 1
    # of PIO0, SM 2 of PIO1).
    chip = Chip(monkeypatch, busy=busy)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    attached = pio.attached
    assert cap.check() == 0 and cap.check() == 0
    assert cap.rearmed == 0 and pio.attached == attached
    pio.irq().trigger(0)                           # MicroPython switched it off
    chip.press(cap, 3000, 0b0001)
    assert cap.drain(poll=False) == []             # no interrupt: the press waits
    assert cap.check() == 1 and cap.rearmed == 1 and pio.attached == attached + 1
    assert cap.check() == 0 and cap.rearmed == 1
    chip.press(cap, 400000, 0b0000)                # the release: the handler runs again
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1], [0, "A", 0]]


def test_stop_detaches_the_handler_and_frees_everything(monkeypatch):
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    cap.stop()
    assert pio.handler is None and pio.trigger == 0
    assert all(d.closed for d in chip.dmas) and not any(s.on for s in chip.sms)
    assert len(pio.removed) == 2                   # the calibrator's and the sampler's
    assert cap.check() == 0 and pio.handler is None   # stopped: nothing to re-arm
    assert cap.drain() == []


@pytest.mark.parametrize("failing", ["sm", "irq", "dma", "program"])
def test_stop_frees_everything_else_when_one_part_refuses(monkeypatch, failing):
    # stop() runs at a soft reset or when the app leaves: a part that raises while being
    # freed (a state machine, the PIO interrupt, a DMA channel, a program) must not keep
    # the rest from being freed, nor escape.
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]

    def refuse(*a, **kw):
        raise OSError(5, "refused")
    if failing == "sm":
        sm = [s for s in chip.sms if s.on][0]
        monkeypatch.setattr(sm, "active", refuse)
    elif failing == "irq":
        monkeypatch.setattr(pio, "irq", refuse)
    elif failing == "dma":
        bad = cap._dmas[0]
        monkeypatch.setattr(bad, "close", refuse)
    else:
        monkeypatch.setattr(pio, "remove_program", refuse)
    cap.stop()
    assert all(d.closed for d in chip.dmas if failing != "dma" or d is not bad)
    assert len([s for s in chip.sms if s.on]) == (1 if failing == "sm" else 0)
    assert failing == "irq" or pio.handler is None
    assert cap.check() == 0 and cap.drain() == []


def test_a_capture_not_started_polls_and_checks_nothing():
    cap = PioCapture(board.BUTTONS, board.DEBOUNCE_US, cycles_per_us=125)
    assert cap.drain() == [] and cap.check() == 0
    cap.poll()
    assert cap.rearmed == 0 and cap.dropped == 0 and cap.errors == 0


@pytest.mark.parametrize("load_at", [(7, 25), (0, 12), (20, 2)])
def test_the_sampler_starts_at_its_sample_instruction_wherever_its_program_was_loaded(monkeypatch, load_at):
    # The change path is the program's first 10 instructions; the loop starts after it.
    chip = Chip(monkeypatch, load_at=load_at)
    cap = started(chip)
    sampler = [s for s in chip.sms if s.in_base is not None][0]
    assert sampler.origin == load_at[0]
    assert sampler.execs[-1] == 0x0000 | (load_at[0] + 10)        # jmp <sample>
    chip.press(cap, 5000, 0b0010)
    assert [e[1:] for e in ev(cap.drain(poll=False))] == [[0, "B", 1]]


def test_calibration_waits_for_all_32_timer_reads_and_raises_no_dma_interrupt(monkeypatch):
    chip = Chip(monkeypatch)
    started(chip)
    _delays, period = calibrator_delays(125)
    assert chip.slept_us * 125 >= 31 * period      # long enough for the 32nd push
    assert chip.dma_irqs == []                     # nothing handles one


def test_calibration_cut_short_fails_and_frees_everything(monkeypatch):
    chip = Chip(monkeypatch)
    monkeypatch.setattr(time, "sleep_us", lambda us: chip.sleep_us(us // 4), raising=False)
    with pytest.raises(CaptureUnavailable, match="not read 32 times"):
        started(chip)
    assert all(d.closed for d in chip.dmas) and not any(s.on for s in chip.sms)


def test_a_board_without_rp2_has_no_pio_capture_and_gets_the_gpio_capture(monkeypatch):
    from firmware.hw.buttons import start_capture
    chip = Chip(monkeypatch)
    monkeypatch.setitem(sys.modules, "rp2", None)     # import rp2 raises ImportError
    with pytest.raises(CaptureUnavailable, match="no rp2 module"):
        started(chip)
    assert chip.sms == [] and chip.dmas == []
    machine = types.SimpleNamespace(
        Pin=types.SimpleNamespace(IN=0, PULL_UP=1, IRQ_FALLING=4, IRQ_RISING=8),
        mem32={0xD0000004: 0x3FFFFFFF})
    pins = []

    class Pin:
        IN, PULL_UP, IRQ_FALLING, IRQ_RISING = 0, 1, 4, 8

        def __init__(self, gpio, mode=-1, pull=-1):
            pins.append(gpio)

        def irq(self, *a, **kw):
            return None
    machine.Pin = Pin
    cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)
    assert cap.kind == "gpio" and "no rp2 module" in cap.why
    assert sorted(pins) == [2, 3, 14, 15]


def ring_channel(chip, others):
    """The capture's ring channel: the first still open after the `others` taken before."""
    return [d for d in chip.dmas[others:] if not d.closed][0]


def take_dma_channels(chip, others):
    """Another user of the chip has taken `others` DMA channels before the capture."""
    import rp2
    for _ in range(others):
        rp2.DMA()


@pytest.mark.parametrize("others", [0, 3])
def test_the_ring_channel_running_out_raises_no_dma_interrupt_and_poll_restarts_it(monkeypatch, others):
    chip = Chip(monkeypatch)
    take_dma_channels(chip, others)
    cap = started(chip)
    ring = ring_channel(chip, others)
    assert ring.channel == others
    ring.done = ring.cfg["count"] - 2              # as after ~134 million changes
    chip.press(cap, 9000, 0b0001)
    assert [e[1:] for e in ev(cap.drain(poll=False))] == [[0, "A", 1]]
    assert chip.dma_irqs == []
    # poll() has work again when the press's lock-out ends (+ 2 µs): it restarts the
    # channel then, long before the FIFO could fill at a person's pace.
    chip.now = (chip.stamp(9000, cap) + 10002) % (1 << 30)
    cap.poll()
    assert chip.regs[ring.reg(0x01C)] == ring.cfg["count"]   # TRANS_COUNT_TRIG: again


@pytest.mark.parametrize("pins", [board.BUTTONS,                                  # 2 runs
                                  ((2, 0, "A"), (3, 0, "B")),                     # 1 run
                                  ((2, 0, "A"), (6, 0, "B"), (10, 1, "A"), (11, 1, "B"))])  # 3
def test_the_sampler_the_capture_loads_samples_once_every_loop_cycles(monkeypatch, pins):
    # Whichever way each loop goes (a change pushed, or nothing), for any number of
    # runs of pins: the unchanged way waits exactly what the changed way takes more.
    from tests.hw.test_buttons_pio_plan import PioModel
    chip = Chip(monkeypatch)
    cap = PioCapture(pins, board.DEBOUNCE_US, ticks_us=chip.ticks).start(chip.machine)
    sampler = [s for s in chip.sms if s.in_base is not None][0]
    pressed = {5: 0b0001, 9: 0b0011, 14: 0b0000}          # changes on some loops

    def levels(k):
        bits = 0
        for loop in sorted(pressed):
            if k >= loop:
                bits = pressed[loop]
        w = (1 << 30) - 1
        for i, (g, _p, _n) in enumerate(pins):
            if bits >> i & 1:
                w &= ~(1 << g)
        return w
    start = (sampler.execs[-1] & 0x1F) - sampler.origin     # where the capture jumped
    sm = PioModel(sampler.prog, sampler.in_base, levels, pc=start)
    sm.run_until(20 * cap.loop_cycles)
    assert sm.samples[:20] == [k * cap.loop_cycles for k in range(20)]
    assert len(sm.fifo) == 2 * 4                           # the first loop and 3 changes


@pytest.mark.parametrize("others", [0, 3])
def test_poll_leaves_a_running_ring_channel_alone(monkeypatch, others):
    chip = Chip(monkeypatch)
    take_dma_channels(chip, others)
    cap = started(chip)
    ring = ring_channel(chip, others)
    chip.press(cap, 9000, 0b0001)
    for k in range(1, 40):                                 # frames over 1.3 s
        chip.now = (chip.stamp(9000, cap) + k * 33333) % (1 << 30)
        cap.poll()
    assert ring.reg(0x01C) not in chip.regs                # never re-triggered
    assert [e[1:] for e in ev(cap.drain(poll=False))] == [[0, "A", 1]]


@pytest.mark.parametrize("phase", [0, 1, 2, 3, 124])
def test_calibration_at_any_phase_of_the_microsecond_stamps_right(monkeypatch, phase):
    # The first timer read's phase near the µs boundary (either side) moves the time
    # base across a µs: the stamps still come out at their samples' µs.
    chip = Chip(monkeypatch, phase=phase)
    cap = started(chip)
    for loop in (20000, 20001, 20007):
        chip.press(cap, loop, 0b0001 if loop % 2 == 0 else 0)
    got = ev(cap.drain(poll=False))
    assert len(got) == 1
    assert abs(got[0][0] - chip.stamp(20000, cap)) <= 1
    assert 0 <= got[0][0] < 1 << 30


def test_a_pio_block_with_no_room_is_passed_over_for_the_other(monkeypatch):
    chip = Chip(monkeypatch, full_pios=(0,))
    cap = started(chip)
    assert cap._pio_id == 1 and {s.pio_id for s in chip.sms} == {1}
    chip.press(cap, 6000, 0b0100)
    assert [e[1:] for e in ev(cap.drain(poll=False))] == [[1, "A", 1]]


def test_no_pio_block_with_room_says_why(monkeypatch):
    chip = Chip(monkeypatch, full_pios=(0, 1))
    with pytest.raises(CaptureUnavailable, match="PIO1: .*no room"):
        started(chip)
    assert chip.dmas == []


def test_too_few_dma_channels_is_said_and_everything_freed(monkeypatch):
    chip = Chip(monkeypatch, dma_channels=2)
    with pytest.raises(CaptureUnavailable, match="OSError: .*no free DMA channel"):
        started(chip)
    assert all(d.closed for d in chip.dmas) and not any(s.on for s in chip.sms)
    assert all(len(p.removed) == 2 for p in chip.pios.values() if p.removed)


def test_the_calibrator_is_set_to_push_32_times(monkeypatch):
    chip = Chip(monkeypatch)
    started(chip)
    cal = [s for s in chip.sms if s.in_base is None][0]
    assert cal.y == 31


def test_an_exception_in_the_handler_is_counted_once_and_the_capture_goes_on(monkeypatch):
    chip = Chip(monkeypatch)
    cap = started(chip)
    real = cap._process
    calls = []

    def once():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("glitch")
        real()
    cap._process = once
    chip.press(cap, 5000, 0b0001)                  # the handler raises: counted
    assert cap.errors == 1
    chip.press(cap, 100000, 0b0000)                # the next run reads both
    assert cap.errors == 1
    assert [e[1:] for e in ev(cap.drain(poll=False))] == [[0, "A", 1], [0, "A", 0]]


def exact_stamps(chip, cap, presses):
    """Press `presses` times at loops spread over the µs phases; each press more than a
    few cycles from a µs boundary must be stamped with exactly its µs. How many were."""
    checked = 0
    for k in range(1, presses + 1):
        loop = k * 80000 + 3 * k
        chip.press(cap, loop, k % 2)
        got = ev(cap.drain(poll=False))
        assert len(got) == 1
        c = (chip.phase + loop * cap.loop_cycles - 2) % chip.cpu
        if 8 <= c <= chip.cpu - 8:
            assert got[0][0] == chip.stamp(loop, cap)
            checked += 1
    return checked


def test_stamps_are_exact_away_from_a_microseconds_edge(monkeypatch):
    # The time base is the middle of the calibration's window: a sample more than a
    # few cycles from a µs boundary is stamped with exactly its µs.
    chip = Chip(monkeypatch, phase=40)
    cap = started(chip)
    assert exact_stamps(chip, cap, 24) >= 10


@pytest.mark.parametrize("pins", [((2, 0, "A"),), ((2, 0, "A"), (3, 0, "B"), (14, 1, "A")),
                                  ((2, 0, "A"), (3, 0, "B"), (14, 1, "A"), (15, 1, "B"), (16, 1, "B"))])
def test_a_pin_map_of_any_size_is_captured_button_by_button(monkeypatch, pins):
    # One button (a reaction lab's), three, five: each press and release is its own
    # button's, whatever the number of pins.
    chip = Chip(monkeypatch)
    cap = PioCapture(pins, board.DEBOUNCE_US, ticks_us=chip.ticks).start(chip.machine)
    want = []
    loop = 1000
    for i in range(len(pins)):
        for down in (1, 0):
            loop += 200000
            chip.press(cap, loop, (1 << i) if down else 0)
            want.append([chip.stamp(loop, cap), pins[i][1], pins[i][2], down])
    assert ev(cap.drain(poll=False)) == want


def test_without_a_debounce_time_the_lock_out_is_the_boards_10_ms(monkeypatch):
    # A release inside the lock-out is the release at its end: the press's stamp + 10 ms.
    chip = Chip(monkeypatch)
    cap = PioCapture(board.BUTTONS, ticks_us=chip.ticks).start(chip.machine)
    assert board.DEBOUNCE_US == 10000
    chip.press(cap, 100000, 0b0001)
    chip.press(cap, 100000 + 7000, 0)                 # ~1 ms later: still locked out
    t = chip.stamp(100000, cap)
    assert ev(cap.drain(poll=False)) == [[t, 0, "A", 1]]
    chip.now = (t + 10000 + 50) % (1 << 30)
    assert ev(cap.drain()) == [[(t + 10000) % (1 << 30), 0, "A", 0]]


@pytest.mark.parametrize("mhz", [20, 24])
@pytest.mark.parametrize("phase", [0, 5, 11])
def test_at_a_slow_clock_every_sample_is_stamped_with_exactly_its_microsecond(monkeypatch, mhz, phase):
    # With 20-24 cycles a µs the calibration places the boundary closely enough that
    # every sample, also those a cycle or two from a µs edge, gets its own µs, the pads'
    # 2-cycle input synchroniser counted (the pin changed 2 cycles before the sample).
    chip = Chip(monkeypatch, mhz=mhz, phase=phase)
    cap = started(chip)
    for k in range(1, 60):
        loop = k * 80000 + 3 * k
        chip.press(cap, loop, k % 2)
        assert ev(cap.drain(poll=False)) == [[chip.stamp(loop, cap), 0, "A", k % 2]]


@pytest.mark.parametrize("ring_words", [8, 256, 1024])
def test_the_dma_ring_is_aligned_to_its_size_inside_the_capture_array(monkeypatch, ring_words):
    # The DMA wraps its write address on a (1 << ring_size)-byte boundary: the ring must
    # be exactly ring_words words, start on a multiple of its size, and lie wholly in the
    # array the capture reads (the fake places arrays 4 bytes past a 64 KB boundary).
    chip = Chip(monkeypatch)
    cap = started(chip, ring_words=ring_words)
    ring = [d for d in chip.dmas if d.cfg and d.cfg["ctrl"].get("ring_sel")]
    assert len(ring) == 1
    size = 1 << ring[0].cfg["ctrl"]["ring_size"]
    start = chip.addr_of(ring[0].cfg["write"])
    assert size == 4 * ring_words and start % size == 0
    arr, k = chip.locate(start)
    assert arr is cap._ring and k + ring_words <= len(arr)


@pytest.mark.parametrize("mhz,phase", [(125, 40), (125, 3), (150, 77), (48, 11)])
def test_the_phase_window_reported_is_the_width_of_the_calibrations_window(monkeypatch, mhz, phase):
    # phase_window (cycles) says how closely calibration placed the µs boundary: the
    # width of the window of phases the 32 timer reads allow (solve_phase on the same
    # reads the fake chip's DMA made).
    from firmware.hw.buttons_pio import solve_phase
    chip = Chip(monkeypatch, mhz=mhz, phase=phase)
    cap = started(chip)
    _delays, period = calibrator_delays(mhz)
    reads = [(chip.t0 + (i * period + phase) // mhz) % (1 << 30) for i in range(32)]
    lo, hi = solve_phase(reads, period, mhz)
    assert cap.phase_window == hi - lo and cap.phase_window > 0


def test_a_capture_whose_calibration_failed_reports_no_phase_window(monkeypatch):
    chip = Chip(monkeypatch)
    monkeypatch.setattr(time, "sleep_us", lambda us: chip.sleep_us(us // 4), raising=False)
    cap = PioCapture(board.BUTTONS, board.DEBOUNCE_US, ticks_us=chip.ticks)
    with pytest.raises(CaptureUnavailable):
        cap.start(chip.machine)
    assert cap.phase_window == 0 and cap.sample_ns == 0


@pytest.mark.parametrize("t0", [(1 << 30) - 5000, 200_000_000, 700_000_000])
def test_the_samplers_first_push_during_calibration_is_no_error(monkeypatch, t0):
    # The sampler pushes its loop 0 as soon as it starts, while the capture is still
    # calibrating: the handler takes it without an error, whatever the clock reads, and
    # a press after start() is stamped with its sample's µs.
    chip = Chip(monkeypatch, t0=t0)
    cap = started(chip)
    assert cap.errors == 0 and cap.pending() == 0
    chip.press(cap, 90000, 0b0010)                 # P0 B
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "B", 1]]
    assert abs(got[0][0] - chip.stamp(90000, cap)) <= 1
    assert cap.errors == 0


@pytest.mark.parametrize("timer_high", [0, 1, 2, 3])
def test_calibration_folds_the_32_bit_timer_to_the_ticks_us_period(monkeypatch, timer_high):
    # The calibrator's DMA copies TIMERAWL, the µs since boot in 32 bits: past 17.9
    # minutes of uptime it is beyond 2**30, past 35.8 negative in the array. Its low 30
    # bits are ticks_us(), and the stamps stay exact.
    chip = Chip(monkeypatch, phase=40, timer_high=timer_high)
    cap = started(chip)
    assert exact_stamps(chip, cap, 12) >= 5


@pytest.mark.parametrize("busy,pio,mine", [((0, 0), 0, 0b0011), ((0b0101, 0), 0, 0b1010),
                                           ((0b1111, 0b0110), 1, 0b1001)])
def test_start_switches_on_its_own_two_state_machines_and_no_other(monkeypatch, busy, pio, mine):
    chip = Chip(monkeypatch, busy=busy)
    started(chip)
    assert chip.regs[PIO_BASE[pio] + 0x2000] == mine     # CTRL's set alias: SM_ENABLE bits


def test_firmware_without_the_pio_capture_module_gets_the_gpio_capture_and_says_why(monkeypatch):
    from firmware.hw.buttons import start_capture
    chip = Chip(monkeypatch)
    monkeypatch.setitem(sys.modules, "firmware.hw.buttons_pio", None)   # not deployed
    irqs = []

    class Pin:
        IN, PULL_UP, IRQ_FALLING, IRQ_RISING = 0, 1, 4, 8

        def __init__(self, gpio, mode=-1, pull=-1):
            self.gpio = gpio

        def irq(self, *a, **kw):
            irqs.append(self.gpio)
    machine = types.SimpleNamespace(Pin=Pin, mem32={0xD0000004: 0x3FFFFFFF})
    cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)
    assert cap.kind == "gpio" and cap.why == "no PIO capture module"
    assert sorted(irqs) == [2, 3, 14, 15] and chip.sms == [] and chip.dmas == []


def test_start_capture_gives_a_ring_of_64_events_by_default(monkeypatch):
    from firmware.hw.buttons import start_capture
    chip = Chip(monkeypatch)
    cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, chip.machine)
    assert cap.kind == "pio"
    apart = 20000 * 125 // cap.loop_cycles           # 20 ms: past each lock-out
    for k in range(65):                              # P0 A pressed, released, ... unread
        chip.press(cap, 1000 + k * apart, (k + 1) % 2)
    assert cap.pending() == 64 and cap.dropped == 1
    assert len(cap.drain(poll=False)) == 64


def _decoded(word):
    """The few PIO instructions the capture executes, from the RP2040 datasheet's
    encoding: (name, destination, value)."""
    op = word >> 13
    if op == 0b111:                                   # SET: destination, 5-bit data
        return ("set", {1: "x", 2: "y"}[(word >> 5) & 7], word & 31)
    if op == 0b101:                                   # MOV: destination, source
        return ("mov", {6: "isr"}[(word >> 5) & 7], {3: "null"}[word & 7] if (word >> 3) & 3 == 0 else "?")
    if op == 0b000 and (word >> 5) & 7 == 0:          # JMP always
        return ("jmp", "pc", word & 31)
    return ("?", word)


def test_the_sampler_starts_counting_from_0_with_no_state_so_its_loop_0_pushes(monkeypatch):
    chip = Chip(monkeypatch, load_at=(9, 25))
    started(chip)
    sampler = [s for s in chip.sms if s.in_base is not None][0]
    assert [_decoded(w) for w in sampler.execs] == [
        ("set", "x", 0),           # the loop count, X, counts down from 0
        ("set", "y", 0),           # no state word (bit 29 set) is 0: loop 0 pushes
        ("mov", "isr", "null"),
        ("jmp", "pc", 9 + 10)]     # at its sample instruction


@pytest.mark.parametrize("busy", [(0b0011, 0), (0b0001, 0), (0, 0)])   # the sampler on SM 2, 1, 0
def test_a_full_fifo_flagged_in_the_pio_blocks_fdebug_is_counted(monkeypatch, busy):
    chip = Chip(monkeypatch, busy=busy)
    cap = started(chip)
    sampler = [s for s in chip.sms if s.in_base is not None][0]
    fdebug = PIO_BASE[0] + 0x008
    # Other state machines' RXSTALL flags (bits 0-3, one per SM) are not the capture's.
    chip.regs[fdebug] = 0b1111 & ~(1 << sampler.index)
    chip.press(cap, 5000, 0b0001)
    assert cap.fifo_overflows == 0 and cap.dropped == 0
    chip.regs[fdebug] = 1 << sampler.index                      # RXSTALL: a push found it full
    chip.press(cap, 400000, 0)
    assert cap.fifo_overflows == 1 and cap.dropped == 1
    assert [e[1:] for e in ev(cap.drain(poll=False))] == [[0, "A", 1], [0, "A", 0]]


@pytest.mark.parametrize("loops", [1 << 29, (1 << 29) - 1, 3 * 10 ** 8])
def test_moving_the_anchor_past_a_long_silence_keeps_every_step_a_small_int(monkeypatch, loops):
    # After a silence the handler moves its time anchor up to a whole 2**29-loop turn
    # at once, inside the interrupt: in steps whose every intermediate stays under 2**30
    # (a heap int on the chip, which a hard interrupt handler may not make), and lands
    # on that loop's stamp.
    chip = Chip(monkeypatch)
    cap = started(chip)
    cap._advance(SmallInt(loops))
    assert cap._a_loop == loops & MASK29
    assert -1 <= ticks_diff(cap._a_t, chip.stamp(loops, cap)) <= 1


@pytest.mark.parametrize("loop", [3 * 10 ** 8, (1 << 29) - 5])
def test_the_handler_stamps_a_press_after_a_long_silence_in_small_ints(monkeypatch, loop):
    # No poll() for a minute: the handler moves its anchor hundreds of millions of loops
    # at once, and must do it in steps (a heap int raised in a hard interrupt handler is
    # a press lost, counted in `errors`).
    chip = Chip(monkeypatch)
    cap = started(chip)
    cap._L = SmallInt(cap._L)
    chip.press(cap, loop, 0b0001)
    assert cap.errors == 0
    assert ev(cap.drain(poll=False)) == [[chip.stamp(loop, cap), 0, "A", 1]]


def test_a_failed_calibration_names_the_clock_in_one_line(monkeypatch):
    # The firmware told RP2040 on an RP2350 (150 MHz): it reads a timer that is not there.
    chip = Chip(monkeypatch, chip="RP2350", mhz=150)
    monkeypatch.setattr(sys.implementation, "_machine", MACHINE["RP2040"])
    with pytest.raises(CaptureUnavailable) as e:
        started(chip)
    assert str(e.value) == "calibration failed: the timer and a 150 MHz PIO clock disagree"


def test_a_pin_map_of_more_runs_than_the_program_covers_is_refused_in_one_line(monkeypatch):
    chip = Chip(monkeypatch)
    pins = tuple((g, k % 2, "AB"[k // 2 % 2]) for k, g in enumerate((0, 2, 4, 6, 8, 10)))
    cap = PioCapture(pins, board.DEBOUNCE_US, ticks_us=chip.ticks)
    with pytest.raises(CaptureUnavailable) as e:
        cap.start(chip.machine)
    assert str(e.value) == "the pin map needs 6 runs of pins; the PIO program covers 5"
    assert chip.sms == [] and chip.dmas == []


def test_r19_a_sample_one_loop_after_a_press_at_loop_count_0_takes_the_next_microsecond(monkeypatch):
    # The 29-bit loop count comes round to 0 every 2**29 loops (73 s at 125 MHz): a
    # press sampled at count 0 is an ordinary published stamp, and another button's
    # press one sample later, in the same µs, still comes out a µs after it.
    chip = Chip(monkeypatch)
    cap = started(chip)
    turn = 1 << 29
    assert chip.stamp(turn, cap) == chip.stamp(turn + 1, cap)      # one µs
    chip.press(cap, turn, 0b0001)                  # P0 A at loop count 0
    chip.press(cap, turn + 1, 0b0101)              # P1 A one sample later
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1], [1, "A", 1]]
    assert abs(got[0][0] - chip.stamp(turn, cap)) <= 1
    assert got[1][0] == got[0][0] + 1


@pytest.mark.parametrize("base", [5000, 1 << 29])      # 2**29: the loop count 0 (a turn on)
def test_r19_a_poll_1000_us_after_a_stamp_forgets_it_so_the_same_loop_count_a_turn_later_is_a_new_instant(
        monkeypatch, base):
    # Stamps of one sample are one instant (R21), so a sample whose loop count equals
    # the last published one shares its stamp. That count comes round again after 2**29
    # loops: once a poll sees the stamp _BUMP_US (1000 µs) old, no sample still to come
    # can share it, and it is forgotten; the sample a turn later has its own stamp.
    # Also when that count is 0.
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    chip.press(cap, base, 0b0001)                  # P0 A, taken by the handler
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1]]
    s = got[0][0]
    pio.irq().trigger(0)                           # the handler is off: poll() reads
    chip.press(cap, base + 500 * 125 // cap.loop_cycles, 0b0000)   # a bounce, ~500 µs on
    chip.now = (s + 1000) % (1 << 30)              # the poll exactly 1000 µs after s
    cap.poll()
    assert cap.bounces[0] == 1 and cap.drain(poll=False) == []
    assert cap.check() == 1                        # the handler again
    chip.press(cap, base + (1 << 29), 0b0101)      # P0 A and P1 A: P0 A's count again
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 0], [0, "A", 1], [1, "A", 1]]
    assert got[0][0] == (s + 10000) % (1 << 30)    # the swallowed release, at its end
    new = chip.stamp(base + (1 << 29), cap)
    assert abs(got[1][0] - new) <= 1 and got[2][0] == got[1][0]


def test_after_a_silence_of_more_than_one_loop_count_turn_at_300_mhz_a_press_has_its_own_stamp(monkeypatch):
    # One run of pins at 300 MHz: 15 cycles a loop, so the 29-bit count turns every
    # 26.8 s. The handler, with no poll() for longer than that, must count the turn
    # from the clock, not stamp the press a whole turn early.
    chip = Chip(monkeypatch, mhz=300)
    pins = ((2, 0, "A"), (3, 0, "B"), (4, 1, "A"), (5, 1, "B"))
    cap = PioCapture(pins, board.DEBOUNCE_US, ticks_us=chip.ticks).start(chip.machine)
    assert cap.loop_cycles == 15
    loop = (1 << 29) + 20_000_000                  # 26.8 s + 1 s after loop 0
    chip.press(cap, loop, 0b0001)
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1]]
    assert abs(ticks_diff(got[0][0], chip.stamp(loop, cap))) <= 1


def test_a_sample_read_in_its_own_microsecond_exactly_one_turn_after_the_anchor_is_in_that_turn(monkeypatch):
    # Loop 2**29 has loop 0's count, and at 125 MHz with 17-cycle loops its µs is
    # exactly epoch_us (2**29 loops in whole µs) after loop 0's: read then, with the
    # anchor still at loop 0, the handler must count the turn, not stamp it 73 s early.
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    turn = 1 << 29
    assert ticks_diff(chip.stamp(turn, cap), chip.stamp(0, cap)) == turn * 17 // 125
    pio.irq().trigger(0)                           # the handler is off: poll() reads
    chip.press(cap, turn, 0b0010)                  # P0 B
    chip.now = chip.stamp(turn, cap)               # read in the sample's own µs
    cap.poll()
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "B", 1]]
    assert abs(ticks_diff(got[0][0], chip.stamp(turn, cap))) <= 1


@pytest.mark.parametrize("mhz,ns", [(125, 136), (126, 134), (150, 113)])
def test_sample_ns_is_a_loops_length_in_whole_nanoseconds_rounded_down(monkeypatch, mhz, ns):
    # 17 cycles: 136.0 ns at 125 MHz, 134.92 at 126, 113.33 at 150.
    chip = Chip(monkeypatch, mhz=mhz)
    cap = started(chip)
    assert cap.loop_cycles == 17 and cap.sample_ns == ns


@pytest.mark.parametrize("busy,index", [((0b0001, 0), 1), ((0b0011, 0), 2), ((0b0111, 0b0001), 1)])
def test_a_sampler_on_any_state_machine_starts_at_its_sample_instruction(monkeypatch, busy, index):
    # SMx_ADDR of the sampler's own state machine tells where its program was loaded.
    from tests.hw.test_buttons_pio_plan import PioModel
    chip = Chip(monkeypatch, busy=busy, load_at=(9, 27))
    cap = started(chip)
    sampler = [s for s in chip.sms if s.in_base is not None][0]
    assert sampler.index == index
    assert sampler.execs[-1] == 0x0000 | (9 + 10)                  # jmp <sample>
    sm = PioModel(sampler.prog, sampler.in_base, lambda k: (1 << 30) - 1,
                  pc=(sampler.execs[-1] & 0x1F) - sampler.origin)
    sm.run_until(5 * cap.loop_cycles)
    assert sm.samples[:5] == [k * cap.loop_cycles for k in range(5)]


def test_start_frees_the_calibrators_program_and_keeps_the_samplers(monkeypatch):
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    sampler = [s for s in chip.sms if s.in_base is not None][0]
    cal = [s for s in chip.sms if s.in_base is None][0]
    assert pio.removed == [cal.prog] and sampler.on and not cal.on
    cap.stop()
    assert pio.removed == [cal.prog, sampler.prog]


@pytest.mark.parametrize("poll_at", ["just before", "1 us after"])
def test_a_poll_near_a_lock_outs_end_leaves_it_running_for_a_change_not_yet_in_the_ring(monkeypatch, poll_at):
    # A press, its release swallowed by the lock-out, then a poll() 1-2 µs before the
    # lock-out ends, or 1 µs after: samples that recent (_MARGIN_US, 2 µs) may not be in
    # the ring yet, so the poll must not end the lock-out (and emit the release). The
    # press again, sampled in the lock-out's last µs and read after that poll, is a
    # bounce: the button never was released.
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    p = 5000
    while (chip.stamp(p, cap) + 10000) % 4 == 0:     # a poll 1 or 2 µs early is then t | 2 >= the end
        p += 1
    chip.press(cap, p, 0b0001)                     # P0 A, taken by the handler
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1]] and got[0][0] == chip.stamp(p, cap)
    end = (got[0][0] + 10000) % (1 << 30)
    pio.irq().trigger(0)                           # the handler is off: poll() reads
    chip.press(cap, p + 3000 * 125 // cap.loop_cycles, 0b0000)   # the release, swallowed
    if poll_at == "just before":
        chip.now = [t for t in ((end - 2) % (1 << 30), (end - 1) % (1 << 30)) if not t & 2][0]
    else:
        chip.now = (end + 1) % (1 << 30)
    cap.poll()
    assert cap.drain(poll=False) == [] and cap.bounces[0] == 1
    assert cap.check() == 1                        # the handler again
    q = p + 9990 * 125 // cap.loop_cycles
    while chip.stamp(q, cap) != (end - 1) % (1 << 30):
        q += 1
    chip.press(cap, q, 0b0001)                     # pressed again in the last µs
    chip.now = (end + 30000) % (1 << 30)
    cap.poll()
    assert cap.drain(poll=False) == [] and cap.bounces[0] == 2
    assert cap.is_down(0)


def test_a_clock_that_is_not_a_whole_number_of_mhz_is_refused_in_one_line(monkeypatch):
    chip = Chip(monkeypatch)
    chip.machine.freq = lambda: 125_500_000
    cap = PioCapture(board.BUTTONS, board.DEBOUNCE_US, ticks_us=chip.ticks)
    with pytest.raises(CaptureUnavailable) as e:
        cap.start(chip.machine)
    assert str(e.value) == "clock 125500000 Hz: not a whole number of MHz"
    assert chip.sms == [] and chip.dmas == []
