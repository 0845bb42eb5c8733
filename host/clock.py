# Simulated time for every host that does not run on the real clock (headless runs,
# replays, the browser's test mode, tests and tools): ticks_us() in µs wrapping at
# 2**30 like MicroPython's, moving only when told, so every run on it is deterministic
# and takes no wall time.

from shared_rules.arbiter import ticks_diff, TICKS_PERIOD

TICKS_MASK = TICKS_PERIOD - 1
#: A run on a simulated clock that has not ended after this much time is stuck.
MAX_SIM_US = 4 * 3600 * 1000000


class SimClock:
    """Starts at `start` ticks; advance(us) / advance_to_ticks(t) move it on.
    elapsed_us() counts from the start and never wraps. `now` reads the ticks, and
    setting it moves the clock to that tick (the nearest instant that reads it)."""

    frozen = False

    def __init__(self, start=0):
        self.start = start & TICKS_MASK
        self._elapsed = 0

    def ticks_us(self):
        return (self.start + self._elapsed) & TICKS_MASK

    def elapsed_us(self):
        return self._elapsed

    def advance(self, us):
        if us < 0:
            raise ValueError("a clock never goes back")
        self._elapsed += us
        return self.ticks_us()

    def advance_to_ticks(self, t):
        """Move forward to tick count t (the nearest future instant reading t)."""
        d = ticks_diff(t, self.ticks_us())
        if d < 0:
            raise ValueError("tick %d is in the past" % t)
        return self.advance(d)

    @property
    def now(self):
        return self.ticks_us()

    @now.setter
    def now(self, t):
        self._elapsed += ticks_diff(t & TICKS_MASK, self.ticks_us())
