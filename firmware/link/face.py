# Each linked player's own side at the bottom, upright (R43 link play: one player to a
# device). The app draws its table as a shared handheld shows it: player 0 at the
# bottom, player 1's half turned to face the far side. On player 1's own device that
# picture is turned round as a whole, so their cards are at the bottom and upright;
# then the opponent's parts, now at the top and upside down, are turned back in place
# so they read too (the same parts as host/upright.py turns for two players side by
# side; the spit piles in the middle read from both sides already).

from firmware.view import W, H, AREA_X, AREA_W

from shared_rules.compat import const

_LEN = const(1024)               # W * H // 8: MONO_VLSB, a byte is 8 rows of a column
_MONO_VLSB = const(0)

HALF = const(1)
TABLE = const(2)
_LAYOUTS = {"summary": HALF, "over": HALF, "pause": HALF, "rematch": HALF,
            "game": TABLE, "attract": TABLE}


def _reversed_bits():
    out = bytearray(256)
    for v in range(256):
        r = 0
        for b in range(8):
            if (v >> b) & 1:
                r |= 1 << (7 - b)
        out[v] = r
    return out


REVERSED_BITS = _reversed_bits()   # a byte's bits in the other order (host/upright.py too)
_REV = REVERSED_BITS


def turn_all(src, dst):
    """dst = src turned 180°."""
    rev = _REV
    last = _LEN - 1
    for i in range(_LEN):
        dst[last - i] = rev[src[i]]


def turn_box(buf, p0, p1, x0, x1):
    """Turn pages p0..p1, columns x0..x1 of buf 180° in place."""
    rev = _REV
    tmp = bytearray((p1 - p0 + 1) * (x1 - x0 + 1))
    k = 0
    for p in range(p0, p1 + 1):
        for x in range(x0, x1 + 1):
            tmp[k] = buf[p * W + x]
            k += 1
    k = 0
    for p in range(p1, p0 - 1, -1):
        for x in range(x1, x0 - 1, -1):
            buf[p * W + x] = rev[tmp[k]]
            k += 1


def facing(src, dst, screen_name):
    """What player 1's own device shows of the app's picture `src`."""
    turn_all(src, dst)
    layout = _LAYOUTS.get(screen_name, 0)
    if layout == HALF:
        turn_box(dst, 0, 3, 0, W - 1)
    elif layout == TABLE:
        turn_box(dst, 0, 1, 0, W - 1)
        turn_box(dst, 2, 3, 0, AREA_X - 1)
        turn_box(dst, 2, 3, AREA_X + AREA_W, W - 1)
    elif layout == 0:
        dst[:] = src                 # menus and text screens: upright for everyone
    return dst


class FacingDisplay:
    """A display port for the app that shows, on the real one, the picture facing
    player 1 (every show sends the whole screen)."""

    def __init__(self, display, screen_name):
        self.display = display
        self.screen_name = screen_name
        self.buf = bytearray(_LEN)
        kind = type(display.fb)
        self.fb = kind(self.buf, W, H, _MONO_VLSB)
        self._out = bytearray(_LEN)
        self._outfb = kind(self._out, W, H, _MONO_VLSB)

    def show(self):
        facing(self.buf, self._out, self.screen_name())
        self.display.fb.blit(self._outfb, 0, 0)
        self.display.show()
