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
        return self.ticks_at(self.wire.now)

    def ticks_at(self, true_us):
        """What this clock read at the wire's true time true_us."""
        t = true_us - self.base
        return (self.start + t + t * self.ppm // 1000000) & _MASK

    @property
    def now(self):
        return self.ticks_us()


QUIET_US = 22                    # the edge watcher's quiet line (firmware/hw/link_uart.py)


class SimEdges:
    """The PIO edge stamps of a device's two link pins (firmware/hw/link_uart.py's
    LinkEdges): the start of each frame sent on a line idle for QUIET_US, stamped exactly
    on the device's own clock, on its TX pin as it leaves and on the peer's RX pin as it
    arrives (after the wire's latency)."""

    def __init__(self, wire, clock):
        self.wire = wire
        self.clock = clock
        self.events = []             # [true time, "TX" | "RX"], in time order
        self.dropped = 0

    def add(self, true_us, which):
        ev = self.events
        k = len(ev)
        while k and ev[k - 1][0] > true_us:
            k -= 1
        ev.insert(k, [true_us, which])

    def frame_starts(self, out=None):
        if out is None:
            out = []
        ev = self.events
        k = 0
        while k < len(ev) and ev[k][0] <= self.wire.now:
            out.append((self.clock.ticks_at(ev[k][0]), ev[k][1]))
            k += 1
        del ev[:k]
        return out


class _End:
    def __init__(self, wire, k, uid):
        self.wire = wire
        self.k = k
        self.uid = uid
        self.inq = []                # [arrival true time, byte]
        self.line_free = 0           # when this end's TX line is free again
        self.written = 0
        self.edges = None            # a SimEdges, when the pair stamps edges

    def write(self, buf):
        w = self.wire
        other = w.ends[1 - self.k]
        t = self.line_free if self.line_free > w.now else w.now
        if buf and t - self.line_free >= QUIET_US:
            if self.edges is not None:
                self.edges.add(t, "TX")
            if other.edges is not None and not (w.cut_from <= t < w.cut_until or w.unplugged):
                other.edges.add(t + w.latency_us, "RX")
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


class _PadInput:
    """A player's hand on a linked device: presses land on the device's own pad (0),
    whichever player of the game that device is, stamped no earlier than the device's
    clock reads (a CPU hand may plan a press for a moment already past; a finger
    cannot touch in the past)."""

    def __init__(self, inp, clock):
        self.inp = inp
        self.clock = clock

    def press(self, t, player, button, hold_us=60000):
        now = self.clock.ticks_us()
        if (t - now) & _MASK >= 0x20000000:
            t = now
        self.inp.press(t, 0, button, hold_us)


class LinkedPair:
    """Two apps on simulated devices joined by a SimWire: devs[k] has .clock (a
    DeviceClock, ppm[k] off), .inp, .disp, .app. step_ms() moves the true time on a
    millisecond, polls both links and steps each app when its own frame is due."""

    def __init__(self, framebuf_module, seed=1, ppm=(0, 0), starts=(1000, 700000000),
                 frame_us=33333, edges=False, **wire_kw):
        from firmware.app import App, Ports
        from host.ports import ScriptInput, Panel, LogSound, MemoryStorage
        self.wire = SimWire(seed=seed, **wire_kw)
        self.frame_us = frame_us
        self.edges = edges           # both ends stamp frame starts (SimEdges)
        self.devs = []
        for k in (0, 1):
            self.devs.append(self._device(k, App, Ports, ScriptInput, Panel, LogSound,
                                          MemoryStorage, framebuf_module, starts[k], ppm[k]))
        self.hands = []

    def _device(self, k, App, Ports, ScriptInput, Panel, LogSound, MemoryStorage, fbm,
                start, ppm):
        class Dev:
            pass
        d = Dev()
        d.clock = DeviceClock(self.wire, start, ppm)
        if self.edges:
            self.wire.ends[k].edges = SimEdges(self.wire, d.clock)
        d.inp = ScriptInput(d.clock)
        d.pad = _PadInput(d.inp, d.clock)
        d.disp = Panel(fbm)
        d.storage = MemoryStorage()
        d.app = App(Ports(d.inp, d.disp, LogSound(keep=False), d.storage, d.clock,
                          self.wire.ends[k]), now_us=d.clock.now)
        d.next_t = d.clock.now
        d.framebuf = fbm
        return d

    def restart(self, k):
        """Device k loses power and starts again (a fresh app, the same id)."""
        from firmware.app import App, Ports
        from host.ports import ScriptInput, Panel, LogSound, MemoryStorage
        old = self.devs[k]
        self.wire.ends[k].inq = []
        fresh = self._device(k, App, Ports, ScriptInput, Panel, LogSound, MemoryStorage,
                             old.framebuf, 0, old.clock.ppm)
        fresh.clock.base = self.wire.now
        fresh.next_t = fresh.clock.now
        self.devs[k] = fresh
        return fresh

    def step_ms(self, n=1):
        for _ in range(n):
            self.wire.now += 1000
            for d in self.devs:
                now = d.clock.now
                lp = d.app.linkplay
                if lp is not None:
                    lp.link.poll(now)           # the loop reads the link between frames
                if (now - d.next_t) & _MASK < 0x20000000:
                    d.next_t = (d.next_t + self.frame_us) & _MASK
                    for h in self.hands:
                        if h.app is d.app:
                            h.pump(now)
                    d.app.step(now)

    def run_until(self, cond, limit_ms):
        for ms in range(limit_ms):
            if cond():
                return ms
            self.step_ms()
        if cond():
            return limit_ms
        raise AssertionError("not reached in %d ms (simulated)" % limit_ms)


def start_linked_game(pair, levels=("hard", "hard"), seed=1, limit_ms=10000):
    """Both devices choose LINK PLAY, link, the authority starts a game from its menu
    (its B in the lobby); then a CPU hand plays each device's player. Returns the
    authority's device."""
    from host.rig import BotHand
    for d in pair.devs:
        if d.app.linkplay is None:
            d.app.link_play(d.clock.now)
    pair.run_until(lambda: all(d.app.linkplay.link.state == 1 for d in pair.devs), limit_ms)
    host = authority(pair)
    pair.run_until(lambda: host.app.linkplay.link.sync.synced(), limit_ms)
    host.inp.press(host.clock.now + 1000, 0, "B", 40000)
    pair.run_until(lambda: all(d.app.screen_name() == "game" for d in pair.devs), limit_ms)
    for d in pair.devs:
        me = d.app.linkplay.me
        pair.hands.append(BotHand(d.app, me, levels[me], seed * 2 + me, d.pad))
    return host


def authority(pair):
    for d in pair.devs:
        lp = d.app.linkplay
        if lp is not None and lp.link.authority:
            return d
    return None
