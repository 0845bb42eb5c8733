"""The hardware layer against the faults a classroom board meets: a display that is
missing, NACKs or glitches, a bus left stuck by a reset, pads whose pull-ups need time
to settle. On fakes, under CPython (the same code runs on the board)."""
import pytest

from desktop_emulator import framebuf
from firmware.hw import board as hw_board

from firmware.hw.display import Display, free_bus, RETRY_SHOWS


class FakeDriver:
    """micropython-lib's SSD1306 driver, seen from the port: a panel picture built from
    the pixels it is sent; `fail` decides which write raises OSError (a NACK)."""

    def __init__(self, fail=None):
        self.panel = bytearray(1024)
        self.fail = fail or (lambda n: False)
        self.writes = 0
        self.inits = 0
        self._x0 = self._page = 0

    def _io(self):
        self.writes += 1
        if self.fail(self.writes):
            raise OSError(5)            # EIO: the panel did not acknowledge

    def write_cmd(self, c):
        self._io()
        self._cmds = getattr(self, "_cmds", []) + [c]
        if len(self._cmds) == 6:
            # SSD1306: 0x21 sets the column window, 0x22 the page window (two bytes
            # each); anything else leaves the window where it was.
            col, x0, _x1, page, p0, _p1 = self._cmds
            if col == 0x21:
                self._x0 = x0
            if page == 0x22:
                self._page = p0
            self._cmds = []

    def write_data(self, buf):
        self._io()
        o = self._page * 128 + self._x0
        self.panel[o:o + len(buf)] = bytes(buf)

    def init_display(self):
        self._io()
        self.inits += 1
        self._cmds = []                 # a half-sent command is forgotten
        self.panel[:] = bytes(1024)     # the driver's set-up clears the panel

    def contrast(self, level):
        self._io()


def draw(d):
    d.fb.fill(0)
    d.fb.fill_rect(3, 3, 50, 30, 1)
    d.fb.line(70, 40, 120, 60, 1)


def test_a_missing_display_at_power_up_is_reported_then_picked_up():
    tries = []

    def make():
        tries.append(1)
        if len(tries) < 3:
            raise OSError(19)           # ENODEV: nothing at 0x3C yet
        return drv
    drv = FakeDriver()
    d = Display(None, make_driver=make, framebuf_module=framebuf)
    assert not d.ok and d.problem == "no display" and d.errors == 1
    draw(d)
    shows = 0
    while not d.ok:
        assert shows < 5 * RETRY_SHOWS
        d.show_spans(bytearray([1, 0] * 8))      # the app's frames: nothing new drawn
        shows += 1
    assert len(tries) == 3 and shows > RETRY_SHOWS   # it waited between attempts
    assert drv.panel == d.buffer                      # and then sent the whole picture
    assert d.recoveries == 1 and d.problem is None


def test_a_missing_display_is_tried_again_every_retry_shows_frames_exactly():
    tries = []

    def make():
        tries.append(1)
        raise OSError(19)
    d = Display(None, make_driver=make, framebuf_module=framebuf)
    for round_ in (1, 2):
        for _ in range(RETRY_SHOWS):
            assert d.show_spans(None) is False
        assert len(tries) == round_                  # waited these frames out
        assert d.show_spans(None) is False
        assert len(tries) == round_ + 1              # then tried once more


def test_a_driver_without_its_i2c_gets_the_same_window_commands():
    # The port writes the window as one I2C transfer when it can reach the driver's
    # bus; otherwise through write_cmd(), byte by byte: the panel must see the same.
    drv = FakeDriver()
    d = Display(None, driver=drv, framebuf_module=framebuf)
    draw(d)
    sent = []
    real = drv.write_cmd

    def write_cmd(c):
        sent.append(c)
        real(c)
    drv.write_cmd = write_cmd
    assert d.show() is True
    assert drv.panel == d.buffer
    windows = [sent[k:k + 6] for k in range(0, len(sent), 6)]
    assert len(sent) == 6 * 8                        # one window a page, in any order
    assert sorted(w[4] for w in windows) == list(range(8))
    assert all(w == [0x21, 0, 127, 0x22, w[4], w[4]] for w in windows)


def test_a_contrast_change_the_panel_refuses_is_counted_and_the_panel_set_up_again():
    fail = [False]
    drv = FakeDriver(fail=lambda n: fail[0])
    d = Display(None, driver=drv, framebuf_module=framebuf)
    draw(d)
    assert d.show() is True
    fail[0] = True
    d.contrast(10)                                   # a NACK: nothing raised
    assert d.errors == 1 and not d.ok
    fail[0] = False
    drv.panel[:] = bytes(1024)                       # what a glitch may leave
    assert d.show_spans(bytearray([1, 0] * 8)) is True
    assert d.ok and drv.inits == 1 and d.recoveries == 1
    assert drv.panel == d.buffer                     # the whole picture, sent again


def test_a_glitch_mid_frame_is_survived_and_the_picture_resent():
    drv = FakeDriver(fail=lambda n: n == 7)          # one NACK, in the first frame
    d = Display(None, driver=drv, framebuf_module=framebuf)
    draw(d)
    assert d.show() is False                         # the port says so; nothing raised
    assert not d.ok and d.errors == 1 and d.problem == "display lost"
    for _ in range(RETRY_SHOWS + 1):
        d.show_spans(bytearray([1, 0] * 8))
    assert d.ok and drv.inits == 1                   # set up again, then everything sent
    assert drv.panel == d.buffer


