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

pytestmark = pytest.mark.pico

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

def test_r19_gpio_capture_stamps_the_first_edge_even_when_the_read_sees_it_open(board_repl):
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


# ---- the PIO capture -----------------------------------------------------------------

PIO_SETUP = """\
import machine, time, json
from firmware.boards import pico as board
from firmware.hw.buttons import start_capture
cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)
assert cap.kind == 'pio', cap.why
cap.drain()
"""

PIO_REPORT = """\
import sys
evs = cap.drain()
print(json.dumps({'events': [[e[0], e[1], e[2], 1 if e[3] else 0] for e in evs],
                  'programs_module': 'firmware.hw.pio_programs' in sys.modules,
                  'errors': cap.errors, 'dropped': cap.dropped, 'lost': cap.lost_words,
                  'fifo': cap.fifo_overflows, 'bounces': list(cap.bounces),
                  'presses': list(cap.presses), 'rearmed': cap.rearmed EXTRA}))
"""


def pio_report(extra=""):
    return PIO_REPORT.replace("EXTRA", extra)


def exact_ticks(pico, t0, dt):
    """The board's time in µs (a float) of an edge dt µs after t0 (guest ns): what a
    perfect capture would stamp, rounded down."""
    ns = t0 + int(dt * US)
    return (pico.timer_start_us * 1000 + ns - pico.boot_ns) / 1000.0


def scenario_exact(pico, setup, edges, run_ms, report, middle=""):
    """scenario(), also returning each edge's exact board time in µs (a float)."""
    report_code = report
    pico.enter_raw()
    half = run_ms // 2
    pico.exec_start(setup + "print('READY')\ntime.sleep_ms(%d)\n%s\ntime.sleep_ms(%d)\n%s"
                    % (half, middle, run_ms - half, report_code))
    pico.read_until(b"READY\r\n", what="the script to start")
    t0 = pico.t_ns + LEAD_NS
    pico.schedule([(t0 + int(dt * US), g, lv) for dt, g, lv in edges])
    exact = [exact_ticks(pico, t0, dt) for dt, _g, _lv in edges]
    out = pico.exec_finish(guest_ms=run_ms + 2000)
    return json.loads(out.strip().splitlines()[-1]), exact


def test_start_capture_gives_the_pio_capture_and_stamps_the_sample_time(board_repl):
    # Presses at odd fractions of a µs: each stamp is the µs the edge fell in (±1 for
    # the sample period, the 2-cycle synchroniser allowance and calibration).
    edges = []
    for k, g in enumerate((P0_A, P0_B, P1_A, P1_B) * 3):
        dt = 15000 * k + 0.137 * k
        edges += [(dt, g, 0), (dt + 12000, g, 1)]
    r, exact = scenario_exact(board_repl, PIO_SETUP, edges, 200, pio_report())
    downs = [e for e in r["events"] if e[3]]
    assert len(downs) == 12 and r["dropped"] == 0 and r["errors"] == 0
    assert r["programs_module"] is False    # firmware.hw.pio_programs: only to start
    for e, x in zip(downs, exact[0::2]):
        assert -1 <= e[0] - int(x) <= 1, (e, x)
    ups = [e for e in r["events"] if not e[3]]
    for e, x in zip(ups, exact[1::2]):
        assert -1 <= e[0] - int(x) <= 1, (e, x)


def test_r19_pio_capture_orders_presses_a_third_of_a_microsecond_apart(board_repl):
    # Different samples (136 ns each) are never a tie, even inside one µs; the same
    # sample is (R21).
    edges = []
    for k in range(6):                  # (a release's lock-out ends 10 ms before the next)
        first, second = (P0_B, P1_B) if k % 2 == 0 else (P1_B, P0_B)
        dt = 30000 * k
        edges += [(dt, first, 0), (dt + 0.3, second, 0), (dt + 10000, first, 1),
                  (dt + 10000, second, 1)]
    edges += [(200000, P0_A, 0), (200000, P1_A, 0), (215000, P0_A, 1), (215000, P1_A, 1)]
    r, _exact = scenario_exact(board_repl, PIO_SETUP, edges, 280, pio_report())
    b0, b1 = presses(r, 0, "B"), presses(r, 1, "B")
    assert len(b0) == 6 and len(b1) == 6
    for k in range(6):
        if k % 2 == 0:
            assert b0[k] < b1[k], (k, b0, b1)
        else:
            assert b1[k] < b0[k], (k, b0, b1)
    assert presses(r, 0, "A") == presses(r, 1, "A")      # one sample: a tie


