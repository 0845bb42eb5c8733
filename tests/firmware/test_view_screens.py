"""The view (firmware/view.py): every screen draws without error, only with the
framebuf calls the emulator's stand-in implements, never outside 128x64; player 1's
half is player 0's turned 180°; what changed is reported in the page spans; the font
bytes are the art in font.py's comments."""
import importlib.util
from pathlib import Path

import pytest

from desktop_emulator import framebuf
from firmware import font, view as V
from firmware.app import GAME, SUMMARY, OVER_SCREEN, PAUSE, TITLE, REMATCH
from host.rig import Rig
from shared_rules.cards import card
from shared_rules.game import Rules
from tests.helpers import layout

ALLOWED = {"fill", "pixel", "hline", "vline", "line", "rect", "fill_rect", "blit"}


class RecordingFB:
    """A framebuf that checks every call is allowed and inside the screen, then draws
    it on the real (desktop) framebuf so the bytes can be compared too."""

    def __new__(cls, *args):
        # The view makes its glyph framebufs with type(fb)(buf, w, h, format): those
        # are plain framebufs (their blits onto the screen are what gets checked).
        if args:
            return framebuf.FrameBuffer(*args)
        return super().__new__(cls)

    def __init__(self):
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.calls = []
        self.bad = []

    def __getattr__(self, name):
        if name not in ALLOWED:
            raise AssertionError("framebuf call not allowed: " + name)
        real = getattr(self.fb, name)

        def call(*args):
            self.calls.append((name,) + args)
            r = _rect(name, args)
            if r is not None:
                x, y, w, h = r
                if x < 0 or y < 0 or x + w > 128 or y + h > 64 or w < 0 or h < 0:
                    self.bad.append((name,) + args)
            return real(*args)
        return call


def _rect(name, a):
    if name in ("fill_rect", "rect"):
        return a[0], a[1], a[2], a[3]
    if name == "hline":
        return a[0], a[1], a[2], 1
    if name == "vline":
        return a[0], a[1], 1, a[2]
    if name == "pixel":
        return a[0], a[1], 1, 1
    if name == "blit":
        return a[1], a[2], a[0]._fb_width, a[0]._fb_height
    if name == "line":
        return min(a[0], a[2]), min(a[1], a[3]), abs(a[2] - a[0]) + 1, abs(a[3] - a[1]) + 1
    return None


class RecDisplay:
    def __init__(self):
        self.rec = RecordingFB()
        self.fb = self.rec
        self.shows = 0

    def show(self):
        self.shows += 1


def rig_with_recorder(**kw):
    d = RecDisplay()
    return Rig(framebuf, display=d, **kw), d.rec


def pixel(buf, x, y):
    return (buf[(y >> 3) * 128 + x] >> (y & 7)) & 1


def rows(buf, y0, y1):
    return [[pixel(buf, x, y) for x in range(128)] for y in range(y0, y1)]


def test_every_screen_draws_inside_the_screen_with_allowed_calls():
    rig, rec = rig_with_recorder()
    app = rig.app
    seen = set()
    rig.frames(2)
    seen.add(app.screen)
    rig.menu(["A", "B", "A", "B", "A", "B", "U", "U", "U", "B"])   # CPU easy, points, manual flip
    assert app.screen == GAME and app.game.rules.points and app.game.rules.manual_flip
    rig.add_bots(("hard", "hard"), seed=3, players=(0,))
    phases = set()
    for _ in range(200000):
        rig.frames(1)
        seen.add(app.screen)
        if app.screen == GAME:
            phases.add(app.game.phase)
            if "stall" not in phases and app.game.phase == "ready" and app.game.piles:
                phases.add("stall")
        if app.screen == OVER_SCREEN:
            break
    # pause and its menu
    assert app.screen == OVER_SCREEN
    rig.frames(60)
    rig.tap(0, "B", frames=3)                 # REMATCH
    seen.add(app.screen)
    rig.frames(60)
    assert app.screen == GAME
    rig.tap(0, "PAUSE", frames=3)
    seen.add(app.screen)
    rig.tap(0, "A", frames=3)
    rig.tap(0, "B", frames=3)                 # QUIT GAME
    assert app.screen == TITLE
    assert {TITLE, GAME, SUMMARY, OVER_SCREEN, PAUSE, REMATCH} <= seen
    assert {"ready", "play", "slap", "stall"} <= phases
    assert rec.bad == []
    assert rec.calls


