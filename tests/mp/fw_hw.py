# The hardware layer's device-independent parts, under CPython and MicroPython alike:
# the display port over a fake SSD1306 driver (a real framebuf underneath), the buzzer
# over a fake PWM, and the storage port on the real filesystem. Prints RESULT lines.
# usage: fw_hw.py DIR
import sys

try:
    import framebuf
except ImportError:
    from desktop_emulator import framebuf

from firmware.hw.display import Display
from firmware.hw.buzzer import Buzzer
from firmware.hw.storage import FileStorage, crc32
from firmware.view import View


class FakeI2C:
    def __init__(self):
        self.writes = []

    def writeto(self, addr, buf):
        self.writes.append(("cmd", addr, bytes(buf)))

    def writevto(self, addr, bufs):
        self.writes.append(("data", addr, b"".join([bytes(b) for b in bufs])))


class FakeSSD1306(framebuf.FrameBuffer):
    # micropython-lib's driver, minus the panel: same buffer, write_cmd/write_data
    def __init__(self, i2c):
        self.buffer = bytearray(1024)
        super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)
        self.i2c = i2c
        self.addr = 0x3C
        self.full = 0

    def write_cmd(self, c):
        self.i2c.writeto(self.addr, bytearray([0x80, c]))

    def write_data(self, buf):
        self.i2c.writevto(self.addr, [b"\x40", buf])

    def show(self):
        self.full += 1


class FakePWM:
    def __init__(self, log):
        self.log = log

    def freq(self, f):
        self.log.append(("freq", f))

    def duty_u16(self, d):
        self.log.append(("duty", d))


class FakeMachine:
    def __init__(self):
        self.log = []

    def Pin(self, n):
        return n

    def PWM(self, pin):
        return FakePWM(self.log)


def display_case():
    i2c = FakeI2C()
    drv = FakeSSD1306(i2c)
    d = Display(i2c, driver=drv, framebuf_module=framebuf)
    v = View(d.fb)
    v.text("HI", 10, 50, 1, 0)          # page 6
    v._mark(10, 50, 8, 5, 0)
    v.text("X", 100, 3, 1, 0)           # page 0
    v._mark(100, 3, 3, 5, 0)
    i2c.writes = []
    d.show_spans(v.spans)
    out = []
    for kind, addr, data in i2c.writes:
        out.append("%s:%s" % (kind, " ".join(["%d" % b for b in data[:8]])))
    ok = d.buffer[6 * 128 + 10:6 * 128 + 18] == i2c.writes[1][2][1:]   # page 6: sent first
    print("RESULT display %s ok=%s pages=%d bytes=%d" % (",".join(out), ok, d.pages_sent, d.bytes_sent))


def buzzer_case():
    m = FakeMachine()
    b = Buzzer(16, m)
    b.play(("t", 440, 10, 0, 5, 880, 20))
    for now in (1000, 5000, 11000, 12000, 16000, 30000, 36000, 40000):
        b.step(now)
    print("RESULT buzzer %s" % ",".join(["%s%d" % (k[0], v) for k, v in m.log]))


def storage_case(d):
    path = d + "/spit_test.json"
    st = FileStorage(path)
    st.save({"v": 1, "x": [1, 2, 3], "s": "SPIT"})
    got = FileStorage(path).load()
    f = open(path, "rb")
    data = f.read()
    f.close()
    f = open(path, "wb")
    f.write(data[:-3])
    f.close()
    st2 = FileStorage(path)
    bad = st2.load()
    print("RESULT storage %r %r %s crc=%08x" % (got == {"v": 1, "x": [1, 2, 3], "s": "SPIT"}, bad, st2.message, crc32(b"spit")))


display_case()
buzzer_case()
storage_case(sys.argv[1])
