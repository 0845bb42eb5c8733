"""The input port from the keyboard: key presses become button events
``(t_us, player, button, down)``, stamped on arrival with the clock port's ticks.

Default keys (two-button pads, DESIGN.md "Controls"): player 0 (bottom) ``Z`` = A,
``X`` = B; player 1 (top) ``N`` = A, ``M`` = B. ``--keys p0=z,x p1=n,m`` remaps them;
the keys are listed in the order of the pad's buttons (A, B, then for a six-button
pad L, R, U, D). Esc (pause), F9 (player 1's half upright), F11 (fullscreen) and F12
(screenshot) are reserved.

Stamps. SDL's key events carry no usable timestamp, so an event is stamped when the
emulator takes it from pygame's queue; the window loop waits on that queue between
frames (``pygame.event.wait``), so that is within about a millisecond of the key
closing. Events taken in one batch keep their queue order (the order the keyboard
reported them): a stamp never repeats or goes back, so the emulator never invents a
tie (R21) the keyboard did not report.

Held keys: key repeat is ignored (a second KEYDOWN without a KEYUP is not a second
press), and losing the window's focus releases every held key, so no button sticks.
"""

import warnings

from desktop_emulator.clock import TICKS_MASK, ticks_diff

BUTTONS_TWO = ("A", "B")
BUTTONS_SIX = ("A", "B", "L", "R", "U", "D")
DEFAULT_KEYS = {0: ("z", "x"), 1: ("n", "m")}
RESERVED = ("escape", "f9", "f11", "f12")
ALIASES = {"comma": ",", "esc": "escape", "enter": "return", "period": ".", "dot": ".",
           "minus": "-", "slash": "/", "semicolon": ";", "lshift": "left shift",
           "rshift": "right shift", "lctrl": "left ctrl", "rctrl": "right ctrl",
           "up": "up", "down": "down", "left": "left", "right": "right"}


class KeySpecError(ValueError):
    pass


def key_code(name):
    """pygame key code of a key name ('z', 'space', 'left shift', 'comma')."""
    import pygame
    n = name.strip().lower()
    n = ALIASES.get(n, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return pygame.key.key_code(n)
        except (ValueError, pygame.error):
            raise KeySpecError("unknown key %r" % (name,)) from None


def key_label(code):
    """A short label for a key code, for the skin and the title hint ('Z', 'Space')."""
    import pygame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = pygame.key.name(code)
    return n.upper() if len(n) == 1 else n.title()


def parse_keys(specs, buttons=BUTTONS_TWO):
    """['p0=z,x', 'p1=n,m'] -> {key_code: (player, button)}; players not mentioned
    keep their default keys. KeySpecError (one line) on anything malformed."""
    names = {p: list(DEFAULT_KEYS[p]) for p in (0, 1)}
    if len(buttons) > 2:
        for p in (0, 1):
            names[p] = None
    seen_players = set()
    for spec in specs or ():
        for part in spec.split():
            who, eq, keys = part.partition("=")
            who = who.strip().lower()
            if not eq or who not in ("p0", "p1"):
                raise KeySpecError("--keys: expected p0=KEY,KEY or p1=KEY,KEY, got %r" % part)
            p = int(who[1])
            if p in seen_players:
                raise KeySpecError("--keys: %s given twice" % who)
            seen_players.add(p)
            ks = [k for k in keys.split(",")]
            if len(ks) != len(buttons) or any(not k.strip() for k in ks):
                raise KeySpecError("--keys: %s needs %d keys (%s), got %r" % (
                    who, len(buttons), ", ".join(buttons), keys))
            names[p] = ks
    keymap = {}
    for p in (0, 1):
        if names[p] is None:
            raise KeySpecError("--keys: give p%d's %d keys for the six-button pad" % (
                p, len(buttons)))
        for button, kname in zip(buttons, names[p]):
            code = key_code(kname)
            if code in keymap:
                raise KeySpecError("--keys: key %r is used twice" % (kname,))
            if code in [key_code(r) for r in RESERVED]:
                raise KeySpecError("--keys: %r is reserved (Esc pauses, F9 upright, "
                                   "F11 fullscreen, F12 screenshot)" % (kname,))
            keymap[code] = (p, button)
    return keymap


def default_keymap():
    return parse_keys([])


def keys_of(keymap, player):
    """{button: label} of one player's keys."""
    out = {}
    for code, (p, button) in keymap.items():
        if p == player:
            out[button] = key_label(code)
    return out


def title_hint(keymap):
    """The title screen's button line with this keyboard's keys, e.g.
    "Z/N: NEXT  X/M: CHOOSE" (player 0's key / player 1's key)."""
    k0 = keys_of(keymap, 0)
    k1 = keys_of(keymap, 1)

    def both(button):
        return "%s/%s" % (k0.get(button, "?"), k1.get(button, "?"))
    return ("%s: NEXT  %s: CHOOSE" % (both("A"), both("B"))).upper()


class KeyboardInput:
    """The input port of the window: ``drain()`` returns the button events since the
    last call, oldest first."""

    def __init__(self, clock, keymap=None):
        self.clock = clock
        self.keymap = keymap if keymap is not None else default_keymap()
        self._events = []
        self._held = {}          # key code -> (player, button)
        self._last = None        # last stamp given
        self.pressed = set()     # (player, button) held now: the skin lights them

    def _stamp(self):
        t = self.clock.ticks_us()
        if self._last is not None and ticks_diff(t, self._last) <= 0:
            t = (self._last + 1) & TICKS_MASK
        self._last = t
        return t

    def key(self, code, down):
        """A key went down or up; True if it is one of the pads' keys."""
        pb = self.keymap.get(code)
        if pb is None:
            return False
        if down:
            if code in self._held:
                return True      # key repeat: not a new press
            self._held[code] = pb
            self.pressed.add(pb)
        else:
            if code not in self._held:
                return True      # released a key pressed before we had focus
            del self._held[code]
            if pb not in self._held.values():
                self.pressed.discard(pb)
        self._events.append((self._stamp(), pb[0], pb[1], bool(down)))
        return True

    def inject(self, player, button):
        """A press and release of a button no key is mapped to (Esc -> the app's
        pause button), stamped now like a key."""
        t = self._stamp()
        self._events.append((t, player, button, True))
        self._events.append((self._stamp(), player, button, False))

    def release_all(self):
        """Focus lost: every held key goes up now."""
        for code in list(self._held):
            self.key(code, False)

    def handle(self, event):
        """Feed one pygame event; True if it was a pad key."""
        import pygame
        if event.type == pygame.KEYDOWN:
            return self.key(event.key, True)
        if event.type == pygame.KEYUP:
            return self.key(event.key, False)
        if event.type in (pygame.WINDOWFOCUSLOST,):
            self.release_all()
        return False

    def drain(self, out=None):
        """Append the events since the last call to `out` (a new list if None) and
        return it: the input port's contract (firmware/app.py)."""
        if out is None:
            out = []
        out.extend(self._events)
        self._events = []
        return out
