"""A whole table is drawn over several calls (view.DRAW_BUDGET: on the chip it takes
longer than a frame): the decisive regions first, and once the redraw has caught up
the picture is exactly what one unlimited call draws, in every frame of whole games.
A change within the table is spread the same way."""
import pytest

from desktop_emulator import framebuf
from firmware import view as V
from firmware.app import GAME, OVER_SCREEN
from host.rig import Rig
from shared_rules.game import Rules
from tests.helpers import layout
from shared_rules.cards import card


def _unlimited_view():
    buf = bytearray(1024)
    v = V.View(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB))
    v.budget = 0
    return buf, v


def _table_args(app):
    tb = app.table
    return (tb.game, [tb.pads[0].cursor, tb.pads[1].cursor], tb.msgs, tb.slap_bar, None,
            not tb.signalled)


@pytest.mark.parametrize("seed,rules,cpu", [(11, Rules(points=True), (None, 2)),
                                            (4, Rules(manual_flip=True), (3, 1))])
def test_once_caught_up_every_frame_shows_what_one_unlimited_draw_shows(seed, rules, cpu):
    rig = Rig(framebuf)
    app = rig.app
    app.start_game(seed, rules, cpu, rig.clock.now)
    rig.add_bots(("normal", "hard"), seed=5, players=[p for p in (0, 1) if not cpu[p]])
    ref_buf, ref = _unlimited_view()
    spread = compared = 0
    for _ in range(100000):
        rig.frames(1)
        if app.screen == OVER_SCREEN:
            break
        if app.screen != GAME:
            ref.invalidate()
            continue
        ref.game(*_table_args(app))
        if app.view.behind:
            spread += 1
            continue
        compared += 1
        assert bytes(rig.disp.buf) == bytes(ref_buf), "frame %d" % app.frames
    assert app.screen == OVER_SCREEN
    assert spread > 0 and compared > 1000
    assert rig.disp.span_errors == 0


def _game_and_args(phase_slap=False):
    g = layout(["5C 7H", "9D", "QD", "KS", "2H"], ["JD", "3S", "4S", "8C", "AH"], ["6S", "QH"],
               hands=("2C 3C", "3D 4D"))
    return g, [[0, 0], [V.Message(), V.Message()], -1]


def test_the_first_call_draws_the_piles_and_at_most_the_budget_of_other_regions():
    g, (cur, msgs, bar) = _game_and_args()
    buf, v = _unlimited_view()
    v.budget = 3
    ref_buf, ref = _unlimited_view()
    ref.game(g, cur, msgs, bar)
    v.game(g, cur, msgs, bar)
    assert v.behind
    # The pile area (rows 16-47, x 34-93) is complete in the first call: the faces.
    for page in range(2, 6):
        o = page * 128
        assert buf[o + 34:o + 94] == ref_buf[o + 34:o + 94]
    calls = 1
    while v.behind:
        v.game(g, cur, msgs, bar)
        calls += 1
    assert buf == ref_buf
    # 20 other regions (10 stockpiles, 2 stacks, 4 corners... ) at 3 a call.
    assert calls >= 5


def test_both_slap_banners_come_in_the_same_call_whatever_the_budget():
    g, (cur, msgs, bar) = _game_and_args()
    g.phase = "slap"
    buf, v = _unlimited_view()
    v.budget = 1
    ref_buf, ref = _unlimited_view()
    ref.game(g, cur, msgs, 10)
    v.game(g, cur, msgs, 10)
    for page in (0, 1, 6, 7):                    # both players' bands: the banners
        o = page * 128
        assert buf[o:o + 128] == ref_buf[o:o + 128]
    while v.behind:
        v.game(g, cur, msgs, 10)
    assert buf == ref_buf


def _caught_up(v, g, cur, msgs, bar):
    calls = 0
    while True:
        v.game(g, cur, msgs, bar)
        calls += 1
        if not v.behind:
            return calls


def test_a_change_within_the_table_is_spread_too_the_card_played_first():
    # On the chip the spit (both faces, both stacks, both messages) took ~11 ms to draw
    # beside the rules' own ~7: a change within the table is spread like a whole one.
    g, (cur, msgs, bar) = _game_and_args()
    buf, v = _unlimited_view()
    v.budget = 1
    _caught_up(v, g, cur, msgs, bar)
    # A play onto the first pile, a cursor move of both players and two messages.
    g.apply(("play", 0, 0, 0))
    assert g.piles[0][-1] == card("7H")
    cur = [2, 3]
    msgs[0].set("FUMBLE!")
    msgs[1].set("NO")
    ref_buf, ref = _unlimited_view()
    ref.game(g, cur, msgs, bar)
    v.game(g, cur, msgs, bar)
    assert v.behind
    for page in (3, 4):                          # the card played, in the first call
        o = page * 128
        assert buf[o + 36:o + 62] == ref_buf[o + 36:o + 62]
    # Then one region a call: four slots (player 0's played from, where its cursor
    # was; each cursor's new place; player 1's old one), then the two messages; the
    # picture is one unlimited draw's.
    assert 1 + _caught_up(v, g, cur, msgs, bar) == 6
    assert buf == ref_buf


