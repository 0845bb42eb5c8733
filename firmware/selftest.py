# Self-test (hold any button at power-up, or `make device-test`): a display test
# pattern and a beep, then live per button: its state, presses and bounces (edges the
# debounce ignored), and the ring buffer's dropped count. Checks the wiring against the
# board's pin map without playing a game. SelfTest works on any ports (tests use fakes).

from firmware.view import View

try:
    from time import ticks_diff
except ImportError:  # CPython (tests)
    from shared_rules.arbiter import ticks_diff

PATTERN_US = 1500000
_CLICK = ("click", 1760, 15)


class SelfTest:
    def __init__(self, display, buttons, buzzer=None, now_us=0):
        self.display = display
        self.buttons = buttons
        self.buzzer = buzzer
        self.view = View(display.fb)
        self.start = now_us
        self.frames = 0
        self._last = None
        self._presses = 0
        if buzzer is not None:
            buzzer.beep()

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
        b.drain()                              # counts update in the IRQ; keep the ring empty
        if self.buzzer is not None:
            self.buzzer.step(now_us)
        if ticks_diff(now_us, self.start) < PATTERN_US:
            if self.frames == 1:
                self.pattern()
                self.display.show()
            return
        state = []
        for i in range(b.n):
            state.append((b.is_down(i), b.presses[i], b.bounces[i]))
        key = (tuple(state), b.dropped)
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
        v.text("DROPPED %d" % b.dropped, 0, 58, 1, 0)
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
    from firmware.main import button_pins, build_hardware
    pins, _scheme = button_pins()
    display, buttons, buzzer = build_hardware(machine, pins)
    t = SelfTest(display, buttons, buzzer, time.ticks_us())
    while True:
        t.step(time.ticks_us())
        time.sleep_ms(20)


if __name__ == "__main__":
    main()
