"""The link's start-bit watcher (firmware/hw/link_uart.py LinkEdges) on the host (CPython),
on the fake RP2040 of tests/hw/fake_chip.py: the state machines it claims, its pins, its
interrupt, the ring of stamps its handler fills and frame_starts() empties, stop(), and
UartLink starting and stopping it. Its PIO program runs on the host's PIO model
(tests/hw/test_buttons_pio_plan.py) against a line carrying 8N1 frames. What the real
chip does with it: tests/pico/test_pico_link.py."""
import bisect
import sys

import pytest

from firmware.boards import pico as board
from firmware.hw import link_uart
from firmware.hw.link_uart import LinkEdges, UartLink
from tests.hw.fake_chip import Chip
from tests.hw.test_buttons_pio_plan import PioModel
from tests.hw.test_link_uart import Clock, FakeMachine, FakeMem

TX, RX = board.LINK_TX, board.LINK_RX
IN, PULL_UP = 0, 1
NO_ROOM = "[Errno 12] no room for the program"


def edges_on(chip, **kw):
    return LinkEdges(chip.machine, ticks_us=chip.ticks, **kw)


def claimed(chip):
    return [sm.id for sm in chip.sms]


# ---- which state machines it claims ---------------------------------------------------

@pytest.mark.parametrize("busy1,ids", [(0b0000, (4, 5)), (0b0001, (5, 6)), (0b0101, (5, 7)),
                                       (0b1100, (4, 5)), (0b0011, (6, 7)), (0b1001, (5, 6)),
                                       (0b1010, (4, 6))])
def test_it_claims_two_free_state_machines_of_pio1_first(monkeypatch, busy1, ids):
    chip = Chip(monkeypatch, busy=(0, busy1))
    edges = edges_on(chip)
    assert claimed(chip) == list(ids)
    tx_sm, rx_sm = chip.sms
    assert tx_sm.in_base.gpio == tx_sm.jmp_pin.gpio == TX    # the first watches its own TX
    assert rx_sm.in_base.gpio == rx_sm.jmp_pin.gpio == RX
    assert tx_sm.prog is rx_sm.prog
    assert tx_sm.on and rx_sm.on
    pio = chip.pios[1]
    assert 0 not in chip.pios                                 # PIO0 untouched
    # The handler hears exactly the two relative flags 0 of its own state machines, and
    # runs as a hard interrupt (its stamp is taken at once).
    assert pio.handler is not None and pio.attached == 1
    assert pio.trigger == (0x100 << (ids[0] - 4)) | (0x100 << (ids[1] - 4))
    assert pio.hard is True
    assert edges.dropped == 0 and edges.errors == 0


@pytest.mark.parametrize("mhz", [125, 150])
def test_the_watchers_sample_at_a_fifth_of_the_system_clock(monkeypatch, mhz):
    # 25 MHz at 125 MHz: a sample every 40 ns (the stamp's resolution).
    chip = Chip(monkeypatch, mhz=mhz)
    edges_on(chip)
    assert [sm.freq for sm in chip.sms] == [mhz * 200_000] * 2


@pytest.mark.parametrize("busy1", [0b0111, 0b1011, 0b1101, 0b1110, 0b1111])
def test_a_block_without_two_free_state_machines_is_passed_over(monkeypatch, busy1):
    chip = Chip(monkeypatch, busy=(0b0001, busy1))
    edges_on(chip)
    assert claimed(chip) == [1, 2]
    assert chip.pios[0].trigger == 0x200 | 0x400 and chip.pios[0].hard is True
    assert 1 not in chip.pios or chip.pios[1].handler is None


def test_no_block_with_two_free_state_machines_is_an_oserror_that_says_so(monkeypatch):
    chip = Chip(monkeypatch, busy=(0b1011, 0b0111))
    with pytest.raises(OSError) as e:
        edges_on(chip)
    assert str(e.value) == "no PIO block with two free state machines"
    assert chip.sms == [] and chip.pios == {}


@pytest.mark.parametrize("refused", [{"full_pios": (1,)},
                                     {"claim_errors": {1: ValueError("pin in use")}}])
def test_a_block_that_refuses_its_state_machines_is_passed_over(monkeypatch, refused):
    chip = Chip(monkeypatch, **refused)
    edges_on(chip)
    assert claimed(chip) == [0, 1]
    assert chip.pios[0].handler is not None
    assert 1 not in chip.pios


@pytest.mark.parametrize("kw,why", [
    ({"full_pios": (0, 1)}, "PIO0: " + NO_ROOM),
    ({"claim_errors": {1: OSError(12, "no room"), 0: ValueError("pin in use")}}, "PIO0: pin in use"),
    ({"claim_errors": {0: OSError(5, "dead")}, "busy": (0, 0b0111)}, "PIO0: [Errno 5] dead"),
])
def test_when_no_block_gives_its_state_machines_the_error_names_the_block(monkeypatch, kw, why):
    chip = Chip(monkeypatch, **kw)
    with pytest.raises(OSError) as e:
        edges_on(chip)
    assert str(e.value) == why
    assert chip.pios == {}