def test_pause_screen_draws_inside():
    rig, rec = rig_with_recorder()
    rig.app.start_game(4, Rules(), (None, None), rig.clock.now)
    rig.frames(2)
    rig.inp.push(rig.clock.now + 1000, 1, "A", True)
    rig.inp.push(rig.clock.now + 2000, 1, "B", True)
    rig.frames(40)
    assert rig.app.screen == PAUSE
    assert rec.bad == []


def draw_table(game, cursors=(0, 0), msgs=None, bars=(-1, -1)):
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    v = V.View(fb)
    if msgs is None:
        msgs = [V.Message(), V.Message()]
    v.game(game, list(cursors), msgs, list(bars))
    while v.behind:                  # the whole table, spread over calls (DRAW_BUDGET)
        v.game(game, list(cursors), msgs, list(bars))
    return buf, v


def test_player_one_half_is_player_zero_half_turned_180():
    # The same stockpiles for player 0 in one game and for player 1 in another: the
    # top band of the second is the bottom band of the first, turned 180°.
    s = ["10H", "JC QC", "", "2D 3D 4D AS", "KH"]
    t = ["5C", "6C", "7C", "8C", "9C"]
    rules = Rules(manual_flip=True)
    a = layout(s, t, ["4S", "7H"], hands=("2C 3C", "9H"), rules=rules)
    b = layout(t, s, ["4S", "7H"], hands=("9H", "2C 3C"), rules=rules)
    for g in (a, b):
        g.down[0 if g is a else 1][3] = True       # one face-down top (manual flip)
    buf_a, _ = draw_table(a, cursors=(1, 4))
    buf_b, _ = draw_table(b, cursors=(4, 1))
    bottom_a = rows(buf_a, 48, 64)
    top_b = rows(buf_b, 0, 16)
    turned = [list(reversed(r)) for r in reversed(bottom_a)]
    assert turned == top_b
    assert any(any(r) for r in top_b)


def test_middle_band_is_symmetric_when_the_table_is():
    # Same ranks on both piles, same messages and info: the whole screen is symmetric
    # under the 180° turn except the suit marks (suits differ), so compare with the
    # suit columns masked out by drawing ranks whose suit is the same... use one pile.
    g = layout(["5C", "", "", "", ""], ["5D", "", "", "", ""], ["9S"], hands=("", ""))
    msgs = [V.Message(), V.Message()]
    msgs[0].set("BEATEN", "BY 3 MS", True)
    msgs[1].set("BEATEN", "BY 3 MS", True)
    buf, _ = draw_table(g, msgs=msgs, bars=(10, 10))
    mid = rows(buf, 16, 48)
    turned = [list(reversed(r)) for r in reversed(mid)]
    # Only the single pile's suit marks may differ (one suit, drawn twice, turned).
    diff = [(x, y) for y in range(32) for x in range(128) if mid[y][x] != turned[y][x]]
    assert all(51 <= x < 51 + V.PILE_W for x, y in diff)


def test_ten_fits_and_every_rank_stays_inside_its_card():
    for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"):
        for cursor in (False, True):
            for under in ([], [card("2C"), card("3C")] * 6):
                rec = RecordingFB()
                v = V.View(rec)
                v._slot(under + [card(r + "H")], False, cursor, 0, 0)
                # Everything of player 0's first card lies inside it (x 0..20, y 48..63).
                for c in rec.calls:
                    x, y, w, h = _rect(c[0], c[1:])
                    assert 0 <= x and x + w <= V.SLOT_W and 48 <= y and y + h <= 64, (r, c)
                assert rec.bad == []
    assert V.big_width("10") == 10


