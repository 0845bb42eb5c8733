# Drives firmware/hw/link_uart.py (UartLink and the start-bit watcher LinkEdges) against
# a fake `machine` and `rp2` and a test-controlled clock. Runs under the real MicroPython
# unix interpreter and under CPython alike; prints one line per case, "RESULT <json>",
# which tests/hw/test_link_uart_mpy.py parses and checks.
#
#   MICROPYPATH=<repo> micropython -X heapsize=150K tests/mp/link_uart_driver.py
#   PYTHONPATH=<repo>  python tests/mp/link_uart_driver.py
#
# The fake rp2 has state machines whose RX FIFO is a count (so reading it allocates
# nothing) and PIO blocks that keep the handler they are given; the PIO program itself
# is not assembled here (tests/hw/test_link_uart_edges.py runs it on a model).

import sys

try:
    import json
except ImportError:
    import ujson as json

MICROPYTHON = sys.implementation.name == "micropython"
if MICROPYTHON:
    import micropython
PERIOD = 1 << 30


class Clock:
    def __init__(self, t):
        self.now = [t]          # a list: the clock closure reads it without allocating

    def ticks_us(self):
        return self.now[0]

    def ticks_diff(self, a, b):
        d = (a - b) & (PERIOD - 1)
        return d - PERIOD if d >= PERIOD // 2 else d


class FakeUart:
    def __init__(self, uart_id, **kw):
        self.sent = 0

    def write(self, buf):
        self.sent += len(buf)
        return len(buf)

    def any(self):
        return 0

    def deinit(self):
        pass


class Pin:
    IN = 0
    PULL_UP = 1

    def __init__(self, gpio, mode=-1, pull=-1):
        self.gpio = gpio


class Mem:
    def __init__(self):
        self.txe = [1, 0]       # UART0's TXE, and how often it was held

    def __getitem__(self, addr):
        return 0                # every state machine free

    def __setitem__(self, addr, value):
        # UART0's control register, its atomic set (+0x2000) and clear (+0x3000) aliases
        if addr == 0x40034030 + 0x2000:
            self.txe[0] = 1
        elif addr == 0x40034030 + 0x3000:
            self.txe[0] = 0
            self.txe[1] += 1
        else:
            raise AssertionError("write to %x" % addr)


class Machine:
    Pin = Pin
    mem32 = Mem()

    def __init__(self):
        self.uarts = []

    def UART(self, uart_id, **kw):
        u = FakeUart(uart_id, **kw)
        self.uarts.append(u)
        return u

    def freq(self):
        return 125_000_000

    def disable_irq(self):
        return 0

    def enable_irq(self, state):
        pass

    def unique_id(self):
        return b"\x01\x02"


class StateMachine:
    def __init__(self, sm_id, prog, freq=None, in_base=None, jmp_pin=None):
        self.id = sm_id
        self.words = 0
        self.on = False

    def rx_fifo(self):
        return self.words

    def get(self):
        self.words -= 1
        return 0

    def active(self, v=None):
        if v is not None:
            self.on = bool(v)
        return self.on


class PIO:
    blocks = {}

    def __init__(self, pio_id):
        self.handler = None
        PIO.blocks[pio_id] = self

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler


class Rp2:
    StateMachine = StateMachine
    PIO = PIO

    @staticmethod
    def asm_pio(**options):
        def keep(f):
            return f
        return keep


sys.modules["rp2"] = Rp2
from firmware.hw.link_uart import LinkEdges, TX_BUF, UartLink  # noqa: E402


def result(case, **kw):
    kw["case"] = case
    print("RESULT " + json.dumps(kw))


def case_frame_sizes():
    clock = Clock(1001)
    link = UartLink(Machine(), ticks_us=clock.ticks_us, ticks_diff=clock.ticks_diff)
    got = [link.write(b"x" * TX_BUF)]           # a whole buffer on an idle line fits
    got.append(link.write(b"y"))                 # and then nothing more
    clock.now[0] += TX_BUF * link.byte_us
    got.append(link.write(b"z" * (TX_BUF + 1)))  # never fits
    got.append(link.write(b"w" * (TX_BUF - 1)))
    result("frame_sizes", writes=got, dropped=link.dropped_tx, sent=link.bytes_tx,
           byte_us=link.byte_us)


def stamp(edges, sms, clock, t, tx, rx):
    clock.now[0] = t
    sms[0].words += tx
    sms[1].words += rx
    edges._irq(PIO.blocks[1])


def case_handler_allocates_nothing():
    # The handler runs as a hard interrupt, where allocating raises MemoryError; with
    # the heap locked it must stamp, wrap the ring and count what it drops all the same.
    clock = Clock(PERIOD - 40)
    sms = []

    class Recording(StateMachine):
        def __init__(self, *a, **kw):
            StateMachine.__init__(self, *a, **kw)
            sms.append(self)
    Rp2.StateMachine = Recording
    try:
        edges = LinkEdges(Machine(), ticks_us=clock.ticks_us)
    finally:
        Rp2.StateMachine = StateMachine
    first = []
    if MICROPYTHON:
        micropython.heap_lock()
    try:
        for k in range(20):
            stamp(edges, sms, clock, PERIOD - 40 + k, 1 - k % 2, k % 2)
    finally:
        if MICROPYTHON:
            micropython.heap_unlock()
    edges.frame_starts(first)
    second = []
    if MICROPYTHON:
        micropython.heap_lock()
    try:
        for k in range(40):                      # more than the ring holds
            stamp(edges, sms, clock, k * 3, 1, 1)
    finally:
        if MICROPYTHON:
            micropython.heap_unlock()
    edges.frame_starts(second)
    result("handler", first=first, second=second, dropped=edges.dropped,
           errors=edges.errors, words_left=[sm.words for sm in sms],
           handler=PIO.blocks[1].handler is not None)


case_frame_sizes()
case_handler_allocates_nothing()