def test_r18_pio_capture_gives_the_win_to_a_bouncing_first_touch(board_repl):
    edges = [(0, P0_A, 0), (3, P0_A, 1), (60, P0_A, 0), (30, P1_A, 0),
             (30000, P0_A, 1), (30000, P1_A, 1)]
    r, exact = scenario_exact(board_repl, PIO_SETUP, edges, 60, pio_report())
    p0, p1 = presses(r, 0, "A"), presses(r, 1, "A")
    assert len(p0) == 1 and len(p1) == 1
    assert -1 <= p0[0] - int(exact[0]) <= 1 and p0[0] < p1[0]
    assert r["bounces"][0] == 2


def test_r19_pio_capture_is_exact_through_interrupts_off_and_a_bounce_storm(board_repl):
    # A 20 ms window with interrupts off (as a flash erase): presses inside it keep their
    # stamps; a 50-edge bounce storm on one button is one press and 49 bounces, with a
    # clean press of another button in the middle of it; nothing is lost.
    setup = PIO_SETUP + "time.sleep_ms(5)\n"
    middle = ("s = machine.disable_irq()\nt = time.ticks_us()\n"
              "while time.ticks_diff(time.ticks_us(), t) < 20000:\n    pass\n"
              "machine.enable_irq(s)\n")
    storm = [(20000 + 20 * k, P1_B, k % 2) for k in range(50)]   # ends released
    edges = [(52000.4, P0_A, 0), (52000.9, P1_A, 0), (60000, P0_A, 1), (60000, P1_A, 1)]
    edges += [(20000, P1_B, 0)] + storm[1:] + [(20501.3, P0_B, 0), (35000, P0_B, 1)]
    r, exact = scenario_exact(board_repl, setup, edges, 100, pio_report(), middle=middle)
    a0, a1 = presses(r, 0, "A"), presses(r, 1, "A")
    assert len(a0) == 1 and len(a1) == 1 and a0[0] < a1[0]
    assert -1 <= a0[0] - int(exact[0]) <= 1 and -1 <= a1[0] - int(exact[1]) <= 1
    assert presses(r, 1, "B") and len(presses(r, 1, "B")) == 1
    assert r["bounces"][3] == 49                         # 50 edges: a press and 49 bounces
    b0 = presses(r, 0, "B")
    assert len(b0) == 1 and -1 <= b0[0] - int(exact[-2]) <= 1
    assert r["dropped"] == 0 and r["lost"] == 0 and r["fifo"] == 0


def test_pio_capture_counts_a_ring_that_overflowed(board_repl):
    setup = PIO_SETUP.replace("cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)",
                              "from firmware.hw.buttons_pio import PioCapture\n"
                              "cap = PioCapture(board.BUTTONS, 1000, ring_words=8).start(machine)")
    middle = ("s = machine.disable_irq()\nt = time.ticks_us()\n"
              "while time.ticks_diff(time.ticks_us(), t) < 20000:\n    pass\n"
              "machine.enable_irq(s)\n")
    # Six changes (12 words) in a ring of 8 while interrupts are off; then a clean press.
    edges = [(50000 + 2000 * k, P0_A, k % 2) for k in range(6)]
    edges += [(80000, P1_A, 0), (83000, P1_A, 1)]
    r, _exact = scenario_exact(board_repl, setup, edges, 100, pio_report(), middle=middle)
    assert r["lost"] == 4 and r["dropped"] == 2, r
    assert len(presses(r, 1, "A")) == 1                 # and it carries on


def test_pio_capture_counts_a_full_fifo(board_repl):
    # The ring's DMA channel stopped: the 8-word FIFO fills and the PIO drops words.
    setup = PIO_SETUP + "cap._dmas[0].active(0)\n"
    edges = [(1000 + 2000 * k, P0_A, k % 2) for k in range(8)]
    r, _exact = scenario_exact(board_repl, setup, edges, 40, pio_report())
    assert r["fifo"] >= 1 and r["dropped"] >= 1


def test_pio_capture_rearms_its_interrupt(board_repl):
    setup = PIO_SETUP + ("import rp2\nrp2.PIO(cap._pio_id).irq().trigger(0)\n"
                         "print('REARMED', cap.check())\n")
    report = ("evs = cap.drain(poll=False)\n"
              "print(json.dumps({'events': [list(e) for e in evs], 'rearmed': cap.rearmed}))\n")
    edges = [(0, P1_A, 0), (30000, P1_A, 1)]
    r, exact = scenario_exact(board_repl, setup, edges, 20, report)
    assert r["rearmed"] == 1
    assert [e[0] for e in r["events"] if e[1] == 1 and e[3]] == [int(exact[0])] or \
        abs(r["events"][0][0] - int(exact[0])) <= 1