def test_a_whole_table_comes_two_regions_a_call_beyond_the_decisive_ones():
    # DRAW_BUDGET: the piles, then two other regions a call (~3 ms on the chip beside
    # the ~7 ms the rules and the CPU player may take in the same frame).
    g, (cur, msgs, bar) = _game_and_args()
    buf = bytearray(1024)
    v = V.View(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB))
    drawn = []
    regions = ("_slot", "_stack", "_message", "_info")
    for name in regions:
        def counted(*args, _f=getattr(v, name), _n=name):
            drawn[-1] += 1
            return _f(*args)
        setattr(v, name, counted)
    while True:
        drawn.append(0)
        v.game(g, cur, msgs, bar)
        if not v.behind:
            break
    assert max(drawn) == V.DRAW_BUDGET == 2
    assert sum(drawn) >= 12 and len(drawn) >= 8


def test_a_message_corner_counts_for_two_regions_so_two_never_come_in_one_call():
    # On the chip two corners' medium letters in one step drew for 12-16 ms.
    # MESSAGE_COST: one a call, beside at most one other region.
    g, (cur, msgs, bar) = _game_and_args()
    msgs[0].set("PRESS", "SPIT")
    msgs[1].set("PRESS", "SPIT")
    buf, v = _unlimited_view()
    v.budget = V.DRAW_BUDGET
    calls = []
    for name in ("_slot", "_stack", "_message", "_info"):
        def counted(*args, _f=getattr(v, name), _n=name):
            calls[-1].append(_n)
            return _f(*args)
        setattr(v, name, counted)
    while True:
        calls.append([])
        v.game(g, cur, msgs, bar)
        if not v.behind:
            break
    assert V.MESSAGE_COST == 2
    assert [c.count("_message") for c in calls if "_message" in c] == [1, 1]
    # A play with a message: the card played, its slot and the message in one call.
    g.apply(("play", 0, 0, 0))
    msgs[0].set("NO")
    calls.append([])
    v.game(g, cur, msgs, bar)
    assert not v.behind and sorted(calls[-1]) == ["_message", "_slot"]
    ref_buf, ref = _unlimited_view()
    ref.game(g, cur, msgs, bar)
    assert buf == ref_buf


def _span_bytes(v):
    s = v.spans
    return sum(s[2 * p + 1] - s[2 * p] + 1 for p in range(8) if s[2 * p] <= s[2 * p + 1])


@pytest.mark.parametrize("inv", [False, True])
@pytest.mark.parametrize("player", [0, 1])
def test_r41_a_fumbles_bar_running_down_redraws_only_its_end(player, inv):
    """The fumble's bar runs down every frame (R41): only the columns it left are drawn
    and sent, not the corner's words again; the picture is what a whole redraw draws."""
    g, (cur, msgs, bar) = _game_and_args()
    buf, v = _unlimited_view()
    v.game(g, cur, msgs, bar)
    msgs[player].set("FUMBLE", inv=inv, bar=V.BAR_MAX)
    v.clear_spans()
    v.game(g, cur, msgs, bar)
    whole = _span_bytes(v)
    assert whole >= V.MSG_W * 2                          # the corner: 34 columns, 2 pages
    for b in (V.BAR_MAX - 1, V.BAR_MAX - 3, 20, 21, 7, 0, 1):
        msgs[player].set_bar(b)
        v.clear_spans()
        v.game(g, cur, msgs, bar)
        assert 1 <= _span_bytes(v) <= 14                 # the bar's end: one page
        ref_buf, ref = _unlimited_view()
        ref.game(g, cur, msgs, bar)
        assert buf == ref_buf, b
    msgs[player].set("NO", inv=inv, bar=5)               # new words: the corner again
    v.clear_spans()
    v.game(g, cur, msgs, bar)
    assert _span_bytes(v) >= V.MSG_W * 2
    ref_buf, ref = _unlimited_view()
    ref.game(g, cur, msgs, bar)
    assert buf == ref_buf


def test_a_bar_on_a_message_the_view_never_drew_draws_the_whole_corner():
    g, (cur, msgs, bar) = _game_and_args()
    buf, v = _unlimited_view()
    msgs[0].set("FUMBLE", bar=20)
    v.game(g, cur, msgs, bar)
    other = [V.Message(), msgs[1]]                      # another Message
    other[0].set("NO!", bar=20)                         # its words counted as msgs[0]'s
    other[0].set_bar(19)
    v.game(g, cur, other, bar)
    ref_buf, ref = _unlimited_view()
    ref.game(g, cur, other, bar)
    assert buf == ref_buf
    v.game(g, cur, msgs, bar)
    v.invalidate()                                       # forgotten: all of it again
    msgs[0].set_bar(3)
    v.game(g, cur, msgs, bar)
    ref_buf, ref = _unlimited_view()
    ref.game(g, cur, msgs, bar)
    assert buf == ref_buf
