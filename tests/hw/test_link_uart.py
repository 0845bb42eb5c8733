"""The link cable's transport (firmware/hw/link_uart.py) against a stand-in UART: the
port contract (write never blocks and never splits a frame, readinto returns 0 when
nothing came), its bookkeeping of the line, and bad settings refused with one line.
The real UART and the PIO start-bit watcher run in tests/pico/test_pico_link.py."""
import pytest

from firmware.hw import link_uart
from firmware.hw.link_uart import UartLink, TX_BUF


class FakeUart:
    def __init__(self, uart_id, **kw):
        self.kw = kw
        self.sent = bytearray()
        self.incoming = bytearray()
        self.read_calls = []

    def write(self, buf):
        assert self.machine.irq_off == 1, "a frame goes into the UART with interrupts off"
        self.sent += buf
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

    def __init__(self):
        self.uarts = []
        self.irq_off = 0

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


def make(baud=link_uart.LINK_BAUD):
    m = FakeMachine()
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
