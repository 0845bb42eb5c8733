"""The PIO capture's arithmetic, on the host (CPython): the sampler's shape from a pin
map, its loop length, the calibrator's timing and the calibration's solution. What the
state machine and the DMA then do is tested on the emulated Pico (test_pico_buttons.py)."""
import random

import pytest

from firmware.boards import pico as board
from firmware.hw.buttons_pio import (PioCapture, calibrator_delays, loop_cycles, plan,
                                      solve_phase)


def word_bits(gpios, base, runs, levels):
    """What the sampler's `in` instructions build from a pin word: the state bits."""
    osr = levels >> base
    isr = 0
    for length, gap in runs:
        isr = (isr << length) | (osr & ((1 << length) - 1))
        osr >>= gap
    return isr


@pytest.mark.parametrize("pins", [board.BUTTONS, board.BUTTONS_SIX,
                                  ((9, 0, "A"), (0, 0, "B"), (29, 1, "A"), (28, 1, "B"))])
def test_the_state_word_has_one_bit_per_button_whatever_the_pins(pins):
    gpios = [g for g, _p, _n in pins]
    base, runs, bits = plan(gpios)
    assert base == min(gpios)
    assert sum(length for length, _gap in runs) == len(gpios)
    assert sorted(bits) == list(range(len(gpios)))
    rng = random.Random(1)
    for _ in range(200):
        levels = rng.getrandbits(30)
        isr = word_bits(gpios, base, runs, levels)
        for g, b in zip(gpios, bits):
            assert (isr >> b) & 1 == (levels >> g) & 1


def test_runs_of_the_board_pin_maps():
    assert plan([2, 3, 14, 15])[:2] == (2, ((2, 12), (2, 0)))
    six = [g for g, _p, _n in board.BUTTONS_SIX]
    assert plan(six)[:2] == (2, ((2, 4), (10, 0)))     # GP2-3, GP6-15 (GP4/5 are I2C)
    assert loop_cycles(plan(six)[1]) == 17               # 136 ns at 125 MHz


@pytest.mark.parametrize("cpu", [125, 150, 48, 133])
def test_the_calibrator_sweeps_the_whole_microsecond(cpu):
    delays, period = calibrator_delays(cpu)
    assert sum(d + 1 for d in delays) == period
    assert all(0 <= d <= 31 for d in delays) and len(delays) >= 2
    step = period - cpu
    assert 32 * step >= cpu          # 32 pushes see the µs boundary at every phase


