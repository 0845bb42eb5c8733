"""The emulated chip's PIO, as the harness clocks it (rp2040js alone runs it from a
JavaScript timer, ignores delay cycles and has no FIFO joining): state machines run one
instruction per system clock cycle of guest time, delays included, also while the core
sleeps; FIFOs join and clear as on the chip; a DMA channel is paced by a state
machine's DREQ. And the harness's fast-forward of idle loops changes nothing."""
import json

import pytest

from desktop_emulator.pico.device import Pico

pytestmark = pytest.mark.pico

BUTTONS = (2, 3, 14, 15)


def run(pico, code, guest_ms=3000):
    pico.enter_raw()                                   # a soft reset: PIO and DMA freed
    out = pico.exec(code, guest_ms=guest_ms)
    return json.loads(out.strip().splitlines()[-1])


COUNTDOWN = """\
import rp2, time, json
@rp2.asm_pio()
def countdown():
    pull(block)
    mov(x, osr)
    label('loop')
    jmp(x_dec, 'loop')[31]
    irq(rel(0))
    push(noblock)
"""


def test_a_state_machine_takes_one_cycle_per_instruction_plus_its_delays(board_repl):
    # (N + 1) passes of a 32-cycle jmp: 1,250,000 cycles = 10 ms at 125 MHz, timed by
    # the CPU spinning on the RX FIFO.
    r = run(board_repl, COUNTDOWN + """\
sm = rp2.StateMachine(0, countdown)
sm.active(1)
t0 = time.ticks_us()
sm.put(39061)
while sm.rx_fifo() == 0:
    pass
print(json.dumps({'us': time.ticks_diff(time.ticks_us(), t0)}))
""")
    assert 10000 <= r["us"] <= 10200


def test_it_runs_while_the_core_sleeps_and_its_interrupt_wakes_the_core(board_repl):
    r = run(board_repl, COUNTDOWN + """\
import array
got = array.array('i', [0])
def woke(pio):
    got[0] = time.ticks_us()
rp2.PIO(0).irq(woke, trigger=rp2.PIO.IRQ_SM0, hard=True)
sm = rp2.StateMachine(0, countdown)
sm.active(1)
t0 = time.ticks_us()
sm.put(39061)
time.sleep_ms(40)
print(json.dumps({'us': time.ticks_diff(got[0], t0)}))
""")
    assert 10000 <= r["us"] <= 10080


def test_joined_fifos_hold_eight_and_a_join_change_empties_them(board_repl):
    r = run(board_repl, """\
import rp2, time, json, machine
@rp2.asm_pio(fifo_join=rp2.PIO.JOIN_RX)
def twelve():
    set(x, 11)
    label('l')
    mov(isr, x)
    push(noblock)
    jmp(x_dec, 'l')
    label('h')
    jmp('h')
sm = rp2.StateMachine(0, twelve)
sm.active(1)
time.sleep_ms(1)
n = sm.rx_fifo()
stalled = machine.mem32[0x50200008] & 1          # FDEBUG.RXSTALL: pushes were dropped
got = [sm.get() for _ in range(4)]
left = sm.rx_fifo()
machine.mem32[0x502010d0] = 1 << 31              # SHIFTCTRL (XOR alias): FJOIN_RX off
after = sm.rx_fifo()
sm.put(7)
print(json.dumps({'n': n, 'stalled': stalled, 'got': got, 'left': left, 'after': after,
                  'tx': (machine.mem32[0x5020000c] >> 0) & 0xf}))
""")
    assert r["n"] == 8 and r["stalled"] == 1
    assert r["got"] == [11, 10, 9, 8] and r["left"] == 4
    assert r["after"] == 0                             # the FIFOs were cleared by the change
    assert r["tx"] == 1                                # and the TX FIFO is there again


def test_a_dma_channel_paced_by_the_rx_dreq_takes_each_word_once(board_repl):
    r = run(board_repl, """\
import rp2, time, json, array
@rp2.asm_pio()
def ticker():
    label('l')
    mov(isr, x)
    push(noblock)[31]
    jmp(x_dec, 'l')[31]
sm = rp2.StateMachine(0, ticker)
sm.exec(0xE034)                                  # set x, 20
buf = array.array('i', [-1] * 16)
d = rp2.DMA()
d.config(read=0x50200020, write=buf, count=16,
         ctrl=d.pack_ctrl(size=2, inc_read=False, inc_write=True, treq_sel=4), trigger=True)
sm.active(1)
time.sleep_ms(2)
print(json.dumps({'buf': list(buf), 'left': d.count}))
""")
    assert r["buf"] == list(range(20, 4, -1))
    assert r["left"] == 0


