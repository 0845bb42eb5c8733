# Feeds firmware/hw/buttons_pio.py's PioCapture the words its sampler pushes, without a
# PIO: a fake DMA ring, the ring channel's transfer count, FDEBUG, the clock. Runs under
# the real MicroPython unix interpreter (the handler's work under heap_lock) and under
# CPython; prints one "RESULT <json>" line per case for tests/hw/test_buttons_pio_stream.py.
#
#   MICROPYPATH=<repo> micropython -X heapsize=150K tests/mp/pio_stream_driver.py
#   PYTHONPATH=<repo>  python tests/mp/pio_stream_driver.py
#
# The model: loop l of the sampler samples at ticks T0 + (F0 + l * L) // CPU (L cycles a
# loop, CPU cycles a µs); on a change it pushes (1 << 29 | pressed << (29 - n)) and
# ((-l) mod 2**29).

import sys
from array import array

try:
    import json
except ImportError:
    import ujson as json

MICROPYTHON = sys.implementation.name == "micropython"
PERIOD = 1 << 30
MASK29 = (1 << 29) - 1
RING_COUNT = 0x0FFFFFFF
CH_SETTINGS = 0x0009  # the ring channel's CTRL keeps EN and its DATA_SIZE; BUSY is bit 24
TC, FDEBUG, CH_CTRL, TRIG = 0x100, 0x104, 0x108, 0x10C
FRESH_US = 1000000  # poll() keeps the time anchor within this of now
CPU = 125
T0 = PERIOD - 2_000_000  # 2 s before the ticks wrap
F0 = 37

from firmware.boards import pico  # noqa: E402
from firmware.hw.buttons_pio import PioCapture  # noqa: E402


class FakeMem:
    def __init__(self):
        self.regs = {TC: RING_COUNT, FDEBUG: 0, CH_CTRL: CH_SETTINGS | 1 << 24}
        self.triggers = 0
        self.on_trigger = None

    def __getitem__(self, addr):
        return self.regs[addr]

    def __setitem__(self, addr, value):
        if addr == FDEBUG:
            self.regs[FDEBUG] &= ~value  # write 1 to clear
        elif addr == TRIG:  # TRANS_COUNT_TRIG: the channel runs again for `value` words
            self.regs[TC] = value
            self.regs[CH_CTRL] = CH_SETTINGS | 1 << 24
            self.triggers += 1
            if self.on_trigger:
                self.on_trigger()
        else:
            self.regs[addr] = value


class FakeMachine:
    disabled = [0]

    @staticmethod
    def disable_irq():
        FakeMachine.disabled[0] += 1
        return 0

    @staticmethod
    def enable_irq(state):
        FakeMachine.disabled[0] -= 1


