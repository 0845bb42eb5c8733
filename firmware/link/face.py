# Each linked player's own side at the bottom, upright (R43 link play: one player to a
# device). The app draws its table as a shared handheld shows it: player 0 at the
# bottom, player 1's half turned to face the far side. On player 1's own device that
# picture is turned round as a whole, so their cards are at the bottom and upright;
# then the opponent's parts, now at the top and upside down, are turned back in place
# so they read too (the same parts as host/upright.py turns for two players side by
# side; the spit piles in the middle read from both sides already). Done part by part,
# for the columns the app redrew only.

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


# Where each part of the app's picture goes on player 1's device, by layout: (first
# page, last page, first column, last column, pages down, columns right) moves the part
# as it is; a part with no move (None) is turned 180°: page p to 7 - p, column x to
# W - 1 - x, each byte's bits reversed.
_PARTS = {
    0: ((0, 7, 0, W - 1, 0, 0),),
    HALF: ((4, 7, 0, W - 1, -4, 0), (0, 3, 0, W - 1, None, None)),
    TABLE: ((6, 7, 0, W - 1, -6, 0),
            (4, 5, W - AREA_X, W - 1, -2, AREA_X - W),
            (4, 5, 0, W - 1 - AREA_X - AREA_W, -2, AREA_X + AREA_W),
            (4, 5, W - AREA_X - AREA_W, W - 1 - AREA_X, None, None),
            (0, 3, 0, W - 1, None, None)),
}


class FacingDisplay:
    """A display port for the app that shows, on the real one, the picture facing
    player 1. Only what the app redrew is turned and sent (show_spans): a card played
    costs what it costs on a shared handheld, not the whole screen's 1 KB a frame."""

    def __init__(self, display, screen_name):
        self.display = display
        self.screen_name = screen_name
        self.buf = bytearray(_LEN)
        kind = type(display.fb)
        self.fb = kind(self.buf, W, H, _MONO_VLSB)
        out = getattr(display, "buffer", None)       # the device's port
        if out is None:
            out = getattr(display, "buf", None)      # a host's panel
        self._own = out is None
        if self._own:                               # any other: a picture of its own
            out = bytearray(_LEN)
            self._outfb = kind(out, W, H, _MONO_VLSB)
        self._out = out
        self._spans = bytearray(16)
        self._layout = -1

    def show(self):
        self._turn(None)
        self._send(None)

    def show_spans(self, spans):
        """spans: the columns the view redrew in each page (view.View.spans)."""
        self._send(self._turn(spans))

    def _send(self, spans):
        d = self.display
        if self._own:
            d.fb.blit(self._outfb, 0, 0)
        if spans is None or not hasattr(d, "show_spans"):
            d.show()
        else:
            d.show_spans(spans)

    def _turn(self, spans):
        """Bring the real picture up to date with the app's where `spans` says it
        changed (None: everywhere) -> the real picture's changed columns per page."""
        layout = _LAYOUTS.get(self.screen_name(), 0)
        if layout != self._layout:
            self._layout = layout
            spans = None                  # every byte has another place now
        src = self.buf
        dst = self._out
        rev = _REV
        out = self._spans
        for p in range(8):
            out[2 * p] = 255
            out[2 * p + 1] = 0
        for pa, pb, xa, xb, dp, dx in _PARTS[layout]:
            for p in range(pa, pb + 1):
                x0 = xa
                x1 = xb
                if spans is not None:
                    if spans[2 * p] > x0:
                        x0 = spans[2 * p]
                    if spans[2 * p + 1] < x1:
                        x1 = spans[2 * p + 1]
                    if x0 > x1:
                        continue
                if dp is None:
                    q = 7 - p
                    c0 = W - 1 - x1
                    c1 = W - 1 - x0
                    o = q * W
                    i = p * W + x1
                    for c in range(o + c0, o + c1 + 1):
                        dst[c] = rev[src[i]]
                        i -= 1
                else:
                    q = p + dp
                    c0 = x0 + dx
                    c1 = x1 + dx
                    o = q * W
                    dst[o + c0:o + c1 + 1] = src[p * W + x0:p * W + x1 + 1]
                if c0 < out[2 * q]:
                    out[2 * q] = c0
                if c1 > out[2 * q + 1]:
                    out[2 * q + 1] = c1
        return out
