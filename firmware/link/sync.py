# The peer's clock, as the authority sees it (R43). Each device counts microseconds on
# its own crystal: the two counters started at different moments (the offset) and
# tick at slightly different rates (the drift, up to a few hundred ppm). The authority
# asks the time now and then:
#
#   t1  it sends "what time is it?"          (its clock)
#   t2  the peer reads the question          (the peer's clock)
#   t3  the peer sends its answer            (the peer's clock)
#   t4  it reads the answer                  (its clock)
#
# The message spent (t4 - t1) - (t3 - t2) on the way there and back. If both ways took
# equally long, the peer's clock was ahead by ((t2 - t1) + (t3 - t4)) / 2; if not, that
# is wrong by at most half the round trip. So the quickest exchanges are the ones to
# trust (minimum round-trip filtering); a straight line through the trusted offsets
# over time gives the drift (a least-squares fit), and the bound says how far the
# estimate can be from the truth: half the slowest trusted round trip, plus how far
# the trusted samples stray from the line, plus what an unknown drift error could add
# since the last sample.
#
# Ints only (µs and parts per billion); the fit runs once per exchange, a few times a
# second, never in an interrupt.

from shared_rules.arbiter import ticks_diff, ticks_add

from shared_rules.compat import const

SAMPLES = const(24)              # exchanges remembered (at SYNC_US apart: a few seconds)
SPAN_US = const(300000)          # the drift is fitted over at least this much time
DRIFT_SLACK_PPB = const(20000)   # what the fitted drift may still be off by, 20 ppm
MAX_DRIFT_PPB = const(1000000)  # 1000 ppm: no crystal (or emulator) is further off
_MASK = const(0x3FFFFFFF)
_BILLION = 1000000000


class ClockSync:
    def __init__(self):
        self.reset()

    def reset(self):
        """The peer is new (or restarted): nothing is known of its clock."""
        self._s = []                 # [local midpoint, offset, round trip]
        self._k = 0
        self.t0 = 0                  # local time the fit is anchored at
        self.offset = 0              # peer - local at t0, µs
        self.drift_ppb = 0           # how much faster the peer's clock runs
        self.base_bound = -1         # the bound at t0 (-1: not synchronised yet)
        self.slope_slack_ppb = MAX_DRIFT_PPB
        self.rtt_min = -1
        self.rtt_last = -1
        self.exchanges = 0

    def synced(self):
        return self.base_bound >= 0

    def sample(self, t1, t2, t3, t4, line_us=0, jitter_us=0):
        """One timed exchange (t1, t4 on this clock; t2, t3 on the peer's). line_us:
        what the two frames spent on the line, known from their length (equal both
        ways, so it moves no offset; only the rest of the round trip is uncertain).
        jitter_us: edge stamps (t1 and t2 one edge on the wire, t3 and t4 another): the
        round trip is the wire's few ns plus how late each stamp was taken, and a late
        stamp on the sending side makes it negative. Its size, either way, is what one
        late stamp can move the offset by (twice over), and jitter_us is added for what
        the stamps' own jitter hides."""
        rtt = ticks_diff(t4, t1) - ticks_diff(t3, t2) - line_us
        if jitter_us:
            rtt = (-rtt if rtt < 0 else rtt) + 2 * jitter_us
        if rtt < 0 or ticks_diff(t4, t1) < 0:
            return False             # stamps out of order: not an answer to this question
        off = (ticks_diff(t2, t1) + ticks_diff(t3, t4)) // 2
        mid = ticks_add(t1, ticks_diff(t4, t1) // 2)
        rec = [mid, off, rtt]
        if len(self._s) < SAMPLES:
            self._s.append(rec)
        else:
            self._s[self._k] = rec
            self._k = (self._k + 1) % SAMPLES
        self.rtt_last = rtt
        self.exchanges += 1
        self._fit(mid)
        return True

    def _fit(self, newest):
        s = self._s
        dmin = s[0][2]
        for r in s:
            if r[2] < dmin:
                dmin = r[2]
        slack = dmin // 4 if dmin > 16 else 4
        use = [r for r in s if r[2] <= dmin + slack]
        n = len(use)
        t0 = newest
        xs = [ticks_diff(r[0], t0) for r in use]
        sx = 0
        sy = 0
        sxx = 0
        sxy = 0
        lo = xs[0]
        hi = xs[0]
        for i in range(n):
            x = xs[i]
            y = use[i][1]
            sx += x
            sy += y
            sxx += x * x
            sxy += x * y
            lo = x if x < lo else lo
            hi = x if x > hi else hi
        den = n * sxx - sx * sx
        span = hi - lo
        fitted = n >= 3 and span >= SPAN_US and den > 0
        if fitted:
            ppb = (n * sxy - sx * sy) * _BILLION // den
            if ppb > MAX_DRIFT_PPB:
                ppb = MAX_DRIFT_PPB
            elif ppb < -MAX_DRIFT_PPB:
                ppb = -MAX_DRIFT_PPB
        else:
            ppb = self.drift_ppb     # not enough spread yet: keep what was known
        b = (sy * _BILLION - ppb * sx) // (n * _BILLION)
        worst = 0
        maxd = 0
        for i in range(n):
            r = use[i][1] - (b + ppb * xs[i] // _BILLION)
            r = -r if r < 0 else r
            worst = r if r > worst else worst
            maxd = use[i][2] if use[i][2] > maxd else maxd
        self.t0 = t0
        self.offset = b
        self.drift_ppb = ppb
        self.rtt_min = dmin
        e = (maxd + 1) // 2 + worst + 1
        self.base_bound = e
        # A line through points each off by up to e, over `span`, may tilt by 2e/span;
        # a drift kept from before (too few trusted points to fit one) may be anything.
        self.slope_slack_ppb = DRIFT_SLACK_PPB + (
            2 * e * _BILLION // span if fitted else MAX_DRIFT_PPB)

    def offset_at(self, local_t):
        """peer - local at local time local_t."""
        dt = ticks_diff(local_t, self.t0)
        return self.offset + self.drift_ppb * dt // _BILLION

    def bound_at(self, local_t):
        """How far a converted stamp near local_t may be from the truth, µs."""
        dt = ticks_diff(local_t, self.t0)
        dt = -dt if dt < 0 else dt
        return self.base_bound + dt * self.slope_slack_ppb // _BILLION

    def to_local(self, peer_t):
        """A stamp of the peer's clock in this clock's ticks."""
        guess = (peer_t - self.offset) & _MASK
        return (peer_t - self.offset_at(guess)) & _MASK

    def to_peer(self, local_t):
        return (local_t + self.offset_at(local_t)) & _MASK
