# The sound port on the device: a passive piezo on a PWM pin. play(tune) starts the
# first note at once; each next note starts when a one-shot machine.Timer says the note
# is over, so notes keep their length however long a frame takes to draw (a soft timer
# callback runs between two bytecodes; at worst it waits for one page of I2C, ~3 ms).
# Tunes are firmware.sound's (name, freq_hz, ms, ...); a frequency of 0 is a rest.
#
# Without machine.Timer (a fake machine in tests, an odd port) the notes are stepped by
# step(now_us) from the main loop instead, as precise as the loop is.

try:
    from time import ticks_diff, ticks_add, ticks_us
except ImportError:  # CPython (tests)
    from shared_rules.arbiter import ticks_diff, ticks_add

    def ticks_us():
        return 0

_DUTY = 32768        # a square wave: the loudest a piezo gets
_EARLY_US = 1000     # a timer callback this much before its note's end is a stale one


class Buzzer:
    def __init__(self, gpio, machine_module=None):
        m = machine_module
        if m is None:
            import machine as m
        self.pwm = m.PWM(m.Pin(gpio))
        self.pwm.duty_u16(0)
        timer = getattr(m, "Timer", None)
        self._timer = timer() if timer is not None else None
        self._one_shot = getattr(timer, "ONE_SHOT", 0)
        self._on_timer = self._timed            # one bound method, made once
        self.tune = None
        self._k = 0
        self._next = 0
        self._fresh = False
        self.played = 0

    def play(self, tune):
        self.tune = tune
        self._k = 1
        self.played += 1
        if self._timer is not None:
            self._timer.deinit()
            self._note(ticks_us())
        else:
            self._fresh = True

    def _note(self, at):
        """Start note k of the tune at time `at`; arrange for the next one."""
        tune = self.tune
        k = self._k
        if tune is None or k + 1 >= len(tune):
            self.stop()
            return
        f = tune[k]
        if f:
            self.pwm.freq(f)
            self.pwm.duty_u16(_DUTY)
        else:
            self.pwm.duty_u16(0)
        self._k = k + 2
        ms = tune[k + 1]
        self._next = ticks_add(at, ms * 1000)
        if self._timer is not None:
            self._timer.init(mode=self._one_shot, period=ms, callback=self._on_timer)

    def _timed(self, _timer):
        # A callback queued for a note that play() has since replaced fires early: skip.
        if self.tune is not None and ticks_diff(ticks_us(), self._next) >= -_EARLY_US:
            self._note(self._next)

    def step(self, now_us):
        """The main loop's tick: only needed without machine.Timer."""
        if self._timer is not None or self.tune is None:
            return
        if not self._fresh and ticks_diff(now_us, self._next) < 0:
            return
        at = now_us if self._fresh else self._next
        self._fresh = False
        self._note(at)

    def stop(self):
        self.tune = None
        if self._timer is not None:
            self._timer.deinit()
        self.pwm.duty_u16(0)

    def beep(self, freq=2000, ms=120):
        self.play(("beep", freq, ms))
