"""The link cable's transport (firmware/hw/link_uart.py) against a stand-in UART: the
port contract (write never blocks and never splits a frame, readinto returns 0 when
nothing came), its bookkeeping of the line, and bad settings refused with one line.
The real UART and the PIO start-bit watcher run in tests/pico/test_pico_link.py."""
import pytest

from firmware.hw import link_uart
from firmware.hw.link_uart import UartLink, TX_BUF


UART0_CR = 0x40034000 + 0x30          # RP2040 UART0's UARTCR
TXE = 0x100


class FakeMem:
    """machine.mem32 as far as the link uses it: UART0's control register, whose TXE
    bit, set and cleared through the atomic aliases (+0x2000, +0x3000), holds the
    transmitter. Any other address goes to `inner` (a fake chip's registers), else is
    refused."""

    def __init__(self, cr=UART0_CR, inner=None):
        self.cr = cr
        self.txe = True
        self.inner = inner
        self.log = []

    def __getitem__(self, addr):
        assert self.inner is not None, "the link read 0x%x" % addr
        return self.inner[addr]

    def __setitem__(self, addr, value):
        if addr in (self.cr + 0x2000, self.cr + 0x3000):
            assert value == TXE, "only TXE is touched"
            self.txe = addr == self.cr + 0x2000
            self.log.append(self.txe)
        else:
            assert self.inner is not None, "the link wrote 0x%x" % addr
            self.inner[addr] = value


class FakeUart:
    def __init__(self, uart_id, **kw):
        self.uart_id = uart_id
        self.kw = kw
        self.sent = bytearray()
        self.writes = []                # ("held" or "irq_off", frame), in order
        self.incoming = bytearray()
        self.read_calls = []

    def write(self, buf):
        mem = getattr(self.machine, "mem32", None)
        held = mem is not None and not mem.txe
        assert held or self.machine.irq_off == 1, \
            "a frame goes into the UART with the transmitter held or interrupts off"
        self.sent += buf
        self.writes.append(("held" if held else "irq_off", bytes(buf)))
        return len(buf)

    def any(self):
        return len(self.incoming)

    def readinto(self, buf, n=None):
        n = len(buf) if n is None else n
        self.read_calls.append(n)
        if n > len(self.incoming):
            raise AssertionError("asked for more than has arrived: a real UART would wait")
        buf[:n] = self.incoming[:n]
        del self.incoming[:n]
        return n

    def deinit(self):
        pass


class FakeMachine:
    class Pin:
        IN = 0
        PULL_UP = 1

        def __init__(self, n, *a):
            self.n = n

    def __init__(self, mem=True):
        self.uarts = []
        self.irq_off = 0
        if mem:
            self.mem32 = FakeMem()
        self.pins = []                  # (gpio, *mode and pull) of each Pin made, in order
        machine = self

        class Pin(FakeMachine.Pin):
            def __init__(self, n, *a):
                super().__init__(n, *a)
                machine.pins.append((n,) + a)
        self.Pin = Pin

    def UART(self, uart_id, **kw):
        u = FakeUart(uart_id, **kw)
        u.machine = self
        self.uarts.append(u)
        return u

    def disable_irq(self):
        self.irq_off += 1
        return 7

    def enable_irq(self, state):
        assert state == 7
        self.irq_off -= 1

    def unique_id(self):
        return b"\x01\x02\x03\x04\x05\x06\x07\x08"


class Clock:
    def __init__(self):
        self.t = 1000

    def ticks_us(self):
        return self.t

    @staticmethod
    def ticks_diff(a, b):
        d = (a - b) & 0x3FFFFFFF
        return d - 0x40000000 if d >= 0x20000000 else d


def make(baud=link_uart.LINK_BAUD, mem=True):
    m = FakeMachine(mem)
    c = Clock()
    link = UartLink(m, baud=baud, ticks_us=c.ticks_us, ticks_diff=c.ticks_diff)
    return link, m.uarts[0], c


def test_it_opens_uart0_on_gp0_gp1_at_one_megabaud_and_never_waits():
    link, u, _c = make()
    assert u.kw["baudrate"] == 1_000_000
    assert u.kw["tx"].n == 0 and u.kw["rx"].n == 1
    assert u.kw["timeout"] == 0 and u.kw["timeout_char"] == 0
    assert link.byte_us == 10
    assert link.uid == b"\x01\x02\x03\x04\x05\x06\x07\x08"


def test_readinto_is_zero_when_nothing_came_and_asks_only_for_what_did():
    link, u, _c = make()
    buf = bytearray(8)
    assert link.readinto(buf) == 0
    assert u.read_calls == []
    u.incoming += b"abcdefghijk"
    assert link.readinto(buf) == 8 and bytes(buf) == b"abcdefgh"
    assert link.readinto(buf) == 3 and bytes(buf[:3]) == b"ijk"
    assert u.read_calls == [8, 3]
    assert link.bytes_rx == 11


