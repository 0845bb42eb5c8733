# Button capture by hard GPIO interrupts: ButtonCapture stamps ticks_us() in the
# handler, on any MicroPython board. start_capture() (below) picks the best capture the
# board allows; the interface both captures share, and what its events look like, is in
# capture.py.
#
# ---- ButtonCapture: what the interrupt does (DESIGN.md "Timing and fairness", R19, R21)
#   1. stamp time.ticks_us() ONCE;
#   2. read the SIO GPIO_IN register ONCE (machine.mem32[0xd0000004]) and mask it to
#      the button bits, so every button is seen at that same instant;
#   3. for each button whose level differs from its debounced state and whose
#      lock-out has expired, record (stamp, button, down) in the ring. Buttons that
#      changed together get the SAME stamp: a tie for the arbiter, never "lower pin
#      first".
# The first edge is the touch. The read comes some 20 µs after the edge (MicroPython's
# dispatch), by which time a bouncing contact may read open again; the rp2 port passes
# the pin whose edge fired, so a released, unlocked button whose pin fired is pressed at
# this stamp whatever the level reads. Such a press is held back until a read (a later
# interrupt's, or poll()'s) sees the contact closed within the lock-out, and then
# published with the first edge's stamp; one never seen closed was a noise spike and is
# dropped (counted in `bounces`). Edges during the lock-out (debounce_us after an
# accepted edge) are counted in `bounces` and ignored. A level that still differs from
# the debounced state when the lock-out ends (a real release or press swallowed by the
# lock-out) is emitted by the next interrupt or by poll(), stamped at that moment.
# Events come out in stamp order, except that a held-back press may follow an event
# stamped after it (the app and the arbiter order by stamp anyway).
#
# The handler allocates nothing (it runs with the heap locked): no tuples, lists,
# floats, f-strings or bound-method creation; only small-int arithmetic, array and
# bytearray item stores, and stores to attributes created in __init__. Its body is
# guarded: MicroPython switches off for good an IRQ whose handler raised, which would
# leave that button to once-a-frame polling; an exception is counted in `errors`
# instead. check() (the main loop calls it now and then) re-arms an IRQ that was
# switched off anyway and counts it in `rearmed`.
#
# mem32 returns a heap-allocated int for words >= 2**30, which the handler cannot
# afford. RP2040's GPIO_IN has only bits 0-29, so its reads are always small ints. On
# an RP2350B (48 GPIOs) keep GPIO30/31 low or the handler will raise MemoryError (now
# counted in `errors`); the Pico 2 (RP2350A) does not bond out GPIO30/31.

from firmware.hw.capture import Capture, ticks_us as _ticks_us, ticks_diff as _ticks_diff

from shared_rules.compat import const


# SIO GPIO_IN: the input level of GPIO 0..29 (RP2040) / 0..31 (RP2350), one bit each.
_GPIO_IN = const(0xD0000004)
# poll() retires lock-outs older than this, well inside ticks_diff's +-2**29 range,
# so with poll() called every frame a lock-out never meets the 2**30 tick wrap.
# capture.RETIRE_US (the longest debounce Capture accepts), written out again so that
# the handler's uses are inlined constants, not lookups of another module's global.
_RETIRE_US = const(1 << 28)