@pytest.mark.parametrize("pio_ids,busy,ids,why", [
    ((0,), (0, 0), [0, 1], None),
    ((0, 1), (0, 0), [0, 1], None),
    ((1,), (0, 0b1110), [], "no PIO block with two free state machines"),
    ((1,), (0, 0), [4, 5], None),
])
def test_pio_ids_names_the_blocks_tried_in_order(monkeypatch, pio_ids, busy, ids, why):
    chip = Chip(monkeypatch, busy=busy)
    if why:
        with pytest.raises(OSError, match=why):
            edges_on(chip, pio_ids=pio_ids)
    else:
        edges_on(chip, pio_ids=pio_ids)
    assert claimed(chip) == ids


def test_both_pins_are_inputs_with_pull_ups_before_the_state_machines_take_them(monkeypatch):
    chip = Chip(monkeypatch)
    edges_on(chip, tx=4, rx=5)
    assert chip.pins[:2] == [(4, IN, PULL_UP), (5, IN, PULL_UP)]
    assert [(sm.in_base.gpio, sm.jmp_pin.gpio) for sm in chip.sms] == [(4, 4), (5, 5)]


# ---- the stamps -----------------------------------------------------------------------

class Starts(list):
    """frame_starts()'s out list: a walk of the ring never gives more than it holds (a
    walk that would never end fails at once instead of hanging the test)."""

    def append(self, item):
        assert len(self) < 64, "frame_starts() walked past the ring"
        super().append(item)


def read(edges):
    return list(edges.frame_starts(Starts()))


def started(monkeypatch, **kw):
    chip = Chip(monkeypatch, **kw)
    edges = edges_on(chip)
    tx_sm, rx_sm = chip.sms
    return chip, edges, tx_sm, rx_sm


def start_on(chip, *sms, at):
    """Start bits seen by `sms` (one interrupt for them all) at ticks `at`."""
    chip.now = at
    for sm in sms:
        chip.push(sm, 0)
    return chip.interrupt(sms[0].pio_id)


def test_frame_starts_gives_each_start_with_its_line_oldest_first(monkeypatch):
    chip, edges, tx_sm, rx_sm = started(monkeypatch)
    assert read(edges) == []
    assert start_on(chip, tx_sm, at=1001)
    assert start_on(chip, rx_sm, at=1043)
    assert start_on(chip, rx_sm, tx_sm, at=(1 << 30) - 7)   # both lines in one interrupt
    out = Starts([("earlier", 0)])
    assert edges.frame_starts(out) is out                    # appended to the caller's list
    assert out == [("earlier", 0), (1001, "TX"), (1043, "RX"),
                   ((1 << 30) - 7, "TX"), ((1 << 30) - 7, "RX")]
    assert read(edges) == []                                 # each start once
    start_on(chip, rx_sm, at=1)
    assert edges.frame_starts() == [(1, "RX")]               # a new list without one
    assert tx_sm.rx_fifo() == 0 and rx_sm.rx_fifo() == 0     # every word taken
    assert edges.dropped == 0 and edges.errors == 0


def test_an_interrupt_with_no_word_stamps_nothing(monkeypatch):
    chip, edges, tx_sm, _rx_sm = started(monkeypatch)
    chip.now = 5
    edges._irq(chip.pios[1])
    assert read(edges) == []
    start_on(chip, tx_sm, at=9)
    assert read(edges) == [(9, "TX")]


def test_the_ring_wraps_and_loses_nothing_read_in_time(monkeypatch):
    chip, edges, tx_sm, rx_sm = started(monkeypatch)
    t = 3
    for batch in (20, 25, 31, 7, 31):
        want = []
        for i in range(batch):
            sm = (tx_sm, rx_sm)[i % 3 == 1]
            start_on(chip, sm, at=t)
            want.append((t, "RX" if sm is rx_sm else "TX"))
            t += 11
        assert read(edges) == want
    assert edges.dropped == 0


@pytest.mark.parametrize("first", [0, 1, 13, 31])
def test_a_full_ring_counts_the_starts_it_drops_and_keeps_what_it_holds(monkeypatch, first):
    chip, edges, tx_sm, rx_sm = started(monkeypatch)
    for i in range(first):                  # move the ring's ends round first
        start_on(chip, tx_sm, at=i)
    read(edges)
    want = []
    for i in range(31):                     # the ring holds 31 starts
        start_on(chip, rx_sm, at=100 + i)
        want.append((100 + i, "RX"))
    assert edges.dropped == 0
    start_on(chip, tx_sm, at=500)
    start_on(chip, rx_sm, tx_sm, at=501)
    assert edges.dropped == 3
    assert tx_sm.rx_fifo() == 0 and rx_sm.rx_fifo() == 0    # the words were still taken
    assert read(edges) == want
    start_on(chip, tx_sm, at=600)
    assert read(edges) == [(600, "TX")]
    assert edges.dropped == 3