FALLBACKS = """\
import machine, json, rp2
from firmware.boards import pico as board
from firmware.hw.buttons import start_capture
from firmware.hw.buttons_pio import PioCapture, CaptureUnavailable
out = {}
try:
    PioCapture(board.BUTTONS, board.DEBOUNCE_US, cycles_per_us=130).start(machine)
except CaptureUnavailable as e:
    out['calibration'] = str(e)
cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)
out['after'] = cap.kind
cap.stop()
odd = ((0, 0, 'A'), (2, 0, 'B'), (6, 1, 'A'), (8, 1, 'B'), (10, 0, 'L'), (12, 1, 'L'))
cap = start_capture(odd, board.DEBOUNCE_US, machine)
out['runs'] = [cap.kind, cap.why]
cap.stop()
held = []
while True:
    try:
        held.append(rp2.DMA())
    except Exception:
        break
cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)
out['no_dma'] = [cap.kind, cap.why, len(held)]
cap.stop()
for d in held:
    d.close()
@rp2.asm_pio()
def idle():
    label('h')
    jmp('h')
busy = [rp2.StateMachine(i, idle) for i in range(8)]
for sm in busy:
    sm.active(1)
cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)
out['no_sm'] = [cap.kind, cap.why]
cap.stop()
print(json.dumps(out))
"""


def test_start_capture_falls_back_to_the_gpio_irq_and_says_why(board_repl):
    board_repl.enter_raw()
    out = board_repl.exec(FALLBACKS, guest_ms=5000)
    r = json.loads(out.strip().splitlines()[-1])
    assert "calibration failed" in r["calibration"]
    assert r["after"] == "pio", r                         # the failed start freed everything
    assert r["runs"][0] == "gpio" and "6 runs" in r["runs"][1]
    assert r["no_dma"][0] == "gpio" and r["no_dma"][2] == 12, r
    assert r["no_sm"] == ["gpio", "no PIO block with two free state machines"]


BUSY_SETUP = """\
import machine, time, json, rp2
from firmware.boards import pico as board
from firmware.hw.buttons import start_capture
@rp2.asm_pio()
def idle():
    label('h')
    jmp('h')
busy = [rp2.StateMachine(i, idle) for i in (0, 4, 5, 6)]
for sm in busy:
    sm.active(1)
cap = start_capture(board.BUTTONS, board.DEBOUNCE_US, machine)
claimed = [cap.kind, cap.why, cap._pio_id, cap._sm_index, cap._cal_index]
cap.drain()
"""


def test_pio_capture_takes_the_state_machines_another_program_left_free(board_repl):
    # PIO0's state machine 0 and three of PIO1's run another program: the capture takes
    # PIO0's next two (1 and 2), not a fallback, and stamps as well there.
    edges = [(0, P1_B, 0), (15000, P1_B, 1)]
    r, exact = scenario_exact(board_repl, BUSY_SETUP, edges, 40,
                              pio_report(", 'claimed': claimed"))
    assert r["claimed"] == ["pio", "", 0, 1, 2]
    assert [(e[1], e[2], e[3]) for e in r["events"]] == [(1, "B", 1), (1, "B", 0)]
    assert -1 <= r["events"][0][0] - int(exact[0]) <= 1


# ---- the self-test's timing check -----------------------------------------------------

def test_the_self_test_times_the_capture_against_a_jumpered_pin(pico_firmware, pico_files):
    # A board with the jumper GP22 -> GP2 (player 0's A), booted with player 0's B held:
    # the self-test pulls GP22 low 12 times and finds every stamp inside the window of
    # ticks around the register write; it says so on the bottom line.
    from desktop_emulator import framebuf
    from firmware.view import View, text_width
    with Pico(pico_firmware, files=pico_files, buttons=BUTTONS,
              jumpers=[(board.SELFTEST_OUT, board.SELFTEST_IN)]) as pico:
        pico.levels[P0_B] = 0
        pico.boot()
        pico.run_for(300_000)
        pico.set_pin(P0_B, 1)
        pico.run_for(5_500_000)
        ram = bytes(pico.oled.ram)
        pico.interrupt()
        pico.enter_raw(soft_reset=False)
        seen, inside, widest, late = pico.eval_json(
            "list(__import__('firmware.selftest').selftest.current.timing())")
        assert (seen, inside, late) == (12, 12, 0) and 0 <= widest <= 10
        text = "TIME OK <=%dUS" % widest
        expected = bytearray(1024)
        View(framebuf.FrameBuffer(expected, 128, 64, framebuf.MONO_VLSB)).text(
            text, 127 - text_width(text), 58, 1, 0)
        right = 128 - text_width(text) - 1
        assert ram[896 + right:] == bytes(expected[896 + right:])
