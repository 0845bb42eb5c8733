# The sound port on the device: a passive piezo on a PWM pin. play(tune) only notes
# the tune; step(now_us), called from the main loop between frames, starts each note
# when its time comes, so nothing ever waits for a sound. Tunes are firmware.sound's
# (name, freq_hz, ms, ...); a frequency of 0 is a rest.

try:
    from time import ticks_diff, ticks_add
except ImportError:  # CPython (tests)
    from shared_rules.arbiter import ticks_diff, ticks_add

_DUTY = 32768        # a square wave: the loudest a piezo gets


class Buzzer:
    def __init__(self, gpio, machine_module=None):
        m = machine_module
        if m is None:
            import machine as m
        self.pwm = m.PWM(m.Pin(gpio))
        self.pwm.duty_u16(0)
        self.tune = None
        self._k = 0
        self._next = 0
        self._fresh = False
        self.played = 0

    def play(self, tune):
        self.tune = tune
        self._k = 1
        self._fresh = True
        self.played += 1

    def step(self, now_us):
        tune = self.tune
        if tune is None:
            return
        if not self._fresh and ticks_diff(now_us, self._next) < 0:
            return
        at = now_us if self._fresh else self._next
        self._fresh = False
        k = self._k
        if k + 1 >= len(tune):
            self.stop()
            return
        f = tune[k]
        if f:
            self.pwm.freq(f)
            self.pwm.duty_u16(_DUTY)
        else:
            self.pwm.duty_u16(0)
        self._k = k + 2
        self._next = ticks_add(at, tune[k + 1] * 1000)

    def stop(self):
        self.tune = None
        self.pwm.duty_u16(0)

    def beep(self, freq=2000, ms=120):
        self.play(("beep", freq, ms))
