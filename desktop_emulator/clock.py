"""The clock port: ``ticks_us()`` in microseconds, wrapping at 2**30 like MicroPython's.

Two clocks:

- :class:`PerfClock` folds ``time.perf_counter_ns()`` into µs ticks (the window and
  the terminal demo). ``start_near_wrap=True`` shifts it so that it reads just before
  2**30 when it is made: the wrap happens a few seconds into the session, where it is
  seen rather than after 18 minutes.
- :class:`SimClock` only moves when told to (headless runs, replays, tests): every run
  on it is deterministic and takes no wall time.

Both have ``ticks_us()`` (the port) and ``elapsed_us()`` (µs since the start, never
wrapping, for the emulator's own bookkeeping).
"""

import time

# One home for the tick arithmetic: the rules core's (MicroPython's time.ticks_diff).
from shared_rules.arbiter import ticks_diff, ticks_add, TICKS_PERIOD  # noqa: F401
from host import clock as _host

TICKS_MASK = TICKS_PERIOD - 1
#: How far before the wrap a clock started with ``start_near_wrap`` begins.
NEAR_WRAP_LEAD_US = 2_000_000


def start_ticks(start_near_wrap=False, lead_us=NEAR_WRAP_LEAD_US):
    """The tick count a clock begins at."""
    return (TICKS_PERIOD - lead_us) & TICKS_MASK if start_near_wrap else 0


class PerfClock:
    """Real time: ``perf_counter_ns`` folded to µs ticks wrapping at 2**30."""

    def __init__(self, start_near_wrap=False, lead_us=NEAR_WRAP_LEAD_US, now_ns=None,
                 start=None):
        self._now_ns = now_ns if now_ns is not None else time.perf_counter_ns
        self._t0 = self._now_ns() // 1000
        self.start = (start if start is not None
                      else start_ticks(start_near_wrap, lead_us)) & TICKS_MASK
        self._frozen_at = None   # elapsed_us when frozen
        self._lost = 0           # µs spent frozen: they never happened

    def elapsed_us(self):
        if self._frozen_at is not None:
            return self._frozen_at
        return self._now_ns() // 1000 - self._t0 - self._lost

    def freeze(self):
        """Stop time (the emulator's pause): ticks stand still until thaw()."""
        if self._frozen_at is None:
            self._frozen_at = self.elapsed_us()

    def thaw(self):
        if self._frozen_at is not None:
            self._lost = self._now_ns() // 1000 - self._t0 - self._frozen_at
            self._frozen_at = None

    def ticks_us(self):
        return (self.start + self.elapsed_us()) & TICKS_MASK


class SimClock(_host.SimClock):
    """Simulated time (the host floor's), which can also start just before the wrap."""

    def __init__(self, start=None, start_near_wrap=False, lead_us=NEAR_WRAP_LEAD_US):
        if start is None:
            start = start_ticks(start_near_wrap, lead_us)
        _host.SimClock.__init__(self, start)
