"""The buzzer's notes (firmware/hw/buzzer.py) when the main loop is late, and on a port
whose machine.Timer does not name its one-shot mode."""
from firmware.hw.buzzer import Buzzer
from tests.firmware.test_app_hardware import _BuzzerMachine


def test_buzzer_a_late_step_starts_the_next_note_and_times_it_from_the_notes_end():
    # Stepped from the main loop: a frame 700 µs after a note's end starts the next note
    # then; that note still ends 10 ms after the first one's end, so a slow frame does
    # not stretch the tune.
    m = _BuzzerMachine()
    b = Buzzer(16, m)
    b.play(("t", 440, 10, 880, 10, 660, 10))
    b.step(0)
    assert m.sounding() == 440
    b.step(10_700)
    assert m.sounding() == 880
    b.step(19_999)
    assert m.sounding() == 880
    b.step(20_000)
    assert m.sounding() == 660
    b.step(31_234)                                # late past the tune's end: silence
    assert m.sounding() == 0 and b.tune is None


class _TimerWithoutModeNames:
    """A port's machine.Timer with no ONE_SHOT/PERIODIC names (MicroPython's values
    are ONE_SHOT = 0, PERIODIC = 1)."""

    def __init__(self):
        self.armed = None

    def init(self, mode, period, callback):
        self.armed = (mode, period, callback)

    def deinit(self):
        self.armed = None


def test_buzzer_arms_a_timer_without_mode_names_as_a_one_shot():
    m = _BuzzerMachine()
    timers = []

    def make_timer():
        timers.append(_TimerWithoutModeNames())
        return timers[-1]
    m.Timer = make_timer
    b = Buzzer(16, m)
    b.play(("t", 440, 10, 880, 20))
    mode, period, _callback = timers[0].armed
    assert (mode, period) == (0, 10)              # 0: MicroPython's ONE_SHOT, never PERIODIC
