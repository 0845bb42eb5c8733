# The firmware app's ports on a web page (DESIGN.md "ports"): clock, input, display,
# sound and storage. JavaScript only forwards what the page sees (an animation
# frame's performance.now(), a key's e.code and e.timeStamp, a pointer on a pad) and
# carries out what these classes ask of the bridge (a tone, a localStorage item).
#
# Times from the page are milliseconds as floats on the performance.now() timeline
# (e.timeStamp shares its origin); the app's ticks are microseconds wrapping at 2**30
# like MicroPython's time.ticks_us().

from shared_rules.arbiter import TICKS_PERIOD
from host.ports import Panel, ScriptInput, W, H

TICKS_MASK = TICKS_PERIOD - 1
#: The game clock moves at most this much between two animation frames: a longer gap
#: (a hidden or throttled tab, a debugger, a stalled machine) is time the game never
#: sees, so no timer (the slap limit, R26) runs out while nobody could look.
GAP_CAP_US = 100000
#: An event's e.timeStamp further than this before its arrival (or after it) is not
#: on performance.now()'s timeline (an old browser's epoch stamps): stamped on arrival.
STAMP_SLACK_US = 1000000
#: Events held between two frames, like the device's IRQ ring; more are counted in
#: `dropped` and the app says "INPUT LOST".
RING = 64

#: e.code -> (player, button): the desktop emulator's default keys (Z/X, N/M).
KEYS = {"KeyZ": (0, "A"), "KeyX": (0, "B"), "KeyN": (1, "A"), "KeyM": (1, "B")}
KEY_LABELS = {"KeyZ": "Z", "KeyX": "X", "KeyN": "N", "KeyM": "M"}
PAUSE_KEY = "Escape"



def us(t_ms):
    """Float milliseconds -> whole microseconds (nearest)."""
    return int(t_ms * 1000 + 0.5) if t_ms >= 0 else -int(-t_ms * 1000 + 0.5)


class WebClock:
    """The clock port from performance.now(): ``frame(now_ms)`` once per animation
    frame; ``ticks_us()`` reads the game time it set, folded to the 2**30 wrap.

    Game time is page time minus the time lost. The page is seen at each frame and at
    each input event's arrival; a gap between two sightings longer than GAP_CAP_US
    loses all but its last GAP_CAP_US (a hidden or stalled tab), and while ``frozen``
    everything is lost. ``stamp(raw)`` maps any page time onto game time through the
    same cuts, so stamps never go back, presses keep their real spacing, and a press
    stamped inside a lost stretch lands at the stretch's start."""

    CUTS_KEPT = 8

    def __init__(self, now_ms, start=0):
        self.start = start & TICKS_MASK
        self._origin = us(now_ms)
        self._last = self._origin
        self._lost = 0
        self._cuts = []          # (first lost µs, end of the lost stretch, lost before)
        self._elapsed = 0
        self.frozen = False
        self.capped = 0          # gaps cut short (for tests and the stats line)

    def observe(self, raw):
        """The page was seen at raw µs (a frame, or an event arriving)."""
        if raw <= self._last:
            return
        gap = raw - self._last
        if self.frozen:
            cut_end = raw
        elif gap > GAP_CAP_US:
            cut_end = raw - GAP_CAP_US
            self.capped += 1
        else:
            self._last = raw
            return
        cuts = self._cuts
        cuts.append((self._last, cut_end, self._lost))
        if len(cuts) > self.CUTS_KEPT:
            del cuts[0]
        self._lost += cut_end - self._last
        self._last = raw

    def frame(self, now_ms):
        self.observe(us(now_ms))
        self._elapsed = self._last - self._origin - self._lost
        return self.ticks_us()

    def ticks_us(self):
        return (self.start + self._elapsed) & TICKS_MASK

    def elapsed_us(self):
        return self._elapsed

    def elapsed_at(self, raw):
        """Game time (µs since the start, unwrapped) of page time raw µs."""
        cuts = self._cuts
        for k in range(len(cuts) - 1, -1, -1):
            first, end, before = cuts[k]
            if raw >= end:
                return raw - self._origin - (before + end - first)
            if raw >= first:
                return first - self._origin - before
        return raw - self._origin - (cuts[0][2] if cuts else self._lost)

    def stamp(self, raw):
        """Ticks of a page time in whole µs (an event's stamp)."""
        return (self.start + self.elapsed_at(raw)) & TICKS_MASK


