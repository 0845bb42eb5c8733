# What both button captures share (the input port, DESIGN.md "ports"):
#   ButtonCapture  hard GPIO interrupts stamp ticks_us() (any MicroPython board; buttons.py)
#   PioCapture     a PIO state machine samples every button each ~0.1 µs and a DMA ring
#                  keeps the samples while interrupts are off (rp2 only; buttons_pio.py)
# buttons.start_capture(buttons, debounce_us, machine) returns the best one the board
# allows. Both build on this module, which imports neither, so neither imports the other
# to get at it.
#
# Both: events come out of drain(out) as (t_us, player, button, down): t_us = the
# ticks_us() stamp (wraps at 2**30; compare with ticks_diff, e.g.
# shared_rules.arbiter.ticks_diff), player 0/1, button = the name from the pin map
# ("A", "B", ...), down = True for a press, False for a release. Equal stamps are a tie
# (RULES.md R21) and their order in the list means nothing. `dropped` counts events the
# ring (or the hardware behind it) could not keep; never silent. `errors` counts
# exceptions the interrupt handler caught, `rearmed` interrupts check() switched back on.

from array import array

from shared_rules.arbiter import ticks_diff as _shared_ticks_diff
from shared_rules.arbiter import ticks_add as _shared_ticks_add

from shared_rules.compat import const


# Stamps follow the project's clock port: microseconds wrapping at 2**30 (MicroPython's
# ticks period on 32-bit ports such as rp2). On the device time.ticks_us/ticks_diff are
# used as they are; elsewhere (CPython, the 64-bit unix port, whose ticks wrap at 2**62)
# the clock is folded to 2**30 and compared with the same arithmetic in Python.
_PERIOD_MASK = const(0x3FFFFFFF)


ticks_diff30 = _shared_ticks_diff   # the 2**30 arithmetic, off the device
# Sums of stamps go through ticks_add, never (t + d) & mask: on the device t + d reaches
# 2**30 near the wrap, which is a heap int, and an interrupt handler may not allocate.
ticks_add = _shared_ticks_add


try:
    from time import ticks_add as _ticks_add
    from time import ticks_us as _time_ticks_us

    if _ticks_add(0, -1) == _PERIOD_MASK:  # period 2**30: the device
        from time import ticks_diff

        ticks_us = _time_ticks_us
        ticks_add = _ticks_add
    else:  # unix port: fold its wider ticks to the project's 2**30

        def ticks_us():
            return _time_ticks_us() & _PERIOD_MASK

        ticks_diff = ticks_diff30
except ImportError:  # CPython
    import time as _time

    def ticks_us():
        return (_time.perf_counter_ns() // 1000) & _PERIOD_MASK

    ticks_diff = ticks_diff30


# Highest GPIO accepted: keeps the mask (and every masked read) a small int on a
# 32-bit port, where ints of 2**30 and up are heap objects.
_MAX_GPIO = const(29)
# debounce_us stays below this: ButtonCapture retires lock-outs older than it (with its
# own copy of the number, inlined in its interrupt handler).
RETIRE_US = const(1 << 28)


class Capture:
    """What both captures share: the pin map, the event ring and its drain, counters."""

    def __init__(self, pins, debounce_us, size):
        n = len(pins)
        if n < 1 or n > _MAX_GPIO + 1:
            raise ValueError("1..30 buttons")
        if size < 1:
            raise ValueError("size must be >= 1")
        if debounce_us < 0 or debounce_us >= RETIRE_US:
            raise ValueError("debounce_us out of range")
        seen = 0
        for gpio, _player, _name in pins:
            if gpio < 0 or gpio > _MAX_GPIO:
                raise ValueError("gpio out of range: %d" % gpio)
            if seen & (1 << gpio):
                raise ValueError("gpio used twice: %d" % gpio)
            seen |= 1 << gpio
        self.n = n
        self.players = tuple(p[1] for p in pins)
        self.names = tuple(p[2] for p in pins)
        self.gpios = tuple(p[0] for p in pins)
        self._db = debounce_us
        # Ring: `size` events; one spare slot tells full from empty. The interrupt side
        # is the only writer of the slots and of _head; the main loop the only writer of
        # _tail.
        self._slots = size + 1
        self._ev_t = array("i", [0] * self._slots)  # stamps (< 2**30, fit in 'i')
        self._ev_c = bytearray(self._slots)  # (button index << 1) | down
        self._head = 0
        self._tail = 0
        self._last = array("i", [0] * n)  # stamp of each button's last accepted edge
        self._lock = bytearray(n)  # 1 while that button's lock-out may be running
        # Counters, for the self-test screen and the app.
        self.dropped = 0
        self.errors = 0
        self.rearmed = 0
        self.presses = array("i", [0] * n)
        self.bounces = array("i", [0] * n)
        self.kind = "?"
        self.why = ""        # why start_capture did not give the PIO capture, if it did not

    def drain(self, out=None, poll=True):
        """Append every captured event, oldest first, to `out` (a new list if None) as
        (t_us, player, button, down) and return it. Polls first unless poll=False."""
        if out is None:
            out = []
        if poll:
            self.poll()
        h = self._head  # one read: events published after it wait for the next drain
        t = self._tail
        slots = self._slots
        while t != h:
            c = self._ev_c[t]
            i = c >> 1
            out.append((self._ev_t[t], self.players[i], self.names[i], bool(c & 1)))
            t += 1
            if t == slots:
                t = 0
        self._tail = t  # frees the slots for the interrupt side
        return out

    def pending(self):
        """Events waiting in the ring."""
        d = self._head - self._tail
        return d + self._slots if d < 0 else d

    def _publish(self, t, i, down):
        # Interrupt side (or poll() with interrupts off): no allocation.
        if down:
            self.presses[i] += 1
        h = self._head
        nh = h + 1
        if nh == self._slots:
            nh = 0
        if nh == self._tail:
            self.dropped += 1  # full: lose the new event, keep the unread ones
        else:
            self._ev_t[h] = t
            self._ev_c[h] = (i << 1) | down
            self._head = nh  # publish only after the slot is written

    def poll(self, now=None):
        pass

    def check(self):
        """Re-arm an interrupt MicroPython switched off; -> how many were (also added to
        `rearmed`)."""
        return 0