@pytest.mark.parametrize("cpu,phase", [(125, 0), (125, 37), (125, 124), (150, 77)])
def test_calibration_finds_the_phase_of_the_timer(cpu, phase):
    delays, period = calibrator_delays(cpu)
    t0 = (1 << 30) - 3                                   # across the ticks wrap too
    reads = [(t0 + (i * period + phase) // cpu) % (1 << 30) for i in range(32)]
    lo, hi = solve_phase(reads, period, cpu)
    assert lo <= phase < hi and hi - lo <= period - cpu + 8


@pytest.mark.parametrize("slack", [0, 1])
def test_calibration_with_exact_reads_and_little_slack_finds_every_phase(slack):
    # A DMA that reads the timer on its cycle needs no slack: every phase of the µs is
    # found, in a window no wider than the step between pushes (plus the slack).
    for cpu in (125, 150):
        delays, period = calibrator_delays(cpu)
        for phase in range(cpu):
            reads = [1000 + (i * period + phase) // cpu for i in range(32)]
            lo, hi = solve_phase(reads, period, cpu, slack=slack)
            assert lo <= phase < hi and hi - lo <= period - cpu + 2 * slack, (cpu, phase)


def test_calibration_tolerates_a_dma_a_few_cycles_late_or_early():
    rng = random.Random(5)
    for trial in range(300):
        cpu = rng.choice((125, 150))
        _delays, period = calibrator_delays(cpu)
        phase = rng.randrange(cpu)
        reads = [1000 + (i * period + phase + rng.randint(-3, 3)) // cpu for i in range(32)]
        lo, hi = solve_phase(reads, period, cpu)
        # cycle 0's time, in cycles: the estimate is the window's middle
        estimate = (reads[0] - 1000) * cpu + (lo + hi - 1) // 2
        assert abs(estimate - phase) <= 8 and hi - lo <= period - cpu + 8, (trial, lo, hi)


@pytest.mark.parametrize("slack", [0, 1, 2, 3, 4])
def test_the_calibration_window_is_exactly_the_phases_every_read_allows(slack):
    # Counted out: a phase f (cycles into the first read's µs) fits when every read i,
    # taken at cycle f + i * period give or take `slack`, falls in the µs it read.
    for cpu in (48, 125, 133):
        _delays, period = calibrator_delays(cpu)
        for phase in range(0, cpu, 13):
            reads = [1000 + (i * period + phase) // cpu for i in range(32)]
            fits = [f for f in range(-slack - 2, cpu + slack + 2)
                    if all(any((f + i * period + e) // cpu == reads[i] - 1000
                               for e in range(-slack, slack + 1)) for i in range(32))]
            assert solve_phase(reads, period, cpu, slack=slack) == (fits[0], fits[-1] + 1), (cpu, phase)


def test_calibration_fails_when_the_clock_is_not_what_was_assumed():
    delays, period = calibrator_delays(125)
    reads = [1000 + (i * period) // 130 for i in range(32)]     # the chip runs at 130 MHz
    assert solve_phase(reads, period, 125) is None


@pytest.mark.parametrize("cpu", range(1, 301))
def test_the_calibrator_fits_any_whole_mhz_clock(cpu):
    # Any clock of whole MHz is accepted (PioCapture.start): the loop waits the period
    # exactly, in the fewest instructions that can (each waits at most 32 cycles), and
    # its 32 pushes step through every phase of the µs with the smallest step that does.
    delays, period = calibrator_delays(cpu)
    assert sum(d + 1 for d in delays) == period
    assert all(0 <= d <= 31 for d in delays)
    assert len(delays) == max(2, -(-period // 32))
    step = period - cpu
    assert 31 * step >= cpu > 31 * (step - 1)   # the 32nd push a whole µs on, no more


def test_the_dma_ring_may_be_8_to_1024_words_a_power_of_two():
    for words in (8, 16, 512, 1024):
        assert PioCapture(board.BUTTONS, ring_words=words)._ring_words == words
    for words in (4, 2048, 100, 0, -8, 40, 520):     # 40, 520: no two set bits side by side
        with pytest.raises(ValueError, match="ring_words"):
            PioCapture(board.BUTTONS, ring_words=words)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        PioCapture(board.BUTTONS, ring_words=100)
    with pytest.raises(ValueError):
        PioCapture(((2, 0, "A"), (2, 1, "A")))


# ---- the PIO programs (firmware/hw/pio_programs.py), assembled and run on the host ------
# rp2.asm_pio runs a program's function with the assembler's names as its globals; the
# fake below does the same and records the instructions, and PioModel runs them with the
# RP2040 datasheet's semantics for the few instructions these programs use (one cycle
# each plus its delay; `in` shifts left, `out` right; X/Y/ISR/OSR 32 bits wide).

M32 = 0xFFFFFFFF


class _Ins:
    def __init__(self, op, args):
        self.op = op
        self.args = args
        self.delay = 0

    def __getitem__(self, delay):                 # `instr()[n]`: n delay cycles
        self.delay = delay
        return self


class FakeAsm:
    def __init__(self, options):
        self.options = options
        self.prog = []
        self.labels = {}
        self.wrap_target = 0
        self.wrap = None

    def names(self):
        def emit(op, *args):
            ins = _Ins(op, args)
            self.prog.append(ins)
            return ins

        def label(name):
            self.labels[name] = len(self.prog)

        def wrap_target():
            self.wrap_target = len(self.prog)

        def wrap():
            self.wrap = len(self.prog) - 1

        def jmp(a, b=None):
            return emit("jmp", a, b) if b is not None else emit("jmp", None, a)

        names = {"label": label, "wrap_target": wrap_target, "wrap": wrap, "jmp": jmp,
                 "mov": lambda d, s: emit("mov", d, s),
                 "set": lambda d, v: emit("set", d, v),
                 "in_": lambda s, n: emit("in", s, n),
                 "out": lambda d, n: emit("out", d, n),
                 "push": lambda *a: emit("push"),
                 "irq": lambda a: emit("irq", a),
                 "nop": lambda: emit("mov", "y", "y"),
                 "rel": lambda n: ("rel", n),
                 "invert": lambda s: ("invert", s)}
        for reg in ("x", "y", "isr", "osr", "null", "pins", "noblock", "x_dec", "x_not_y",
                    "y_dec", "pin"):
            names[reg] = reg
        return names


def fake_rp2():
    import types

    def asm_pio(**options):
        def assemble(f):
            asm = FakeAsm(options)
            g = dict(f.__globals__)
            g.update(asm.names())
            types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)()
            return asm
        return assemble

    class PIO:
        SHIFT_LEFT, SHIFT_RIGHT, JOIN_RX = 0, 1, 2
    return types.SimpleNamespace(asm_pio=asm_pio, PIO=PIO)


@pytest.fixture
def programs(monkeypatch):
    import importlib
    import sys
    monkeypatch.setitem(sys.modules, "rp2", fake_rp2())
    monkeypatch.delitem(sys.modules, "firmware.hw.pio_programs", raising=False)
    mod = importlib.import_module("firmware.hw.pio_programs")
    yield mod
    sys.modules.pop("firmware.hw.pio_programs", None)
    import firmware.hw
    if getattr(firmware.hw, "pio_programs", None) is mod:
        del firmware.hw.pio_programs


class PioModel:
    """One state machine running `asm`; pins(k) gives the GPIO levels at the k-th
    `mov osr, pins` (the sample), jmp_pin(cycle) the level of the JMP pin at a cycle."""

    def __init__(self, asm, in_base=0, pins=lambda k: 0, pc=0, jmp_pin=lambda c: 0):
        self.asm = asm
        self.in_base = in_base
        self.pins = pins
        self.jmp_pin = jmp_pin
        self.x = self.y = self.isr = self.osr = 0
        self.pc = pc
        self.cycle = 0
        self.fifo = []                  # (cycle of the push, word)
        self.irqs = []                  # the IRQ flag raised, each time
        self.samples = []               # cycle of each sample

    def read(self, src):
        if isinstance(src, tuple):       # invert(src)
            return ~self.read(src[1]) & M32
        if src == "null":
            return 0
        if src == "pins":
            k = len(self.samples)
            self.samples.append(self.cycle)
            w = self.pins(k) & 0x3FFFFFFF
            b = self.in_base
            return ((w >> b) | (w << (32 - b))) & M32 if b else w
        return getattr(self, src)

    def step(self):
        ins = self.asm.prog[self.pc]
        nxt = self.pc + 1
        op, a = ins.op, ins.args
        if op == "mov":
            setattr(self, a[0], self.read(a[1]))
        elif op == "set":
            setattr(self, a[0], a[1] & 31)
        elif op == "in":
            n = a[1]
            self.isr = ((self.isr << n) | (self.read(a[0]) & ((1 << n) - 1))) & M32
        elif op == "out":
            self.osr >>= a[1]
        elif op == "push":
            self.fifo.append((self.cycle, self.isr))
            self.isr = 0
        elif op == "irq":
            self.irqs.append(a[0])
        elif op == "jmp":
            cond, target = a
            go = True
            if cond in ("x_dec", "y_dec"):
                r = cond[0]
                go = getattr(self, r) != 0
                setattr(self, r, (getattr(self, r) - 1) & M32)
            elif cond == "x_not_y":
                go = self.x != self.y
            elif cond == "pin":
                go = self.jmp_pin(self.cycle) & 1 == 1
            if go:
                nxt = self.asm.labels[target]
        self.cycle += 1 + ins.delay
        if nxt == self.pc + 1 and self.pc == self.asm.wrap:
            nxt = self.asm.wrap_target
        self.pc = nxt

    def run_until(self, cycles):
        while self.cycle < cycles:
            self.step()


@pytest.mark.parametrize("pins", [board.BUTTONS, board.BUTTONS_SIX,
                                  ((9, 0, "A"), (0, 0, "B"), (29, 1, "A"), (28, 1, "B")),
                                  ((4, 0, "A"), (5, 0, "B"), (20, 1, "A")),
                                  ((7, 0, "A"), (11, 1, "A"))])
def test_the_sampler_pushes_each_change_as_a_state_word_and_a_loop_count(programs, pins):
    # Started as PioCapture._claim starts it (X = 0, Y = 0, ISR empty, at "sample"): one
    # sample every loop_cycles(runs) cycles whichever way the loop goes; on a change (and
    # on the first loop) the pair (1 << 29 | pressed bits << (29 - n)) and the loop's
    # count (-loop mod 2**29), and an IRQ.
    gpios = [g for g, _p, _n in pins]
    n = len(gpios)
    base, runs, bits = plan(gpios)
    L = loop_cycles(runs)
    asm = programs.sampler(runs, n, L - (2 * len(runs) + 6))
    assert asm.options["fifo_join"] == programs.rp2.PIO.JOIN_RX
    rng = random.Random(n)
    pressed = [0] * 40
    for k in range(1, 40):                  # changes on some loops, none on others
        pressed[k] = rng.getrandbits(n) if k % 3 == 0 else pressed[k - 1]
    pressed[37] = pressed[38] = pressed[39] = (1 << n) - 1

    def levels(k):                           # a pressed button pulls its pin low
        w = (1 << 30) - 1
        for i, g in enumerate(gpios):
            if pressed[min(k, 39)] >> i & 1:
                w &= ~(1 << g)
        return w
    sm = PioModel(asm, base, levels, pc=asm.labels["sample"])
    sm.run_until(40 * L)
    assert sm.samples[:40] == [k * L for k in range(40)]
    words = [w for _c, w in sm.fifo]
    expected = []
    for k in range(39):
        if k == 0 or pressed[k] != pressed[k - 1]:
            state = 0
            for i in range(n):
                if pressed[k] >> i & 1:
                    state |= 1 << bits[i]
            expected += [1 << 29 | state << (29 - n), (-k) & ((1 << 29) - 1)]
    assert words[:len(expected)] == expected
    assert sm.irqs == [("rel", 0)] * (len(words) // 2)   # the flag the CPU listens on


def test_the_sampler_change_path_is_changed_cycles_long(programs):
    # PioCapture starts the sampler 10 instructions in (after the change path), and
    # loop_cycles counts CHANGED_CYCLES for the way through a change.
    _base, runs, _bits = plan([2, 3, 14, 15])
    L = loop_cycles(runs)
    asm = programs.sampler(runs, 4, L - (2 * len(runs) + 6))
    assert asm.labels["sample"] == 10 == asm.wrap_target
    assert sum(1 + i.delay for i in asm.prog[:asm.labels["sample"]]) == programs.CHANGED_CYCLES
    assert L == 2 * len(runs) + 3 + programs.CHANGED_CYCLES


@pytest.mark.parametrize("cpu", [125, 150, 48])
def test_the_calibrator_pushes_32_times_one_period_apart_then_halts(programs, cpu):
    delays, period = calibrator_delays(cpu)
    asm = programs.calibrator(delays)
    sm = PioModel(asm)
    sm.y = 31                                # PioCapture: set y, 31
    sm.run_until(40 * period)
    assert [c for c, _w in sm.fifo] == [k * period for k in range(32)]
