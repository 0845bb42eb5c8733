# A simulated cable between two simulated devices, for tests and tools: the bytes of a
# link port (firmware/link/port.py) arrive at the line's real timing (10 bits a byte at
# `baud`, one after another, plus a fixed latency), with faults on demand: bytes dropped
# or flipped (the project's own seeded generator), the cable cut for a while. Each
# device reads its own clock, which may run fast or slow by some ppm against the
# wire's true time (the wire knows both, so a test knows the true offset).
#
# Everything moves only when the test moves `wire.now` (true µs): deterministic, no
# wall time. MicroPython-compatible like the rest of host/.

from shared_rules.rng import Rng

_MASK = 0x3FFFFFFF


class DeviceClock:
    """A device's µs ticks on a wire's true time: start + true * (1 + ppm / 10**6)."""

    def __init__(self, wire, start=0, ppm=0):
        self.wire = wire
        self.start = start
        self.ppm = ppm
        self.base = 0                # true time this clock was (re)started

    def ticks_us(self):
        t = self.wire.now - self.base
        return (self.start + t + t * self.ppm // 1000000) & _MASK

    @property
    def now(self):
        return self.ticks_us()


class _End:
    def __init__(self, wire, k, uid):
        self.wire = wire
        self.k = k
        self.uid = uid
        self.inq = []                # [arrival true time, byte]
        self.line_free = 0           # when this end's TX line is free again
        self.written = 0

    def write(self, buf):
        w = self.wire
        other = w.ends[1 - self.k]
        t = self.line_free if self.line_free > w.now else w.now
        for b in buf:
            t += w.byte_us
            self.written += 1
            if w.cut_from <= t < w.cut_until or w.unplugged:
                continue
            if w.drop_per_k and w.rng.below(1000) < w.drop_per_k:
                w.dropped += 1
                continue
            if w.flip_per_k and w.rng.below(1000) < w.flip_per_k:
                b ^= 1 << w.rng.below(8)
                w.flipped += 1
            other.inq.append([t + w.latency_us, b])
        self.line_free = t

    def readinto(self, buf):
        q = self.inq
        now = self.wire.now
        n = 0
        while n < len(buf) and n < len(q) and q[n][0] <= now:
            buf[n] = q[n][1]
            n += 1
        if n:
            del q[:n]
        return n


class SimWire:
    """Two link ports, ends[0] and ends[1], joined TX to RX."""

    def __init__(self, baud=115200, latency_us=20, seed=1, uids=(b"\x00\x01", b"\x00\x02")):
        self.now = 0
        self.byte_us = 10 * 1000000 // baud
        self.latency_us = latency_us
        self.rng = Rng(seed)
        self.drop_per_k = 0          # bytes in a thousand dropped
        self.flip_per_k = 0          # bytes in a thousand with a bit flipped
        self.cut_from = 0
        self.cut_until = 0
        self.unplugged = False
        self.dropped = 0
        self.flipped = 0
        self.ends = [_End(self, 0, uids[0]), _End(self, 1, uids[1])]
        for e in self.ends:
            e.byte_us = self.byte_us

    def cut(self, from_us, ms):
        self.cut_from = from_us
        self.cut_until = from_us + ms * 1000
        for e in self.ends:          # what was on the way in the cut is gone too
            e.inq = [x for x in e.inq if not from_us <= x[0] < self.cut_until]

    def inject(self, k, data):
        """Bytes arriving at end k now, from nowhere (garbage, a foreign frame)."""
        for b in data:
            self.ends[k].inq.append([self.now, b])