class ButtonCapture(Capture):
    def __init__(self, pins, debounce_us=10_000, size=64, read_gpio=None, ticks_us=None):
        """pins: the board's BUTTONS tuple of (gpio, player, button_name).
        size: events the ring holds before it drops (and counts) new ones.
        read_gpio: optional callable returning the raw GPIO input word (instead of
        machine.mem32); ticks_us: optional clock (instead of time.ticks_us)."""
        Capture.__init__(self, pins, debounce_us, size)
        bits = []
        mask = 0
        for gpio in self.gpios:
            mask |= 1 << gpio
            bits.append(1 << gpio)
        self.kind = "gpio"
        self._bits = tuple(bits)
        self._mask = mask
        self._ticks = ticks_us if ticks_us is not None else _ticks_us
        self._tdiff = _ticks_diff
        self._read = read_gpio
        self._mem = None  # machine.mem32, set by start()
        self._machine = None
        self._pins = ()
        self._pin_bit = {}  # Pin object -> its button's bit (which pin's edge fired)
        self._trigger = 0
        # Debounce state: all buttons released (pull-ups read 1). A button already held
        # when capture starts is reported as one press by the first poll().
        self._state = mask
        self._raw = mask
        self._held = 0  # presses stamped at their first edge, not yet seen closed
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
        self._trigger = Pin.IRQ_FALLING | Pin.IRQ_RISING
        pins = []
        for gpio in self.gpios:
            pins.append(Pin(gpio, Pin.IN, Pin.PULL_UP))
        self._pins = tuple(pins)
        self._pin_bit = {}
        for i in range(self.n):
            self._pin_bit[self._pins[i]] = self._bits[i]
        for p in self._pins:
            p.irq(self._isr, self._trigger, hard=True)
        self.poll()
        return self

    def stop(self):
        """Detach the handlers (before a soft reset, or in tests)."""
        for p in self._pins:
            p.irq(None)
        self._pins = ()

    def check(self):
        rearmed = 0
        for p in self._pins:
            if p.irq().trigger() == 0:  # MicroPython switched it off (a handler raised)
                p.irq(self._isr, self._trigger, hard=True)
                rearmed += 1
        self.rearmed += rearmed
        return rearmed

    # ---- interrupt side: no allocation below until drain() -----------------------------
    def _irq(self, pin):
        try:
            t = self._ticks()  # first: this is the touch time of everything seen now
            rd = self._read
            if rd is None:
                lv = self._mem[_GPIO_IN] & self._mask
            else:
                lv = rd() & self._mask
            self._scan(t, lv, self._pin_bit.get(pin, 0))
        except Exception:  # counted, so the IRQ stays on (see the top of the file)
            self.errors += 1

    def _scan(self, t, lv, edge=0):
        # One snapshot `lv` taken at time `t`; `edge`: the bit of the pin whose interrupt
        # this is (0 from poll()). Runs in the IRQ, or in poll() with IRQs disabled;
        # never both at once.
        st = self._state
        prev = self._raw
        moved = lv ^ prev  # bits that changed since the previous read
        self._raw = lv
        held = self._held
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
                    if held & b:  # never seen closed: a noise spike, not a press
                        held &= ~b
                        st ^= b
                        self.bounces[i] += 1
            if lock[i]:
                if moved & b:
                    self.bounces[i] += 1
                if held & b and not (lv & b):  # seen closed: publish the first edge's stamp
                    held &= ~b
                    self._publish(last[i], i, 1)
            elif (lv ^ st) & b:
                down = 0 if lv & b else 1
                st ^= b
                last[i] = t
                lock[i] = 1
                self._publish(t, i, down)
            elif edge & b and st & b and prev & b:
                # This pin fired while its button was released and unlocked, but the
                # contact reads open again: a bounce after the first touch (or a spike).
                # The touch is now; publish once a read sees the contact closed.
                st ^= b
                last[i] = t
                lock[i] = 1
                held |= b
            i += 1
        self._state = st
        self._held = held

    # ---- main-loop side ----------------------------------------------------------------
    def poll(self, now=None):
        """Call every frame (drain() does). Re-reads the inputs; a button whose lock-out
        has ended and whose level differs from its debounced state (a change swallowed by
        the lock-out, or one whose interrupt is still pending) is emitted now, stamped
        with ticks_us() taken just before the read (or with `now` when given); a held-back
        press is published once the contact reads closed. Also retires lock-outs older
        than 2**28 us so they cannot outlive the 2**30 tick wrap. IRQs are disabled only
        while such a change is actually applied (a short loop), never on an ordinary
        frame, so polling cannot delay a stamp."""
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
        held = self._held
        bits = self._bits
        last = self._last
        lock = self._lock
        db = self._db
        for i in range(self.n):
            if lock[i]:
                d = self._tdiff(t, last[i])
                if d >= _RETIRE_US or d <= -_RETIRE_US:
                    return True
                if d >= db and (diff | held) & bits[i]:
                    return True
                if held & bits[i] and not (lv & bits[i]):
                    return True
            elif diff & bits[i]:
                return True
        return False

    def _read_now(self):
        rd = self._read
        if rd is None:
            return self._mem[_GPIO_IN] & self._mask
        return rd() & self._mask

    def is_down(self, i):
        """Debounced level of button i (index into the pin map): True while pressed (a
        press held back until the contact is seen closed does not count yet)."""
        b = self._bits[i]
        return not ((self._state ^ self._held) & b)


def start_capture(buttons, debounce_us, machine, size=64):
    """The best capture this board allows, started: the PIO capture on rp2 (RP2040,
    RP2350), else, or when no state machine, DMA channel or interrupt can be had, the
    GPIO-interrupt capture (its `why` says what was missing). Both have drain(out),
    poll(), check(), dropped, errors, is_down(i), presses and bounces."""
    why = ""
    try:
        from firmware.hw.buttons_pio import PioCapture, CaptureUnavailable
    except ImportError:  # not deployed with this firmware
        why = "no PIO capture module"
        PioCapture = None
    if PioCapture is not None:
        try:
            return PioCapture(buttons, debounce_us, size=size).start(machine)
        except CaptureUnavailable as e:
            why = str(e)
    cap = ButtonCapture(buttons, debounce_us, size=size).start(machine)
    cap.why = why
    return cap
