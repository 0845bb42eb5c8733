# The link cable on the device: UART0 (GP0 TX, GP1 RX, crossed to the other handheld),
# as the link's transport port (firmware/link/port.py: write, readinto, uid, byte_us),
# and, optionally, the exact times at which frames start on the wire (R43's clock sync).
#
# Why edge stamps. The link learns the peer's clock from timed exchanges; every µs by
# which a stamp misses the moment the byte really crossed is a µs of offset error. A
# stamp taken in software (ticks_us() when the main loop finds bytes in the UART's ring,
# or just before uart.write()) is late by whatever the loop was doing: a frame, a garbage
# collection, up to tens of ms. So frame starts are watched on the pins by the PIO
# (LinkEdges): a pad's input reads what the pin drives, so the sender sees its own start
# bit on GP0 as the receiver sees it on GP1, and both are stamped the same way.

from firmware.boards import pico as board

from shared_rules.compat import const

LINK_BAUD = board.LINK_BAUD
BYTE_BITS = const(10)  # 8N1: start, 8 data, stop
# LinkEdges: a line idle this long before a start bit always starts a frame (the
# watcher's idle loop, 32 passes of 17 samples at 25 MHz, arms within 21.8 µs at 125 MHz;
# there a µs less never arms it; a faster clock needs less).
QUIET_US = const(22)
TX_BUF = const(1024)
RX_BUF = const(2048)  # 20 ms of a saturated line at 1 Mbaud: a frame's worth of slack
# The UARTs' control register (PL011 UARTCR) and its atomic set / clear aliases: TXE
# holds the transmitter (what is written waits in the FIFO) without touching the rest.
_UART_BASES = {"RP2040": (0x40034000, 0x40038000), "RP2350": (0x40070000, 0x40078000)}
_UARTCR = const(0x30)
_SET = const(0x2000)
_CLR = const(0x3000)
_TXE = const(0x100)


