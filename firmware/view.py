# The 128x64 picture (DESIGN.md "Screen"), drawn with the project's own font
# (font.py) through the framebuf calls every port provides: fill, pixel, hline, vline,
# rect, fill_rect (no text()). The app gives it the display port's fb; it never
# imports framebuf.
#
# Layout. Players sit face to face; player 1's half is player 0's half turned 180°
# (every drawing call takes `rot`, and rot=1 maps a rectangle (x, y, w, h) to
# (128-x-w, 64-y-h, w, h)). The bands are aligned to the SSD1306's 8-row pages, so a
# typical change touches few pages (each page costs ~2.9 ms of I2C at 400 kHz):
#   rows  0-15  pages 0-1  player 1: five stockpiles + spit stack (rotated)
#   rows 16-47  pages 2-5  the spit piles; player 1's message/info corners (rotated,
#                          rows 16-31) and player 0's (rows 32-47)
#   rows 48-63  pages 6-7  player 0: five stockpiles + spit stack
# (DESIGN.md sketches 20/24/20 rows; 16/32/16 keeps a play to 4 pages.)
# A spit pile shows its rank twice, like a real card's corner indices: upright for
# player 0, rotated for player 1, both inside pages 3-4, so a play onto a pile changes
# only those two pages there.
#
# Redraw only what changed: each region remembers the int key of what it last drew
# and is redrawn when the key differs. `spans` records, per page, the columns drawn
# since the last clear_spans(): the display port sends only those (hw/display.py).

from firmware import font

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

W = const(128)
H = const(64)

SLOT_PITCH = const(22)
SLOT_W = const(21)
HALF_Y = const(48)        # player 0's stockpiles: rows 48-63
HALF_H = const(16)
STACK_X = const(111)
STACK_W = const(17)
MSG_X = const(0)
MSG_Y = const(32)         # player 0's corners: rows 32-47
MSG_W = const(34)
INFO_X = const(94)
CORNER_H = const(16)
PILE_W = const(26)
PILE_Y = const(18)
PILE_H = const(28)
FACE_Y = const(24)        # the rows a pile's indices use: 24-39 = pages 3-4
FACE_H = const(16)
AREA_X = const(34)        # the spit-pile area: x 34-93, rows 16-47
AREA_W = const(60)
PILE_X2 = (36, 66)        # two piles
PILE_X1 = (51,)           # a single-pile round

# Region slots in _keys.
_SLOT = const(0)          # 10: player p's stockpile i at p*5+i
_STACK = const(10)        # 2
_MSG = const(12)          # 2
_INFO = const(14)         # 2
_AREA = const(16)         # 1
_FACE = const(17)         # 2
_COUNT = const(19)        # 2
_NKEYS = const(21)

_GAME = const(100)        # text screens use the app's screen number as their kind

# Big-font indices of each rank's characters: "2".."9", "10", "J", "Q", "K", "A".
_RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class Message:
    """What a player's message corner shows; the app bumps seq when it changes."""

    def __init__(self):
        self.l1 = ""
        self.l2 = ""
        self.inv = False
        self.seq = 0

    def set(self, l1, l2="", inv=False):
        if l1 != self.l1 or l2 != self.l2 or inv != self.inv:
            self.l1 = l1
            self.l2 = l2
            self.inv = inv
            self.seq = (self.seq + 1) & 0xFFFFF


def text_width(s):
    n = 0
    for ch in s:
        i = font.SMALL_CHARS.find(ch)
        n += (font.SMALL_W[i] if i >= 0 else 3) + 1
    return n - 1 if n else 0


def big_width(s):
    n = 0
    for ch in s:
        n += font.BIG_W[font.BIG_CHARS.find(ch)] + 1
    return n - 1 if n else 0


_ROUND_W = text_width("ROUND")
_PTS_W = text_width("PTS")
BAR_MAX = MSG_W - 1


