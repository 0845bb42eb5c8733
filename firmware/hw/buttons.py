# Button capture: hard-IRQ edge stamping into a preallocated ring buffer.
#
# RP2040 (Pico) and RP2350 (Pico 2), MicroPython >= 1.22. Also imports and runs on
# CPython and the unix port with an injected fake `machine` (tests, tools/).
#
# What the interrupt does (DESIGN.md "Timing and fairness", RULES.md R19, R21):
#   1. stamp time.ticks_us() ONCE;
#   2. read the SIO GPIO_IN register ONCE (machine.mem32[0xd0000004]) and mask it to
#      the button bits, so every button is seen at that same instant;
#   3. for each button whose level differs from its debounced state and whose
#      lock-out has expired, record (stamp, button, down) in the ring. Buttons that
#      changed together get the SAME stamp: a tie for the arbiter, never "lower pin
#      first".
# The first edge is the touch; edges during the lock-out (debounce_us after an
# accepted edge) are counted in `bounces` and ignored. A level that still differs from
# the debounced state when the lock-out ends (a real release or press swallowed by the
# lock-out) is emitted by the next interrupt or by poll(), stamped at that moment.
#
# The handler allocates nothing (it runs with the heap locked): no tuples, lists,
# floats, f-strings or bound-method creation; only small-int arithmetic, array and
# bytearray item stores, and stores to attributes created in __init__.
#
# Main-loop side, every frame:
#     events = buttons.drain()            # polls first, then empties the ring
#     for t_us, player, button, down in events: ...
# Events are (t_us, player, button, down): t_us = the ticks_us() stamp (wraps at
# 2**30; compare with ticks_diff, e.g. shared_rules.arbiter.ticks_diff), player 0/1,
# button = the name from the pin map ("A", "B", ...), down = True for a press, False
# for a release. Events come out in stamp order; equal stamps are a tie and their
# order in the list means nothing.
#
# mem32 returns a heap-allocated int for words >= 2**30, which the handler cannot
# afford. RP2040's GPIO_IN has only bits 0-29, so its reads are always small ints. On
# an RP2350B (48 GPIOs) keep GPIO30/31 low or the handler will raise MemoryError and
# MicroPython will disable it; the Pico 2 (RP2350A) does not bond out GPIO30/31.

from array import array

from shared_rules.arbiter import ticks_diff as _shared_ticks_diff

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Stamps follow the project's clock port: microseconds wrapping at 2**30 (MicroPython's
# ticks period on 32-bit ports such as rp2). On the device time.ticks_us/ticks_diff are
# used as they are; elsewhere (CPython, the 64-bit unix port, whose ticks wrap at 2**62)
# the clock is folded to 2**30 and compared with the same arithmetic in Python.
_PERIOD_MASK = const(0x3FFFFFFF)


ticks_diff30 = _shared_ticks_diff   # the 2**30 arithmetic, off the device


try:
    from time import ticks_add as _ticks_add
    from time import ticks_us as _time_ticks_us

    if _ticks_add(0, -1) == _PERIOD_MASK:  # period 2**30: the device
        from time import ticks_diff as _ticks_diff

        _ticks_us = _time_ticks_us
    else:  # unix port: fold its wider ticks to the project's 2**30

        def _ticks_us():
            return _time_ticks_us() & _PERIOD_MASK

        _ticks_diff = ticks_diff30