class UartLink:
    """The link port on UART0. write(buf) queues a whole frame or drops it whole (never
    blocks, never splits); readinto(buf) -> bytes copied, 0 when none. `dropped_tx`
    counts frames the TX buffer had no room for (the protocol resends).

    stamp_edges=True also starts a LinkEdges (before the UART, as it must be): then
    `edges.frame_starts(out)` gives the start-bit stamps of the frames on both lines
    (`edges` is None without it, or when no PIO state machines are free: `edges_why`)."""

    def __init__(self, machine, uart_id=board.LINK_UART, tx=board.LINK_TX,
                 rx=board.LINK_RX, baud=LINK_BAUD, ticks_us=None, ticks_diff=None,
                 stamp_edges=False):
        if baud < 1200 or baud > 3_000_000:
            raise ValueError("baud out of range: %d" % baud)
        self.edges = None
        self.edges_why = ""
        if stamp_edges:
            try:
                self.edges = LinkEdges(machine, tx=tx, rx=rx)
            except ImportError:
                self.edges_why = "no PIO on this board (no rp2 module)"
            except (OSError, ValueError) as e:
                self.edges_why = str(e)
        if ticks_us is None:
            from firmware.hw.capture import ticks_us, ticks_diff
        self._ticks = ticks_us
        self._diff = ticks_diff
        # The RX pin's pull-up keeps an unplugged cable at idle (high): no false bytes.
        machine.Pin(rx, machine.Pin.IN, machine.Pin.PULL_UP)
        self._uart = machine.UART(uart_id, baudrate=baud, bits=8, parity=None, stop=1,
                                  tx=machine.Pin(tx), rx=machine.Pin(rx), txbuf=TX_BUF,
                                  rxbuf=RX_BUF, timeout=0, timeout_char=0)
        self.baud = baud
        self.byte_us = (BYTE_BITS * 1_000_000 + baud - 1) // baud
        try:
            self.uid = bytes(machine.unique_id())
        except (AttributeError, OSError):
            self.uid = b""
        self._irq_off = machine.disable_irq
        self._irq_on = machine.enable_irq
        # Where TXE is set and cleared (None off the chip: no mem32, interrupts off).
        self._mem = getattr(machine, "mem32", None)
        self._txe_set = self._txe_clr = 0
        if self._mem is not None:
            from firmware.hw import chip_name
            cr = _UART_BASES[chip_name()][uart_id] + _UARTCR
            self._txe_set = cr + _SET
            self._txe_clr = cr + _CLR
        self.wrote_at = 0       # ticks_us() just before the last frame went into the FIFO
        self.dropped_tx = 0
        self.bytes_tx = 0
        self.bytes_rx = 0
        # When the bytes already queued will have left: the UART drains at exactly the
        # baud rate, so this says how full its TX buffer is without asking it.
        self._busy_until = self._ticks()

    def backlog_us(self):
        """µs until everything written so far has left on the line (0: idle)."""
        left = self._diff(self._busy_until, self._ticks())
        return left if left > 0 else 0

    def write(self, buf):
        n = len(buf)
        backlog = self.backlog_us()
        if n > TX_BUF or (backlog // self.byte_us) + n > TX_BUF:
            self.dropped_tx += 1
            return 0
        mem = self._mem
        if backlog == 0 and mem is not None:
            # An idle line: the transmitter is held while MicroPython moves the frame
            # into the UART (its FIFO fills, up to 32 bytes, the rest waits in the
            # ring), then let go. The start bit leaves as TXE is set, 320 µs of line
            # already queued behind it, so no interrupt can open a gap in the frame; and
            # with interrupts on, the start-bit watcher stamps our own start when it
            # happens (R43: with them off, the stamp waited for the whole write, tens
            # of µs late on both sides of every exchange, and the bound counted it).
            mem[self._txe_clr] = _TXE
            try:
                self._uart.write(buf)
            finally:
                now = self._ticks()
                self.wrote_at = now
                mem[self._txe_set] = _TXE
        else:
            # Behind a frame still leaving (or off the chip): interrupts off while the
            # frame goes in, as an interrupt between two of its bytes could let the
            # line fall idle in the middle of it, and the peer would see two frames.
            s = self._irq_off()
            try:
                now = self._ticks()
                self.wrote_at = now
                self._uart.write(buf)
            finally:
                self._irq_on(s)
        start = self._busy_until if backlog > 0 else now
        self._busy_until = (start + n * self.byte_us) & 0x3FFFFFFF
        self.bytes_tx += n
        return n

    def readinto(self, buf):
        # Ask for no more than has arrived: a UART read that has to wait, even with
        # timeout=0, sleeps a whole ms on the rp2 port before it gives up.
        n = self._uart.any()
        if not n:
            return 0
        if n > len(buf):
            n = len(buf)
        n = self._uart.readinto(buf, n) or 0
        self.bytes_rx += n
        return n

    def deinit(self):
        self._uart.deinit()
        if self.edges is not None:
            self.edges.stop()


_PIO_BASE = (0x50200000, 0x50300000)  # PIO0, PIO1 (RP2040 and RP2350)
# The start-bit watcher runs at clk_sys / _DIV: 25 MHz at 125 MHz, 40 ns a sample.
_DIV = const(5)
_IDLE_DELAY = const(15)  # idle loop: 32 x (2 + 15) samples = 21.8 µs at 25 MHz
_RING = const(32)


def _watcher(rp2):
    # One state machine per pin. It waits for the line to be high for 32 passes of the
    # idle loop (a quiet line: longer than any high run inside a frame, 9 bits of a 0xFF
    # byte), then for the first low sample: a frame's start bit. It pushes a word and
    # raises its interrupt, and waits for the next quiet line.
    @rp2.asm_pio()
    def line_start():
        wrap_target()
        label("restart")
        set(x, 31)
        label("idle")
        jmp(pin, "high")
        jmp("restart")
        label("high")
        jmp(x_dec, "idle")[_IDLE_DELAY]
        label("armed")
        jmp(pin, "armed")
        push(noblock)
        irq(rel(0))
        wrap()

    return line_start


class LinkEdges:
    """Frame starts on the cable: the first falling edge after a quiet line (at least
    quiet_us(), ~22 µs, of idle high), on this board's TX pin (its own frames) and RX
    pin (the peer's), stamped with ticks_us() in the PIO interrupt.

    Why a PIO filter and an interrupt, not the button capture: the button capture pushes
    every change of its pins, and a frame at 1 Mbaud has up to five edges a byte; its
    interrupt handler could not keep up. The state machines here let through one edge per
    frame, sampled every 40 ns, so the interrupt comes at a fixed delay after the edge
    (the same on both boards: it cancels out of an offset) unless interrupts are off.

    frame_starts(out) appends (t_us, "TX" | "RX") for each start since the last call,
    oldest first. Start it BEFORE UartLink (it sets the pins up as inputs with pull-ups;
    the UART then takes them over and the PIO still reads the pads). `dropped` counts
    stamps the ring had no room for, `errors` exceptions in the handler."""

    def __init__(self, machine, tx=board.LINK_TX, rx=board.LINK_RX, pio_ids=(1, 0),
                 ticks_us=None):
        import rp2
        from array import array
        if ticks_us is None:
            from firmware.hw.capture import ticks_us
        self._ticks = ticks_us
        self._t = array("i", [0] * _RING)
        self._which = bytearray(_RING)
        self._head = 0
        self._tail = 0
        self.dropped = 0
        self.errors = 0
        self._sms = []
        self._pio = None
        prog = _watcher(rp2)
        freq = machine.freq() // _DIV
        for pin in (tx, rx):
            machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP)
        why = "no PIO block with two free state machines"
        for pio_id in pio_ids:
            ctrl = machine.mem32[_PIO_BASE[pio_id]]
            free = [i for i in range(4) if not ctrl & (1 << i)]
            if len(free) < 2:
                continue
            try:
                a = rp2.StateMachine(pio_id * 4 + free[0], prog, freq=freq,
                                     in_base=machine.Pin(tx), jmp_pin=machine.Pin(tx))
                b = rp2.StateMachine(pio_id * 4 + free[1], prog, freq=freq,
                                     in_base=machine.Pin(rx), jmp_pin=machine.Pin(rx))
            except (OSError, ValueError) as e:
                why = "PIO%d: %s" % (pio_id, e)
                continue
            self._sms = [a, b]
            self._pio = rp2.PIO(pio_id)
            self._pio.irq(self._irq, trigger=(0x100 << free[0]) | (0x100 << free[1]),
                          hard=True)
            a.active(1)
            b.active(1)
            break
        if not self._sms:
            raise OSError(why)
        self._a, self._b = self._sms

    def quiet_us(self):
        return QUIET_US

    def _put(self, t, which):
        h = self._head
        nh = h + 1
        if nh == _RING:
            nh = 0
        if nh == self._tail:
            self.dropped += 1
            return
        self._t[h] = t
        self._which[h] = which
        self._head = nh

    def _irq(self, _pio):
        # Hard interrupt: the stamp first, then which line; no allocation.
        t = self._ticks()
        try:
            if self._a.rx_fifo():
                self._a.get()
                self._put(t, 0)
            if self._b.rx_fifo():
                self._b.get()
                self._put(t, 1)
        except Exception:
            self.errors += 1

    def frame_starts(self, out=None):
        if out is None:
            out = []
        h = self._head
        t = self._tail
        while t != h:
            out.append((self._t[t], "RX" if self._which[t] else "TX"))
            t += 1
            if t == _RING:
                t = 0
        self._tail = t
        return out

    def stop(self):
        if self._pio is not None:
            self._pio.irq(None)
        for sm in self._sms:
            sm.active(0)
        self._sms = []