def test_an_exception_in_the_handler_is_counted_and_the_next_start_is_stamped(monkeypatch):
    chip, edges, tx_sm, rx_sm = started(monkeypatch)
    real_get = tx_sm.get
    fails = [2]

    def get():
        if fails[0]:
            fails[0] -= 1
            raise RuntimeError("bus fault")
        return real_get()
    tx_sm.get = get
    start_on(chip, tx_sm, at=10)            # raised inside the handler, never out of it
    assert edges.errors == 1
    start_on(chip, rx_sm, at=20)
    assert edges.errors == 2                # the TX word still waiting fails again
    start_on(chip, rx_sm, at=30)
    assert edges.errors == 2
    assert chip.pios[1].handler is not None
    assert read(edges) == [(30, "TX"), (30, "RX")]


def test_the_default_clock_is_the_captures_ticks_us(monkeypatch):
    from firmware.hw import capture
    monkeypatch.setattr(capture, "ticks_us", lambda: 777)
    chip = Chip(monkeypatch)
    edges = LinkEdges(chip.machine)
    start_on(chip, chip.sms[1], at=5)
    assert read(edges) == [(777, "RX")]
    assert edges.errors == 0


def test_stop_detaches_the_handler_and_stops_both_state_machines(monkeypatch):
    chip, edges, tx_sm, rx_sm = started(monkeypatch)
    start_on(chip, tx_sm, at=10)
    edges.stop()
    assert chip.pios[1].handler is None and chip.pios[1].trigger == 0
    assert not tx_sm.on and not rx_sm.on
    assert not start_on(chip, rx_sm, at=20)          # nobody hears it any more
    edges.stop()                                     # twice is harmless
    assert not tx_sm.on and not rx_sm.on


# ---- the watcher program on the PIO model ---------------------------------------------

CPU_MHZ = 125


def watcher(monkeypatch):
    """The program LinkEdges loads, and the state machine's cycles per µs."""
    chip = Chip(monkeypatch, mhz=CPU_MHZ)
    edges = edges_on(chip)
    sm = chip.sms[0]
    return sm.prog, sm.freq // 1_000_000, edges


class Line:
    """A line's level over time (in state machine cycles): high, then low/high runs."""

    def __init__(self):
        self.at = [0]
        self.level = [1]

    def set(self, cycle, level):
        assert cycle >= self.at[-1]
        self.at.append(cycle)
        self.level.append(level)

    def __call__(self, cycle):
        return self.level[bisect.bisect_right(self.at, cycle) - 1]


def frames_line(frames, cycles_per_bit):
    """`frames`: (idle µs before it, bytes) in order, 8N1 LSB first -> the line and the
    cycle of each frame's start bit."""
    line = Line()
    t = 0
    starts = []
    per_us = cycles_per_bit            # 1 Mbaud: one bit a µs
    for idle_us, data in frames:
        t += idle_us * per_us
        starts.append(t)
        for byte in data:
            bits = [0] + [byte >> i & 1 for i in range(8)] + [1]
            for b in bits:
                line.set(t, b)
                t += cycles_per_bit
    return line, starts, t


def run(prog, line, until):
    sm = PioModel(prog, jmp_pin=line, pc=prog.wrap_target)
    sm.run_until(until)
    return sm


def high_before(line, cycle):
    """How long the line has been high (idle or the last bits of a frame) at `cycle`."""
    i = bisect.bisect_right(line.at, cycle - 1) - 1
    while i > 0 and line.level[i - 1] == 1:
        i -= 1
    return cycle - line.at[i]


def test_the_watcher_pushes_once_for_each_frame_that_starts_on_a_quiet_line(monkeypatch):
    prog, per_us, edges = watcher(monkeypatch)
    quiet = edges.quiet_us()
    # High runs inside a frame (nine bits of 0xFF between start bits) are far shorter
    # than the quiet line: one push a frame, at its first start bit, 40 ns after it.
    frames = [(30, b"\xff\x00\xff\xff\x55"), (10, b"\x80\xff"), (quiet, b"\x01\xfe\x00"),
              (quiet - 2, b"\xff"), (100, b"\x00"), (quiet - 1, b"\xff\xff\xff\xff"),
              (3, b"\x10")]
    line, starts, end = frames_line(frames, per_us)
    sm = run(prog, line, end + 40 * per_us)
    highs = [high_before(line, s) for s in starts]
    assert highs == [750, 275, 775, 525, 2725, 550, 300]   # µs x 25: the stop bit counts
    want = [s for s, h in zip(starts, highs) if h >= quiet * per_us]
    assert len(want) == 4
    assert [c for c, _w in sm.fifo] == [s + 1 for s in want]
    assert sm.irqs == [("rel", 0)] * len(want)         # the flag the handler listens on


