# The 128x64 picture (DESIGN.md "Screen"), drawn with the project's own font
# (font.py) through the framebuf calls every port provides: fill, pixel, hline, vline,
# rect, fill_rect (no text()). The screens give it the display port's fb; it never
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
#
# Reading at a glance on a 0.96" panel (a 5-pixel letter is under 1 mm tall):
# - a stockpile card is 21x14; the one under the cursor is *lifted* two rows towards
#   the table with a thick frame and a pedestal under it, so it never looks like
#   anything else; face-down cards (the spit stack, a manual_flip top) show a hatched
#   back, the spit stack with a second card behind it and its count in a window;
# - the ranks 6 and 9 are underlined, as real cards mark them (font.py 's' and 'n');
# - a spit pile shows its rank twice, like a real card's corner indices: upright for
#   player 0, rotated for player 1, both inside pages 3-4, so a play onto a pile
#   changes only those two pages there;
# - the slap (R25-R26): each player's stockpile band becomes a "SLAP!" banner with
#   the buttons' sides and the time limit running out under it, and the two piles'
#   sizes stand big in the corners beside them, the smaller one inverted.
#
# Redraw only what changed: each region remembers the int key of what it last drew
# and is redrawn when the key differs. `spans` records, per page, the columns drawn
# since the last clear_spans(): the display port sends only those (hw/display.py).

from firmware import font

from shared_rules.compat import const

W = const(128)
H = const(64)

SLOT_PITCH = const(22)
SLOT_W = const(21)
CARD_H = const(14)        # a stockpile card; the band is two rows taller (the lift)
HALF_Y = const(48)        # player 0's stockpiles: rows 48-63
HALF_H = const(16)
LIFT = const(2)           # the card under the cursor stands this much nearer the table
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
BAR_Y = const(62)         # the slap time limit under the banner: rows 62-63
# Regions a call of game() may draw beyond the decisive ones. On the chip a region
# takes ~1.5 ms to draw (a whole table, 23 regions, ~36 ms: more than a frame; the
# spit, 7 regions, ~11 ms beside the rules' own), so a new round's table, or the spit,
# appears over a few quick steps instead of in one long frame.
DRAW_BUDGET = const(2)
# What a message corner's two lines of medium letters count for in it: two corners in
# one step drew for 12-16 ms on the chip, two stockpiles for ~3.
MESSAGE_COST = const(2)

# Region slots in _keys.
_SLOT = const(0)          # 10: player p's stockpile i at p*5+i
_STACK = const(10)        # 2
_MSG = const(12)          # 2
_INFO = const(14)         # 2
_AREA = const(16)         # 1
_FACE = const(17)         # 2
_BAND = const(19)         # 2: 0 = the stockpiles, else the slap banner
_SBAR = const(21)         # 2: the slap time bar
_NKEYS = const(23)
_MONO_VLSB = const(0)     # framebuf.MONO_VLSB
_SMALL = const(0)         # _glyphs: the small font, the big font, the suit marks,
_BIG = const(1)           # the palette that inverts and the card backs
_SUITS = const(2)
_INVERT = const(3)
_BACKS = const(4)
_MED = const(5)           # the medium font: words read at arm's length

_GAME = const(100)        # text screens use the app's screen number as their kind

# Big-font indices of each rank's characters: "2".."9", "10", "J", "Q", "K", "A"
# ('s' and 'n' are the underlined 6 and 9 of font.py).
_RANK_TEXT = ("2", "3", "4", "5", "s", "7", "8", "n", "10", "J", "Q", "K", "A")


class Message:
    """What a player's message corner shows: two lines, inverted or not, and a bar
    (0..BAR_MAX, or -1: none) under the first line. seq changes when it does; words
    when anything but the bar does (a bar that runs down redraws only itself)."""

    def __init__(self):
        self.l1 = ""
        self.l2 = ""
        self.inv = False
        self.bar = -1
        self.seq = 0
        self.words = 0

    def set(self, l1, l2="", inv=False, bar=-1):
        if l1 != self.l1 or l2 != self.l2 or inv != self.inv or bar != self.bar:
            self.l1 = l1
            self.l2 = l2
            self.inv = inv
            self.bar = bar
            self.seq = (self.seq + 1) & 0xFFFFF
            self.words = self.seq

    def set_bar(self, bar):
        if bar != self.bar:
            self.bar = bar
            self.seq = (self.seq + 1) & 0xFFFFF