def test_a_display_that_keeps_failing_never_raises_and_never_stops_the_game():
    from host.rig import Rig
    from shared_rules.game import Rules
    flaky = [True]
    drv = FakeDriver(fail=lambda n: flaky[0] and n % 41 == 0)
    d = Display(None, driver=drv, framebuf_module=framebuf)
    rig = Rig(framebuf, display=d)
    rig.add_bots(("hard", "hard"))
    rig.app.start_game(5, Rules(), (None, None), rig.clock.now)
    rig.until(lambda a: a.screen_name() in ("summary", "over"), limit=20000)
    assert d.errors >= 2 and d.recoveries >= 1
    flaky[0] = False                                 # the wire is pushed back in
    for _ in range(RETRY_SHOWS + 2):                 # what the main loop does each frame
        rig.frames(1)
        if not d.ok:
            d.show()
    assert d.ok and drv.panel == d.buffer            # the picture is whole again


def test_no_driver_on_the_board_is_said_plainly_and_not_retried():
    calls = []

    def make():
        calls.append(1)
        raise ImportError("no module named 'ssd1306'")
    d = Display(None, make_driver=make, framebuf_module=framebuf)
    for _ in range(3 * RETRY_SHOWS):
        d.show_spans(None)
    assert len(calls) == 1
    assert "ssd1306" in d.problem and "make deploy" in d.problem


def test_the_first_frame_is_not_preceded_by_a_second_clear():
    drv = FakeDriver()
    d = Display(None, driver=drv, framebuf_module=framebuf)
    assert drv.writes == 0                           # the driver's own set-up cleared it


class StuckBus:
    """machine.Pin for SDA/SCL with a device that holds SDA low until it has seen
    `release_after` clock pulses, recording what the pins did."""

    def __init__(self, release_after):
        self.left = release_after
        self.sda_low_by_us = None
        self.scl = 1
        self.log = []
        bus = self

        class Pin:
            IN, OPEN_DRAIN, PULL_UP = 0, 1, 2

            def __init__(self, n, mode=None, pull=None, value=None):
                self.n = n
                self.mode = mode
                if value is not None:
                    self.value(value)

            def value(self, v=None):
                if v is None:
                    assert self.n == "sda"
                    return 0 if bus.left > 0 else bus.log_sda()
                bus.log.append((self.n, v))
                if self.n == "scl":
                    if bus.scl == 1 and v == 0 and bus.left > 0:
                        bus.left -= 1
                    bus.scl = v
                return None
        self.Pin = Pin

    def log_sda(self):
        return 1


def test_a_bus_left_stuck_by_a_reset_is_clocked_free_and_stopped():
    bus = StuckBus(release_after=3)
    assert free_bus(bus, "sda", "scl", half_us=0) == 3
    # then a STOP: SDA driven low, SCL high, SDA released high
    assert bus.log[-3:] == [("sda", 0), ("scl", 1), ("sda", 1)]
    free = StuckBus(release_after=0)
    assert free_bus(free, "sda", "scl", half_us=0) == 0
    never = StuckBus(release_after=100)
    assert free_bus(never, "sda", "scl", half_us=0) == 9    # gives up after a byte's worth


class RcPads:
    """machine with pins whose pull-ups charge an RC debounce: they read 0 until 5 ms
    after being switched to pull-up (a pad with a 100 nF capacitor and ~50 kOhm)."""

    def __init__(self):
        self.now_ms = 0
        self.up_at = {}
        rc = self

        class Pin:
            IN, PULL_UP = 0, 1

            def __init__(self, n, mode=None, pull=None):
                self.n = n
                if pull == Pin.PULL_UP:
                    rc.up_at[n] = rc.now_ms

            def value(self):
                return 1 if rc.now_ms - rc.up_at[self.n] >= 5 else 0
        self.Pin = Pin

    def sleep_ms(self, ms):
        self.now_ms += ms


def test_pullups_are_given_time_to_settle_before_a_held_button_is_seen():
    m = RcPads()
    pins = [(2, 0, "A"), (3, 0, "B"), (14, 1, "A"), (15, 1, "B")]
    assert hw_board.held_at_boot(m, pins, sleep_ms=m.sleep_ms) is False
    assert m.now_ms >= 5 and hw_board.PULLUP_SETTLE_MS >= 5


@pytest.mark.parametrize("held", [2, 3, 14, 15])
def test_any_one_button_held_at_power_up_is_seen(held):
    m = RcPads()
    pins = [(2, 0, "A"), (3, 0, "B"), (14, 1, "A"), (15, 1, "B")]
    settled = m.Pin.value

    def value(pin):
        return 0 if pin.n == held else settled(pin)   # this one pressed to ground
    m.Pin.value = value
    assert hw_board.held_at_boot(m, pins, sleep_ms=m.sleep_ms) is True
    assert sorted(m.up_at) == [2, 3, 14, 15]          # every pin switched to its pull-up