@pytest.mark.parametrize("low_until", range(40, 40 + 2 * 17))
def test_quiet_us_of_idle_line_always_lets_the_start_bit_through_and_a_us_less_never(
        monkeypatch, low_until):
    # The line was low (the last bits of a frame) until `low_until`, any phase of the
    # watcher's 17-cycle idle loop; then high for the idle time, then a start bit.
    prog, per_us, edges = watcher(monkeypatch)
    quiet = edges.quiet_us()
    for idle_us, seen in ((quiet, True), (quiet - 1, False)):
        line = Line()
        line.set(low_until - 40, 0)
        line.set(low_until, 1)
        edge = low_until + idle_us * per_us
        line.set(edge, 0)
        line.set(edge + per_us, 1)
        sm = run(prog, line, edge + 3 * per_us)
        assert [c for c, _w in sm.fifo] == ([edge + 1] if seen else []), idle_us


def test_the_quiet_line_constant_is_the_watchers(monkeypatch):
    _prog, _per_us, edges = watcher(monkeypatch)
    assert link_uart.QUIET_US == edges.quiet_us() == 22


# ---- UartLink with the watcher ----------------------------------------------------------

def link_on(chip, **kw):
    """A UartLink on the fake chip, its UART the stand-in of test_link_uart.py; records
    what the chip had running when the UART was made."""
    fm = FakeMachine()
    clock = Clock()
    seen = {}

    def uart(uart_id, **ukw):
        seen["sms_on"] = [sm.id for sm in chip.sms if sm.on]
        return fm.UART(uart_id, **ukw)
    m = chip.machine
    m.UART = uart
    m.mem32 = fm.mem32 = FakeMem(inner=m.mem32)
    m.disable_irq, m.enable_irq, m.unique_id = fm.disable_irq, fm.enable_irq, fm.unique_id
    link = UartLink(m, ticks_us=clock.ticks_us, ticks_diff=clock.ticks_diff, **kw)
    return link, fm.uarts[0], seen


def test_stamp_edges_starts_the_watcher_before_the_uart(monkeypatch):
    chip = Chip(monkeypatch)
    link, u, seen = link_on(chip, stamp_edges=True)
    assert isinstance(link.edges, LinkEdges) and link.edges_why == ""
    assert seen["sms_on"] == [4, 5]
    assert [sm.in_base.gpio for sm in chip.sms] == [TX, RX]
    assert u.kw["tx"].gpio == TX and u.kw["rx"].gpio == RX
    assert link.write(b"hi") == 2


@pytest.mark.parametrize("kw,why", [
    ({"busy": (0b1111, 0b1111)}, "no PIO block with two free state machines"),
    ({"claim_errors": {0: ValueError("pin in use"), 1: ValueError("x")}}, "PIO0: pin in use"),
    ({"full_pios": (0, 1)}, "PIO0: " + NO_ROOM),
])
def test_without_free_state_machines_the_link_runs_without_stamps_and_says_why(monkeypatch, kw, why):
    chip = Chip(monkeypatch, **kw)
    link, u, _seen = link_on(chip, stamp_edges=True)
    assert link.edges is None and link.edges_why == why
    assert link.write(b"still") == 5 and bytes(u.sent) == b"still"


def test_deinit_stops_the_watcher_and_the_uart(monkeypatch):
    chip = Chip(monkeypatch)
    link, u, _seen = link_on(chip, stamp_edges=True)
    deinits = []
    u.deinit = lambda: deinits.append(1)
    link.deinit()
    assert deinits == [1]
    assert chip.pios[1].handler is None
    assert not any(sm.on for sm in chip.sms)


def test_a_value_error_starting_the_watcher_leaves_the_link_without_stamps(monkeypatch):
    # The rp2 port refuses arguments with ValueError; here the PIO refuses the handler.
    chip = Chip(monkeypatch)
    rp2 = sys.modules["rp2"]                        # the fake chip's

    def refuse(self, *a, **kw):
        raise ValueError("IRQ in use")
    monkeypatch.setattr(rp2.PIO, "irq", refuse)
    link, u, _seen = link_on(chip, stamp_edges=True)
    assert link.edges is None and link.edges_why == "IRQ in use"
    assert not any(sm.on for sm in chip.sms)          # nothing left running
    assert link.write(b"ok") == 2