def _width(s, chars, widths):
    # A glyph missing from the font is drawn as a 3-pixel gap; one pixel between glyphs.
    n = 0
    for ch in s:
        i = chars.find(ch)
        n += (widths[i] if i >= 0 else 3) + 1
    return n - 1 if n else 0


def text_width(s):
    return _width(s, font.SMALL_CHARS, font.SMALL_W)


def med_width(s):
    return _width(s, font.MED_CHARS, font.MED_W)


def big_width(s):
    n = 0
    for ch in s:
        i = font.BIG_CHARS.find(ch)
        n += (font.BIG_W[i] if i >= 0 else 3) + 1
    return n - 1 if n else 0


_ROUND_W = med_width("ROUND")
_PTS_W = med_width("PTS")
_SLAP_W = big_width("SLAP!")
BAR_MAX = MSG_W - 1


# The fonts as MONO_VLSB framebufs, built once for all views: per font a strip of every
# glyph upright and one turned 180° (player 1's half), its column count and height, and
# a scratch framebuf per glyph width; then a palette that draws set bits as 0, and the
# card backs.
_glyphs = None


def _strips(make, cols, per, h, widths):
    n = len(cols) // per
    pages = (h + 7) >> 3
    upright = bytearray(n * pages)
    turned = bytearray(n * pages)
    for k in range(n):
        bits = cols[k * per] | ((cols[k * per + 1] << 8) if per == 2 else 0)
        flipped = 0
        for r in range(h):
            if bits & (1 << r):
                flipped |= 1 << (h - 1 - r)
        for p in range(pages):
            upright[p * n + k] = (bits >> (8 * p)) & 0xFF
            turned[p * n + n - 1 - k] = (flipped >> (8 * p)) & 0xFF
    scratch = [None] * (max(widths) + 1)
    for w in widths:
        if scratch[w] is None:
            scratch[w] = make(bytearray(w * pages), w, h, _MONO_VLSB)
    return (make(upright, n, h, _MONO_VLSB), make(turned, n, h, _MONO_VLSB), n, h, scratch)


def _draw_back(fb, w, h):
    # A card's back: a frame, a dotted ring and an inner frame; the middle stays clear
    # for a count.
    fb.fill(0)
    fb.rect(0, 0, w, h, 1)
    fb.rect(2, 2, w - 4, h - 4, 1)
    for i in range(1, w - 1, 2):
        fb.pixel(i, 1, 1)
        fb.pixel(i, h - 2, 1)
    for j in range(3, h - 2, 2):
        fb.pixel(1, j, 1)
        fb.pixel(w - 2, j, 1)


def _backs(make):
    # Upright and turned, for a stockpile card and the spit stack's narrower card.
    out = []
    for w in (SLOT_W, STACK_W - 2):
        up = make(bytearray(w * 2), w, CARD_H, _MONO_VLSB)
        _draw_back(up, w, CARD_H)
        turned = make(bytearray(w * 2), w, CARD_H, _MONO_VLSB)
        for i in range(w):
            for j in range(CARD_H):
                turned.pixel(w - 1 - i, CARD_H - 1 - j, up.pixel(i, j))
        out.append(up)
        out.append(turned)
    return out


def _build_glyphs(make):
    global _glyphs
    if _glyphs is None:
        _glyphs = (_strips(make, font.SMALL_COLS, 1, font.SMALL_H, font.SMALL_W),
                   _strips(make, font.BIG_COLS, 2, font.BIG_H, font.BIG_W),
                   _strips(make, font.SUIT_COLS, 1, font.SMALL_H, (font.SUIT_W,)),
                   make(bytearray(b"\x01\x00"), 2, 1, _MONO_VLSB),
                   _backs(make),
                   _strips(make, font.MED_COLS, 1, font.MED_H, font.MED_W))
    return _glyphs


