"""PioCapture's start(), check() and stop() on the host (CPython), against a fake chip:
fake `rp2` (PIO blocks, state machines, DMA channels), `uctypes` and `machine` modules
that deliver the calibrator's timer reads and the sampler's words only where the real
chip would (a DMA channel paced by the DREQ of that state machine's RX FIFO, the µs
timer of the chip the firmware runs on), and raise the PIO interrupt only while its
handler is attached. What the real state machine and DMA do: tests/pico/test_pico_buttons.py
(the emulated RP2040)."""
import sys
import time
import types
from array import array

import pytest

from firmware.boards import pico as board
from firmware.hw.buttons_pio import CaptureUnavailable, PioCapture, calibrator_delays, plan
from tests.hw.test_buttons_pio_plan import fake_rp2

PIO_BASE = (0x50200000, 0x50300000)
DMA_BASE = 0x50000000
TIMERAWL = {"RP2040": 0x40054028, "RP2350": 0x400B0028}
MASK29 = (1 << 29) - 1
MACHINE = {"RP2040": "Raspberry Pi Pico with RP2040",
           "RP2350": "Raspberry Pi Pico 2 with RP2350"}


def dreq_rx(pio_id, sm):
    """The DREQ of a state machine's RX FIFO (RP2040 and RP2350 datasheets, DREQ table:
    PIO0 TX0-3 0-3, RX0-3 4-7; PIO1 TX0-3 8-11, RX0-3 12-15)."""
    return 8 * pio_id + 4 + sm