SAMPLER = """\
import machine, time, json
from firmware.boards import pico as board
from firmware.hw.buttons_pio import PioCapture
cap = PioCapture(board.BUTTONS, board.DEBOUNCE_US).start(machine)
cap.drain()
print('READY')
time.sleep_ms(60)
s = machine.disable_irq()
t = time.ticks_us()
while time.ticks_diff(time.ticks_us(), t) < 20000:
    pass
machine.enable_irq(s)
time.sleep_ms(60)
evs = cap.drain()
print(json.dumps({'events': [list(e) for e in evs], 'now': time.ticks_us(),
                  'a': [cap._a_loop, cap._a_t, cap._a_f]}))
"""


def run_with_edges(pico_firmware, files, fast_forward, code, edges_after):
    """Run `code` (it prints READY, then its result last) at the raw REPL, with or
    without the harness's fast-forward; edges_after(t_ns): the pin edges to make once
    it is ready. -> (its last line, guest time at the end)."""
    with Pico(pico_firmware, files=files, buttons=BUTTONS) as pico:
        pico.configure(pio_fast_forward=fast_forward)
        pico.boot_to_raw()
        pico.exec_start(code)
        pico.read_until(b"READY\r\n")
        pico.schedule(edges_after(pico.t_ns))
        out = pico.exec_finish(guest_ms=3000)
        return out.strip().splitlines()[-1], pico.t_ns


def sampler_edges(now):
    t0 = now + 2_000_000
    edges = []
    for g, dt in [(2, 0), (14, 300), (3, 13_001), (15, 13_000.7),
                  (2, 62_000), (14, 62_000.25), (3, 75_000)]:
        at = t0 + int(dt * 1000)
        edges += [(at, g, 0), (at + 12_000_000, g, 1)]
    return edges


def sampler_run(pico_firmware, pico_files_no_main, fast_forward):
    return run_with_edges(pico_firmware, pico_files_no_main, fast_forward, SAMPLER,
                          sampler_edges)


def test_fast_forwarding_idle_pio_loops_changes_nothing(pico_firmware, pico_files_no_main):
    # The button sampler, edges at odd nanoseconds (some inside a 20 ms interrupts-off
    # window): word for word the same events, stamps and guest time either way.
    fast = sampler_run(pico_firmware, pico_files_no_main, True)
    slow = sampler_run(pico_firmware, pico_files_no_main, False)
    assert len(json.loads(fast[0])["events"]) == 14
    assert fast == slow


EDGE_WATCHER = """\
import rp2, machine, time, json
from array import array
@rp2.asm_pio()
def watcher():
    wrap_target()
    wait(1, pin, 0)
    label('armed')
    jmp(pin, 'armed')
    push(noblock)
    irq(rel(0))
    wrap()
stamps = array('i', [0] * 32)
n = array('i', [0])
def stamp(_pio):
    if n[0] < 32:
        stamps[n[0]] = time.ticks_us()
        n[0] += 1
pin = machine.Pin(16, machine.Pin.IN, machine.Pin.PULL_UP)
sm = rp2.StateMachine(4, watcher, freq=1_234_567, in_base=pin, jmp_pin=pin)
rp2.PIO(1).irq(stamp, trigger=0x100, hard=True)
sm.active(1)
print('READY')
time.sleep_ms(40)
sm.active(0)
print(json.dumps({'stamps': list(stamps[:n[0]]), 'fifo': sm.rx_fifo(), 'now': time.ticks_us()}))
"""


def watcher_edges(now):
    t0 = now + 1_000_000
    edges = [(now, 16, 1)]                     # the line idles high (the pull-up)
    for k in range(20):
        # Falling edges 1,013.7 µs + k x 37 ns apart (the watcher's clock is 810 ns a
        # step, its divider 101.25), low for 3 µs: each lands at another phase.
        at = t0 + k * (1_013_700 + 37 * k)
        edges += [(at, 16, 0), (at + 3_000, 16, 1)]
    return edges


def edge_watcher_run(pico_firmware, pico_files_no_main, fast_forward):
    return run_with_edges(pico_firmware, pico_files_no_main, fast_forward, EDGE_WATCHER,
                          watcher_edges)


def test_fast_forwarding_a_divided_machine_waiting_on_a_pin_changes_nothing(
        pico_firmware, pico_files_no_main):
    # A `jmp pin, self` loop on a slow fractional clock (the link's start-bit watchers'
    # kind): skipped while the pin stays high, its divider's phase carried across. Stamp
    # for stamp and in guest time the same as stepping every cycle.
    fast = edge_watcher_run(pico_firmware, pico_files_no_main, True)
    slow = edge_watcher_run(pico_firmware, pico_files_no_main, False)
    got = json.loads(fast[0])
    assert len(got["stamps"]) == 20 and got["fifo"] == 4       # noblock: the FIFO full
    gaps = [b - a for a, b in zip(got["stamps"], got["stamps"][1:])]
    assert all(1010 <= g <= 1017 for g in gaps), gaps
    assert fast == slow