def test_play_onto_a_pile_touches_at_most_four_pages():
    g = layout(["5C 7H", "", "", "", ""], ["JD", "", "", "", ""], ["6S", "QH"],
               hands=("2C", "3D"))
    buf, v = draw_table(g)
    v.clear_spans()
    assert g.apply(("play", 0, 0, 0)) is None
    v.game(g, [0, 0], [V.Message(), V.Message()], [-1, -1])
    assert v.dirty_pages() <= 4
    # and a cursor move by one player touches only that player's two pages
    v.clear_spans()
    v.game(g, [0, 1], [V.Message(), V.Message()], [-1, -1])
    pages = [p for p in range(8) if v.spans[2 * p] <= v.spans[2 * p + 1]]
    assert pages == [0, 1]


def test_nothing_changed_draws_nothing():
    g = layout(["5C", "", "", "", ""], ["JD", "", "", "", ""], ["6S", "QH"], hands=("2C", "3D"))
    buf, v = draw_table(g)
    v.clear_spans()
    before = bytes(buf)
    assert not v.game(g, [0, 0], [V.Message(), V.Message()], [-1, -1])
    assert v.dirty_pages() == 0 and bytes(buf) == before


def test_spans_cover_every_change_in_whole_games():
    # FrameDisplay(check=True) counts bytes that changed outside the reported spans.
    rig = Rig(framebuf)
    rig.app.start_game(11, Rules(points=True), (None, 2), rig.clock.now)
    rig.add_bots(("normal", "hard"), seed=5, players=(0,))
    rig.until(lambda a: a.screen == OVER_SCREEN)
    assert rig.disp.span_errors == 0
    assert rig.disp.shows > 50


def _art(section):
    """The art comments of font.py for one section, {char: [rows]}, read by the font
    generator's own parser (what is checked is that the bytes say what the art says)."""
    spec = importlib.util.spec_from_file_location(
        "gen_font", Path(__file__).resolve().parents[2] / "tools" / "gen_font.py")
    gen_font = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_font)
    return gen_font.parse(Path(font.__file__).read_text(), section)


def _cols(data, off, w, two):
    out = []
    for k in range(w):
        if two:
            out.append(data[2 * (off + k)] | (data[2 * (off + k) + 1] << 8))
        else:
            out.append(data[off + k])
    return out


@pytest.mark.parametrize("section,chars,ofs,widths,data,two,h", [
    ("BIG", font.BIG_CHARS, font.BIG_OFS, font.BIG_W, font.BIG_COLS, True, 10),
    ("SMALL", font.SMALL_CHARS, font.SMALL_OFS, font.SMALL_W, font.SMALL_COLS, False, 5),
    ("MED", font.MED_CHARS, font.MED_OFS, font.MED_W, font.MED_COLS, False, 7),
])
def test_font_bytes_are_the_art_in_the_comments(section, chars, ofs, widths, data, two, h):
    art = _art(section)
    assert set(art) == set(chars)
    for i, ch in enumerate(chars):
        rows_ = art[ch]
        assert len(rows_) == h
        w = widths[i]
        assert all(len(r) == w for r in rows_), ch
        want = []
        for x in range(w):
            v = 0
            for y in range(h):
                if rows_[y][x] == "#":
                    v |= 1 << y
            want.append(v)
        assert _cols(data, ofs[i], w, two) == want, ch