class View:
    def __init__(self, fb):
        self.fb = fb
        # A framebuf of the screen's own kind holds the glyphs: the view imports no
        # framebuf module (the hardware layer's), the display port's fb brings it.
        _build_glyphs(type(fb))
        self.spans = bytearray(16)    # per page: first column, last column (first > last: clean)
        self._keys = [-1] * _NKEYS
        # The message corners as drawn: whose Message, its words, its bar.
        self._shown_msg = [None, None]
        self._shown_words = [-1, -1]
        self._shown_bar = [-1, -1]
        self._kind = 0
        self._text_key = -1
        self.budget = DRAW_BUDGET
        self.behind = False
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

    def mark(self, x, y, w, h, rot=0):
        """A screen that draws with the primitives below says which rectangle changed,
        so that the display port sends it (and only the pages it touches)."""
        self._mark(x, y, w, h, rot)

    # ---- primitives (logical coordinates; rot=1 turns them 180°): the framebuf's own
    # calls with a rot, for the screens' drawing too ---------------------------------
    def fill_rect(self, x, y, w, h, c, rot):
        if rot:
            self.fb.fill_rect(W - x - w, H - y - h, w, h, c)
        else:
            self.fb.fill_rect(x, y, w, h, c)

    def rect(self, x, y, w, h, c, rot):
        if rot:
            self.fb.rect(W - x - w, H - y - h, w, h, c)
        else:
            self.fb.rect(x, y, w, h, c)

    def hline(self, x, y, w, c, rot):
        if rot:
            self.fb.hline(W - x - w, H - 1 - y, w, c)
        else:
            self.fb.hline(x, y, w, c)

    def vline(self, x, y, h, c, rot):
        if rot:
            self.fb.vline(W - 1 - x, H - y - h, h, c)
        else:
            self.fb.vline(x, y, h, c)

    def pixel(self, x, y, c, rot):
        if rot:
            self.fb.pixel(W - 1 - x, H - 1 - y, c)
        else:
            self.fb.pixel(x, y, c)

    def _glyph(self, strips, off, w, x, y, c, rot):
        # Two blits in C: the glyph's columns from its font strip into the scratch
        # framebuf of its width, then the scratch onto the screen, set bits only (a
        # glyph drawn column by column in Python cost ~0.25 ms a letter on the chip).
        upright, turned, n, h, scratch = strips
        s = scratch[w]
        if rot:
            s.blit(turned, off + w - n, 0)
            x = W - x - w
            y = H - y - h
        else:
            s.blit(upright, -off, 0)
        if c:
            self.fb.blit(s, x, y, 0)
        else:
            self.fb.blit(s, x, y, 1, _glyphs[_INVERT])

    def text(self, s, x, y, c, rot, right=W):
        """Small font (5 rows); characters that would pass x `right` are left out.
        Returns the x after the text."""
        return self._line(_glyphs[_SMALL], font.SMALL_CHARS, font.SMALL_OFS, font.SMALL_W,
                          s, x, y, c, rot, right)

    def med(self, s, x, y, c, rot, right=W):
        """Medium font (7 rows), the words a player reads; characters that would pass
        x `right` are left out. Returns the x after the text."""
        return self._line(_glyphs[_MED], font.MED_CHARS, font.MED_OFS, font.MED_W,
                          s, x, y, c, rot, right)

    def med_centred(self, s, y, c, rot, x0=0, w=W):
        """Medium text centred in x0..x0+w (from x0 if it is wider: cut at the right)."""
        d = w - med_width(s)
        return self.med(s, x0 + (d // 2 if d > 0 else 0), y, c, rot, x0 + w)

    def big(self, s, x, y, c, rot):
        """Big font (10 rows); returns the x after the text."""
        return self._line(_glyphs[_BIG], font.BIG_CHARS, font.BIG_OFS, font.BIG_W,
                          s, x, y, c, rot, W)

    def _line(self, strips, chars, ofs, ws, s, x, y, c, rot, right):
        # _glyph's two blits inlined: on the chip a Python call costs about as much as
        # a blit, and a message is drawn on every frame that changes it.
        upright, turned, n, h, scratch = strips
        blit = self.fb.blit
        key = 0 if c else 1
        pal = None if c else _glyphs[_INVERT]
        for ch in s:
            i = chars.find(ch)
            if i < 0:
                x += 4
                continue
            w = ws[i]
            if x + w > right:
                break
            g = scratch[w]
            if rot:
                g.blit(turned, ofs[i] + w - n, 0)
                blit(g, W - x - w, H - y - h, key, pal)
            else:
                g.blit(upright, -ofs[i], 0)
                blit(g, x, y, key, pal)
            x += w + 1
        return x

    def width(self, s):
        return text_width(s)

    def centred(self, s, y, c, rot, x0=0, w=W):
        """Small text centred in x0..x0+w."""
        self.text(s, x0 + (w - text_width(s)) // 2, y, c, rot)

    def big_centred(self, s, y, c, rot, x0=0, w=W):
        self.big(s, x0 + (w - big_width(s)) // 2, y, c, rot)

    def _suit(self, card, x, y, c, rot):
        self._glyph(_glyphs[_SUITS], (card & 3) * font.SUIT_W, font.SUIT_W, x, y, c, rot)

    def _number(self, n, x_right, y, c, rot):
        # Right-aligned small digits without building a string.
        if n < 0:
            n = 0
        while True:
            d = n % 10
            i = font.SMALL_CHARS.find("0123456789"[d])
            w = font.SMALL_W[i]
            x_right -= w
            self._glyph(_glyphs[_SMALL], font.SMALL_OFS[i], w, x_right, y, c, rot)
            x_right -= 1
            n //= 10
            if not n:
                return x_right

    def _corners(self, x, y, w, h, c, rot):
        # An empty place: just its four corners.
        self.hline(x, y, 3, c, rot)
        self.hline(x + w - 3, y, 3, c, rot)
        self.hline(x, y + h - 1, 3, c, rot)
        self.hline(x + w - 3, y + h - 1, 3, c, rot)
        self.vline(x, y + 1, 2, c, rot)
        self.vline(x + w - 1, y + 1, 2, c, rot)
        self.vline(x, y + h - 3, 2, c, rot)
        self.vline(x + w - 1, y + h - 3, 2, c, rot)

    def _back(self, x, y, w, h, rot):
        # A card's back (face down, R6 and R14), drawn once by _draw_back for each size
        # and turn: one blit that also clears what was under it.
        backs = _glyphs[_BACKS]
        k = 0 if w == SLOT_W else 2
        if rot:
            self.fb.blit(backs[k + 1], W - x - w, H - y - h)
        else:
            self.fb.blit(backs[k], x, y)

    def card(self, c, x, y, rot, under=0, down=False):
        """A 21x14 card: its rank big, its suit, and how many cards lie under it (a
        face-down one shows its back)."""
        if down:
            self._back(x, y, SLOT_W, CARD_H, rot)
            if under:
                self._number(under, x + (SLOT_W + (7 if under > 9 else 3)) // 2, y + 5, 1, rot)
            return
        self.fill_rect(x, y, SLOT_W, CARD_H, 0, rot)
        self.rect(x, y, SLOT_W, CARD_H, 1, rot)
        self.big(_RANK_TEXT[c >> 2], x + 2, y + 2, 1, rot)
        self._suit(c, x + 14, y + 2, 1, rot)
        if under:
            self._number(under, x + SLOT_W - 2, y + 8, 1, rot)

    # ---- the play screen --------------------------------------------------------------
    def game(self, game, cursors, msgs, slap_bar=-1, info=None, waiting=False):
        """Draw the table: stockpiles, spit stacks, piles, messages, info; in the slap
        phase the piles' sizes, and the banners once the signal has come (R44: while
        waiting is True the stockpiles stay). slap_bar: the slap time left
        (0..BAR_MAX; -1 outside the slap). info: None for the round and points, or a
        Message shown in both info corners (the attract mode). Redraws only regions
        whose content changed; returns True if anything was drawn.

        A big redraw (a new round, the spit) would hold the chip for a whole frame and
        more, so every redraw is spread: the decisive regions first and always (the
        piles' faces: the card played; both slap banners at once, R44), then at most
        `budget` others a call: the stockpiles and spit stacks, each player's in turn
        (a play's slot, a cursor's move), then the corners; `behind` says some were
        left for the next call (0: no limit)."""
        drew = False
        if self._kind != _GAME:
            self.fb.fill(0)
            self._mark(0, 0, W, H, 0)
            for k in range(_NKEYS):
                self._keys[k] = -1
            self._kind = _GAME
            drew = True
        keys = self._keys
        left = self.budget if self.budget > 0 else _NKEYS
        behind = False
        piles = game.piles
        npiles = len(piles)
        sizes = game.phase == "slap" and npiles == 2
        slap = game.phase == "slap" and not waiting
        # The card played: the pile area and the piles' faces (R17).
        if npiles:
            layout = npiles
        else:
            # Before the first spit: outline where the piles will be (R10).
            layout = 2 if game.hand[0] and game.hand[1] else 1
        key = layout | (npiles << 2)
        if keys[_AREA] != key:
            keys[_AREA] = key
            keys[_FACE] = keys[_FACE + 1] = -1
            self._area(layout, npiles)
            drew = True
        xs = PILE_X2 if layout == 2 else PILE_X1
        for j in range(layout):
            top = piles[j][-1] + 1 if j < npiles else 0
            if keys[_FACE + j] != top:
                keys[_FACE + j] = top
                if top:
                    self._face(top - 1, xs[j])
                drew = True
        # The slap signal: both players' banners and time bars (R25-R26).
        for p in (0, 1):
            if slap:
                if keys[_BAND + p] != npiles:
                    keys[_BAND + p] = npiles
                    keys[_SBAR + p] = -1
                    for i in range(5):
                        keys[_SLOT + p * 5 + i] = -1
                    keys[_STACK + p] = -1
                    self._banner(npiles, p)
                    drew = True
                if keys[_SBAR + p] != slap_bar:
                    keys[_SBAR + p] = slap_bar
                    self._slap_bar(slap_bar, p)
                    drew = True
            elif keys[_BAND + p] != 0:
                keys[_BAND + p] = 0
                self.fill_rect(0, HALF_Y, W, HALF_H, 0, p)
                self._mark(0, HALF_Y, W, HALF_H, p)
        # The stockpiles, then the spit stacks: a place of each player in turn.
        if not slap:
            for i in range(6):
                for p in (0, 1):
                    if i < 5:
                        key = self._slot_key(game, p, cursors[p], i)
                        k = _SLOT + p * 5 + i
                    else:
                        key = len(game.hand[p])
                        k = _STACK + p
                    if keys[k] != key:
                        if left > 0:
                            keys[k] = key
                            if i < 5:
                                self._slot(game.stock[p][i], game.down[p][i],
                                           cursors[p] == i, i * SLOT_PITCH, p)
                            else:
                                self._stack(key, p)
                            left -= 1
                            drew = True
                        else:
                            behind = True
        # The corners: in the slap the piles' sizes beside them (the player's left pile
        # in the message corner, the right one in the info corner; the smaller
        # inverted, R25), else the messages (a fumble, R41).
        for p in (0, 1):
            if sizes:
                side = 0 if p == 0 else 1
                nl = len(piles[side])
                nr = len(piles[1 - side])
                key = (1 << 24) | (nl << 8) | (2 if nl < nr else 0)
                if keys[_MSG + p] != key:
                    if left > 0:
                        keys[_MSG + p] = key
                        self._size(nl, nl < nr, MSG_X, p)
                        left -= 1
                        drew = True
                    else:
                        behind = True
                key = (1 << 24) | (nr << 8) | (2 if nr < nl else 0)
                if keys[_INFO + p] != key:
                    if left > 0:
                        keys[_INFO + p] = key
                        self._size(nr, nr < nl, INFO_X, p)
                        left -= 1
                        drew = True
                    else:
                        behind = True
            elif keys[_MSG + p] != msgs[p].seq:
                if left > 0:
                    m = msgs[p]
                    if keys[_MSG + p] >= 0 and self._shown_msg[p] is m and \
                            self._shown_words[p] == m.words and \
                            self._shown_bar[p] >= 0 and m.bar >= 0:
                        # Only the fumble's bar ran on (R41): its end, not the corner.
                        self._bar_end(m, self._shown_bar[p], MSG_X, p)
                        left -= 1
                    else:
                        self._message(m, MSG_X, p)
                        left -= MESSAGE_COST
                    keys[_MSG + p] = m.seq
                    self._shown_msg[p] = m
                    self._shown_words[p] = m.words
                    self._shown_bar[p] = m.bar
                    drew = True
                else:
                    behind = True
        # The round and the points (or the attract mode's info).
        if not sizes:
            for p in (0, 1):
                if info is not None:
                    key = (1 << 22) | info.seq
                else:
                    pts = game.scores[p] if game.rules.points else -1
                    key = (game.round & 0xFF) | ((pts + 1) << 8)
                if keys[_INFO + p] != key:
                    if left > 0:
                        keys[_INFO + p] = key
                        if info is not None:
                            self._message(info, INFO_X, p)
                        else:
                            self._info(game.round, pts, p)
                        left -= 1
                        drew = True
                    else:
                        behind = True
        self.behind = behind
        return drew

    def _slot_key(self, game, p, cur, i):
        s = game.stock[p][i]
        n = len(s)
        key = 0
        if n:
            key = (s[-1] + 1) | (64 if game.down[p][i] else 0) | ((n - 1 if n < 64 else 63) << 7)
        if cur == i:
            key |= 1 << 13
        return key

    def _slot(self, s, is_down, cursor, x, rot):
        y = HALF_Y
        self.fill_rect(x, y, SLOT_W, HALF_H, 0, rot)
        self._mark(x, y, SLOT_W, HALF_H, rot)
        cy = y if cursor else y + LIFT
        if not s:
            self._corners(x, cy, SLOT_W, CARD_H, 1, rot)
        else:
            self.card(s[-1], x, cy, rot, len(s) - 1, is_down)
        if cursor:
            # The pedestal under the lifted card: where the player's finger is.
            self.fill_rect(x + 2, y + CARD_H, SLOT_W - 4, 2, 1, rot)

    def _stack(self, n, rot):
        x = STACK_X
        y = HALF_Y
        self.fill_rect(x, y, STACK_W, HALF_H, 0, rot)
        self._mark(x, y, STACK_W, HALF_H, rot)
        if not n:
            self._corners(x, y + LIFT, STACK_W - 2, CARD_H, 1, rot)
            return
        # The face-down spit stack (R6): a card back, another behind it, its count in
        # the middle.
        if n > 1:
            self.hline(x + 2, y, STACK_W - 2, 1, rot)
            self.vline(x + STACK_W - 1, y, CARD_H, 1, rot)
        self._back(x, y + LIFT, STACK_W - 2, CARD_H, rot)
        self._number(n, x + (STACK_W - 2 + (7 if n > 9 else 3)) // 2, y + LIFT + 5, 1, rot)

    def _banner(self, npiles, rot):
        # R25-R26: the slap. The band turns into a banner; A slaps the left pile, B the
        # right one (one pile: either button).
        y = HALF_Y
        self.fill_rect(0, y, W, HALF_H, 0, rot)
        self._mark(0, y, W, HALF_H, rot)
        self.fill_rect(0, y, W, BAR_Y - y - 1, 1, rot)
        self.big("SLAP!", (W - _SLAP_W) // 2, y + 2, 0, rot)
        if npiles == 2:
            self.text("<A", 4, y + 5, 0, rot)
            self.text("B>", W - 4 - text_width("B>"), y + 5, 0, rot)
        else:
            self.text("A/B", 4, y + 5, 0, rot)
            self.text("A/B", W - 4 - text_width("A/B"), y + 5, 0, rot)

    def _slap_bar(self, bar, rot):
        # The slap time limit running out (R26), centred under the banner.
        self.fill_rect(0, BAR_Y, W, 2, 0, rot)
        self._mark(0, BAR_Y, W, 2, rot)
        if bar > 0:
            w = bar * W // BAR_MAX
            self.fill_rect((W - w) // 2, BAR_Y, w, 2, 1, rot)

    def _size(self, n, small, x, rot):
        # A pile's size, big, beside it; the smaller pile's inverted (slap it, R25).
        y = MSG_Y
        self.fill_rect(x, y, MSG_W, CORNER_H, 0, rot)
        self._mark(x, y, MSG_W, CORNER_H, rot)
        fg = 1
        if small:
            self.fill_rect(x + 2, y + 1, MSG_W - 4, CORNER_H - 2, 1, rot)
            fg = 0
        self.big_centred("%d" % n, y + 3, fg, rot, x, MSG_W)

    def _message(self, m, x, rot):
        y = MSG_Y
        self.fill_rect(x, y, MSG_W, CORNER_H, 0, rot)
        self._mark(x, y, MSG_W, CORNER_H, rot)
        fg = 1
        if m.inv:
            self.fill_rect(x, y, MSG_W, CORNER_H - 1, 1, rot)
            fg = 0
        # Two lines of the medium font, centred, read at arm's length.
        self.med_centred(m.l1, y, fg, rot, x, MSG_W)
        if m.bar >= 0:
            # A time running out under the first line (the fumble, R41).
            if m.bar > 0:
                self.fill_rect(x + 1, y + 9, m.bar, 4, fg, rot)
        else:
            self.med_centred(m.l2, y + 8, fg, rot, x, MSG_W)

    def _bar_end(self, m, was, x, rot):
        # As _message draws the bar: from x + 1, 4 rows under the first line.
        lo = was if was < m.bar else m.bar
        n = m.bar - was if was < m.bar else was - m.bar
        fg = 0 if m.inv else 1
        self.fill_rect(x + 1 + lo, MSG_Y + 9, n, 4, fg if m.bar > was else 1 - fg, rot)
        self._mark(x + 1 + lo, MSG_Y + 9, n, 4, rot)

    def _info(self, rnd, pts, rot):
        x = INFO_X
        y = MSG_Y
        self.fill_rect(x, y, MSG_W, CORNER_H, 0, rot)
        self._mark(x, y, MSG_W, CORNER_H, rot)
        # The words in the medium font, the numbers small (secondary), on one baseline.
        r = self._number(rnd, x + MSG_W - 1, y + 2, 1, rot)
        lo = r - 2 - _ROUND_W
        self.med("ROUND", lo, y, 1, rot)
        if pts >= 0:
            r = self._number(pts, x + MSG_W - 1, y + 10, 1, rot)
            self.med("PTS", r - 2 - _PTS_W, y + 8, 1, rot)
        if lo < x:
            # From round 10 the words start left of the corner, in the pile area's empty
            # margin: the corner ends at its edge (the area, drawn first, stays).
            self.fill_rect(lo, y, x - lo, CORNER_H, 0, rot)

    def _area(self, layout, npiles):
        self.fill_rect(AREA_X, 16, AREA_W, 32, 0, 0)
        self._mark(AREA_X, 16, AREA_W, 32, 0)
        xs = PILE_X2 if layout == 2 else PILE_X1
        for j in range(layout):
            if j < npiles:
                self.rect(xs[j], PILE_Y, PILE_W, PILE_H, 1, 0)
            else:
                self._corners(xs[j], PILE_Y, PILE_W, PILE_H, 1, 0)

    def _face(self, card, x):
        # The interior rows 24-39 only (pages 3-4); the frame stays.
        self.fill_rect(x + 1, FACE_Y, PILE_W - 2, FACE_H, 0, 0)
        self._mark(x + 1, FACE_Y, PILE_W - 2, FACE_H, 0)
        t = _RANK_TEXT[card >> 2]
        for rot in (0, 1):
            xl = x if not rot else W - x - PILE_W     # the pile as the player sees it
            self.big(t, xl + 2, 30, 1, rot)
            self._suit(card, xl + 2, 24, 1, rot)

    # ---- text screens -----------------------------------------------------------------
    def stale_text(self, kind, key):
        """Is text screen `kind` with content version `key` not what is on screen?"""
        return self._kind != kind or self._text_key != key

    def begin_text(self, kind, key):
        """Start drawing text screen `kind` with content version `key` on a clear
        screen; False if that is what is shown already."""
        if self._kind == kind and self._text_key == key:
            return False
        self._kind = kind
        self._text_key = key
        self.fb.fill(0)
        self._mark(0, 0, W, H, 0)
        return True

    def banners(self, kind, key, half0, half1):
        """A screen of two halves (over, pause, rematch), each facing its player: a big
        banner (inverted for a win), a line, then a row of choices (or a second line),
        all in the medium font. half = (banner, inverted, line1, line2, choices,
        selected); line2 shows only where there are no choices; selected -1: none lit.
        Here, not in a screen's module, because the pause and rematch screens draw it
        too and must not keep the game-over screen loaded."""
        if not self.begin_text(kind, key):
            return False
        for rot in (0, 1):
            banner, inv, l1, l2, items, sel = half1 if rot else half0
            fg = 1
            if inv:
                self.fill_rect(4, 32, W - 8, 12, 1, rot)
                fg = 0
            self.big_centred(banner, 33, fg, rot)
            self.med_centred(l1, 46, 1, rot)
            if items:
                gap = 10
                total = (len(items) - 1) * gap
                for s in items:
                    total += med_width(s) + 4
                x = (W - total) // 2
                for k in range(len(items)):
                    s = items[k]
                    w = med_width(s) + 4
                    c = 1
                    if k == sel:
                        self.fill_rect(x, 55, w, 9, 1, rot)
                        c = 0
                    self.med(s, x + 2, 56, c, rot)
                    x += w + gap
            else:
                self.med_centred(l2, 56, 1, rot)
        return True
