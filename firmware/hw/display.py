# The display port on the device: an SSD1306 128x64 OLED on I2C through
# micropython-lib's `ssd1306` driver (`mpremote mip install ssd1306`).
#
# The app draws into `fb`, a FrameBuffer over this port's own 1 KB buffer; the driver
# only sets the panel up and carries bytes. show_spans() sends only what the view
# redrew: for each 8-row page, the columns from its first to its last drawn one (a whole
# page is 128 bytes, ~2.9 ms at 400 kHz; a full frame ~23 ms). show() sends everything.
#
# A write holds the chip until the bus has carried it, so one show_spans() sends at most
# SEND_BUDGET bytes and keeps the rest for the next call (`behind`; flush() sends the
# next share): the whole screen takes four calls, not one 26 ms frame, and a play's
# card (pages 3-4, 52 bytes) goes alone in the step that decided it. The pages go
# in pairs, a page of player 0's half with the same page of player 1's (the half turned
# 180°), so both players see a change at the same moment; the pile area first (the
# card played), then the stockpile bands (the slap banners, R25), then the corners.
#
# The panel is on four wires a pupil plugged in, so it may be missing, come loose or
# glitch. No I2C error ever leaves this port: a failed transfer is counted (`errors`),
# `ok` goes False, and every RETRY_SHOWS shows the port tries again (the driver, then
# the panel's set-up); once the panel answers, the whole picture is sent again. The
# game goes on meanwhile. Nothing happens at import: the driver is loaded and the panel
# set up by Display().

try:
    from time import sleep_us
except ImportError:  # CPython (tests)
    def sleep_us(us):
        pass

_SET_COL_ADDR = 0x21
_SET_PAGE_ADDR = 0x22
RETRY_SHOWS = 30          # about a second of frames between two attempts at a dead panel
SEND_BUDGET = 64          # bytes a show_spans() sends (~1.5 ms of the 400 kHz bus)
_PAIRS = (3, 4, 6, 1, 7, 0, 5, 2)   # page pairs in the order they are sent


def free_bus(machine, sda, scl, half_us=5):
    """A reset in the middle of a transfer can leave the panel holding SDA low, waiting
    for the rest of a byte: the bus is then stuck for good. Clock SCL (at most 9 times)
    until SDA is let go, then send a STOP. Returns the pulses it took."""
    Pin = machine.Pin
    data = Pin(sda, Pin.IN, Pin.PULL_UP)
    clock = Pin(scl, Pin.OPEN_DRAIN, value=1)
    pulses = 0
    while data.value() == 0 and pulses < 9:
        clock.value(0)
        sleep_us(half_us)
        clock.value(1)
        sleep_us(half_us)
        pulses += 1
    data = Pin(sda, Pin.OPEN_DRAIN, value=0)        # STOP: SDA rises while SCL is high
    sleep_us(half_us)
    clock.value(1)
    sleep_us(half_us)
    data.value(1)
    return pulses


