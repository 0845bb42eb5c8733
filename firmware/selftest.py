# Self-test (hold any button at power-up, or `make device-test`): a display test
# pattern and a beep, then live per button: its state, presses and bounces (edges the
# debounce ignored), and the ring buffer's dropped count. Checks the wiring against the
# board's pin map without playing a game. SelfTest works on any ports (tests use fakes).
#
# Timing check (bottom line): with a jumper wire from the board's SELFTEST_OUT pin to a
# button pin (SELFTEST_IN), the self-test pulls that line low PULSES times at ticks it
# reads just before and after the register write that does it, and compares the
# capture's stamps: "TIME OK <=nUS" (every stamp inside its window, n: the widest
# window), "LATE nUS" (the latest stamp after its window), "NO JUMPER" (no press seen).
# A teacher sees the board stamp a touch to the microsecond, or how late it does.

from firmware.view import View, text_width

try:
    from time import ticks_diff, ticks_add
except ImportError:  # CPython (tests)
    from shared_rules.arbiter import ticks_diff, ticks_add

current = None           # the running SelfTest (for the REPL after Ctrl-C)
PATTERN_US = 1500000
_CLICK = ("click", 1760, 15)
PULSES = 12              # timing check: pulses on the jumper
PULSE_EVERY_US = 300000
PULSE_HOLD_US = 30000    # longer than the debounce lock-out: the release is seen too
MATCH_US = 20000         # a press this soon after a pulse is that pulse


class SelfTest:
    def __init__(self, display, buttons, buzzer=None, now_us=0, signal=None, jumper=-1):
        """signal: drives the jumper (hw/jumper.py: drive() -> (a, b) ticks, release());
        jumper: the index in the pin map of the button it is wired to."""
        self.display = display
        self.buttons = buttons
        self.buzzer = buzzer
        self.view = View(display.fb)
        self.start = now_us
        self.frames = 0
        self._last = None
        self._presses = 0
        self.signal = signal if jumper >= 0 else None
        self.jumper = jumper
        self.pulses = []          # [a, b, stamp or None] per pulse
        self._next_pulse = now_us
        self._held = False
        self._events = []
        if buzzer is not None:
            buzzer.beep()

    def _timing(self, now_us):
        # One step of the jumper check: read stamps for pulses, pulse, release.
        b = self.buttons
        for t, player, name, down in self._events:
            if not down or player != b.players[self.jumper] or name != b.names[self.jumper]:
                continue
            for p in self.pulses:
                if p[2] is None and ticks_diff(t, p[0]) >= -2 and ticks_diff(t, p[1]) <= MATCH_US:
                    p[2] = t
                    break
        sig = self.signal
        if self._held and ticks_diff(now_us, self.pulses[-1][0]) >= PULSE_HOLD_US:
            sig.release()
            self._held = False
        if not self._held and len(self.pulses) < PULSES and ticks_diff(now_us, self._next_pulse) >= 0:
            a, bb = sig.drive()
            self.pulses.append([a, bb, None])
            self._held = True
            self._next_pulse = ticks_add(now_us, PULSE_EVERY_US)

    def timing(self):
        """-> (seen, in_window, widest window µs, latest past its window µs), or None
        before the first pulse."""
        if not self.pulses:
            return None
        seen = inside = widest = late = 0
        for a, b, t in self.pulses:
            if t is None:
                continue
            seen += 1
            w = ticks_diff(b, a)
            if w > widest:
                widest = w
            after = ticks_diff(t, b) - 1      # a stamp is the µs the sample fell in
            if ticks_diff(t, a) >= 0 and after <= 0:
                inside += 1
            elif after > late:
                late = after
        return seen, inside, widest, late

    def timing_text(self):
        r = self.timing()
        if self.signal is None or r is None:
            return ""
        seen, inside, widest, late = r
        if len(self.pulses) < PULSES or self._held:
            return "JUMPER %d/%d" % (seen, len(self.pulses))
        if seen == 0:
            return "NO JUMPER"
        if inside == seen:
            return "TIME OK <=%dUS" % widest
        return "LATE %dUS" % late

    def pattern(self):
        fb = self.display.fb
        fb.fill(0)
        fb.rect(0, 0, 128, 64, 1)
        for x in range(0, 128, 8):            # a checker in the middle pages
            for y in range(16, 48, 8):
                if ((x + y) >> 3) & 1:
                    fb.fill_rect(x, y, 8, 8, 1)
        fb.line(0, 0, 127, 63, 1)
        fb.line(0, 63, 127, 0, 1)
        self.view.text("SELF TEST", 2, 3, 1, 0)
        self.view.text("PIXELS OK?", 2, 56, 1, 0)

    def step(self, now_us):
        self.frames += 1
        b = self.buttons
        del self._events[:]
        b.drain(self._events)                  # counts update in the IRQ; keep the ring empty
        if self.buzzer is not None:
            self.buzzer.step(now_us)
        if ticks_diff(now_us, self.start) < PATTERN_US:
            if self.frames == 1:
                self.pattern()
                self.display.show()
            return
        if self.signal is not None:
            self._timing(now_us)
        state = []
        for i in range(b.n):
            state.append((b.is_down(i), b.presses[i], b.bounces[i]))
        timing = self.timing_text()
        key = (tuple(state), b.dropped, timing)
        if key == self._last:
            return
        self._last = key
        fb = self.display.fb
        v = self.view
        fb.fill(0)
        v.text("BUTTON  DOWN PRESS BOUNCE", 0, 0, 1, 0)
        y = 8
        for i in range(b.n):
            down, presses, bounces = state[i]
            v.text("P%d %s GP%d" % (b.players[i], b.names[i], b.gpios[i]), 0, y, 1, 0)
            if down:
                fb.fill_rect(38, y, 5, 5, 1)
            else:
                fb.rect(38, y, 5, 5, 1)
            v.text("%d" % presses, 58, y, 1, 0)
            v.text("%d" % bounces, 90, y, 1, 0)
            y += 7
            if y > 50:
                break
        kind = getattr(b, "kind", "")
        v.text("%sDROP %d" % ("PIO " if kind == "pio" else "IRQ " if kind == "gpio" else "",
                              b.dropped), 0, 58, 1, 0)
        if timing:
            v.text(timing, 127 - text_width(timing), 58, 1, 0)
        self.display.show()
        total = 0
        for s in state:
            total += s[1]
        if self.buzzer is not None and total > self._presses:
            self.buzzer.play(_CLICK)             # hear every accepted press
        self._presses = total


def main():
    import machine
    import time
    from firmware.boards import pico as board
    from firmware.hw import chip_name
    from firmware.hw.board import button_pins, build_hardware
    from firmware.hw.jumper import JumperSignal
    pins, _scheme = button_pins()
    display, buttons, buzzer = build_hardware(machine, pins)
    jumper = -1
    for i in range(len(pins)):
        if pins[i][0] == board.SELFTEST_IN:
            jumper = i
    signal = JumperSignal(machine, board.SELFTEST_OUT, chip_name()) if jumper >= 0 else None
    global current
    t = current = SelfTest(display, buttons, buzzer, time.ticks_us(), signal, jumper)
    while True:
        t.step(time.ticks_us())
        time.sleep_ms(20)


if __name__ == "__main__":
    main()
