"""The PIO capture's arithmetic, on the host (CPython): the sampler's shape from a pin
map, its loop length, the calibrator's timing and the calibration's solution. What the
state machine and the DMA then do is tested on the emulated Pico (test_pico_buttons.py)."""
import random

import pytest

from firmware.boards import pico as board
from firmware.hw.buttons_pio import (PioCapture, calibrator_delays, loop_cycles, plan,
                                      solve_phase)


def word_bits(gpios, base, runs, levels):
    """What the sampler's `in` instructions build from a pin word: the state bits."""
    osr = levels >> base
    isr = 0
    for length, gap in runs:
        isr = (isr << length) | (osr & ((1 << length) - 1))
        osr >>= gap
    return isr


@pytest.mark.parametrize("pins", [board.BUTTONS, board.BUTTONS_SIX,
                                  ((9, 0, "A"), (0, 0, "B"), (29, 1, "A"), (28, 1, "B"))])
def test_the_state_word_has_one_bit_per_button_whatever_the_pins(pins):
    gpios = [g for g, _p, _n in pins]
    base, runs, bits = plan(gpios)
    assert base == min(gpios)
    assert sum(length for length, _gap in runs) == len(gpios)
    assert sorted(bits) == list(range(len(gpios)))
    rng = random.Random(1)
    for _ in range(200):
        levels = rng.getrandbits(30)
        isr = word_bits(gpios, base, runs, levels)
        for g, b in zip(gpios, bits):
            assert (isr >> b) & 1 == (levels >> g) & 1


def test_runs_of_the_board_pin_maps():
    assert plan([2, 3, 14, 15])[:2] == (2, ((2, 12), (2, 0)))
    six = [g for g, _p, _n in board.BUTTONS_SIX]
    assert plan(six)[:2] == (2, ((2, 4), (10, 0)))     # GP2-3, GP6-15 (GP4/5 are I2C)
    assert loop_cycles(plan(six)[1]) == 17               # 136 ns at 125 MHz


@pytest.mark.parametrize("cpu", [125, 150, 48, 133])
def test_the_calibrator_sweeps_the_whole_microsecond(cpu):
    delays, period = calibrator_delays(cpu)
    assert sum(d + 1 for d in delays) == period
    assert all(0 <= d <= 31 for d in delays) and len(delays) >= 2
    step = period - cpu
    assert 32 * step >= cpu          # 32 pushes see the µs boundary at every phase


@pytest.mark.parametrize("cpu,phase", [(125, 0), (125, 37), (125, 124), (150, 77)])
def test_calibration_finds_the_phase_of_the_timer(cpu, phase):
    delays, period = calibrator_delays(cpu)
    t0 = (1 << 30) - 3                                   # across the ticks wrap too
    reads = [(t0 + (i * period + phase) // cpu) % (1 << 30) for i in range(32)]
    lo, hi = solve_phase(reads, period, cpu)
    assert lo <= phase < hi and hi - lo <= period - cpu + 8


def test_calibration_tolerates_a_dma_a_few_cycles_late_or_early():
    rng = random.Random(5)
    for trial in range(300):
        cpu = rng.choice((125, 150))
        _delays, period = calibrator_delays(cpu)
        phase = rng.randrange(cpu)
        reads = [1000 + (i * period + phase + rng.randint(-3, 3)) // cpu for i in range(32)]
        lo, hi = solve_phase(reads, period, cpu)
        # cycle 0's time, in cycles: the estimate is the window's middle
        estimate = (reads[0] - 1000) * cpu + (lo + hi - 1) // 2
        assert abs(estimate - phase) <= 8 and hi - lo <= period - cpu + 8, (trial, lo, hi)


def test_calibration_fails_when_the_clock_is_not_what_was_assumed():
    delays, period = calibrator_delays(125)
    reads = [1000 + (i * period) // 130 for i in range(32)]     # the chip runs at 130 MHz
    assert solve_phase(reads, period, 125) is None


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        PioCapture(board.BUTTONS, ring_words=100)
    with pytest.raises(ValueError):
        PioCapture(((2, 0, "A"), (2, 1, "A")))