@pytest.mark.parametrize("section,chars,h,draw", [
    ("BIG", font.BIG_CHARS, 10, "big"),
    ("SMALL", font.SMALL_CHARS, 5, "text"),
    ("MED", font.MED_CHARS, 7, "med"),
])
def test_every_glyph_drawn_is_its_art_upright_turned_and_inverted(section, chars, h, draw):
    # The view blits glyphs from prebuilt strips (upright, turned 180°); what lands on
    # the screen must be the font's art, turned for player 1, and dark on a lit box.
    art = _art(section)
    for ch in chars:
        rows_ = art[ch]
        w = len(rows_[0])
        for rot in (0, 1):
            for c in (1, 0):
                buf = bytearray(b"\x00" * 1024 if c else b"\xff" * 1024)
                v = V.View(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB))
                x, y = 40, 20
                end = getattr(v, draw)(ch, x, y, c, rot)
                assert end == x + w + 1, ch
                for yy in range(64):
                    for xx in range(128):
                        lx, ly = (127 - xx, 63 - yy) if rot else (xx, yy)
                        inside = x <= lx < x + w and y <= ly < y + h
                        lit = inside and rows_[ly - y][lx - x] == "#"
                        assert pixel(buf, xx, yy) == (lit if c else not lit), (ch, rot, c, xx, yy)


def test_card_backs_turned_are_the_upright_back_turned():
    buf = bytearray(1024)
    v = V.View(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB))
    for w in (V.SLOT_W, V.STACK_W - 2):
        buf[:] = bytes(1024)
        v._back(10, 5, w, V.CARD_H, 0)
        up = rows(buf, 0, 64)
        buf[:] = bytes(1024)
        v._back(10, 5, w, V.CARD_H, 1)
        turned = [list(reversed(r)) for r in reversed(rows(buf, 0, 64))]
        assert up == turned
        # A frame all round, the dotted ring inside it and a clear middle for the count.
        assert all(up[5][x] for x in range(10, 10 + w)) and all(up[5 + V.CARD_H - 1][x] for x in range(10, 10 + w))
        assert [up[6][x] for x in range(11, 10 + w - 1)] == [1, 0] * ((w - 3) // 2) + [1]
        assert not any(up[5 + V.CARD_H // 2][x] for x in range(13, 10 + w - 3))
        assert sum(map(sum, up)) == sum(map(sum, rows(buf, 0, 64)))


def test_all_message_text_is_in_the_medium_font():
    from firmware import texts
    from firmware.screens import title, pause, over, howto
    strings = [title.HINT, pause.HINT, howto.HINT, howto.LAST_HINT] + list(title.MODE_NAMES)
    strings += list(pause.ITEMS) + list(over.CHOICES)
    for v in vars(texts).values():
        if isinstance(v, tuple) and v is not texts.QUIET and all(isinstance(s, str) for s in v):
            strings += list(v)
    for v in texts.REASONS.values():
        strings += list(v)
    for s in strings:
        for ch in s:
            assert ch in font.MED_CHARS, (s, ch)
        assert V.med_width(s) <= 128
    for v in list(texts.REASONS.values()) + [texts.PRESS_SPIT, texts.SPIT_AGAIN,
                                              texts.WAITING, texts.TOO_LATE,
                                              texts.FALSE_START, texts.NOT_ALLOWED,
                                              texts.INPUT_LOST, ("DEMO", "ANY KEY")]:
        for s in v:
            assert V.med_width(s) <= V.MSG_W, s      # fits a message corner
    assert V.med_width(texts.FUMBLE) <= V.MSG_W


def test_feedback_fits_its_corner():
    from firmware import texts
    for us in (0, 500, 1000, 3000, 99999, 100000, 249999):
        for line in texts.beaten(us):
            assert V.med_width(line) <= V.MSG_W, line
    # and a text too long for its corner is cut, never drawn outside it
    rec = RecordingFB()
    v = V.View(rec)
    m = V.Message()
    m.set("WAY TOO LONG A LINE", "")
    v._message(m, V.MSG_X, 0)
    for c in rec.calls:
        x, y, w, h = _rect(c[0], c[1:])
        assert x + w <= V.MSG_W


def test_the_font_generator_reproduces_the_bytes_from_the_art():
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    p = subprocess.run([sys.executable, str(root / "tools" / "gen_font.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
