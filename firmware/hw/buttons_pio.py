# Button capture by the RP2040/RP2350's PIO: the touch time is the sample the state
# machine took, not the moment the CPU got round to it.
#
# One state machine samples every button pin in one instruction, every loop_cycles()
# system clock cycles (136 ns for the reference pin map at 125 MHz), whatever the CPU is
# doing. When the buttons' state changes it pushes two words, the state and its loop
# count, and raises an interrupt. A DMA channel paced by the state machine moves the
# words into a RAM ring at once, so nothing is lost while interrupts are off (a flash
# erase, a long garbage collection): the interrupt handler (or poll(), every frame)
# turns the words into events later, with the stamps of the samples.
#
# Words (every value below 2**30, a small int on the RP2040's 32-bit port):
#   state word  bit 29 set; bits 28.. down: one bit per button, 1 = pressed
#   count word  bit 29 clear; the loop count's low 29 bits (X counts down from 0)
# The marker bit keeps the pairs in step if the FIFO ever drops a word.
#
# Time. A loop count is a time: both ways round the loop take the same cycles. At start
# a second state machine, started in the same cycle, pushes 32 words at a known cycle
# each; two chained DMA channels read the µs timer (TIMERAWL: RP2040 0x40054028, RP2350
# 0x400B0028) at each push. The cycles at which the timer's µs ticked over are found to
# within a few cycles (calibration); cycles per µs is machine.freq() / 10**6 (125 on an
# RP2040, 150 on an RP2350: the timer and clk_sys come from the same crystal, so they
# never drift apart). From then on an "anchor" (a loop count, its ticks_us and the
# cycles past that µs) moves forward with every word and with poll(); a word's loop
# count is taken relative to it (29 bits wrap every ~73 s at 136 ns; poll() keeps the
# anchor within a second, and the handler catches up from ticks_us() after longer
# silences, up to the 2**29 µs ticks_diff can tell). Stamps are ticks_us() values of
# the sample minus the 2-cycle input synchroniser.
#
# Order finer than a microsecond (R19, R21). Two presses in the same sample are one
# instant: a tie. Two presses in different samples of the same µs must not become a tie,
# and the event format is whole microseconds: the later sample's event is stamped one µs
# after the earlier one (the next free µs), so stamps keep the samples' order. Replays,
# the arbiter and the desktop ports see ordinary stamps, never more than a µs or so from
# the sample (one more per further press inside the same µs).
#
# Debounce as ButtonCapture's, on exact sample times: the first change is the touch;
# changes within the lock-out are `bounces`; a level that still differs from the
# debounced state when the lock-out ends is an event at the lock-out's end.
#
# Counted, never silent (all in `dropped`, as events lost): the ring lapped before the
# CPU read it (`lost_words`), the FIFO full when the PIO pushed (`fifo_overflows`, from
# FDEBUG), the event ring full.
#
# The handler allocates nothing: small-int arithmetic, array/bytearray item stores and
# attributes created in __init__. It is guarded like ButtonCapture's (`errors`), and
# check() re-arms the PIO interrupt if MicroPython switched it off.

from array import array

from firmware.hw import chip_name
from firmware.hw.capture import (Capture, ticks_us as _ticks_us, ticks_diff as _ticks_diff,
                                 ticks_add as _ticks_add)

from shared_rules.compat import const