class View:
    def __init__(self, fb):
        self.fb = fb
        self.spans = bytearray(16)    # per page: first column, last column (first > last: clean)
        self._keys = [-1] * _NKEYS
        self._kind = 0
        self._text_key = -1
        self.clear_spans()

    # ---- bookkeeping ------------------------------------------------------------------
    def clear_spans(self):
        s = self.spans
        for p in range(8):
            s[2 * p] = 255
            s[2 * p + 1] = 0

    def dirty_pages(self):
        n = 0
        s = self.spans
        for p in range(8):
            if s[2 * p] <= s[2 * p + 1]:
                n += 1
        return n

    def invalidate(self):
        """Forget what is on screen: the next draw redraws everything."""
        self._kind = 0
        self._text_key = -1
        for k in range(_NKEYS):
            self._keys[k] = -1

    def _mark(self, x, y, w, h, rot):
        if rot:
            x = W - x - w
            y = H - y - h
        if x < 0:
            w += x
            x = 0
        if x + w > W:
            w = W - x
        if y < 0:
            h += y
            y = 0
        if y + h > H:
            h = H - y
        if w <= 0 or h <= 0:
            return
        s = self.spans
        x1 = x + w - 1
        for p in range(y >> 3, ((y + h - 1) >> 3) + 1):
            if x < s[2 * p]:
                s[2 * p] = x
            if x1 > s[2 * p + 1]:
                s[2 * p + 1] = x1

    # ---- primitives (logical coordinates; rot=1 turns them 180°) ----------------------
    def _fill(self, x, y, w, h, c, rot):
        if rot:
            self.fb.fill_rect(W - x - w, H - y - h, w, h, c)
        else:
            self.fb.fill_rect(x, y, w, h, c)

    def _rect(self, x, y, w, h, c, rot):
        if rot:
            self.fb.rect(W - x - w, H - y - h, w, h, c)
        else:
            self.fb.rect(x, y, w, h, c)

    def _hline(self, x, y, w, c, rot):
        if rot:
            self.fb.hline(W - x - w, H - 1 - y, w, c)
        else:
            self.fb.hline(x, y, w, c)

    def _vline(self, x, y, h, c, rot):
        if rot:
            self.fb.vline(W - 1 - x, H - y - h, h, c)
        else:
            self.fb.vline(x, y, h, c)

    def _cols(self, data, off, w, two, x, y, c, rot):
        # Glyph columns as vertical runs: one vline per run of set bits.
        for k in range(w):
            if two:
                j = (off + k) << 1
                bits = data[j] | (data[j + 1] << 8)
            else:
                bits = data[off + k]
            r = 0
            while bits:
                if bits & 1:
                    n = 0
                    while bits & 1:
                        bits >>= 1
                        n += 1
                    self._vline(x + k, y + r, n, c, rot)
                    r += n
                else:
                    bits >>= 1
                    r += 1

    def text(self, s, x, y, c, rot, right=W):
        """Small font (5 rows); characters that would pass x `right` are left out.
        Returns the x after the text."""
        chars = font.SMALL_CHARS
        for ch in s:
            i = chars.find(ch)
            if i < 0:
                x += 4
                continue
            w = font.SMALL_W[i]
            if x + w > right:
                break
            self._cols(font.SMALL_COLS, font.SMALL_OFS[i], w, False, x, y, c, rot)
            x += w + 1
        return x

    def big(self, s, x, y, c, rot):
        """Big font (10 rows); returns the x after the text."""
        chars = font.BIG_CHARS
        for ch in s:
            i = chars.find(ch)
            w = font.BIG_W[i]
            self._cols(font.BIG_COLS, font.BIG_OFS[i], w, True, x, y, c, rot)
            x += w + 1
        return x

    def _suit(self, card, x, y, c, rot):
        self._cols(font.SUIT_COLS, (card & 3) * font.SUIT_W, font.SUIT_W, False, x, y, c, rot)

    def _number(self, n, x_right, y, c, rot):
        # Right-aligned small digits without building a string.
        if n < 0:
            n = 0
        while True:
            d = n % 10
            i = font.SMALL_CHARS.find("0123456789"[d])
            w = font.SMALL_W[i]
            x_right -= w
            self._cols(font.SMALL_COLS, font.SMALL_OFS[i], w, False, x_right, y, c, rot)
            x_right -= 1
            n //= 10
            if not n:
                return x_right

    def _corners(self, x, y, w, h, c, rot):
        # An empty place: just its four corners.
        self._hline(x, y, 3, c, rot)
        self._hline(x + w - 3, y, 3, c, rot)
        self._hline(x, y + h - 1, 3, c, rot)
        self._hline(x + w - 3, y + h - 1, 3, c, rot)
        self._vline(x, y + 1, 2, c, rot)
        self._vline(x + w - 1, y + 1, 2, c, rot)
        self._vline(x, y + h - 3, 2, c, rot)
        self._vline(x + w - 1, y + h - 3, 2, c, rot)

    # ---- the play screen --------------------------------------------------------------
    def game(self, game, cursors, msgs, bars):
        """Draw the table: stockpiles, spit stacks, piles, messages, info. Redraws only
        regions whose content changed; returns True if anything was drawn."""
        drew = False
        if self._kind != _GAME:
            self.fb.fill(0)
            self._mark(0, 0, W, H, 0)
            for k in range(_NKEYS):
                self._keys[k] = -1
            self._kind = _GAME
            drew = True
        keys = self._keys
        for p in (0, 1):
            stock = game.stock[p]
            down = game.down[p]
            cur = cursors[p]
            for i in range(5):
                s = stock[i]
                n = len(s)
                key = 0
                if n:
                    key = (s[-1] + 1) | (64 if down[i] else 0) | ((n - 1 if n < 64 else 63) << 7)
                if cur == i:
                    key |= 1 << 13
                if keys[_SLOT + p * 5 + i] != key:
                    keys[_SLOT + p * 5 + i] = key
                    self._slot(s, down[i], cur == i, i * SLOT_PITCH, p)
                    drew = True
            n = len(game.hand[p])
            if keys[_STACK + p] != n:
                keys[_STACK + p] = n
                self._stack(n, p)
                drew = True
            m = msgs[p]
            if keys[_MSG + p] != m.seq:
                keys[_MSG + p] = m.seq
                self._message(m, p)
                drew = True
            pts = game.scores[p] if game.rules.points else -1
            key = ((bars[p] + 1) & 63) | ((game.round & 0xFF) << 6) | ((pts + 1) << 14)
            if keys[_INFO + p] != key:
                keys[_INFO + p] = key
                self._info(game.round, pts, bars[p], p)
                drew = True
        piles = game.piles
        npiles = len(piles)
        if npiles:
            layout = npiles
        else:
            # Before the first spit: outline where the piles will be (R10).
            layout = 2 if game.hand[0] and game.hand[1] else 1
        key = layout | (npiles << 2)
        if keys[_AREA] != key:
            keys[_AREA] = key
            keys[_FACE] = keys[_FACE + 1] = -1
            keys[_COUNT] = keys[_COUNT + 1] = -1
            self._area(layout, npiles)
            drew = True
        xs = PILE_X2 if layout == 2 else PILE_X1
        slap = game.phase == "slap"
        for j in range(layout):
            top = piles[j][-1] + 1 if j < npiles else 0
            if keys[_FACE + j] != top:
                keys[_FACE + j] = top
                if top:
                    self._face(top - 1, xs[j])
                drew = True
            cnt = len(piles[j]) if slap and j < npiles else 0
            if keys[_COUNT + j] != cnt:
                keys[_COUNT + j] = cnt
                self._count(cnt, xs[j])
                drew = True
        return drew

    def _slot(self, s, is_down, cursor, x, rot):
        y = HALF_Y
        self._fill(x, y, SLOT_W, HALF_H, 0, rot)
        self._mark(x, y, SLOT_W, HALF_H, rot)
        if not s:
            self._corners(x, y, SLOT_W, HALF_H, 1, rot)
            if cursor:
                self._fill(x + 4, y + 11, SLOT_W - 8, 3, 1, rot)
            return
        fg = 1
        if cursor:
            self._fill(x, y, SLOT_W, HALF_H, 1, rot)    # the cursor: the card inverted
            fg = 0
        else:
            self._rect(x, y, SLOT_W, HALF_H, 1, rot)
        if is_down:
            # Face down (manual_flip, R14): a hatched back.
            for k in range(x + 3, x + 12, 2):
                self._vline(k, y + 3, 10, fg, rot)
        else:
            c = s[-1]
            self.big(_RANK_TEXT[c >> 2], x + 2, y + 3, fg, rot)
            self._suit(c, x + 14, y + 2, fg, rot)
        if len(s) > 1:
            # How many face-down cards lie under the top card.
            self._number(len(s) - 1, x + SLOT_W - 2, y + 9, fg, rot)

    def _stack(self, n, rot):
        x = STACK_X
        y = HALF_Y
        self._fill(x, y, STACK_W, HALF_H, 0, rot)
        self._mark(x, y, STACK_W, HALF_H, rot)
        if n:
            # The face-down spit stack (R6) with its count.
            self._fill(x, y, STACK_W, HALF_H, 1, rot)
            self._number(n, x + (STACK_W + (7 if n > 9 else 3)) // 2, y + 6, 0, rot)
        else:
            self._corners(x, y, STACK_W, HALF_H, 1, rot)

    def _message(self, m, rot):
        x = MSG_X
        y = MSG_Y
        self._fill(x, y, MSG_W, CORNER_H, 0, rot)
        self._mark(x, y, MSG_W, CORNER_H, rot)
        fg = 1
        if m.inv:
            self._fill(x, y, MSG_W, CORNER_H - 1, 1, rot)
            fg = 0
        self.text(m.l1, x + 1, y + 2, fg, rot, x + MSG_W)
        self.text(m.l2, x + 1, y + 9, fg, rot, x + MSG_W)

    def _info(self, rnd, pts, bar, rot):
        x = INFO_X
        y = MSG_Y
        self._fill(x, y, MSG_W, CORNER_H, 0, rot)
        self._mark(x, y, MSG_W, CORNER_H, rot)
        r = self._number(rnd, x + MSG_W - 1, y + 2, 1, rot)
        self.text("ROUND", r - 2 - _ROUND_W, y + 2, 1, rot)
        if bar > 0:
            # The slap time limit running out (R26).
            self._fill(x + MSG_W - bar, y + 10, bar, 3, 1, rot)
        elif bar < 0 and pts >= 0:
            r = self._number(pts, x + MSG_W - 1, y + 9, 1, rot)
            self.text("PTS", r - 2 - _PTS_W, y + 9, 1, rot)

    def _area(self, layout, npiles):
        self._fill(AREA_X, 16, AREA_W, 32, 0, 0)
        self._mark(AREA_X, 16, AREA_W, 32, 0)
        xs = PILE_X2 if layout == 2 else PILE_X1
        for j in range(layout):
            if j < npiles:
                self._rect(xs[j], PILE_Y, PILE_W, PILE_H, 1, 0)
            else:
                self._corners(xs[j], PILE_Y, PILE_W, PILE_H, 1, 0)

    def _face(self, card, x):
        # The interior rows 24-39 only (pages 3-4); the frame stays.
        self._fill(x + 1, FACE_Y, PILE_W - 2, FACE_H, 0, 0)
        self._mark(x + 1, FACE_Y, PILE_W - 2, FACE_H, 0)
        t = _RANK_TEXT[card >> 2]
        for rot in (0, 1):
            xl = x if not rot else W - x - PILE_W     # the pile as the player sees it
            self.big(t, xl + 2, 30, 1, rot)
            self._suit(card, xl + 2, 24, 1, rot)

    def _count(self, n, x):
        # Pile sizes in the slap phase: slap the smaller pile (R25).
        for rot in (0, 1):
            xl = x if not rot else W - x - PILE_W
            self._fill(xl + 1, 40, PILE_W - 2, 5, 0, rot)
            self._mark(xl + 1, 40, PILE_W - 2, 5, rot)
            if n:
                self._number(n, xl + PILE_W - 3, 40, 1, rot)

    # ---- text screens -----------------------------------------------------------------
    def stale_text(self, kind, key):
        """Is text screen `kind` with content version `key` not what is on screen?"""
        return self._kind != kind or self._text_key != key

    def _begin_text(self, kind, key):
        if self._kind == kind and self._text_key == key:
            return False
        self._kind = kind
        self._text_key = key
        self.fb.fill(0)
        self._mark(0, 0, W, H, 0)
        return True

    def title(self, kind, key, items, sel, note):
        """Title and menu, upright (whoever sets up the game reads it)."""
        if not self._begin_text(kind, key):
            return False
        self.big("SPIT", (W - big_width("SPIT")) // 2, 1, 1, 0)
        self.text(note, (W - text_width(note)) // 2, 13, 1, 0)
        y = 21
        for k in range(len(items)):
            fg = 1
            if k == sel:
                self._fill(0, y - 1, W, 7, 1, 0)
                fg = 0
            self.text(items[k], 6, y, fg, 0)
            y += 7
        return True

    def halves(self, kind, key, lines0, lines1, sel=-1):
        """A text screen in two halves, each facing its player: lines0 for player 0
        (bottom, upright), lines1 for player 1 (top, rotated). Up to five lines each;
        line `sel` is highlighted in both (a menu)."""
        if not self._begin_text(kind, key):
            return False
        for rot in (0, 1):
            lines = lines1 if rot else lines0
            self._hline(8, 32, W - 16, 1, rot)
            y = 34
            for k in range(len(lines)):
                fg = 1
                if k == sel:
                    self._fill(0, y - 1, W, 7, 1, rot)
                    fg = 0
                s = lines[k]
                self.text(s, (W - text_width(s)) // 2, y, fg, rot)
                y += 6
        return True