def test_write_queues_whole_frames_and_drops_a_frame_whole_when_the_buffer_is_full():
    link, u, c = make()
    assert link.write(b"x" * 600) == 600
    assert link.backlog_us() == 6000
    # 600 bytes still queued: 500 more do not fit in the 1024-byte buffer
    assert link.write(b"y" * 500) == 0
    assert link.dropped_tx == 1
    assert bytes(u.sent) == b"x" * 600                   # nothing of the dropped frame
    c.t += 3000                                          # 300 bytes have left
    assert link.backlog_us() == 3000
    assert link.write(b"z" * 500) == 500
    assert link.backlog_us() == 8000
    c.t += 100000
    assert link.backlog_us() == 0
    assert link._irq_off.__self__.irq_off == 0          # and back on after each
    assert link.write(b"w" * TX_BUF) == TX_BUF
    assert link.write(b"v" * (TX_BUF + 1)) == 0          # never fits
    assert link.dropped_tx == 2


def test_the_backlog_survives_the_clock_wrapping():
    link, _u, c = make()
    c.t = 0x3FFFFFFF - 50
    link._busy_until = c.t
    link.write(b"a" * 20)
    assert link.backlog_us() == 200
    c.t = (c.t + 100) & 0x3FFFFFFF
    assert link.backlog_us() == 100


@pytest.mark.parametrize("baud", [0, 300, 10_000_000])
def test_a_baud_rate_out_of_range_is_refused_in_one_line(baud):
    with pytest.raises(ValueError) as e:
        make(baud)
    assert str(e.value) == "baud out of range: %d" % baud


def test_without_a_pio_the_edge_stamps_are_off_and_say_why():
    m = FakeMachine()
    c = Clock()
    link = UartLink(m, ticks_us=c.ticks_us, ticks_diff=c.ticks_diff, stamp_edges=True)
    assert link.edges is None
    assert link.edges_why == "no PIO on this board (no rp2 module)"
    assert link.write(b"still works") == 11


def test_the_uart_is_8n1_with_its_buffers_and_the_rx_pin_pulled_up_first():
    link, u, _c = make()
    assert u.uart_id == 0
    assert (u.kw["bits"], u.kw["parity"], u.kw["stop"]) == (8, None, 1)
    assert u.kw["txbuf"] == 1024 and u.kw["rxbuf"] == 2048
    m = u.machine
    # An unplugged cable idles high, not floating, before the UART takes the pin.
    assert m.pins[0] == (1, FakeMachine.Pin.IN, FakeMachine.Pin.PULL_UP)
    assert link.edges is None and link.edges_why == ""          # no stamps unless asked


@pytest.mark.parametrize("baud", [1200, 3_000_000])
def test_the_baud_rates_at_the_ends_of_the_range_are_taken(baud):
    link, u, _c = make(baud)
    assert link.baud == baud and u.kw["baudrate"] == baud


@pytest.mark.parametrize("baud", [1199, 3_000_001])
def test_just_outside_the_range_is_refused(baud):
    with pytest.raises(ValueError, match="baud out of range: %d" % baud):
        make(baud)