except ImportError:  # CPython
    import time as _time

    def _ticks_us():
        return (_time.perf_counter_ns() // 1000) & _PERIOD_MASK

    _ticks_diff = ticks_diff30


# SIO GPIO_IN: the input level of GPIO 0..29 (RP2040) / 0..31 (RP2350), one bit each.
_GPIO_IN = const(0xD0000004)
# Highest GPIO accepted: keeps the mask (and every masked read) a small int on a
# 32-bit port, where ints of 2**30 and up are heap objects.
_MAX_GPIO = const(29)
# poll() retires lock-outs older than this, well inside ticks_diff's +-2**29 range,
# so with poll() called every frame a lock-out never meets the 2**30 tick wrap.
_RETIRE_US = const(1 << 28)


class ButtonCapture:
    def __init__(self, pins, debounce_us=10_000, size=64, read_gpio=None, ticks_us=None):
        """pins: the board's BUTTONS tuple of (gpio, player, button_name).
        size: events the ring holds before it drops (and counts) new ones.
        read_gpio: optional callable returning the raw GPIO input word (instead of
        machine.mem32); ticks_us: optional clock (instead of time.ticks_us)."""
        n = len(pins)
        if n < 1 or n > _MAX_GPIO + 1:
            raise ValueError("1..30 buttons")
        if size < 1:
            raise ValueError("size must be >= 1")
        if debounce_us < 0 or debounce_us >= _RETIRE_US:
            raise ValueError("debounce_us out of range")
        bits = []
        mask = 0
        for gpio, _player, _name in pins:
            if gpio < 0 or gpio > _MAX_GPIO:
                raise ValueError("gpio out of range: %d" % gpio)
            b = 1 << gpio
            if mask & b:
                raise ValueError("gpio used twice: %d" % gpio)
            mask |= b
            bits.append(b)
        self.n = n
        self.players = tuple(p[1] for p in pins)
        self.names = tuple(p[2] for p in pins)
        self.gpios = tuple(p[0] for p in pins)
        self._bits = tuple(bits)
        self._mask = mask
        self._db = debounce_us
        self._ticks = ticks_us if ticks_us is not None else _ticks_us
        self._tdiff = _ticks_diff
        self._read = read_gpio
        self._mem = None  # machine.mem32, set by start()
        self._machine = None
        self._pins = ()
        # Ring: `size` events; one spare slot tells full from empty. The IRQ is the only
        # writer of the slots and of _head; the main loop the only writer of _tail.
        self._slots = size + 1
        self._ev_t = array("i", [0] * self._slots)  # stamps (< 2**30, fit in 'i')
        self._ev_c = bytearray(self._slots)  # (button index << 1) | down
        self._head = 0
        self._tail = 0
        # Debounce state: all buttons released (pull-ups read 1). A button already held
        # when capture starts is reported as one press by the first poll().
        self._state = mask
        self._raw = mask
        self._last = array("i", [0] * n)  # stamp of each button's last accepted edge
        self._lock = bytearray(n)  # 1 while that button's lock-out may be running
        # Counters, for the self-test screen.
        self.dropped = 0
        self.presses = array("i", [0] * n)
        self.bounces = array("i", [0] * n)
        # The one handler object given to every pin's irq(), created once here.
        self._isr = self._irq

    # ---- setup (main loop, allocates) -------------------------------------------------
    def start(self, machine_module=None):
        """Configure the pins (input, pull-up) and attach the hard IRQ handler."""
        m = machine_module
        if m is None:
            import machine as m
        self._machine = m
        if self._read is None:
            self._mem = m.mem32
        try:
            import micropython

            micropython.alloc_emergency_exception_buf(100)
        except (ImportError, AttributeError):
            pass
        Pin = m.Pin
        trigger = Pin.IRQ_FALLING | Pin.IRQ_RISING
        pins = []
        for gpio in self.gpios:
            pins.append(Pin(gpio, Pin.IN, Pin.PULL_UP))
        self._pins = tuple(pins)
        for p in self._pins:
            p.irq(self._isr, trigger, hard=True)
        self.poll()
        return self

    def stop(self):
        """Detach the handlers (before a soft reset, or in tests)."""
        for p in self._pins:
            p.irq(None)
        self._pins = ()

    # ---- interrupt side: no allocation below until drain() -----------------------------
    def _irq(self, pin):
        t = self._ticks()  # first: this is the touch time of everything seen now
        rd = self._read
        if rd is None:
            lv = self._mem[_GPIO_IN] & self._mask
        else:
            lv = rd() & self._mask
        self._scan(t, lv)

    def _scan(self, t, lv):
        # One snapshot `lv` taken at time `t`. Runs in the IRQ, or in poll() with IRQs
        # disabled; never both at once.
        st = self._state
        moved = lv ^ self._raw  # bits that changed since the previous read
        self._raw = lv
        bits = self._bits
        last = self._last
        lock = self._lock
        db = self._db
        n = self.n
        i = 0
        while i < n:
            b = bits[i]
            if lock[i]:
                d = self._tdiff(t, last[i])
                # d <= -2**28: more than 2**29 us have passed and ticks_diff wrapped
                # (possible only if poll() was not called for minutes): expired too.
                # A small negative d (a caller's `now` taken just before the IRQ's
                # stamp) is not: the lock-out holds.
                if d >= db or d <= -_RETIRE_US:
                    lock[i] = 0
            if lock[i]:
                if moved & b:
                    self.bounces[i] += 1
            elif (lv ^ st) & b:
                down = 0 if lv & b else 1
                st ^= b
                last[i] = t
                lock[i] = 1
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
            i += 1
        self._state = st

    # ---- main-loop side ----------------------------------------------------------------
    def poll(self, now=None):
        """Call every frame (drain() does). Re-reads the inputs; a button whose lock-out
        has ended and whose level differs from its debounced state (a change swallowed by
        the lock-out, or one whose interrupt is still pending) is emitted now, stamped
        with ticks_us() taken just before the read (or with `now` when given). Also
        retires lock-outs older than 2**28 us so they cannot outlive the 2**30 tick wrap.
        IRQs are disabled only while such a change is actually applied (a short
        loop), never on an ordinary frame, so polling cannot delay a stamp."""
        if self._machine is None and self._read is None:
            return  # not started
        t = self._ticks() if now is None else now
        if not self._needs_scan(t, self._read_now()):
            return
        m = self._machine
        dis = getattr(m, "disable_irq", None) if m is not None else None
        s = dis() if dis is not None else None
        try:
            if now is None:
                t = self._ticks()
            self._scan(t, self._read_now())
        finally:
            if dis is not None:
                m.enable_irq(s)

    def _needs_scan(self, t, lv):
        # Read-only look at the IRQ's state (a stale view only makes poll do a scan it
        # did not need, or skip one the IRQ is doing anyway).
        diff = lv ^ self._state
        bits = self._bits
        last = self._last
        lock = self._lock
        db = self._db
        for i in range(self.n):
            if lock[i]:
                d = self._tdiff(t, last[i])
                if d >= _RETIRE_US or d <= -_RETIRE_US:
                    return True
                if d >= db and diff & bits[i]:
                    return True
            elif diff & bits[i]:
                return True
        return False

    def _read_now(self):
        rd = self._read
        if rd is None:
            return self._mem[_GPIO_IN] & self._mask
        return rd() & self._mask

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
        self._tail = t  # frees the slots for the IRQ
        return out

    def is_down(self, i):
        """Debounced level of button i (index into the pin map): True while pressed."""
        return not (self._state & self._bits[i])

    def pending(self):
        """Events waiting in the ring."""
        d = self._head - self._tail
        return d + self._slots if d < 0 else d
