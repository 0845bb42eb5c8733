"""A fake RP2040/RP2350 for the hardware layer's PIO users on the host (CPython): fake
`rp2` (PIO blocks, state machines, DMA channels), `uctypes` and `machine` modules that
deliver the PIO capture calibrator's timer reads and the sampler's words only where the
real chip would (a DMA channel paced by the DREQ of that state machine's RX FIFO, the µs
timer of the chip the firmware runs on), and raise a PIO interrupt only while a handler
is attached and its trigger names the flag. Used by tests/hw/test_buttons_pio_claim.py
(the button capture) and tests/hw/test_link_edges_claim.py (the link's start-bit watcher)."""
import sys
import time
import types

from firmware.hw.buttons_pio import calibrator_delays, plan
from tests.hw.test_buttons_pio_plan import fake_rp2

PIO_BASE = (0x50200000, 0x50300000)
DMA_BASE = 0x50000000
TIMERAWL = {"RP2040": 0x40054028, "RP2350": 0x400B0028}
MASK29 = (1 << 29) - 1
SM0_ADDR, SM_STRIDE = 0x0D4, 0x18   # SMx_ADDR: the instruction a state machine is at
TREQ_PERMANENT = 0x3F
# A DMA channel's CTRL keeps its settings (EN, a word's DATA_SIZE, ...) whether it runs
# or not; only BUSY (bit 24) says it is running.
CH_SETTINGS = 0x0009
CH_BUSY = 1 << 24
MACHINE = {"RP2040": "Raspberry Pi Pico with RP2040",
           "RP2350": "Raspberry Pi Pico 2 with RP2350"}


def data_bytes(ctrl):
    """CTRL.DATA_SIZE (RP2040 and RP2350 datasheets): 0 a byte, 1 a halfword, 2 a word
    per transfer (MicroPython's pack_ctrl default: 2); 3 is reserved."""
    size = ctrl.get("size", 2)
    if size not in (0, 1, 2):
        raise AssertionError("DMA DATA_SIZE %r is reserved" % (size,))
    return 1 << size


def dreq_rx(pio_id, sm):
    """The DREQ of a state machine's RX FIFO (RP2040 and RP2350 datasheets, DREQ table:
    PIO0 TX0-3 0-3, RX0-3 4-7; PIO1 TX0-3 8-11, RX0-3 12-15)."""
    return 8 * pio_id + 4 + sm


