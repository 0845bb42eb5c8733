"""Presses in the last milliseconds before the µs clock wraps (2**30 µs, every 17.9
minutes), on the emulated Pico, whose small ints are 31-bit: a stamp plus the lock-out is
2**30 or more there, a heap int, and a hard interrupt handler may not allocate. A press
there must be captured like any other (R19), with no error in the handler."""
import json

import pytest

from desktop_emulator.pico.device import Pico, US
from tests.pico.test_pico_buttons import (GPIO_SETUP, PIO_SETUP, P0_A, P0_B, P1_B,
                                          pio_report, report_with)

pytestmark = pytest.mark.pico

WRAP = 1 << 30
# The board boots this long before its clock wraps: time to boot and start the capture.
BOOT_LEAD_US = 4_000_000
NAMES = {P0_A: (0, "A"), P0_B: (0, "B"), P1_B: (1, "B")}
# Until the clock has wrapped and the last lock-out has ended, then the report.
SLEEP_PAST_WRAP = "time.sleep_ms(((1 << 30) - time.ticks_us()) // 1000 + 40)\n"


@pytest.mark.parametrize("setup,report", [(PIO_SETUP, pio_report()),
                                          (GPIO_SETUP, report_with())], ids=["pio", "gpio"])
def test_r19_presses_in_the_last_milliseconds_before_the_clock_wraps_are_captured(
        pico_firmware, pico_files_no_main, setup, report):
    with Pico(pico_firmware, files=pico_files_no_main, buttons=(2, 3, 14, 15),
              timer_start_us=WRAP - BOOT_LEAD_US) as pico:
        pico.boot()
        pico.enter_raw()
        pico.exec_start(setup + "print('READY')\n" + SLEEP_PAST_WRAP + report, guest_ms=6000)
        pico.read_until(b"READY\r\n", guest_ms=6000, what="the script to start")
        t0 = pico.t_ns
        left = WRAP - pico.ticks_us(t0)
        assert 20_000 < left < BOOT_LEAD_US, "the board took too long to start"
        # Three presses, each held 12 ms (past the 10 ms lock-out, so each release is
        # an event too): P0 A from 14 ms before the wrap, P1 B from 7 ms before it to 5 ms
        # after, P0 B from 1 ms before it.
        edges = [(left - 14_000, P0_A, 0), (left - 2_000, P0_A, 1),
                 (left - 7_000, P1_B, 0), (left + 5_000, P1_B, 1),
                 (left - 1_000, P0_B, 0), (left + 11_000, P0_B, 1)]
        pico.schedule([(t0 + int(dt * US), g, lv) for dt, g, lv in edges])
        first = pico.ticks_us(t0 + int(edges[0][0] * US))
        want = sorted(((pico.ticks_us(t0 + int(dt * US)) - first) % WRAP, NAMES[g], 1 - lv)
                      for dt, g, lv in edges)
        r = json.loads(pico.exec_finish(guest_ms=6000).strip().splitlines()[-1])
    assert r["errors"] == 0, r
    got = sorted(((e[0] - first) % WRAP, (e[1], e[2]), e[3]) for e in r["events"])
    assert [g[1:] for g in got] == [w[1:] for w in want], (got, want)
    for g, w in zip(got, want):
        # The PIO capture stamps the sample's µs (±1); the GPIO capture the moment its
        # handler runs, some µs after the edge.
        assert -1 <= g[0] - w[0] <= 25, (got, want)