_MASK30 = const(0x3FFFFFFF)
_MASK29 = const(0x1FFFFFFF)
_MARK = const(1 << 29)
_PIO_BASE = (0x50200000, 0x50300000)  # PIO0, PIO1 (RP2040 and RP2350)
_SET_ALIAS = const(0x2000)
_PIO_FDEBUG = const(0x008)
_PIO_RXF0 = const(0x020)
_PIO_SM0_ADDR = const(0x0D4)
_SM_STRIDE = const(0x18)
_DREQ_PIO_RX0 = (4, 12)  # DREQ of PIO0/PIO1 state machine 0's RX FIFO (both chips)
_TREQ_PERMANENT = const(0x3F)
_DMA_BASE = const(0x50000000)
_DMA_STRIDE = const(0x40)
_CH_WRITE_ADDR = const(0x004)
_CH_TRANS_COUNT = const(0x008)
_CH_CTRL = const(0x00C)
_CH_BUSY = const(1 << 24)
_CH_TRANS_COUNT_TRIG = const(0x01C)
_TIMERAWL = {"RP2040": 0x40054028, "RP2350": 0x400B0028}
# Ring transfers before the channel must be re-triggered: below 2**30 (a small int) and
# 0 in the RP2350's MODE bits (31:28). poll() re-triggers it when it ends.
_RING_COUNT = const(0x0FFFFFFF)
_SYNC_CYCLES = const(2)  # the pads' input synchroniser: the PIO sees a pin 2 cycles late
_CAL_PUSHES = const(32)
_CAL_SLACK = const(4)  # cycles of jitter allowed in when the DMA read the timer
_MAX_RUNS = const(5)  # sampler (2 * runs + 16) and calibrator (6) in 32 instructions
_BUMP_US = const(1000)  # a later sample's stamp is moved past an earlier one within this
_FRESH_US = const(1000000)  # poll() keeps the anchor this close to now
_MARGIN_US = const(2)  # samples this recent may not be in the ring yet
# Instructions executed through SMx_INSTR before the state machines start.
_SET_X_0 = const(0xE020)  # set x, 0
_SET_Y_0 = const(0xE040)  # set y, 0: differs from any state, so the first loop pushes
_SET_Y_31 = const(0xE05F)  # set y, 31: the calibrator pushes 32 times
_MOV_ISR_NULL = const(0xA0C3)  # mov isr, null
_JMP = const(0x0000)  # jmp <address>


class CaptureUnavailable(Exception):
    """This board cannot run the PIO capture (str(): why, one line)."""


def plan(gpios):
    """The sampler's shape for these GPIOs -> (in_base, runs, bit of each button):
    runs ((length, distance to the next run's first pin), ...) from the lowest GPIO up;
    bits in pin-map order, the state word's bit (from its bit 0) of each button."""
    order = sorted(gpios)
    spans = []
    for g in order:
        if spans and g == spans[-1][0] + spans[-1][1]:
            spans[-1][1] += 1
        else:
            spans.append([g, 1])
    runs = []
    for k in range(len(spans)):
        start, length = spans[k]
        gap = spans[k + 1][0] - start if k + 1 < len(spans) else 0
        runs.append((length, gap))
    pos = {}
    below = 0
    for k in range(len(spans) - 1, -1, -1):  # `in` shifts left: the last run is lowest
        start, length = spans[k]
        for j in range(length):
            pos[start + j] = below + j
        below += length
    return order[0], tuple(runs), tuple(pos[g] for g in gpios)


def loop_cycles(runs):
    """Cycles per sample: 2 * runs + 3 to sample and compare, 10 more either way."""
    return 2 * len(runs) + 13


def calibrator_delays(cycles_per_us):
    """Delays of the calibrator's loop (push, nops, jmp): one push every cycles_per_us +
    step cycles, so 32 pushes see the µs boundary at 32 phases step cycles apart."""
    step = (cycles_per_us + _CAL_PUSHES - 2) // (_CAL_PUSHES - 1)
    period = cycles_per_us + step
    m = (period + 31) // 32
    delays = [31] * m
    extra = 32 * m - period
    k = m - 1
    while extra:
        take = extra if extra <= delays[k] else delays[k]
        delays[k] -= take
        extra -= take
        k -= 1
    if m < 2:  # a push and a jmp at least
        delays = [0, period - 2]
    return delays, period


def solve_phase(reads, period, cycles_per_us, slack=_CAL_SLACK):
    """reads: the timer (µs) read at cycles 0, period, 2 * period, ... (each up to
    `slack` cycles early or late: the DMA's timing) -> (lo, hi): the cycle phase of the
    first read within its µs lies in [lo, hi); None if no phase fits every read (the
    timer and the PIO clock disagree)."""
    lo = -slack
    hi = cycles_per_us + slack
    v0 = reads[0]
    for i in range(len(reads)):
        u = _ticks_diff(reads[i], v0)
        a = u * cycles_per_us - i * period
        if a - slack > lo:
            lo = a - slack
        if a + cycles_per_us + slack < hi:
            hi = a + cycles_per_us + slack
    return (lo, hi) if lo < hi else None


