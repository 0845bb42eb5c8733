# The picture for two players side by side at one monitor (the hosts' "upright" option).
#
# The handheld's players sit face to face, so the view draws player 1's half of the
# screen turned 180° (view.py). At a laptop both players look from the bottom edge,
# and player 1 would read their half upside down. A host may then *show* the panel
# with player 1's parts turned back; the firmware still draws exactly what it draws on
# the device, and the state line, recordings and golden screens never see this.
#
# Where player 1's parts are depends on the screen (view.py's layout):
# - HALF (summary, game over, pause, rematch): rows 0-31 are player 1's text, the
#   whole half turned; it is turned back as one block.
# - TABLE (the game, the attract mode): rows 0-15 are player 1's stockpiles (or their
#   slap banner), turned back as one band; rows 16-31 hold their two corners (x 0-33
#   and 94-127), each turned back in place so that a pile's size in the slap stays
#   beside its pile. The spit piles (x 34-93, rows 16-47) are shared by both players
#   and straddle the middle: they stay as they are (each already shows its rank upright
#   for a player at the bottom).
# - anything else (title, how to play) is upright for everyone already.
#
# The host floor (never deployed): the desktop emulator and the browser build
# use it; the board never imports it. Plain loops, so it runs under MicroPython too.

from firmware.view import W, AREA_X, AREA_W
from firmware.link.face import REVERSED_BITS

HALF = 1
TABLE = 2

LAYOUTS = {"summary": HALF, "over": HALF, "pause": HALF, "rematch": HALF,
           "game": TABLE, "attract": TABLE}


def layout_of(screen_name):
    """HALF, TABLE or 0 (nothing to turn) for the app's screen_name()."""
    return LAYOUTS.get(screen_name, 0)


_REV = REVERSED_BITS


def _turn_box(src, dst, p0, p1, x0, x1):
    """Turn pages p0..p1, columns x0..x1 (inclusive) 180° within themselves. MONO_VLSB:
    byte page * W + x holds rows page*8 .. page*8+7, bit 0 at the top, so a turned
    byte is bit-reversed and lands on the mirrored page and column."""
    rev = _REV
    for p in range(p0, p1 + 1):
        s = p * W
        d = (p0 + p1 - p) * W + x0 + x1
        for x in range(x0, x1 + 1):
            dst[d - x] = rev[src[s + x]]


def upright(src, layout, dst=None):
    """The picture `src` (1024 MONO_VLSB bytes, as the panel shows it) with player 1's
    parts turned upright for `layout`; written into `dst` (a bytearray) if given, and
    returned. `src` is never changed."""
    if dst is None:
        dst = bytearray(len(src))
    dst[:] = src
    if layout == HALF:
        _turn_box(src, dst, 0, 3, 0, W - 1)
    elif layout == TABLE:
        _turn_box(src, dst, 0, 1, 0, W - 1)
        _turn_box(src, dst, 2, 3, 0, AREA_X - 1)
        _turn_box(src, dst, 2, 3, AREA_X + AREA_W, W - 1)
    return dst
