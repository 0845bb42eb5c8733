# The app's ports for a simulated device (firmware/app.py "Ports"), written once for every
# host: button queues, the display panel, a sound log and storage in memory. The
# framebuf module is passed in (MicroPython's own, or desktop_emulator.framebuf, the
# byte-exact stand-in, on CPython).

import json

from shared_rules.arbiter import ticks_diff, ticks_add
from shared_rules.pad import BUTTON_NAMES

W = 128
H = 64
BUF_LEN = W * H // 8


class ScriptInput:
    """Button events pushed by a script (or a page's key handler), delivered once the
    clock has reached their stamp, in stamp order, like the IRQ ring buffer
    (firmware/hw/buttons.py). Equal stamps keep their order of arrival."""

    def __init__(self, clock):
        self.clock = clock
        self.queue = []
        self.dropped = 0

    def push(self, t, player, button, down=True):
        if isinstance(button, int) and 0 <= button < len(BUTTON_NAMES):
            button = BUTTON_NAMES[button]
        return self.queue_event((t, player, button, down))

    def queue_event(self, e):
        """Insert event e in stamp order (after any with the same stamp)."""
        q = self.queue
        t = e[0]
        i = len(q)
        while i > 0 and ticks_diff(q[i - 1][0], t) > 0:
            i -= 1
        q.insert(i, e)
        return e

    def press(self, t, player, button, hold_us=60000):
        self.push(t, player, button, True)
        self.push(ticks_add(t, hold_us), player, button, False)

    def drain(self, out=None):
        if out is None:
            out = []
        now = self.clock.ticks_us()
        q = self.queue
        k = 0
        while k < len(q) and ticks_diff(q[k][0], now) <= 0:
            out.append(q[k])
            k += 1
        if k:
            del q[:k]
        return out


class FrameInput:
    """The input port of a replay: the recorded events of the frame about to be
    stepped, set by the host before each step."""

    def __init__(self):
        self.events = []
        self.dropped = 0

    def drain(self, out=None):
        if out is None:
            out = []
        for e in self.events:
            out.append(e)
        self.events = []
        return out


class Panel:
    """The display port without a screen. `buf` is what the app draws into (through
    `fb`); `panel` is what the OLED shows. Like the device's SSD1306 port,
    show_spans(spans) sends only the columns the view says it redrew in each 8-row
    page, and show() everything; hosts draw `panel`. So if the view ever forgot to
    report a change, the host would show the same stale pixels the handheld would
    (stale_bytes() counts them), rather than hide the bug. With check, every show also
    counts the changed bytes outside the reported spans in span_errors (and sends
    them, so each is counted once). on_show(panel) is called after every show."""

    def __init__(self, framebuf_module, check=False, on_show=None):
        self.buf = bytearray(BUF_LEN)
        self.fb = framebuf_module.FrameBuffer(self.buf, W, H, framebuf_module.MONO_VLSB)
        self.panel = bytearray(BUF_LEN)
        self.check = check
        self.on_show = on_show
        self.dirty = True
        self.shows = 0
        self.pages_sent = 0
        self.last_pages = 0
        self.last_widths = []       # columns sent per page by the last show_spans
        self.span_errors = 0

    def show(self):
        n = 0
        for p in range(H // 8):
            o = p * W
            if self.buf[o:o + W] != self.panel[o:o + W]:
                n += 1
        self.panel[:] = self.buf
        self.pages_sent += H // 8
        self.last_pages = n
        self._shown()

    def show_spans(self, spans):
        """spans: two bytes a page, first and last column sent (first > last: none)."""
        buf = self.buf
        panel = self.panel
        widths = self.last_widths
        del widths[:]
        n = 0
        for p in range(H // 8):
            x0 = spans[2 * p]
            x1 = spans[2 * p + 1]
            o = p * W
            if self.check:
                for x in range(W):
                    if buf[o + x] != panel[o + x] and not x0 <= x <= x1:
                        self.span_errors += 1
                        panel[o + x] = buf[o + x]
            if x0 <= x1:
                panel[o + x0:o + x1 + 1] = buf[o + x0:o + x1 + 1]
                widths.append(x1 - x0 + 1)
                n += 1
        self.pages_sent += n
        self.last_pages = n
        self._shown()

    def _shown(self):
        self.shows += 1
        self.dirty = True
        if self.on_show is not None:
            self.on_show(self.panel)

    def stale_bytes(self):
        """Bytes drawn but never sent to the panel (0 when the view's spans are right)."""
        n = 0
        for i in range(BUF_LEN):
            if self.buf[i] != self.panel[i]:
                n += 1
        return n


class LogSound:
    """The sound port as a log of the tunes' names (keep=False: only a count)."""

    def __init__(self, keep=True, limit=0):
        self.keep = keep
        self.limit = limit          # keep at most this many names (0: all)
        self.played = []
        self.count = 0

    def play(self, tune):
        self.count += 1
        if self.keep:
            self.played.append(tune[0])
            if self.limit and len(self.played) > self.limit:
                del self.played[:self.limit // 2]


class MemoryStorage:
    """The storage port as JSON text in memory, as a file would hold it."""

    def __init__(self, text=None):
        self.text = text
        self.saves = 0
        self.message = None

    def load(self):
        if self.text is None:
            return None
        return json.loads(self.text)

    def save(self, d):
        self.text = json.dumps(d)
        self.saves += 1