class Sampler:
    """The PIO and its DMA ring as the capture sees them."""

    def __init__(self, ring_words=256, debounce_us=10000, t0=T0, f0=F0):
        self.t0 = t0
        self.f0 = f0
        self.now = [t0]
        cap = PioCapture(pico.BUTTONS, debounce_us, ring_words=ring_words, cycles_per_us=CPU,
                         ticks_us=self.ticks)
        self.mem = FakeMem()
        cap._mem = self.mem
        cap._machine = FakeMachine
        cap._ring = array("i", [0] * ring_words)
        cap._ofs = 0
        cap._tc = TC
        cap._fdebug = FDEBUG
        cap._stall = 1
        cap._ch_ctrl = CH_CTRL
        cap._ch_trig = TRIG
        cap._timebase(t0, f0)
        cap._running = True
        self.cap = cap
        self.n = ring_words
        self.written = 0
        self.state = 0
        self.loop = 0
        self.fifo = []  # words the PIO holds while the ring channel is stopped
        self.mem.on_trigger = self.flush

    def ticks(self):
        return self.now[0]

    def stamp(self, loop):
        return (self.t0 + (self.f0 + loop * self.cap._L) // CPU) % PERIOD

    def time_of(self, loop):
        """Set the clock to just after loop `loop`'s sample."""
        self.now[0] = (self.stamp(loop) + 2) % PERIOD

    def push(self, word):
        if self.mem.regs[TC] == 0:  # the ring channel ran out: the word waits in the FIFO
            self.fifo.append(word)
            return
        self.cap._ring[self.written % self.n] = word
        self.written += 1
        self.mem.regs[TC] -= 1
        if self.mem.regs[TC] == 0:
            self.mem.regs[CH_CTRL] = CH_SETTINGS  # no longer busy

    def flush(self):
        words = self.fifo
        self.fifo = []
        for w in words:
            self.push(w)

    def sample(self, loop, pressed):
        """The sampler saw `pressed` (bits in pin-map order) at `loop`: it pushes a pair."""
        bits = 0
        for i in range(self.cap.n):
            if pressed & (1 << i):
                bits |= self.cap._pbits[i]
        self.push(1 << 29 | bits << (29 - self.cap.n))
        self.push((-loop) & MASK29)

    def irq(self):
        self.cap._irq(None)


def ev(events):
    return [[e[0], e[1], e[2], 1 if e[3] else 0] for e in events]


def loops_for_us(us):
    return us * CPU // 17


# ---- cases ----------------------------------------------------------------------------

def case_stamps():
    s = Sampler()
    out = []
    expected = []
    for k, (loop, pressed) in enumerate(((1000, 1), (80000, 0), (160000, 2), (240000, 0))):
        s.sample(loop, pressed)
        s.time_of(loop)
        s.irq()
        expected.append(s.stamp(loop))
    s.now[0] = (s.now[0] + 30000) % PERIOD
    out = ev(s.cap.drain())
    return {"events": out, "expected": expected, "errors": s.cap.errors}


def case_sub_us():
    # Samples 1 and 2 loops apart inside one µs: ordered stamps, one µs apart; the same
    # sample for two buttons: one stamp. A third button one loop later: the µs after.
    s = Sampler()
    base = 5000
    while s.stamp(base + 3) != s.stamp(base):  # four samples inside one µs
        base += 1
    s.sample(base, 1)        # P0 A
    s.sample(base + 1, 1 | 4)  # P1 A
    s.sample(base + 3, 1 | 4 | 2)  # P0 B
    s.time_of(base + 3)
    s.irq()
    s.sample(base + 200, 1 | 4 | 2 | 8)  # P1 B, a few µs later: its own stamp
    s.time_of(base + 200)
    s.irq()
    tie = Sampler()
    tie.sample(base, 1 | 4)  # P0 A and P1 A in one sample
    tie.time_of(base)
    tie.irq()
    return {"events": ev(s.cap.drain(poll=False)), "t": s.stamp(base),
            "late": s.stamp(base + 200), "tie": ev(tie.cap.drain(poll=False))}


def case_wrap():
    # The count wraps at 2**29 loops (~73 s): a press either side, and poll() between
    # keeping the anchor fresh, as the main loop does every frame.
    s = Sampler()
    edge = MASK29 - 40
    t = 0
    out = []
    while t < edge:  # frames of 1 s until just before the press
        t = min(t + loops_for_us(1000000), edge - 100)
        s.time_of(t)
        s.cap.drain(out)
        if t == edge - 100:
            break
    s.sample(edge, 1)
    s.sample(edge + 200, 3)  # count: (-(2**29 + 159)) & MASK29, wrapped
    s.time_of(edge + 200)
    s.irq()
    s.now[0] = (s.now[0] + 50000) % PERIOD
    s.cap.drain(out)
    return {"events": ev(out), "expected": [s.stamp(edge), s.stamp(edge + 200)]}


def case_silence():
    # 200 s without a word and without poll(): the handler counts the whole 2**29-loop
    # turns from ticks_us.
    s = Sampler()
    loop = loops_for_us(200000000) + 12345
    s.sample(loop, 8)
    s.time_of(loop)
    s.irq()
    return {"events": ev(s.cap.drain(poll=False)), "expected": s.stamp(loop)}


def case_silence_edges():
    # After a silence of one to five whole 2**29-loop turns, the handler places a sample
    # in the right turn whether it runs in the sample's own µs or as late as 2 µs before
    # the same loop count comes round again, whatever the loop count's remainder in a µs
    # (cycles per µs do not divide a loop's cycles). Each case: [turns, loop count past them,
    # when, stamps, expected]. The latest, five turns on and a turn late, is 511 s after
    # the anchor: inside the 2**29 µs ticks_diff can tell.
    out = []
    for turns in (1, 3, 5):
        for rest in (124, 3 * CPU + 61, 1000 * CPU + 124, MASK29 - 5):
            loop = turns * (MASK29 + 1) + rest
            for when in ("at once", "a turn later"):
                s = Sampler()
                s.sample(loop, 8)
                if when == "at once":
                    s.now[0] = s.stamp(loop)
                else:
                    s.now[0] = (s.stamp(loop + MASK29 + 1) - 2) % PERIOD
                s.irq()
                got = s.cap.drain(poll=False)
                out.append([turns, rest, when, [e[0] for e in got], s.stamp(loop)])
    return {"cases": out}


def case_a_period_later(late_by_us=500):
    # A release 2**30 µs less 500 µs after the press, with poll() every second between
    # (the main loop): the stamps' clock has wrapped once, so the release's stamp is
    # 500 µs before the press's. It is its own sample's µs, not moved past the press's
    # stamp as if the two samples were in the same µs (R19).
    s = Sampler()
    p = 1000
    s.sample(p, 1)
    s.time_of(p)
    s.irq()
    out = ev(s.cap.drain(poll=False))
    loop = p + (PERIOD - late_by_us) * CPU // s.cap._L
    while (s.stamp(loop) - s.stamp(p)) % PERIOD < PERIOD - late_by_us:
        loop += 1
    k = p
    second = loops_for_us(1000000)
    while k + second < loop - 100:
        k += second
        s.time_of(k)
        out += ev(s.cap.drain())
    s.sample(loop, 0)
    s.time_of(loop)
    s.irq()
    out += ev(s.cap.drain(poll=False))
    return {"events": out, "press": s.stamp(p), "release": s.stamp(loop)}


def case_other_fifo_flags():
    # FDEBUG also holds the other state machines' FIFO flags (and this one's TX and
    # RX-underflow flags): only this state machine's RXSTALL is a lost word; the
    # others are neither counted nor cleared.
    s = Sampler()
    others = (1 << 1) | (1 << 8) | (1 << 16) | (1 << 24)
    s.mem.regs[FDEBUG] = others
    s.sample(1000, 1)
    s.time_of(1000)
    s.irq()
    return {"events": ev(s.cap.drain()), "press": s.stamp(1000),
            "fifo": s.cap.fifo_overflows, "dropped": s.cap.dropped,
            "fdebug_left": s.mem.regs[FDEBUG] == others}


def case_lockout():
    # A release 3 ms after the press is inside the lock-out: it is an event exactly at
    # the lock-out's end; poll() ends it once the clock is past it. Bounces are counted.
    s = Sampler()
    p = 1000
    s.sample(p, 1)
    s.sample(p + loops_for_us(40), 0)      # bounce open
    s.sample(p + loops_for_us(90), 1)      # bounce closed
    s.sample(p + loops_for_us(3000), 0)    # the real release, swallowed
    s.time_of(p + loops_for_us(3000))
    s.irq()
    mid = ev(s.cap.drain())
    s.time_of(p + loops_for_us(9990))
    still = ev(s.cap.drain())
    s.time_of(p + loops_for_us(10100))
    after = ev(s.cap.drain())
    return {"mid": mid, "still": still, "after": after, "press": s.stamp(p),
            "bounces": list(s.cap.bounces), "irq_left_off": FakeMachine.disabled[0]}


def case_overflow():
    # 12 words into a ring of 8 before the handler runs: the 4 oldest are lost and
    # counted; a count word and a state word on their own are skipped and counted.
    s = Sampler(ring_words=8)
    for k in range(6):
        s.sample(1000 + loops_for_us(20000) * k, (k + 1) % 2)
    s.time_of(1000 + loops_for_us(20000) * 5)
    s.irq()
    first = ev(s.cap.drain(poll=False))
    lost = s.cap.lost_words
    dropped = s.cap.dropped
    s.push((-5) & MASK29)  # a count word alone (its state word dropped by the FIFO)
    s.sample(loops_for_us(200000), 4)
    s.push(1 << 29)        # a state word alone, then a whole pair
    s.sample(loops_for_us(300000), 0)
    s.time_of(loops_for_us(300000))
    s.irq()
    s.mem.regs[FDEBUG] = 1  # the PIO found the FIFO full
    s.irq()
    later = ev(s.cap.drain(poll=False))
    return {"first": first, "lost": lost, "dropped": dropped, "later": later,
            "lost_after": s.cap.lost_words, "fifo": s.cap.fifo_overflows,
            "dropped_after": s.cap.dropped,
            "expected": [s.stamp(1000 + loops_for_us(20000) * 2), s.stamp(loops_for_us(200000)),
                         s.stamp(loops_for_us(300000))]}


def case_lost_then_batch():
    # One run of the handler: a count word alone (its state word lost), a pair, a state
    # word alone (its count word lost), another pair. The lost words are counted and
    # skipped; both pairs after them are events of that same run.
    s = Sampler()
    a = loops_for_us(50000)
    b = loops_for_us(80000)
    s.push((-7) & MASK29)
    s.sample(a, 1)
    s.push(1 << 29)
    s.sample(b, 1 | 8)
    s.time_of(b)
    s.irq()
    return {"events": ev(s.cap.drain(poll=False)), "lost": s.cap.lost_words,
            "expected": [s.stamp(a), s.stamp(b)]}


def case_lockout_edge():
    # The press's lock-out (10 ms) ends at press + 10000 µs. A release sampled in that
    # very µs is no bounce: the handler emits it at once, with its sample's stamp. One
    # sampled in the µs before is a bounce, and comes out at the lock-out's end.
    out = {}
    for name, off in (("at_end", 10000), ("before_end", 9999)):
        s = Sampler()
        p = 1000
        s.sample(p, 1)
        s.time_of(p)
        s.irq()
        press = s.stamp(p)
        q = p
        while s.stamp(q) != (press + off) % PERIOD:
            q += 1
        s.sample(q, 0)
        s.time_of(q)
        s.irq()
        r = {"handler": ev(s.cap.drain(poll=False)), "bounces": list(s.cap.bounces),
             "press": press}
        s.now[0] = (press + 10100) % PERIOD
        r["later"] = ev(s.cap.drain())
        out[name] = r
    return out


def case_idle_frames(changes=0):
    # An ordinary frame's poll() switches no interrupt off and reads nothing but the
    # clock and the ring's count (also once the counts of words are past 256).
    s = Sampler()
    loop = 100
    for k in range(changes):
        loop += loops_for_us(20000)  # 20 ms apart: each after the last one's lock-out
        s.sample(loop, (k + 1) % 2)
        s.time_of(loop)
        s.irq()
        s.cap.drain(poll=False)
    s.time_of(loop + loops_for_us(30000))
    s.cap.drain()
    before = FakeMachine.disabled[0]
    calls = [0]
    real = s.cap._process

    def counted():
        calls[0] += 1
        real()
    s.cap._process = counted
    for f in range(20):
        s.now[0] = (s.now[0] + 33333) % PERIOD
        s.cap.drain()
    return {"process_calls": calls[0], "irq_left_off": FakeMachine.disabled[0] - before}


def case_lockout_due_bit_1():
    # The same with a lock-out ending on a µs whose bit 1 is set (+ 2 µs is then no
    # mere bit set).
    return case_lockout_due(odd=True)


def case_lockout_due(odd=False, debounce=10000):
    # poll() works on time alone only when a lock-out ends (its end + _MARGIN_US): a
    # press (handler), a release swallowed by its lock-out, then another button's press
    # taken by poll(); frames up to the first lock-out's end do nothing, and the one at
    # its end (+ 2 µs) emits the swallowed release at the lock-out's end.
    s = Sampler(debounce_us=debounce)
    p = 1000
    while odd and not (s.stamp(p) + debounce) & 2:
        p += 1
    s.sample(p, 1)
    s.time_of(p)
    s.irq()
    s.sample(p + loops_for_us(3000), 0)
    s.sample(p + loops_for_us(4000), 2)
    s.time_of(p + loops_for_us(4000))
    taken = ev(s.cap.drain())               # poll() reads the ring
    calls = [0]
    real = s.cap._process

    def counted():
        calls[0] += 1
        real()
    s.cap._process = counted
    press = s.stamp(p)
    quiet = []
    for off in list(range(4500, debounce + 1, 500)) + [debounce + 1]:
        s.now[0] = (press + off) % PERIOD
        quiet += ev(s.cap.drain())
    before = calls[0]
    s.now[0] = (press + debounce + 2) % PERIOD
    at_end = ev(s.cap.drain())
    return {"taken": taken, "quiet": quiet, "calls_before": before,
            "calls_at_end": calls[0] - before, "at_end": at_end, "press": press,
            "b": s.stamp(p + loops_for_us(4000)), "debounce": debounce}


def case_overlapping_lockouts():
    # P0 A pressed and held; P1 A pressed 1 ms later and released inside its lock-out.
    # When P0 A's lock-out ends nothing is due for it (it is still held, whatever the
    # other button's swallowed release); when P1 A's ends, that release comes out.
    s = Sampler()
    p = 1000
    q = p + loops_for_us(1000)
    s.sample(p, 1)
    s.sample(q, 1 | 4)
    s.sample(p + loops_for_us(2000), 1)
    s.time_of(p + loops_for_us(2000))
    s.irq()
    out = ev(s.cap.drain())
    s.time_of(p + loops_for_us(10100))
    first_end = ev(s.cap.drain())
    s.time_of(q + loops_for_us(10100))
    second_end = ev(s.cap.drain())
    return {"pressed": out, "first_end": first_end, "second_end": second_end,
            "p": s.stamp(p), "q": s.stamp(q), "down": [s.cap.is_down(i) for i in range(4)]}


def case_heap_lock():
    res = {"micropython": MICROPYTHON}
    if not MICROPYTHON:
        return res
    import micropython

    s = Sampler(ring_words=8)
    errors = [0]
    base = 5000
    micropython.heap_lock()
    try:
        try:
            s.sample(base, 1)
            s.sample(base + 1, 5)
            s.time_of(base + 1)
            s.irq()                       # two samples, a sub-µs order
            s.sample(base + loops_for_us(3000), 4)
            s.time_of(base + loops_for_us(3000))
            s.irq()                       # inside P0 A's lock-out: a release swallowed
            for k in range(6):            # the ring laps: words lost
                s.sample(base + loops_for_us(20000) * (k + 1), (k + 1) % 2)
            s.time_of(base + loops_for_us(20000) * 6)
            s.irq()
            s.mem.regs[FDEBUG] = 1
            s.irq()
            s.now[0] = (s.now[0] + 50000) % PERIOD
            s.cap.poll()                  # a lock-out ends, the anchor moves on
        except MemoryError:
            errors[0] += 1
    finally:
        micropython.heap_unlock()
    res["memory_errors"] = errors[0]
    res["handler_errors"] = s.cap.errors
    res["events"] = len(s.cap.drain(poll=False))
    res["lost"] = s.cap.lost_words
    return res


def counting(cap):
    """Count the capture's _process() runs (the work poll() does only when it must)."""
    calls = [0]
    real = cap._process

    def counted():
        calls[0] += 1
        real()
    cap._process = counted
    return calls


def case_handler_due(debounce=10000):
    # A press and its release inside the lock-out, both taken by the handler: no poll()
    # read the ring since, so the handler itself says when poll() has work: at the
    # lock-out's end + 2 µs (samples that recent may not be in the ring yet), no sooner.
    return handler_due(Sampler(debounce_us=debounce), 1000, debounce)


def case_handler_due_a_us_before_fresh():
    # The same when the lock-out ends (+ 2 µs) one µs before the wake a poll() already
    # set for the time anchor: poll() has work at the lock-out's end, not 1 µs later.
    s = Sampler()
    s.now[0] = (T0 + 600000) % PERIOD
    s.cap.drain()
    k = ((600000 - 2) * CPU - F0) // s.cap._L  # the anchor's loop (see case_fresh_due)
    wake = (s.stamp(k) + FRESH_US) % PERIOD
    target = (wake - 1 - 2 - 10000) % PERIOD
    elapsed = (target - T0) % PERIOD
    p = -((F0 - elapsed * CPU) // s.cap._L)  # the first loop sampled in that µs
    r = handler_due(s, p, 10000)
    r["target"] = target
    return r


def handler_due(s, p, debounce):
    s.sample(p, 1)
    s.time_of(p)
    s.irq()
    s.sample(p + loops_for_us(3000), 0)
    s.time_of(p + loops_for_us(3000))
    s.irq()
    handled = ev(s.cap.drain(poll=False))
    calls = counting(s.cap)
    press = s.stamp(p)
    quiet = []
    for off in range(debounce - 10, debounce + 2):
        s.now[0] = (press + off) % PERIOD
        quiet += ev(s.cap.drain())
    before = calls[0]
    s.now[0] = (press + debounce + 2) % PERIOD
    at_end = ev(s.cap.drain())
    return {"handled": handled, "quiet": quiet, "calls_before": before,
            "calls_at_end": calls[0] - before, "at_end": at_end, "press": press}


def case_handler_due_debounce_bit_1():
    # The same with a debounce time whose bit 1 is set: its end + 2 µs is no mere bit set.
    return case_handler_due(debounce=10002)


def case_fresh_due(after_us=600000, f0=F0):
    # With nothing pressed, poll() works only to keep the time anchor fresh: a frame
    # moves it to the last sample before now - 2 µs (once it is half a second old), and
    # the next frame with work is the one FRESH_US after that sample, which moves it on
    # again (so the frame after it has none).
    s = Sampler(f0=f0)
    first = (T0 + after_us) % PERIOD
    s.now[0] = first
    s.cap.drain()
    # The model's anchor: the last loop sampled by first - 2 µs, or still loop 0 if
    # that was less than half a second after it.
    k = 0
    if after_us - 2 >= FRESH_US // 2:
        k = ((after_us - 2) * CPU - f0) // s.cap._L
    anchor = s.stamp(k)
    calls = counting(s.cap)
    wake = (anchor + FRESH_US) % PERIOD
    s.now[0] = (wake - 1) % PERIOD
    s.cap.drain()
    before = calls[0]
    s.now[0] = wake
    s.cap.drain()
    at_wake = calls[0] - before
    s.now[0] = (wake + 1) % PERIOD
    s.cap.drain()
    after = calls[0] - before - at_wake
    return {"before": before, "at_wake": at_wake, "after": after}


def case_release_beside_held():
    # P0 A pressed, then P0 B, then P0 A released while B is still held: a release.
    s = Sampler()
    a = 1000
    b = a + loops_for_us(20000)
    r = a + loops_for_us(40000)
    for loop, pressed in ((a, 1), (b, 1 | 2), (r, 2)):
        s.sample(loop, pressed)
        s.time_of(loop)
        s.irq()
    return {"events": ev(s.cap.drain(poll=False)),
            "expected": [[s.stamp(a), 0, "A", 1], [s.stamp(b), 0, "B", 1], [s.stamp(r), 0, "A", 0]],
            "down": [s.cap.is_down(i) for i in range(4)]}


def case_two_lone_count_words():
    # Two count words in a row (both their state words lost), then a whole pair: the
    # two are skipped and counted, never read as a sample of their own.
    s = Sampler()
    s.push((-3) & MASK29)
    s.push((-5) & MASK29)
    a = loops_for_us(70000)
    s.sample(a, 4)
    s.time_of(a)
    s.irq()
    return {"events": ev(s.cap.drain(poll=False)), "lost": s.cap.lost_words,
            "expected": [[s.stamp(a), 1, "A", 1]]}


def case_retrigger(base=0):
    # The ring channel's count runs out (after ~134 million changes) with a state word
    # the last it wrote; its count word waits in the FIFO. The next frame's poll() starts
    # the channel again where it stopped, and the pair comes out whole.
    s = Sampler()
    start = RING_COUNT - 3  # as if that many words had come and gone
    s.written = start + base  # the DMA's place: `base` words past the ring's start
    s.cap._base = base
    s.cap._rd = start + base
    s.mem.regs[TC] = 3
    a = loops_for_us(50000)
    b = a + loops_for_us(100)  # inside a's lock-out: nothing else is due before it ends
    s.sample(a, 1)       # two words: 1 left
    s.sample(b, 1 | 8)   # the state word is the last; the count word waits
    s.time_of(b)
    s.irq()
    handled = ev(s.cap.drain(poll=False))
    stopped = s.mem.regs[TC]
    s.now[0] = (s.now[0] + 20) % PERIOD
    s.cap.drain()
    triggers = s.mem.triggers
    s.now[0] = (s.now[0] + 20) % PERIOD
    s.irq()
    later = ev(s.cap.drain())
    return {"handled": handled, "stopped": stopped, "triggers": triggers, "later": later,
            "lost": s.cap.lost_words, "dropped": s.cap.dropped,
            "expected": [[s.stamp(a), 0, "A", 1], [s.stamp(b), 1, "B", 1]]}


def case_retrigger_rebased():
    # The same after an earlier restart left the counts rebased 5 words on: the ring
    # position the channel stops at is then not the ring's last word.
    return case_retrigger(base=5)


def case_first_samples():
    # The very first samples after start (loops 0, 1, 2): each press has its sample's
    # own stamp, whatever no earlier event left behind.
    out = {}
    for loop in (0, 1, 2):
        s = Sampler()
        s.sample(loop, 2)
        s.time_of(loop)
        s.irq()
        out[str(loop)] = {"events": ev(s.cap.drain(poll=False)),
                          "expected": [[s.stamp(loop), 0, "B", 1]]}
    return out


def case_bounce_counts_its_own_button():
    # P1 A and P0 B pressed together, both in their lock-outs; P0 B bounces twice:
    # the bounces are P0 B's alone.
    s = Sampler()
    p = 1000
    s.sample(p, 4 | 2)
    s.sample(p + loops_for_us(40), 4)
    s.sample(p + loops_for_us(90), 4 | 2)
    s.time_of(p + loops_for_us(90))
    s.irq()
    return {"events": ev(s.cap.drain(poll=False)), "bounces": list(s.cap.bounces),
            "press": s.stamp(p)}


def case_time_base_across_a_microsecond():
    # Calibration may place loop 0's sample a few cycles before the µs of the timer
    # read it was taken from (or a whole µs of cycles after it): the time base moves
    # to the µs the sample is in, across the tick wrap too (either way: the µs after
    # the last one, 2**30 - 1, is 0).
    out = {}
    for name, t0, f0 in (("before", T0, -3), ("before_at_0", 0, -3), ("after", T0, CPU + 5),
                         ("after_at_top", PERIOD - 1, CPU + 5)):
        s = Sampler(t0=t0, f0=f0)
        got = []
        expected = []
        for k, loop in enumerate((0, 1 + loops_for_us(20000), 2 + loops_for_us(40000))):
            s.sample(loop, 1 if k % 2 == 0 else 0)
            s.time_of(loop)
            s.irq()
            expected.append(s.stamp(loop))
            s.now[0] = (s.now[0] + 20000) % PERIOD
            got += [e[0] for e in ev(s.cap.drain())]
        out[name] = {"stamps": got, "expected": expected}
    return out


def case_lockout_after_a_swallowed_change():
    # A release swallowed by the press's lock-out comes out at its end and starts a
    # lock-out of its own: a bounce closed 1 ms after that is a bounce, not a press.
    s = Sampler()
    p = 1000
    s.sample(p, 1)
    s.sample(p + loops_for_us(3000), 0)       # the release, inside the lock-out
    s.time_of(p + loops_for_us(3000))
    s.irq()
    press = s.stamp(p)
    s.now[0] = (press + 10500) % PERIOD
    first = ev(s.cap.drain())                 # the press, and the release at the end
    q = p + loops_for_us(11000)
    s.sample(q, 1)                            # a bounce 1 ms after the lock-out's end
    s.sample(q + loops_for_us(40), 0)
    s.time_of(q + loops_for_us(40))
    s.irq()
    s.now[0] = (press + 30000) % PERIOD
    later = ev(s.cap.drain())
    return {"first": first, "later": later, "press": press, "bounces": list(s.cap.bounces)}


CASES = {
    "stamps": case_stamps,
    "sub_us": case_sub_us,
    "wrap": case_wrap,
    "silence": case_silence,
    "silence_edges": case_silence_edges,
    "a_period_later": case_a_period_later,
    "other_fifo_flags": case_other_fifo_flags,
    "lockout": case_lockout,
    "overflow": case_overflow,
    "idle_frames": case_idle_frames,
    "idle_frames_after_many": lambda: case_idle_frames(150),
    "lockout_due": case_lockout_due,
    "lockout_due_bit_1": case_lockout_due_bit_1,
    "lockout_due_debounce_bit_1": lambda: case_lockout_due(debounce=10002),
    "overlapping_lockouts": case_overlapping_lockouts,
    "heap_lock": case_heap_lock,
    "lost_then_batch": case_lost_then_batch,
    "lockout_edge": case_lockout_edge,
    "handler_due": case_handler_due,
    "fresh_due": case_fresh_due,
    "fresh_due_young_anchor": lambda: case_fresh_due(400000),
    "fresh_due_at_ticks_0": lambda: case_fresh_due(2000000),
    "fresh_due_at_ticks_1": lambda: case_fresh_due(2000001),
    # a time base given a cycle before its µs (calibration's middle, less the pads'
    # synchroniser, can fall there): loop 0 is in the µs before
    "fresh_due_time_base_before_its_us": lambda: case_fresh_due(400000, f0=-1),
    # ... or a cycle past its µs (the window's middle can be up to cpu + 1)
    "fresh_due_time_base_past_its_us": lambda: case_fresh_due(400000, f0=CPU + 1),
    "release_beside_held": case_release_beside_held,
    "two_lone_count_words": case_two_lone_count_words,
    "retrigger": case_retrigger,
    "retrigger_rebased": case_retrigger_rebased,
    "handler_due_debounce_bit_1": case_handler_due_debounce_bit_1,
    "handler_due_a_us_before_fresh": case_handler_due_a_us_before_fresh,
    "first_samples": case_first_samples,
    "bounce_counts_its_own_button": case_bounce_counts_its_own_button,
    "time_base_across_a_microsecond": case_time_base_across_a_microsecond,
    "lockout_after_a_swallowed_change": case_lockout_after_a_swallowed_change,
}


def main(argv):
    for name in argv[1:] or sorted(CASES):
        try:
            r = CASES[name]()
            r["case"] = name
        except Exception as e:
            r = {"case": name, "error": "%s: %s" % (type(e).__name__, e)}
        print("RESULT " + json.dumps(r))


main(sys.argv)