class Display:
    def __init__(self, i2c, addr=0x3C, width=128, height=64, driver=None, make_driver=None,
                 framebuf_module=None):
        """driver: a ready driver object (tests); make_driver: a function returning one
        (default: ssd1306.SSD1306_I2C on `i2c`), which may raise OSError."""
        if framebuf_module is None:
            import framebuf as framebuf_module
        self.width = width
        self.pages = height // 8
        self.buffer = bytearray(width * self.pages)
        self.fb = framebuf_module.FrameBuffer(self.buffer, width, height,
                                              framebuf_module.MONO_VLSB)
        self._mv = memoryview(self.buffer)
        self._addr = addr
        if make_driver is None:
            def make_driver():
                import ssd1306
                return ssd1306.SSD1306_I2C(width, height, i2c, addr)
        self._make = make_driver
        # One I2C write sets the column and page window: control byte 0x00 (a stream
        # of commands), then the six command bytes. Cheaper than six write_cmd()s.
        self._cmd = bytearray(b"\x00\x21\x00\x7f\x22\x00\x07")
        self.pages_sent = 0
        self.bytes_sent = 0
        self.errors = 0
        self.recoveries = 0
        self.oled = None
        self._i2c = None
        self.ok = False
        self.problem = None            # why the panel cannot be used, for the serial log
        self._wait = 0
        self._full = False
        self._owed = bytearray(2 * self.pages)   # per page: columns not sent yet
        self.behind = False
        self._forget()
        if driver is not None:
            self._attach(driver)
        else:
            self._revive()

    def _attach(self, driver):
        # The driver's set-up left the panel blank, as this port's buffer is: nothing
        # needs sending until the app draws.
        self.oled = driver
        self._i2c = getattr(driver, "i2c", None)
        self._addr = getattr(driver, "addr", self._addr)
        self.ok = True

    def _revive(self):
        """Try to (re)connect the panel; True if it answers."""
        try:
            if self.oled is None:
                self._attach(self._make())
            else:
                self.oled.init_display()
                self.ok = True
        except OSError:
            self.errors += 1
            self.ok = False
            self.problem = "no display"
            self._wait = RETRY_SHOWS
            return False
        except ImportError:
            self.ok = False
            self.problem = "no ssd1306 driver on the board (make deploy installs it)"
            self._wait = 1 << 29
            return False
        self.problem = None
        if self.errors:
            self.recoveries += 1
            self._full = True          # the panel's picture is lost or stale: send it all
        return True

    def _window(self, x0, x1, p0, p1):
        if self._i2c is not None:
            c = self._cmd
            c[2] = x0
            c[3] = x1
            c[5] = p0
            c[6] = p1
            self._i2c.writeto(self._addr, c)
        else:
            w = self.oled.write_cmd
            w(_SET_COL_ADDR)
            w(x0)
            w(x1)
            w(_SET_PAGE_ADDR)
            w(p0)
            w(p1)

    def _forget(self):
        owed = self._owed
        for p in range(self.pages):
            owed[2 * p] = 255
            owed[2 * p + 1] = 0
        self.behind = False

    def show(self):
        """Send the whole picture (at once: after the panel came back)."""
        self._full = True
        return self.show_spans(None, 0)

    def flush(self):
        """Send the next share of what earlier calls left (see `behind`)."""
        return self.show_spans(b"", SEND_BUDGET)

    def show_spans(self, spans, budget=SEND_BUDGET):
        """spans: 2 bytes a page, the first and last column to send (first > last:
        nothing changed there), as view.View keeps them; None: everything; b"": only
        what is owed. Sends at most `budget` bytes (at least one pair of pages; 0: no
        limit), the rest on later calls. Returns False if the panel could not be
        reached (the picture is kept for later)."""
        w = self.width
        owed = self._owed
        everything = self._full or spans is None
        for p in range(self.pages):
            if everything:
                owed[2 * p] = 0
                owed[2 * p + 1] = w - 1
            elif spans:
                if spans[2 * p] < owed[2 * p]:
                    owed[2 * p] = spans[2 * p]
                if spans[2 * p + 1] > owed[2 * p + 1]:
                    owed[2 * p + 1] = spans[2 * p + 1]
        self._full = False
        self.behind = True
        if not self.ok:
            if self._wait > 0:
                self._wait -= 1
                return False
            if not self._revive():
                return False
            if self._full:             # the panel came back: all of it
                return self.show_spans(None, 0)
        sent = 0
        try:
            for k in range(0, len(_PAIRS), 2):
                pa = _PAIRS[k]
                pb = _PAIRS[k + 1]
                na = owed[2 * pa + 1] - owed[2 * pa] + 1
                nb = owed[2 * pb + 1] - owed[2 * pb] + 1
                n = (na if na > 0 else 0) + (nb if nb > 0 else 0)
                if n == 0:
                    continue
                if budget and sent and sent + n > budget:
                    return True
                for p in (pa, pb):
                    x0 = owed[2 * p]
                    x1 = owed[2 * p + 1]
                    if x0 > x1:
                        continue
                    self._window(x0, x1, p, p)
                    o = p * w
                    self.oled.write_data(self._mv[o + x0:o + x1 + 1])
                    owed[2 * p] = 255
                    owed[2 * p + 1] = 0
                    self.pages_sent += 1
                    self.bytes_sent += x1 - x0 + 1
                sent += n
        except OSError:
            # A loose wire or a glitch: the game goes on; retry on a later frame.
            self.errors += 1
            self.ok = False
            self.problem = "display lost"
            self._full = True
            self._wait = RETRY_SHOWS
            return False
        self.behind = False
        return True

    def contrast(self, level):
        if self.ok:
            try:
                self.oled.contrast(level)
            except OSError:
                self.errors += 1
                self.ok = False