class WebInput(ScriptInput):
    """The input port of the page: keys and on-screen pads become button events
    ``(t_us, player, button, down)`` stamped from the event's own e.timeStamp, queued
    in stamp order (like the IRQ ring buffer) and drained once the clock has reached
    them.

    A button is pressed when its first source goes down (a key, or a finger or the
    mouse on its pad) and released when its last source goes up; key auto-repeat and
    a second source on a held button are no new press. Equal stamps stay equal: the
    browser saw the two at one instant, which the arbiter treats as a tie (R21)."""

    def __init__(self, clock, keys=None, ring=RING):
        self.clock = clock
        self.keys = KEYS if keys is None else keys
        self.ring = ring
        self.queue = []
        self.dropped = 0
        self._sources = {}       # source (e.code str, or pointer id int) -> (player, button)
        self._count = {}         # (player, button) -> how many sources hold it
        self.log = []            # the last events queued, for the page's tests

    def raw_stamp(self, t_ms, now_ms):
        """The event's page time in µs: its e.timeStamp, or its arrival if the stamp
        is not on performance.now()'s timeline."""
        now = us(now_ms)
        self.clock.observe(now)
        raw = us(t_ms)
        if raw > now or now - raw > STAMP_SLACK_US:
            raw = now
        return raw

    def key(self, code, down, repeat, t_ms, now_ms):
        """A keydown/keyup; True if it is one of the pads' keys (the page then keeps
        the browser from acting on it)."""
        pb = self.keys.get(code)
        if pb is None:
            return False
        if down and repeat:
            return True          # auto-repeat: not a new press
        self._source(code, pb, down, self.raw_stamp(t_ms, now_ms))
        return True

    def pad(self, player, button, down, pointer, t_ms, now_ms):
        """A pointer went down on (or up from) an on-screen pad button."""
        if player not in (0, 1) or button not in ("A", "B"):
            return False
        self._source(pointer, (player, button), down, self.raw_stamp(t_ms, now_ms))
        return True

    def _source(self, src, pb, down, raw):
        held = self._sources.get(src)
        if down:
            if held is not None:
                return           # already down (a repeat the browser did not flag)
            self._sources[src] = pb
            n = self._count.get(pb, 0)
            self._count[pb] = n + 1
            if n == 0:
                self.push(raw, pb[0], pb[1], True)
        else:
            if held is None:
                return           # went down before the page had focus
            del self._sources[src]
            n = self._count.get(held, 0) - 1
            if n > 0:
                self._count[held] = n
                return
            if held in self._count:
                del self._count[held]
            self.push(raw, held[0], held[1], False)

    def release_all(self, now_ms):
        """Focus lost or the tab hidden: every held button goes up now."""
        raw = us(now_ms)
        self.clock.observe(raw)
        for src in list(self._sources):
            self._source(src, self._sources[src], False, raw)

    def inject(self, player, button, now_ms):
        """A press and release of a button no key or pad is wired to (Esc -> the
        app's PAUSE button), at the given page time."""
        raw = us(now_ms)
        self.clock.observe(raw)
        self.push(raw, player, button, True)
        self.push(raw + 1, player, button, False)

    def pressed(self):
        """The (player, button) pairs held now (the skin lights them)."""
        return list(self._count)

    def push(self, raw, player, button, down):
        q = self.queue
        if len(q) >= self.ring:
            self.dropped += 1    # the app sees the count grow and says so
            return
        e = self.queue_event((self.clock.stamp(raw), player, button, down))
        log = self.log
        log.append(e)
        if len(log) > 32:
            del log[:16]


class WebDisplay(Panel):
    """The display port: the host floor's Panel on MicroPython's framebuf; the canvas
    draws ``panel`` when ``dirty`` says it changed."""


def notes_text(tune):
    """A tune of firmware/sound.py, (name, hz, ms, hz, ms, ...), as "hz,ms,hz,ms"."""
    parts = []
    for k in range(1, len(tune) - 1, 2):
        parts.append("%d,%d" % (tune[k], tune[k + 1]))
    return ",".join(parts)


class WebSound:
    """The sound port: the page plays the tune as WebAudio square waves (a new tune
    cuts the old one off, like the buzzer). Keeps the names played for the tests."""

    def __init__(self, bridge=None):
        self.bridge = bridge
        self.played = []
        self._text = {}

    def play(self, tune):
        name = tune[0]
        self.played.append(name)
        if len(self.played) > 64:
            del self.played[:32]
        if self.bridge is None:
            return
        text = self._text.get(name)
        if text is None:
            text = notes_text(tune)
            self._text[name] = text
        self.bridge.tone(text)


class LocalStorageFlash:
    """The file operations of firmware/hw/storage.py on the page's localStorage, so the
    browser keeps the device's own format (a checksummed header, then JSON) and its
    rules: a corrupt item gives the defaults and a message, never a crash."""

    PREFIX = "spit-handheld/"

    def __init__(self, bridge):
        self.bridge = bridge

    def read(self, name):
        s = self.bridge.store_get(self.PREFIX + name)
        if s is None:
            return None
        return str(s).encode()

    def write(self, name, data):
        try:
            text = data.decode()
        except (UnicodeError, ValueError):
            raise OSError(22)
        if not self.bridge.store_set(self.PREFIX + name, text):
            raise OSError(28)    # quota exceeded or storage blocked: the app says so

    def rename(self, a, b):
        data = self.read(a)
        if data is None:
            raise OSError(2)
        self.write(b, data)
        self.remove(a)

    def remove(self, name):
        self.bridge.store_remove(self.PREFIX + name)


def web_storage(bridge):
    """The storage port on localStorage (item "spit-handheld/spit.json"), or None when
    the browser keeps no storage for this page."""
    if not bridge.store_ok():
        return None
    from firmware.hw.storage import FileStorage
    return FileStorage("spit.json", fs=LocalStorageFlash(bridge))