class PioCapture(Capture):
    def __init__(self, pins, debounce_us=10_000, size=64, ring_words=256, pio_ids=(0, 1),
                 cycles_per_us=None, ticks_us=None):
        """pins: the board's BUTTONS; size: events the event ring holds; ring_words:
        the DMA ring (a power of two, 8..1024 words, two per change); pio_ids: the PIO
        blocks to try; cycles_per_us: the clock (default machine.freq() / 10**6)."""
        Capture.__init__(self, pins, debounce_us, size)
        if ring_words < 8 or ring_words > 1024 or ring_words & (ring_words - 1):
            raise ValueError("ring_words: a power of two, 8..1024")
        self.kind = "pio"
        base, runs, bitpos = plan(self.gpios)
        self._in_base = base
        self._runs = runs
        self._pbits = tuple(1 << p for p in bitpos)
        self._shift = 29 - self.n
        self._nmask = (1 << self.n) - 1
        self.loop_cycles = loop_cycles(runs)
        self._L = self.loop_cycles
        self._ring_words = ring_words
        self._pio_ids = pio_ids
        self._cpu = cycles_per_us or 0
        self._ticks = ticks_us if ticks_us is not None else _ticks_us
        self._tdiff = _ticks_diff
        self._tadd = _ticks_add
        self._machine = None
        self._mem = None
        self._running = False
        # Claimed resources (released by stop()).
        self._pio = None
        self._pio_id = -1
        self._sm = None
        self._cal = None
        self._progs = ()
        self._dmas = []
        self._ring = None
        self._ofs = 0
        self._tc = 0
        self._fdebug = 0
        self._stall = 0
        self._ch_ctrl = 0
        # Stream position and time.
        self._base = 0  # words the ring channel had written before its last re-trigger
        self._rd = 0  # words read
        self._a_loop = 0  # the anchor: a loop count (mod 2**29) ...
        self._a_t = 0  # ... the ticks_us of its sample ...
        self._a_f = 0  # ... and the cycles past that µs
        self._epoch_us = 0  # µs per 2**29 loops
        self._chunk = 1  # loops advance() can take in one step (small ints)
        # Debounce state, in the words' terms: 1 = pressed.
        self._st = 0
        self._rawp = 0
        self._nlock = 0
        self._pub_loop = -1  # the sample of the last event stamped, and its stamp
        self._pub_t = 0
        self._seen = -1  # the ring channel's count when the ring was last read out
        self._due = 0  # ticks at which poll() has work on time alone
        # Counters.
        self.lost_words = 0
        self.fifo_overflows = 0
        self.phase_window = 0  # cycles: how closely calibration placed the µs boundary
        self.sample_ns = 0
        self._isr = self._irq

    # ---- setup (main loop, allocates) -------------------------------------------------
    def start(self, machine_module=None):
        """Claim a PIO block (two state machines), three DMA channels and the PIO's
        interrupt, calibrate, and run. CaptureUnavailable (with everything released) if
        the board cannot: no rp2 module, nothing free, a pin map the program cannot
        cover, a clock that is not a whole number of MHz, a calibration that fails."""
        m = machine_module
        if m is None:
            import machine as m
        try:
            import rp2
            import uctypes
            from firmware.hw import pio_programs
        except ImportError:
            raise CaptureUnavailable("no PIO on this board (no rp2 module)")
        if len(self._runs) > _MAX_RUNS:
            raise CaptureUnavailable("the pin map needs %d runs of pins; the PIO program "
                                     "covers %d" % (len(self._runs), _MAX_RUNS))
        if not self._cpu:
            freq = m.freq()
            if freq % 1000000:
                raise CaptureUnavailable("clock %d Hz: not a whole number of MHz" % freq)
            self._cpu = freq // 1000000
        self._machine = m
        self._mem = m.mem32
        for gpio in self.gpios:
            m.Pin(gpio, m.Pin.IN, m.Pin.PULL_UP)
        try:
            self._claim(rp2, uctypes, pio_programs)
            self._calibrate()
        except CaptureUnavailable:
            self.stop()
            raise
        except Exception as e:  # OSError (no room, no channel), ValueError (claimed)
            self.stop()
            raise CaptureUnavailable("%s: %s" % (type(e).__name__, e))
        finally:
            _forget_programs()  # only needed to start: its RAM back
        self._running = True
        self.poll()
        return self

    def _claim(self, rp2, uctypes, progs):
        mem = self._mem
        cpu = self._cpu
        L = self._L
        pad = L - (2 * len(self._runs) + 6)  # the unchanged way waits the difference
        sampler = progs.sampler(self._runs, self.n, pad)
        delays, self._cal_period = calibrator_delays(cpu)
        calprog = progs.calibrator(delays)
        why = "no PIO block with two free state machines"
        for pio_id in self._pio_ids:
            ctrl = mem[_PIO_BASE[pio_id]]
            free = [i for i in range(4) if not ctrl & (1 << i)]
            if len(free) < 2:
                continue
            pio = rp2.PIO(pio_id)
            try:
                sm = rp2.StateMachine(pio_id * 4 + free[0], sampler, in_base=self._in_base)
                self._progs = ((pio, sampler),)
                cal = rp2.StateMachine(pio_id * 4 + free[1], calprog)
                self._progs = ((pio, sampler), (pio, calprog))
            except (OSError, ValueError) as e:
                self._remove_programs()
                why = "PIO%d: %s" % (pio_id, e)
                continue
            self._pio = pio
            self._pio_id = pio_id
            self._sm = sm
            self._cal = cal
            self._sm_index = free[0]
            self._cal_index = free[1]
            break
        if self._sm is None:
            raise CaptureUnavailable(why)
        base = _PIO_BASE[self._pio_id]
        self._fdebug = base + _PIO_FDEBUG
        self._stall = 1 << self._sm_index  # FDEBUG.RXSTALL: a push found the FIFO full
        # The sampler starts at "sample" (after the 10-instruction change path).
        offset = mem[base + _PIO_SM0_ADDR + _SM_STRIDE * self._sm_index]
        self._top = offset + 10
        for dmas in range(3):
            self._dmas.append(rp2.DMA())
        ring_dma, cal_read, cal_time = self._dmas
        # The ring: `ring_words` words aligned to their size (the DMA's ring wrap),
        # inside an array twice as long.
        n = self._ring_words
        self._ring = array("i", [0] * (2 * n))
        addr = uctypes.addressof(self._ring)
        nbytes = 4 * n
        aligned = (addr + nbytes - 1) & ~(nbytes - 1)
        self._ofs = (aligned - addr) // 4
        ring_bits = 0
        while (1 << ring_bits) < nbytes:
            ring_bits += 1
        dreq = _DREQ_PIO_RX0[self._pio_id]
        ring_dma.config(read=base + _PIO_RXF0 + 4 * self._sm_index, write=aligned,
                        count=_RING_COUNT,
                        ctrl=ring_dma.pack_ctrl(size=2, inc_read=False, inc_write=True,
                                                ring_size=ring_bits, ring_sel=True,
                                                treq_sel=dreq + self._sm_index,
                                                irq_quiet=True),
                        trigger=True)
        ch = ring_dma.channel
        self._tc = _DMA_BASE + _DMA_STRIDE * ch + _CH_TRANS_COUNT
        self._ch_ctrl = _DMA_BASE + _DMA_STRIDE * ch + _CH_CTRL
        self._ch_trig = _DMA_BASE + _DMA_STRIDE * ch + _CH_TRANS_COUNT_TRIG
        # Calibration: each calibrator push -> cal_read takes the word off the FIFO,
        # chains to cal_time, which copies the µs timer into `reads`, chains back.
        self._scratch = array("i", [0])
        self._reads = array("i", [0] * _CAL_PUSHES)
        cal_time.config(read=_TIMERAWL[chip_name()], write=self._reads, count=1,
                        ctrl=cal_time.pack_ctrl(size=2, inc_read=False, inc_write=True,
                                                treq_sel=_TREQ_PERMANENT,
                                                chain_to=cal_read.channel, irq_quiet=True),
                        trigger=False)
        cal_read.config(read=base + _PIO_RXF0 + 4 * self._cal_index, write=self._scratch,
                        count=1,
                        ctrl=cal_read.pack_ctrl(size=2, inc_read=False, inc_write=False,
                                                treq_sel=dreq + self._cal_index,
                                                chain_to=cal_time.channel, irq_quiet=True),
                        trigger=True)
        self._reads_end = uctypes.addressof(self._reads) + 4 * _CAL_PUSHES
        self._cal_time_wa = _DMA_BASE + _DMA_STRIDE * cal_time.channel + _CH_WRITE_ADDR
        self._pio.irq(self._isr, trigger=0x100 << self._sm_index, hard=True)
        sm = self._sm
        sm.exec(_SET_X_0)
        sm.exec(_SET_Y_0)
        sm.exec(_MOV_ISR_NULL)
        sm.exec(_JMP | self._top)
        self._cal.exec(_SET_Y_31)

    def _calibrate(self):
        import time
        mem = self._mem
        cpu = self._cpu
        period = self._cal_period
        # Both state machines start in the same cycle: the sampler's loop 0 samples in
        # cycle 0, the calibrator pushes in cycles 0, period, 2 * period, ...
        mem[_PIO_BASE[self._pio_id] + _SET_ALIAS] = (1 << self._sm_index) | (1 << self._cal_index)
        time.sleep_us(2 * _CAL_PUSHES * period // cpu + 50)
        done = mem[self._cal_time_wa] == self._reads_end
        self._cal.active(0)
        self._dmas[1].close()
        self._dmas[2].close()
        del self._dmas[1:]
        self._pio.remove_program(self._progs[1][1])
        self._progs = self._progs[:1]
        if not done:
            raise CaptureUnavailable("calibration: the timer was not read %d times"
                                     % _CAL_PUSHES)
        reads = [r & _MASK30 for r in self._reads]
        self._reads = self._scratch = None
        window = solve_phase(reads, period, cpu)
        if window is None:
            raise CaptureUnavailable("calibration failed: the timer and a %d MHz PIO "
                                     "clock disagree" % cpu)
        lo, hi = window
        self.phase_window = hi - lo
        self._timebase(reads[0], (lo + hi - 1) // 2 - _SYNC_CYCLES)

    def _timebase(self, t, f):
        """Loop 0's sample (as the pin saw it) is at ticks t plus f cycles."""
        cpu = self._cpu
        while f < 0:
            f += cpu
            t = (t - 1) & _MASK30
        while f >= cpu:
            f -= cpu
            t = (t + 1) & _MASK30
        self._a_loop = 0
        self._a_t = t
        self._a_f = f
        L = self._L
        self._epoch_us = ((_MASK29 + 1) // cpu) * L + (((_MASK29 + 1) % cpu) * L) // cpu
        self._chunk = (_MASK30 - cpu) // L
        self.sample_ns = L * 1000 // cpu

    def stop(self):
        """Stop the state machines, free the DMA channels, programs and interrupt."""
        self._running = False
        for sm in (self._sm, self._cal):
            if sm is not None:
                try:
                    sm.active(0)
                except Exception:
                    pass
        if self._pio is not None:
            try:
                self._pio.irq(None)
            except Exception:
                pass
        for d in self._dmas:
            try:
                d.close()
            except Exception:
                pass
        self._dmas = []
        self._remove_programs()
        self._sm = self._cal = self._pio = None

    def _remove_programs(self):
        for pio, prog in self._progs:
            try:
                pio.remove_program(prog)
            except Exception:
                pass
        self._progs = ()

    def check(self):
        if not self._running or self._pio.irq().trigger():
            return 0
        self._pio.irq(self._isr, trigger=0x100 << self._sm_index, hard=True)
        self.rearmed += 1
        return 1

    # ---- interrupt side: no allocation below until drain() -----------------------------
    def _irq(self, _pio):
        # The sampler pushes its loop 0 while start() still calibrates: no time base
        # to stamp it with yet. start()'s own poll() reads those words once there is.
        if not self._running:
            return
        try:
            self._process()
        except Exception:  # counted, so the IRQ stays on (see buttons.py)
            self.errors += 1

    def _written(self):
        return self._base + (_RING_COUNT - self._mem[self._tc])

    def _process(self):
        # Turn every complete pair of words in the ring into events. Runs in the
        # interrupt handler, or in poll() with interrupts off; never both at once.
        mem = self._mem
        now = self._ticks()  # before the ring's count: every word read is older
        remaining = mem[self._tc]
        written = self._base + (_RING_COUNT - remaining)
        rd = self._rd
        n = self._ring_words
        if written - rd > n:  # the DMA lapped the reader: the oldest words are gone
            lost = written - n - rd
            self.lost_words += lost
            self.dropped += (lost + 1) >> 1
            rd = written - n
        if mem[self._fdebug] & self._stall:  # the FIFO was full: the PIO dropped words
            mem[self._fdebug] = self._stall  # (write 1 to clear)
            self.fifo_overflows += 1
            self.dropped += 1
        ring = self._ring
        ofs = self._ofs
        mask = n - 1
        while rd < written:
            a = ring[ofs + (rd & mask)]
            if not a & _MARK:  # a count word without its state word
                rd += 1
                self.lost_words += 1
                continue
            if rd + 1 >= written:  # its count word is not in the ring yet
                break
            c = ring[ofs + ((rd + 1) & mask)]
            if c & _MARK:  # a state word without its count word
                rd += 1
                self.lost_words += 1
                continue
            rd += 2
            self._sample((a >> self._shift) & self._nmask, (-c) & _MASK29, now)
        self._rd = rd
        self._seen = remaining if rd == written else -1

    def _advance(self, d):
        # Move the anchor d loops on (d >= 0).
        L = self._L
        cpu = self._cpu
        while d:
            k = d if d <= self._chunk else self._chunk
            c = self._a_f + k * L
            self._a_t = self._tadd(self._a_t, c // cpu)
            self._a_f = c % cpu
            self._a_loop = (self._a_loop + k) & _MASK29
            d -= k

    def _sample(self, lv, loop, now):
        # One sample: lv = the pressed bits, `loop` its loop count (mod 2**29).
        d = (loop - self._a_loop) & _MASK29
        if self._tdiff(now, self._a_t) > self._epoch_us // 2:
            # The anchor is old: the sample may be whole 2**29-loop epochs further on.
            # Count them from ticks_us (valid while ticks_diff is, 2**29 µs). Half an
            # epoch, not a fixed time: at 300 MHz a one-run loop turns every 26.8 s.
            cpu = self._cpu
            L = self._L
            d_us = (d // cpu) * L + ((d % cpu) * L) // cpu
            k = (self._tdiff(now, self._a_t) - d_us) // self._epoch_us
            while k > 0:
                self._advance(_MASK29 + 1)
                k -= 1
        if d <= self._chunk:  # the anchor moves to this sample (one step, as a rule)
            c = self._a_f + d * self._L
            t = self._tadd(self._a_t, c // self._cpu)
            self._a_t = t
            self._a_f = c % self._cpu
            self._a_loop = loop
        else:
            self._advance(d)
            t = self._a_t
        st = self._st
        raw = self._rawp
        moved = lv ^ raw
        self._rawp = lv
        lock = self._lock
        n = self.n
        if self._nlock:  # lock-outs that ended before this sample first (earlier stamps)
            last = self._last
            db = self._db
            i = 0
            while i < n:
                if lock[i] and self._tdiff(t, last[i]) >= db:
                    st = self._expire(i, st, raw)
                else:
                    i += 1
        if not (lv ^ st) and not (moved and self._nlock):
            self._st = st
            return
        bits = self._pbits
        i = 0
        while i < n:
            b = bits[i]
            if lock[i]:
                if moved & b:
                    self.bounces[i] += 1
            elif (lv ^ st) & b:
                st ^= b
                self._last[i] = t
                lock[i] = 1
                self._nlock += 1
                e = self._tadd(t, self._db + _MARGIN_US)
                if self._tdiff(e, self._due) < 0:  # poll() ends this lock-out then
                    self._due = e
                # Stamps keep the samples' order: a later sample never shares an
                # earlier one's µs (R19); the same sample is the same instant (R21).
                if loop == self._pub_loop:
                    ts = self._pub_t
                else:
                    ts = t
                    dd = self._tdiff(t, self._pub_t)
                    if dd <= 0 and dd > -_BUMP_US and self._pub_loop >= 0:
                        ts = self._tadd(self._pub_t, 1)
                    self._pub_loop = loop
                    self._pub_t = ts
                self._publish(ts, i, 1 if lv & b else 0)
            i += 1
        self._st = st

    def _expire(self, i, st, raw):
        # Button i's lock-out is over: a level that differs then is an event at its end.
        self._lock[i] = 0
        self._nlock -= 1
        b = self._pbits[i]
        if (raw ^ st) & b:
            te = self._tadd(self._last[i], self._db)
            st ^= b
            self._last[i] = te
            self._lock[i] = 1
            self._nlock += 1
            self._publish(te, i, 1 if st & b else 0)
        return st

    def _set_due(self):
        # When poll() next has something to do on time alone: the anchor a second old,
        # or a lock-out ending (the samples up to it read).
        due = self._tadd(self._a_t, _FRESH_US)
        if self._nlock:
            lock = self._lock
            last = self._last
            for i in range(self.n):
                if lock[i]:
                    e = self._tadd(last[i], self._db + _MARGIN_US)
                    if self._tdiff(e, due) < 0:
                        due = e
        self._due = due

    # ---- main-loop side ----------------------------------------------------------------
    def poll(self, now=None):
        """Call every frame (drain() does): take what the DMA brought (if the handler
        has not), end lock-outs that are over, keep the time anchor fresh, restart the
        ring's DMA channel if its count ran out. Interrupts are switched off only when
        there is something to do; they do not delay a stamp here. On an ordinary frame
        it costs one clock read, one register read and two comparisons."""
        if not self._running:
            return
        t = self._ticks() if now is None else now
        if self._mem[self._tc] == self._seen and self._tdiff(t, self._due) < 0:
            return
        m = self._machine
        s = m.disable_irq()
        try:
            self._process()
            if self._pub_loop >= 0 and self._tdiff(t, self._pub_t) >= _BUMP_US:
                # No sample still to come can share that stamp's µs (R19): forget it,
                # before the 2**30 µs wrap makes an old stamp look like a recent one.
                self._pub_loop = -1
            self._expire_until((t - _MARGIN_US) & _MASK30)
            self._freshen((t - _MARGIN_US) & _MASK30)
            if not self._mem[self._ch_ctrl] & _CH_BUSY:  # the ring channel's count ran out
                self._retrigger()
            self._set_due()
        finally:
            m.enable_irq(s)

    def _expire_until(self, limit):
        # Every sample up to `limit` has been read: lock-outs ending by then are over.
        st = self._st
        for i in range(self.n):
            if self._lock[i] and self._tdiff(limit, self._last[i]) >= self._db:
                st = self._expire(i, st, self._rawp)
        self._st = st

    def _freshen(self, target):
        # Move the anchor up to `target` (every sample before it has been read).
        cpu = self._cpu
        while True:
            us = self._tdiff(target, self._a_t)
            if us < _FRESH_US // 2:
                return
            if us > 4000000:
                us = 4000000
            self._advance((us * cpu - self._a_f) // self._L)

    def _retrigger(self):
        # The ring channel did its _RING_COUNT transfers (~134 million changes): start it
        # again where it stopped. Counts are rebased to stay small ints.
        written = self._written()
        keep = written & (self._ring_words - 1)
        self._rd -= written - keep
        self._base = keep
        self._seen = -1
        self._mem[self._ch_trig] = _RING_COUNT

    def is_down(self, i):
        """Debounced level of button i (index into the pin map): True while pressed."""
        return bool(self._st & self._pbits[i])


def _forget_programs():
    import sys
    sys.modules.pop("firmware.hw.pio_programs", None)
    import firmware.hw
    if hasattr(firmware.hw, "pio_programs"):
        del firmware.hw.pio_programs

