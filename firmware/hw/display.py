# The display port on the device: an SSD1306 128x64 OLED on I2C through
# micropython-lib's `ssd1306` driver (`mpremote mip install ssd1306`). The driver object
# is itself a framebuf.FrameBuffer over its 1 KB buffer: that is the `fb` the app draws
# into. show_spans() sends only what the view redrew: for each 8-row page, the columns
# from its first to its last drawn one (a whole page is 128 bytes, ~2.9 ms at 400 kHz;
# a full frame ~23 ms). show() sends everything (the self-test, a fallback).
# Nothing happens at import: the driver is loaded and the panel set up by Display().

_SET_COL_ADDR = 0x21
_SET_PAGE_ADDR = 0x22


class Display:
    def __init__(self, i2c, addr=0x3C, width=128, height=64, driver=None):
        if driver is None:
            import ssd1306
            driver = ssd1306.SSD1306_I2C(width, height, i2c, addr)
        self.oled = driver
        self.fb = driver
        self.width = width
        self.pages = height // 8
        self._mv = memoryview(driver.buffer)
        self._i2c = getattr(driver, "i2c", None)
        self._addr = getattr(driver, "addr", addr)
        # One I2C write sets the column and page window: control byte 0x00 (a stream
        # of commands), then the six command bytes. Cheaper than six write_cmd()s.
        self._cmd = bytearray(b"\x00\x21\x00\x7f\x22\x00\x07")
        self.pages_sent = 0
        self.bytes_sent = 0
        driver.fill(0)
        driver.show()

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

    def show(self):
        self.oled.show()
        self.pages_sent += self.pages
        self.bytes_sent += self.pages * self.width

    def show_spans(self, spans):
        """spans: 2 bytes a page, the first and last column to send (first > last:
        nothing changed there), as view.View keeps them."""
        w = self.width
        for p in range(self.pages):
            x0 = spans[2 * p]
            x1 = spans[2 * p + 1]
            if x0 > x1:
                continue
            self._window(x0, x1, p, p)
            o = p * w
            self.oled.write_data(self._mv[o + x0:o + x1 + 1])
            self.pages_sent += 1
            self.bytes_sent += x1 - x0 + 1

    def contrast(self, level):
        self.oled.contrast(level)
