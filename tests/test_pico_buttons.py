"""Button capture on the emulated Pico, where the rp2 port's own behaviour decides:
how late a hard IRQ reads GPIO_IN, what MicroPython does to an IRQ whose handler raised,
and the PIO state machines and DMA that stamp touches without the CPU.

Each scenario runs a short script on the board (raw REPL), applies pin edges at exact
guest times once the script says READY, and reads back what the capture made of them.
"""
import json

import pytest

from desktop_emulator.pico.device import Pico, MS, US
from firmware.boards import pico as board

BUTTONS = [g for g, _p, _n in board.BUTTONS]
P0_A, P0_B, P1_A, P1_B = board.P0_A, board.P0_B, board.P1_A, board.P1_B
LEAD_NS = 2 * MS                   # edges start this long after the script says READY

GPIO_SETUP = """\
import machine, time, json
from firmware.boards import pico as board
from firmware.hw.buttons import ButtonCapture
cap = ButtonCapture(board.BUTTONS, board.DEBOUNCE_US).start(machine)
cap.drain()
"""

REPORT = """\
evs = cap.drain(poll=False)
print(json.dumps({'events': [[e[0], e[1], e[2], 1 if e[3] else 0] for e in evs],
                  'errors': getattr(cap, 'errors', None), EXTRA
                  'triggers': [p.irq().trigger() for p in cap._pins]}))
"""


def report_with(extra=""):
    return REPORT.replace("EXTRA", extra)


@pytest.fixture(scope="module")
def board_repl(pico_firmware, pico_files_no_main):
    pico = Pico(pico_firmware, files=pico_files_no_main, buttons=BUTTONS)
    pico.boot()
    pico.run_for(50_000)
    pico.interrupt()
    yield pico
    pico.close()


def scenario(pico, setup, edges, run_ms, report=None, middle=""):
    """Run `setup`, then apply `edges` [(µs after the start, gpio, level)] while the
    board sleeps run_ms (running `middle` halfway), then `report`. Returns (the report's
    JSON, {edge index: the board's ticks_us at that edge})."""
    report = report_with() if report is None else report
    pico.enter_raw()                                   # a soft reset: a clean board
    half = run_ms // 2
    pico.exec_start(setup + "print('READY')\ntime.sleep_ms(%d)\n%s\ntime.sleep_ms(%d)\n%s"
                    % (half, middle, run_ms - half, report))
    pico.read_until(b"READY\r\n", what="the script to start")
    t0 = pico.t_ns + LEAD_NS
    pico.schedule([(t0 + int(dt * US), g, lv) for dt, g, lv in edges])
    ticks = [pico.ticks_us(t0 + int(dt * US)) for dt, _g, _lv in edges]
    out = pico.exec_finish(guest_ms=run_ms + 2000)
    return json.loads(out.strip().splitlines()[-1]), ticks


def presses(report, player, button):
    return [e[0] for e in report["events"] if e[1] == player and e[2] == button and e[3]]


# ---- the GPIO-interrupt capture ---------------------------------------------------------

def test_gpio_capture_stamps_the_first_edge_even_when_the_read_sees_it_open(board_repl):
    # Player 0's contact closes, bounces open 3 µs later (before the IRQ reads GPIO_IN,
    # ~20 µs after the edge) and closes for good 60 µs after the first touch; player 1
    # presses cleanly 30 µs after player 0's first touch. Player 0 touched first.
    edges = [(0, P0_A, 0), (3, P0_A, 1), (60, P0_A, 0), (30, P1_A, 0),
             (30000, P0_A, 1), (30000, P1_A, 1)]
    r, ticks = scenario(board_repl, GPIO_SETUP, edges, 20)
    p0, p1 = presses(r, 0, "A"), presses(r, 1, "A")
    assert len(p0) == 1 and len(p1) == 1, r
    assert 0 <= p0[0] - ticks[0] <= 25, (p0, ticks)      # the first edge, not the reclose
    assert p0[0] < p1[0]


def test_gpio_capture_ignores_a_spike_that_never_reads_closed(board_repl):
    # A 2 µs glitch to ground: the IRQ sees the edge but never a closed contact.
    edges = [(0, P0_B, 0), (2, P0_B, 1)]
    report = report_with("'down': cap.is_down(1), 'bounces': list(cap.bounces),")
    r, _ticks = scenario(board_repl, GPIO_SETUP, edges, 40, report=report)
    assert r["events"] == []
    assert r["down"] is False


def test_gpio_capture_survives_a_handler_that_raised(board_repl):
    # The handler fails (its clock raises) for a press and its release; MicroPython would
    # switch that pin's IRQ off for good. The guard counts the errors, and once the clock
    # works again the next press is stamped at its edge.
    setup = GPIO_SETUP + "real = cap._ticks\ndef broken():\n    raise ValueError('injected')\ncap._ticks = broken\n"
    edges = [(0, P0_A, 0), (15000, P0_A, 1), (40000, P0_A, 0), (70000, P0_A, 1)]
    r, ticks = scenario(board_repl, setup, edges, 60, middle="cap._ticks = real")
    assert r["triggers"][0] == 12                        # still armed (falling | rising)
    p0 = presses(r, 0, "A")
    assert len(p0) == 1 and 0 <= p0[0] - ticks[2] <= 25, (p0, ticks)
    assert r["errors"] == 2


def test_gpio_capture_rearms_an_irq_that_was_switched_off(board_repl):
    setup = GPIO_SETUP + "cap._pins[2].irq().trigger(0)\nre = cap.check()\nprint('REARMED', re)\n"
    edges = [(0, P1_A, 0), (30000, P1_A, 1)]
    report = report_with("'rearmed': cap.rearmed,")
    r, ticks = scenario(board_repl, setup, edges, 20, report=report)
    assert r["rearmed"] == 1 and r["triggers"][2] == 12
    p1 = presses(r, 1, "A")
    assert len(p1) == 1 and 0 <= p1[0] - ticks[0] <= 25