def test_the_byte_time_is_ten_bits_rounded_up_to_a_whole_us_at_every_baud_rate():
    # Rounded up, never down: a byte time too short would let write() overfill the
    # TX buffer. Every rate to 20,000 baud (where the remainders vary most), then a
    # stride through the rest.
    for baud in list(range(1200, 20001)) + list(range(20001, 3_000_001, 997)) + [3_000_000]:
        link = UartLink(FakeMachine(), baud=baud, ticks_us=int, ticks_diff=Clock.ticks_diff)
        assert link.byte_us == -(-10_000_000 // baud), baud


class NoIdMachine:
    """A port whose machine module has no unique_id()."""

    def __init__(self):
        self._m = FakeMachine()

    def __getattr__(self, name):
        if name == "unique_id":
            raise AttributeError(name)
        return getattr(self._m, name)


class BadIdMachine(FakeMachine):
    def unique_id(self):
        raise OSError(19, "no id")


@pytest.mark.parametrize("machine_class", [NoIdMachine, BadIdMachine])
def test_a_board_without_a_unique_id_has_an_empty_uid(machine_class):
    m = machine_class()
    c = Clock()
    link = UartLink(m, ticks_us=c.ticks_us, ticks_diff=c.ticks_diff)
    assert link.uid == b""
    assert link.write(b"ok") == 2


def test_the_counters_start_at_zero_and_count_bytes_written_and_frames_dropped():
    link, u, c = make()
    c.t = 12345
    assert (link.wrote_at, link.bytes_tx, link.bytes_rx, link.dropped_tx) == (0, 0, 0, 0)
    assert link.write(b"abc") == 3
    assert link.wrote_at == 12345           # read just before the frame went in
    c.t = 12350                              # two bytes still queued
    assert link.write(b"x" * (TX_BUF - 1)) == 0    # dropped: not counted, not stamped
    assert (link.wrote_at, link.bytes_tx, link.dropped_tx) == (12345, 3, 1)
    c.t = 20001
    assert link.write(b"de") == 2
    assert (link.wrote_at, link.bytes_tx) == (20001, 5)


def test_a_write_on_an_idle_line_is_timed_from_now_and_the_backlog_counts_to_its_last_us():
    link, _u, c = make()
    c.t = 5001
    assert link.write(b"a" * 3) == 3
    c.t += 29
    assert link.backlog_us() == 1
    assert link.write(b"b") == 1             # queued behind the last µs of the first
    assert link.backlog_us() == 11
    c.t += 10_000
    assert link.backlog_us() == 0
    assert link.write(b"c" * 7) == 7         # idle again: from now, not from the past
    assert link.backlog_us() == 70
    c.t += 69
    assert link.backlog_us() == 1


def test_a_frame_that_just_fits_behind_the_bytes_still_queued_is_taken():
    # The byte on the wire has left the buffer: a backlog of 300.5 bytes holds 300.
    link, u, c = make()
    c.t = 7777
    assert link.write(b"q" * 400) == 400
    c.t += 995                               # 3005 µs left: 300 bytes and a half
    assert link.write(b"r" * (TX_BUF - 299)) == 0
    assert link.write(b"r" * (TX_BUF - 300)) == TX_BUF - 300
    assert link.dropped_tx == 1
    c.t = 100
    link2, _u2, _c2 = make()
    assert link2.write(b"s" * 301) == 301
    assert link2.write(b"t" * (TX_BUF - 301)) == TX_BUF - 301   # exactly full
    assert link2.write(b"u") == 0


def test_a_uart_that_reads_nothing_after_all_gives_zero():
    link, u, _c = make()
    u.incoming += b"xyz"
    u.readinto = lambda buf, n: None         # MicroPython's "nothing within the timeout"
    assert link.readinto(bytearray(8)) == 0
    assert link.bytes_rx == 0


@pytest.mark.parametrize("mem", [True, False])
def test_interrupts_and_the_transmitter_come_back_on_when_the_uart_write_fails(mem):
    link, u, _c = make(mem=mem)

    def broken(buf):
        raise OSError(5, "uart fault")
    u.write = broken
    with pytest.raises(OSError):
        link.write(b"frame")
    assert u.machine.irq_off == 0
    assert not mem or (u.machine.mem32.txe and u.machine.mem32.log == [False, True])
    del u.write                                        # the working UART again
    link.write(b"x" * 100)
    u.write = broken
    with pytest.raises(OSError):
        link.write(b"behind")                          # the other path: interrupts off
    assert u.machine.irq_off == 0


def test_r43_on_an_idle_line_a_frame_is_queued_with_the_transmitter_held_then_let_go():
    # With interrupts on, so the start-bit watcher stamps the frame's start when it
    # leaves, which is when TXE comes back (a whole FIFO queued behind it: no gap).
    link, u, c = make()
    mem = u.machine.mem32
    assert link.write(b"SYNC") == 4
    assert u.writes == [("held", b"SYNC")] and mem.log == [False, True]
    assert link.wrote_at == c.t and u.machine.irq_off == 0


def test_behind_a_frame_still_leaving_the_next_goes_in_with_interrupts_off():
    # Holding the transmitter then would stop the frame still leaving, mid-frame.
    link, u, c = make()
    mem = u.machine.mem32
    link.write(b"a" * 50)
    c.t += 499                                           # its last byte still leaving
    link.write(b"b" * 5)
    c.t += 51 + 1                                        # all gone
    link.write(b"c")
    assert [w[0] for w in u.writes] == ["held", "irq_off", "held"]
    assert mem.log == [False, True, False, True]


def test_off_the_chip_without_mem32_every_frame_goes_in_with_interrupts_off():
    link, u, _c = make(mem=False)
    link.write(b"one")
    assert u.writes == [("irq_off", b"one")]


@pytest.mark.parametrize("chip,uart_id,base", [("RP2040", 0, 0x40034000), ("RP2040", 1, 0x40038000),
                                               ("RP2350", 0, 0x40070000), ("RP2350", 1, 0x40078000)])
def test_the_transmitter_is_held_through_the_uarts_own_control_register_on_each_chip(
        monkeypatch, chip, uart_id, base):
    import firmware.hw
    monkeypatch.setattr(firmware.hw, "chip_name", lambda: chip)
    m = FakeMachine()
    m.mem32 = FakeMem(cr=base + 0x30)
    c = Clock()
    link = UartLink(m, uart_id=uart_id, ticks_us=c.ticks_us, ticks_diff=c.ticks_diff)
    link.write(b"hello")
    assert m.mem32.log == [False, True] and m.uarts[0].writes == [("held", b"hello")]


def test_the_default_clock_is_the_captures(monkeypatch):
    from firmware.hw import capture
    t = [1001]
    monkeypatch.setattr(capture, "ticks_us", lambda: t[0])
    monkeypatch.setattr(capture, "ticks_diff", Clock.ticks_diff)
    link = UartLink(FakeMachine())
    assert link.write(b"12345") == 5
    assert link.wrote_at == 1001 and link.backlog_us() == 50
    t[0] = 1031
    assert link.backlog_us() == 20


def test_deinit_releases_the_uart():
    link, u, _c = make()
    calls = []
    u.deinit = lambda: calls.append("deinit")
    link.deinit()
    assert calls == ["deinit"]