class Chip:
    """The fake board. `chip`: the silicon ("RP2040"/"RP2350"); `busy`: state machines
    already running on PIO0 and PIO1 (bit masks); `phase`: the cycles of the first
    calibration read past its µs."""

    def __init__(self, monkeypatch, chip="RP2040", mhz=125, busy=(0, 0), phase=40,
                 t0=(1 << 30) - 5000):
        self.chip = chip
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
                    chip_self.pios[pio_id] = p
                return chip_self.pios[pio_id]

            def irq(self, *args, **kw):
                if args or kw:
                    self.handler = args[0] if args else kw.get("handler")
                    self.trigger = kw.get("trigger", 0xF00) if self.handler else 0
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
            def __init__(self, sm_id, prog, in_base=None):
                self.pio_id, self.index = divmod(sm_id, 4)
                self.prog = prog
                self.in_base = in_base
                self.on = False
                self.execs = []
                chip_self.sms.append(self)

            def exec(self, instr):
                self.execs.append(instr)

            def active(self, v=None):
                if v is not None:
                    self.on = bool(v)
                return self.on

        class DMA:
            def __init__(self):
                self.channel = len(chip_self.dmas)
                self.cfg = None
                self.closed = False
                self.done = 0
                chip_self.dmas.append(self)

            def pack_ctrl(self, **kw):
                return kw

            def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
                self.cfg = {"read": read, "write": write, "count": count, "ctrl": ctrl}
                if trigger:
                    chip_self.regs[self.reg(0x008)] = count
                    chip_self.regs[self.reg(0x00C)] = 1 << 24
                    chip_self.regs[self.reg(0x004)] = chip_self.addr_of(write)

            def reg(self, offset):
                return DMA_BASE + 0x40 * self.channel + offset

            def paced_by(self, pio_id, sm):
                c = self.cfg
                return (not self.closed and c is not None
                        and c["read"] == PIO_BASE[pio_id] + 0x020 + 4 * sm
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
                chip_self.pins.append((gpio, mode, pull))

        machine = types.SimpleNamespace(
            mem32=Mem(), Pin=Pin, freq=lambda: mhz * 1000000,
            disable_irq=lambda: 0, enable_irq=lambda s: None)
        self.machine = machine
        uctypes = types.SimpleNamespace(addressof=self.address)
        monkeypatch.setitem(sys.modules, "rp2", rp2)
        monkeypatch.setitem(sys.modules, "uctypes", uctypes)
        monkeypatch.setattr(time, "sleep_us", lambda us: None, raising=False)
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

    def enable(self, pio_id, mask):
        """Both state machines start: the calibrator pushes 32 words, `period` cycles
        apart; a channel paced by its RX DREQ takes each, chained to one copying the
        timer the firmware named into the reads."""
        for sm in self.sms:
            if sm.pio_id == pio_id and mask >> sm.index & 1:
                sm.on = True
        cal = [s for s in self.sms if s.pio_id == pio_id and s.on and s.in_base is None]
        if not cal:
            return
        _delays, period = calibrator_delays(self.cpu)
        reader = [d for d in self.dmas if d.paced_by(pio_id, cal[0].index)]
        if not reader:
            return                                  # nobody takes the words: no reads
        timer = [d for d in self.dmas if d.cfg and d.cfg["ctrl"].get("chain_to") == reader[0].channel]
        for d in timer:
            reads, k = self.locate(d.cfg["write"])
            for i in range(32):
                right = d.cfg["read"] == TIMERAWL[self.chip]
                reads[k + i] = ((self.t0 + (i * period + self.phase) // self.cpu) % (1 << 30)
                                if right else 0x5A5A)
            self.regs[d.reg(0x004)] = self.addr_of(d.cfg["write"]) + 4 * 32

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
            arr, k = self.locate(d.cfg["write"])
            size = 1 << d.cfg["ctrl"]["ring_size"]
            for w in words:
                arr[k + (d.done % (size // 4))] = w
                d.done += 1
            self.regs[d.reg(0x008)] = d.cfg["count"] - d.done
        pio = self.pios[sm.pio_id]
        if pio.handler is not None and pio.trigger & (0x100 << sm.index):
            pio.handler(pio)

    def ticks(self):
        return self.now


def started(chip, **kw):
    cap = PioCapture(board.BUTTONS, board.DEBOUNCE_US, ticks_us=chip.ticks, **kw)
    return cap.start(chip.machine)


def ev(events):
    return [[e[0], e[1], e[2], 1 if e[3] else 0] for e in events]


def test_the_fake_chip_delivers_a_press_to_a_started_capture(monkeypatch):
    chip = Chip(monkeypatch)
    cap = started(chip)
    assert cap.kind == "pio" and cap.sample_ns == 17 * 1000 // 125
    assert sorted(g for g, _m, _p in chip.pins) == [2, 3, 14, 15]
    chip.press(cap, 5000, 0b0100)                  # P1 A
    got = ev(cap.drain(poll=False))
    assert len(got) == 1 and got[0][1:] == [1, "A", 1]
    assert abs(got[0][0] - chip.stamp(5000, cap)) <= 1


@pytest.mark.parametrize("chip_name,mhz", [("RP2040", 125), ("RP2350", 150)])
def test_calibration_reads_the_timer_of_the_chip_it_runs_on(monkeypatch, chip_name, mhz):
    # The RP2350's µs timer is at another address: read the RP2040's there and the
    # calibration sees no clock at all.
    chip = Chip(monkeypatch, chip=chip_name, mhz=mhz)
    cap = started(chip)
    chip.press(cap, 90000, 0b0001)                 # P0 A
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1]]
    assert abs(got[0][0] - chip.stamp(90000, cap)) <= 1
    assert 0 < cap.phase_window <= calibrator_delays(mhz)[1] - mhz + 8


def test_a_chip_that_is_not_what_the_firmware_says_fails_calibration(monkeypatch):
    # The other way round (the fake's own check): firmware told RP2040 on an RP2350.
    chip = Chip(monkeypatch, chip="RP2350", mhz=150)
    monkeypatch.setattr(sys.implementation, "_machine", MACHINE["RP2040"])
    with pytest.raises(CaptureUnavailable, match="calibration"):
        started(chip)
    assert all(d.closed for d in chip.dmas)


@pytest.mark.parametrize("busy0", [0b0111, 0b1011, 0b1101])
def test_a_capture_on_pio1_is_paced_by_pio1s_rx_fifo(monkeypatch, busy0):
    # Three of PIO0's state machines are taken: the capture runs on PIO1, and its DMA
    # channels must wait on PIO1's RX FIFOs, or no word ever reaches the ring.
    chip = Chip(monkeypatch, busy=(busy0, 0b0001))
    cap = started(chip)
    assert {(s.pio_id, s.index) for s in chip.sms} == {(1, 1), (1, 2)}
    chip.press(cap, 7000, 0b1000)                  # P1 B
    chip.press(cap, 7001, 0b1010)                  # P0 B one sample later
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[1, "B", 1], [0, "B", 1]]
    assert got[1][0] == got[0][0] + 1              # the next sample: the next µs at least


def test_check_leaves_a_healthy_interrupt_alone_and_rearms_one_switched_off(monkeypatch):
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    attached = pio.attached
    assert cap.check() == 0 and cap.check() == 0
    assert cap.rearmed == 0 and pio.attached == attached
    pio.irq().trigger(0)                           # MicroPython switched it off
    chip.press(cap, 3000, 0b0001)
    assert cap.drain(poll=False) == []             # no interrupt: the press waits
    assert cap.check() == 1 and cap.rearmed == 1 and pio.attached == attached + 1
    assert cap.check() == 0 and cap.rearmed == 1
    chip.press(cap, 400000, 0b0000)                # the release: the handler runs again
    got = ev(cap.drain(poll=False))
    assert [e[1:] for e in got] == [[0, "A", 1], [0, "A", 0]]


def test_stop_detaches_the_handler_and_frees_everything(monkeypatch):
    chip = Chip(monkeypatch)
    cap = started(chip)
    pio = chip.pios[cap._pio_id]
    cap.stop()
    assert pio.handler is None and pio.trigger == 0
    assert all(d.closed for d in chip.dmas) and not any(s.on for s in chip.sms)
    assert len(pio.removed) == 2                   # the calibrator's and the sampler's
    assert cap.check() == 0 and pio.handler is None   # stopped: nothing to re-arm
    assert cap.drain() == []


def test_a_capture_not_started_polls_and_checks_nothing():
    cap = PioCapture(board.BUTTONS, board.DEBOUNCE_US, cycles_per_us=125)
    assert cap.drain() == [] and cap.check() == 0
    cap.poll()
    assert cap.rearmed == 0 and cap.dropped == 0 and cap.errors == 0