class Chip:
    """The fake board. `chip`: the silicon ("RP2040"/"RP2350"); `busy`: state machines
    already running on PIO0 and PIO1 (bit masks); `phase`: the cycles of the first
    calibration read past its µs; `claim_errors`: the exception a new state machine
    raises on a PIO block (pio id -> exception), as a block with no room for a program
    does (`full_pios` raise the OSError the firmware sees for that)."""

    def __init__(self, monkeypatch, chip="RP2040", mhz=125, busy=(0, 0), phase=40,
                 t0=(1 << 30) - 5000, load_at=(7, 25), full_pios=(), dma_channels=12,
                 timer_high=0, claim_errors=None):
        self.chip = chip
        self.claim_errors = dict(claim_errors or {})
        self.timer_high = timer_high     # TIMERAWL's bits 30 and 31 (the µs since boot)
        self.full_pios = full_pios       # PIO blocks with no room for a program
        self.dma_channels = dma_channels
        self.load_at = list(load_at)     # where the PIO puts the programs, in load order
        self.slept_us = 0
        self.cal_start = None            # (pio_id, slept_us) when the calibrator started
        self.first_sample_due = False    # the sampler's loop 0 is pushed when time first passes
        self.dma_irqs = []               # channels that raised a DMA interrupt
        self.raised = 0                  # PIO interrupt flags raised, not yet handled
        self.cpu = mhz
        self.phase = phase
        self.t0 = t0
        self.now = t0
        self.regs = {PIO_BASE[0]: busy[0], PIO_BASE[1]: busy[1]}
        self.objects = {}            # fake address -> the array there
        self.next_addr = 0x20010004
        self.pios = {}
        self.sms = []
        self.dmas = []
        self.pins = []
        chip_self = self

        rp2 = fake_rp2()
        consts = rp2.PIO

        class PIO:
            SHIFT_LEFT, SHIFT_RIGHT, JOIN_RX = consts.SHIFT_LEFT, consts.SHIFT_RIGHT, consts.JOIN_RX

            def __new__(cls, pio_id):
                if pio_id not in chip_self.pios:
                    p = object.__new__(cls)
                    p.id = pio_id
                    p.handler = None
                    p.trigger = 0
                    p.attached = 0           # how many times a handler was attached
                    p.removed = []
                    p.hard = None
                    chip_self.pios[pio_id] = p
                return chip_self.pios[pio_id]

            def irq(self, *args, **kw):
                if args or kw:
                    self.handler = args[0] if args else kw.get("handler")
                    self.trigger = kw.get("trigger", 0xF00) if self.handler else 0
                    self.hard = kw.get("hard", False) if self.handler else None
                    if self.handler is not None:
                        self.attached += 1
                pio = self

                class Irq:
                    def trigger(self, new=None):
                        old = pio.trigger
                        if new is not None:       # what MicroPython does after a raise
                            pio.trigger = new
                        return old
                return Irq()

            def remove_program(self, prog):
                self.removed.append(prog)

        class StateMachine:
            def __init__(self, sm_id, prog, freq=None, in_base=None, jmp_pin=None):
                self.id = sm_id
                self.pio_id, self.index = divmod(sm_id, 4)
                if self.pio_id in chip_self.full_pios:
                    raise OSError(12, "no room for the program")
                if self.pio_id in chip_self.claim_errors:
                    raise chip_self.claim_errors[self.pio_id]
                if freq is not None and not isinstance(freq, int):
                    # MicroPython takes freq as an int argument only
                    raise TypeError("can't convert %s to int" % type(freq).__name__)
                self.y = 0
                self.prog = prog
                self.freq = freq
                self.in_base = in_base
                self.jmp_pin = jmp_pin
                self.fifo = []                   # the RX FIFO: words pushed, not yet got
                self.on = False
                self.execs = []
                self.origin = chip_self.load_at.pop(0) if chip_self.load_at else 0
                # A new state machine is at its program's first instruction.
                chip_self.regs[PIO_BASE[self.pio_id] + SM0_ADDR + SM_STRIDE * self.index] = self.origin
                chip_self.sms.append(self)

            def exec(self, instr):
                self.execs.append(instr)
                if instr >> 13 == 0b111 and (instr >> 5) & 7 == 0b010:   # set y, <data>
                    self.y = instr & 31

            def active(self, v=None):
                if v is not None:
                    self.on = bool(v)
                return self.on

            def rx_fifo(self):
                return len(self.fifo)

            def get(self):
                if not self.fifo:
                    raise AssertionError("get() on an empty RX FIFO waits forever")
                return self.fifo.pop(0)

        class DMA:
            def __init__(self):
                if len(chip_self.dmas) >= chip_self.dma_channels:
                    raise OSError(16, "no free DMA channel")
                self.channel = len(chip_self.dmas)
                self.cfg = None
                self.closed = False
                self.done = 0
                chip_self.dmas.append(self)

            def pack_ctrl(self, **kw):
                return kw

            def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
                self.cfg = {"read": read, "write": write, "count": count, "ctrl": ctrl}
                self.read_at = chip_self.addr_of(read)   # READ_ADDR: moves on with inc_read
                chip_self.regs[self.reg(0x004)] = chip_self.addr_of(write)
                if trigger:
                    chip_self.regs[self.reg(0x008)] = count
                    chip_self.regs[self.reg(0x00C)] = CH_SETTINGS | CH_BUSY
                    if ctrl.get("treq_sel") == TREQ_PERMANENT:
                        self.transfer()            # unpaced: it runs at once

            def transfer(self, value=0x5A5A):
                """One triggered run: `count` words to the write address, which moves
                on with inc_write; at its end the channel's interrupt unless quiet."""
                c = self.cfg
                addr = chip_self.regs[self.reg(0x004)]
                width = data_bytes(c["ctrl"])
                for _ in range(c["count"]):
                    chip_self.store(addr, value, width)
                    self.read_done()
                    if c["ctrl"].get("inc_write"):
                        addr += width
                chip_self.regs[self.reg(0x004)] = addr
                if not c["ctrl"].get("irq_quiet"):
                    chip_self.dma_irqs.append(self.channel)

            def read_done(self):
                """One transfer read: READ_ADDR moves on by its size with inc_read."""
                if self.cfg["ctrl"].get("inc_read"):
                    self.read_at += data_bytes(self.cfg["ctrl"])

            def reg(self, offset):
                return DMA_BASE + 0x40 * self.channel + offset

            def paced_by(self, pio_id, sm):
                c = self.cfg
                return (not self.closed and c is not None
                        and self.read_at == PIO_BASE[pio_id] + 0x020 + 4 * sm
                        and c["ctrl"]["treq_sel"] == dreq_rx(pio_id, sm))

            def close(self):
                self.closed = True

            def active(self, v=None):
                return not self.closed

        rp2.PIO = PIO
        rp2.StateMachine = StateMachine
        rp2.DMA = DMA

        class Mem:
            def __getitem__(self, addr):
                return chip_self.regs.get(addr, 0)

            def __setitem__(self, addr, value):
                chip_self.regs[addr] = value
                for k in (0, 1):
                    if addr == PIO_BASE[k] + 0x2000:      # CTRL set alias: SMs enabled
                        chip_self.enable(k, value)

        class Pin:
            IN, PULL_UP = 0, 1

            def __init__(self, gpio, mode=-1, pull=-1):
                self.gpio = gpio
                chip_self.pins.append((gpio, mode, pull))

        machine = types.SimpleNamespace(
            mem32=Mem(), Pin=Pin, freq=lambda: mhz * 1000000,
            disable_irq=lambda: 0, enable_irq=lambda s: None)
        self.machine = machine
        uctypes = types.SimpleNamespace(addressof=self.address)
        monkeypatch.setitem(sys.modules, "rp2", rp2)
        monkeypatch.setitem(sys.modules, "uctypes", uctypes)
        monkeypatch.setattr(time, "sleep_us", self.sleep_us, raising=False)
        monkeypatch.setattr(sys.implementation, "_machine", MACHINE[chip], raising=False)

    def address(self, obj):
        for a, o in self.objects.items():
            if o is obj:
                return a
        a = self.next_addr
        self.objects[a] = obj
        self.next_addr += 0x10000
        return a

    def addr_of(self, x):
        """A DMA address: an int, or a buffer (the channel takes its address)."""
        return x if isinstance(x, int) else self.address(x)

    def locate(self, addr):
        addr = self.addr_of(addr)
        for a, o in self.objects.items():
            if a <= addr < a + 4 * len(o):
                return o, (addr - a) // 4
        raise AssertionError("DMA write to no array: %#x" % addr)

    def store(self, addr, value, width):
        """A DMA write of `width` bytes (1, 2 or 4) at byte address `addr`: the low bytes
        of `value` into those byte lanes of the array's 32-bit word, little-endian."""
        addr = self.addr_of(addr)
        arr, k = self.locate(addr & ~3)
        shift = 8 * (addr & 3)
        mask = ((1 << 8 * width) - 1) << shift
        word = (arr[k] & 0xFFFFFFFF & ~mask) | ((value << shift) & mask)
        arr[k] = word - (1 << 32) if word >= 1 << 31 else word

    def ring_store(self, d, value):
        """Channel `d`, paced by the sampler's RX FIFO, takes one word off it: written at
        its ring's next position (the write address wraps at 1 << ring_size bytes)."""
        width = data_bytes(d.cfg["ctrl"])
        start = self.addr_of(d.cfg["write"])
        self.store(start + (d.done * width) % (1 << d.cfg["ctrl"]["ring_size"]), value, width)
        d.read_done()
        d.done += 1

    def enable(self, pio_id, mask):
        """Both state machines start; the calibrator's pushes come as time passes
        (sleep_us)."""
        for sm in self.sms:
            if sm.pio_id == pio_id and mask >> sm.index & 1:
                sm.on = True
        self.cal_start = (pio_id, self.slept_us)
        self.first_sample_due = True

    def first_sample(self):
        """The sampler's loop 0: Y starts at 0, unlike any state word, so it pushes the
        buttons' state (nothing pressed) and raises its interrupt, while the capture is
        still calibrating."""
        self.first_sample_due = False
        sm = [s for s in self.sms if s.in_base is not None and s.on]
        if not sm:
            return
        sm = sm[0]
        for d in self.dmas:
            if d.paced_by(sm.pio_id, sm.index):
                for w in (1 << 29, 0):
                    if d.paced_by(sm.pio_id, sm.index):
                        self.ring_store(d, w)
                self.regs[d.reg(0x008)] = d.cfg["count"] - d.done
        pio = self.pios[sm.pio_id]
        if pio.handler is not None and pio.trigger & (0x100 << sm.index):
            pio.handler(pio)

    def sleep_us(self, us):
        """Time passes: the calibrator pushes 32 words, `period` cycles apart, those of
        them that fall in the time slept since it started; a channel paced by its RX
        DREQ takes each, chained to one copying the timer the firmware named. Like
        MicroPython's time.sleep_us, it takes an int only (a float: TypeError)."""
        if not isinstance(us, int):
            raise TypeError("can't convert %s to int" % type(us).__name__)
        before = self.slept_us - (self.cal_start[1] if self.cal_start else 0)
        self.slept_us += us
        if self.first_sample_due:
            self.first_sample()
        if self.cal_start is None:
            return
        pio_id, start = self.cal_start
        cal = [s for s in self.sms if s.pio_id == pio_id and s.on and s.in_base is None]
        if not cal:
            return
        _delays, period = calibrator_delays(self.cpu)
        reader = [d for d in self.dmas if d.paced_by(pio_id, cal[0].index)]
        if not reader or reader[0].cfg["count"] < 1:
            return                                  # nobody takes the words: no reads
        # The channel the reader chains to copies the timer at once only if unpaced
        # (TREQ 0x3F); paced by any other request it waits for one that never comes.
        timer = [d for d in self.dmas if not d.closed and d.cfg
                 and d.cfg["ctrl"].get("chain_to") == reader[0].channel
                 and d.cfg["ctrl"].get("treq_sel") == TREQ_PERMANENT]
        for i in range(cal[0].y + 1):                  # the calibrator pushes Y + 1 times
            if not before * self.cpu <= i * period < (self.slept_us - start) * self.cpu:
                continue
            if not reader[0].paced_by(pio_id, cal[0].index):
                break                               # its reader reads elsewhere now
            reader[0].read_done()
            for d in timer:
                right = d.read_at == TIMERAWL[self.chip]
                d.transfer(self.timer_word((self.t0 + (i * period + self.phase) // self.cpu)
                                           % (1 << 30)) if right else 0x5A5A)

    def timer_word(self, ticks):
        """TIMERAWL as a 32-bit word in an array of 'i': the µs since boot, whose low 30
        bits are ticks_us(); from 2**31 µs of uptime on it reads negative."""
        raw = ticks | self.timer_high << 30
        return raw - (1 << 32) if raw >= 1 << 31 else raw

    def stamp(self, loop, cap):
        """ticks_us of loop `loop`'s sample as the pin saw it."""
        return (self.t0 + (self.phase + loop * cap.loop_cycles - 2) // self.cpu) % (1 << 30)

    def press(self, cap, loop, pressed):
        """The sampler on `cap`'s state machine sees buttons `pressed` (bits in pin-map
        order) at `loop`: it pushes two words; a paced DMA channel writes them into the
        ring; the PIO raises its interrupt."""
        sm = [s for s in self.sms if s.in_base is not None and s.on][0]
        _base, _runs, bitpos = plan(cap.gpios)
        bits = 0
        for i in range(cap.n):
            if pressed >> i & 1:
                bits |= 1 << bitpos[i]
        words = [1 << 29 | bits << (29 - cap.n), (-loop) & MASK29]
        self.now = (self.stamp(loop, cap) + 3) % (1 << 30)
        ring = [d for d in self.dmas if d.paced_by(sm.pio_id, sm.index)]
        for d in ring:
            for w in words:
                if d.paced_by(sm.pio_id, sm.index):   # still reading this FIFO
                    self.ring_store(d, w)
            self.regs[d.reg(0x008)] = d.cfg["count"] - d.done
            if d.done == d.cfg["count"]:           # the channel's count ran out
                self.regs[d.reg(0x00C)] = CH_SETTINGS
                if not d.cfg["ctrl"].get("irq_quiet"):
                    self.dma_irqs.append(d.channel)
        pio = self.pios[sm.pio_id]
        if pio.handler is not None and pio.trigger & (0x100 << sm.index):
            pio.handler(pio)

    def push(self, sm, word=0):
        """`sm` pushes a word and raises its relative interrupt flag 0 (`irq(rel(0))`)
        without the CPU hearing of it yet: see interrupt()."""
        sm.fifo.append(word)
        self.raised |= 0x100 << sm.index

    def interrupt(self, pio_id):
        """The PIO interrupt for the flags raised since the last one: the handler runs
        once, if it is attached and its trigger names one of them (MicroPython clears the
        flags before it calls the handler)."""
        raised, self.raised = self.raised, 0
        pio = self.pios.get(pio_id)
        if pio is not None and pio.handler is not None and pio.trigger & raised:
            pio.handler(pio)
            return True
        return False

    def ticks(self):
        return self.now
