"""The screens as a player meets them (firmware/screens/): game over with its banner,
figures and REMATCH/MENU choice behind a short pause; the rematch; the attract mode
on an idle title; HOW TO PLAY; the pause menu; the points finish (R42) in the app;
and what makes the table readable at a glance (the lifted cursor, the face-down
stack, underlined 6 and 9, the slap banner with the piles' sizes)."""
import pytest

from desktop_emulator import framebuf
from firmware import app as A, texts, font, view as V, savegame
from host.rig import Rig
from firmware.screens import attract, howto, title, rematch, over
from shared_rules.cards import card
from shared_rules.game import Rules
from tests.helpers import layout

MS = 1000


def rig(**kw):
    return Rig(framebuf, start=kw.pop("start", 5000), **kw)


def pixel(buf, x, y):
    return (buf[(y >> 3) * 128 + x] >> (y & 7)) & 1


def lit(buf, x0, y0, w, h):
    return sum(pixel(buf, x, y) for y in range(y0, y0 + h) for x in range(x0, x0 + w))


def turned(buf):
    """The picture turned 180°, as rows of 0/1."""
    return [[pixel(buf, 127 - x, 63 - y) for x in range(128)] for y in range(64)]


def rows(buf):
    return [[pixel(buf, x, y) for x in range(128)] for y in range(64)]


def play_to_over(r, seed=4, cpu=(None, 2), rules=None):
    r.frames(1)
    r.app.start_game(seed, rules or Rules(), cpu, r.clock.now)
    r.add_bots(("hard", "hard"), seed=seed, players=[p for p in (0, 1) if not cpu[p]])
    r.until(lambda a: a.screen == A.OVER_SCREEN)
    r.hands = []


# ---- game over, rematch -------------------------------------------------------------
def test_game_over_ignores_presses_for_a_moment_then_offers_rematch_or_menu():
    r = rig()
    play_to_over(r)
    app = r.app
    g = app.game
    scr = app.screens[A.OVER_SCREEN]
    # From the first frame the choice is lit and the line under the banner says what
    # A and B do.
    h = scr.half(g.winner if g.winner is not None else 0)
    assert h[2] == over.HINT == "A: NEXT  B: CHOOSE" and h[5] == 0
    # A press meant for the game, just after it ended, does nothing.
    r.tap(0, "B", after_us=300 * MS, frames=2)
    r.tap(1, "A", after_us=300 * MS, frames=2)
    assert app.screen == A.OVER_SCREEN and scr.sel == 0
    h = scr.half(g.winner if g.winner is not None else 0)
    assert h[0] == "YOU WIN!" and h[1] is True and h[4] == ("REMATCH", "MENU") and h[5] == 0
    lose = scr.half(1 - g.winner)
    assert lose[0] == "YOU LOSE" and lose[1] is False
    # Then the line takes turns: the figures, and the hint again.
    st = app.stats
    seen = []
    for _ in range(8 * over.PAGE_US // 33333 // 4):
        r.frames(4)
        line = scr.half(g.winner)[2]
        if not seen or seen[-1] != line:
            seen.append(line)
    assert seen[:4] == [over.HINT, "PLAYS %d  RACES %d" % (st.plays[g.winner], st.races[g.winner]),
                        "FUMBLES %d  %d ROUND%s" % (st.fumbles[g.winner], g.round,
                                                    "" if g.round == 1 else "S"),
                        "%d MS A PLAY" % st.mean_gap_ms(g.winner)]
    assert over.HINT in seen[4:]
    r.tap(0, "A", frames=2)
    assert scr.sel == 1
    r.tap(1, "A", frames=2)
    r.tap(1, "B", frames=2)                         # REMATCH, by either player
    assert app.screen == A.REMATCH


def test_rematch_keeps_the_settings_deals_anew_and_counts_the_series():
    r = rig()
    r.app.settings["fumble"] = 1000
    play_to_over(r, seed=6, cpu=(None, 3), rules=Rules(points=True))
    app = r.app
    first = app.game
    winner = first.winner
    r.frames(50)
    r.tap(0, "B", frames=2)
    assert app.screen == A.REMATCH
    assert app.series[winner] == 1 and app.series[1 - winner] == 0
    h = rematch.series(app.series, 0, True)
    assert h == "YOU %d : %d CPU" % (app.series[0], app.series[1])
    # Presses on the rematch screen are not taken: nobody says Spit early.
    r.tap(0, "B", after_us=200 * MS, frames=2)
    r.until(lambda a: a.screen == A.GAME, limit=100)
    g = app.game
    assert g is not first and g.rules == first.rules and g.seed != first.seed
    assert app.cpu == [None, 3] and app.table.fumbles.us == 1000000
    assert g.said == [False, False] and g.round == 1
    assert r.storage.load()["game"]["snap"]["seed"] == g.seed    # the new boundary


def test_game_over_menu_goes_to_the_title_without_touching_the_menu():
    r = rig()
    play_to_over(r)
    app = r.app
    settings = dict(app.settings)
    r.frames(50)
    r.tap(0, "A", frames=2)
    r.tap(0, "B", frames=2)
    assert app.screen == A.TITLE and app.title.sel == 0 and app.settings == settings
    assert r.storage.load()["game"] is None                    # the finished game is gone


# ---- attract mode -------------------------------------------------------------------
def test_an_idle_title_plays_a_silent_unrecorded_demo_and_any_press_returns():
    r = rig()
    r.frames(1)
    app = r.app
    saves = r.storage.saves
    sounds = len(r.sound.played)
    r.frames((title.IDLE_US - 2 * 1000 * 1000) // 33333)
    assert app.screen == A.TITLE                               # not yet
    r.frames(90)
    assert app.screen == attract.AttractScreen.kind == A.ATTRACT
    demo = app.screens[A.ATTRACT].table
    assert all(not s.human for s in demo.seats) and app.seat_levels() == attract.LEVELS
    r.until(lambda a: demo.stats.plays[0] + demo.stats.plays[1] >= 10, limit=3000)
    assert len(r.sound.played) == sounds and r.storage.saves == saves
    assert app.replay is None and app.game is None
    assert r.disp.span_errors == 0
    r.tap(1, "B", frames=2)                     # any press: the menu, untouched
    assert app.screen == A.TITLE and app.title.sel == 0
    assert app.settings["mode"] == 0
    assert app.screens[A.ATTRACT] is None                    # the demo's heap is freed
    import sys
    assert "firmware.screens.attract" not in sys.modules


def test_the_demo_ends_with_its_game_or_after_its_time():
    r = rig()
    r.frames(1)
    app = r.app
    r.until(lambda a: a.screen == A.ATTRACT, limit=1000)
    n = r.until(lambda a: a.screen == A.TITLE, limit=attract.MAX_US // 33333 + 200)
    assert n <= attract.MAX_US // 33333 + 2
    # and the title starts counting again: another demo follows, with another deal
    first = None
    r.until(lambda a: a.screen == A.ATTRACT, limit=1000)
    assert app.screens[A.ATTRACT].table.game is not first


# ---- how to play --------------------------------------------------------------------
def test_how_to_play_pages_from_the_menu_in_the_devices_words():
    r = rig()
    r.frames(1)
    app = r.app
    while app.menu_text(app.menu_items()[app.title.sel]) != "HOW TO PLAY":
        r.menu(["A"])
    r.menu(["B"])
    assert app.screen == A.HOWTO
    seen = []
    for _ in range(len(howto.PAGES)):
        seen.append(app.screens[A.HOWTO].page)
        r.menu(["B"])
    assert seen == list(range(len(howto.PAGES))) and app.screen == A.TITLE
    assert app.screens[A.HOWTO] is None                       # unloaded with its words
    r.menu(["A"] * 7 + ["B", "B", "A", "A"])           # in, a page on, back, back out
    assert app.screen == A.TITLE


def test_how_to_play_text_fits_and_names_the_fumble_time():
    for k in range(len(howto.PAGES)):
        head, lines, cards = howto.page(k, 1500)
        assert len(lines) <= (3 if cards else 5)
        for s in [head] + lines:
            assert all(ch in font.MED_CHARS for ch in s), s
            assert V.med_width(s) <= 126, s
    assert "GO DEAD FOR 1.5 S." in howto.page(4, 1500)[1]
    assert "FOR OFF" not in " ".join(howto.page(4, 1250)[1])
    assert "GO DEAD FOR 1.25 S." in howto.page(4, 1250)[1]
    assert "GO DEAD FOR 0.5 S." in howto.page(4, savegame.FUMBLE_MS)[1]    # R41


# ---- pause --------------------------------------------------------------------------
def test_the_pause_menu_reads_the_same_from_both_sides():
    r = rig()
    r.frames(1)
    r.app.start_game(4, Rules(), (None, None), r.clock.now)
    r.frames(2)
    r.tap(0, "PAUSE", frames=2)
    assert r.app.screen == A.PAUSE
    buf = bytes(r.disp.buf)
    assert rows(buf) == turned(buf)                     # nothing clipped on either half
    # the highlighted RESUME box and the hint line above it do not touch
    assert lit(buf, 0, 53, 128, 2) == 0 and lit(buf, 0, 55, 128, 1) > 0


# ---- the points finish in the app (R42) -----------------------------------------------
def test_r42_the_app_goes_from_the_last_play_to_game_over_with_no_slap():
    g = layout(["5H", "", "", "", ""], ["9C", "KD QD", "", "", ""], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True, target=10))
    g.scores = [0, 6]
    r = rig()
    r.frames(1)
    r.app.start_game(0, None, (None, None), r.clock.now, game=g)
    r.frames(1)
    phases = []
    r.tap(0, "B", frames=1)
    phases.append(r.app.game.phase)
    assert r.app.screen == A.OVER_SCREEN and "slap" not in phases
    assert r.app.game.winner == 0 and r.app.game.scores == [2, 10]
    assert "win" in r.sound.played and "slap-now" not in r.sound.played


# ---- the table at a glance ----------------------------------------------------------------
def draw(game, cursors=(0, 0), msgs=None, slap_bar=-1):
    buf = bytearray(1024)
    v = V.View(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB))
    msgs = msgs or [V.Message(), V.Message()]
    v.game(game, list(cursors), msgs, slap_bar)
    while v.behind:                  # the whole table, spread over calls (DRAW_BUDGET)
        v.game(game, list(cursors), msgs, slap_bar)
    return buf


def test_the_cursor_card_is_lifted_on_a_pedestal_and_unlike_the_spit_stack():
    g = layout(["5C", "9D", "QD", "KS", "2H"], ["5H", "", "", "", ""], ["6S", "KD"],
               hands=("2C 3C 4C 5D", "3D"))
    for cur in range(5):
        buf = draw(g, cursors=(cur, 0))
        x = cur * V.SLOT_PITCH
        for i in range(5):
            xi = i * V.SLOT_PITCH
            top = lit(buf, xi + 2, 48, V.SLOT_W - 4, 1)       # the top edge of a lifted card
            foot = lit(buf, xi + 2, 62, V.SLOT_W - 4, 1)      # the pedestal (or a card's inside)
            if i == cur:
                assert top == V.SLOT_W - 4 and foot == V.SLOT_W - 4
            else:
                assert top == 0 and foot < 8
        # the spit stack beside the fifth slot is a card back, never a solid box
        stack = lit(buf, V.STACK_X, 48, V.STACK_W, 16)
        assert stack < 0.7 * V.STACK_W * 16
        assert lit(buf, x + V.SLOT_W, 50, 1, 14) == 0          # a gap after each card


def test_six_and_nine_are_underlined_so_they_never_read_as_each_other():
    g6 = layout(["6C", "", "", "", ""], ["9D", "", "", "", ""], ["6S", "9H"], hands=("", ""))
    buf = draw(g6, cursors=(4, 4))
    # Player 0's 6 (bottom row of its glyph is a line) and player 1's 9 turned round:
    # the glyphs differ and each has its line under it as its reader sees it.
    i6 = font.BIG_CHARS.find("s")
    i9 = font.BIG_CHARS.find("n")
    assert i6 >= 0 and i9 >= 0
    for i in (i6, i9):
        cols = [font.BIG_COLS[2 * (font.BIG_OFS[i] + k)] | (font.BIG_COLS[2 * (font.BIG_OFS[i] + k) + 1] << 8)
                for k in range(font.BIG_W[i])]
        assert all(c & (1 << 9) for c in cols)              # the underline, row 9
        assert not any(c & (1 << 8) for c in cols)          # a gap above it
    assert V._RANK_TEXT[card("6C") >> 2] == "s" and V._RANK_TEXT[card("9C") >> 2] == "n"
    # player 0's 6 at x 2..7, rows 52..61: its underline on row 61
    assert lit(buf, 2, 61, 6, 1) == 6
    # player 1's 9, turned: the underline is the top row of their card, seen from here
    assert lit(buf, 128 - 2 - 6, 2, 6, 1) == 6


def test_the_slap_shows_a_banner_and_the_piles_sizes_big_beside_them():
    g = layout(["5C", "", "", "", ""], ["KH", "QH", "", "", ""], ["7S 6S", "2D"],
               hands=("", ""))
    assert g.apply(("play", 0, 0, 0)) is None and g.phase == "slap"    # piles 3 and 1
    buf = draw(g, slap_bar=V.BAR_MAX)
    # The banner fills player 0's band and player 1's (turned).
    assert lit(buf, 0, 48, 128, 13) > 0.7 * 128 * 13
    assert lit(buf, 0, 3, 128, 13) > 0.7 * 128 * 13
    # The sizes stand outside the cards: the piles' faces show no digits of theirs
    # beyond the ranks (the cards' insides are as in play).
    g2 = layout(["5C", "", "", "", ""], ["KH", "QH", "", "", ""], ["8S 7S 6S", "2D"],
                hands=("", ""))
    assert g2.apply(("play", 0, 0, 0)) is None
    buf2 = draw(g2, slap_bar=V.BAR_MAX)
    for x in V.PILE_X2:
        assert lit(buf, x, 16, V.PILE_W, 32) == lit(buf2, x, 16, V.PILE_W, 32)
    assert buf != buf2                                        # 3 vs 4 shows elsewhere
    # Player 0: left pile (pile 0) has 3 cards, right (pile 1) has 1: the right corner,
    # the smaller pile, is inverted; the left one is not.
    left = lit(buf, V.MSG_X, 32, V.MSG_W, 16)
    right = lit(buf, V.INFO_X, 32, V.MSG_W, 16)
    assert right > 0.5 * V.MSG_W * 16 > left


def test_ready_names_the_real_buttons_and_the_fumble_replaces_doesnt_fit():
    g = layout(["5C", "9D", "", "", ""], ["5H", "", "", "", ""], [], hands=("2C", "3D"))
    assert texts.standing(g, 0) == texts.PRESS_SPIT
    for line in texts.PRESS_SPIT + texts.SPIT_AGAIN:
        assert "SPIT!" not in line or "A" in line
    assert "A/B" in texts.PRESS_SPIT[1] and "A/B" in texts.SPIT_AGAIN[1]
    assert V.text_width(texts.FUMBLE) <= V.MSG_W - 1


@pytest.mark.parametrize("screen", ["title", "howto", "play", "fumble", "stall", "slap",
                                    "summary", "over", "rematch", "pause", "attract"])
def test_every_key_screen_is_a_screen_name(screen):
    from desktop_emulator import screens
    assert screen in screens.NAMES
    assert screen in A.SCREEN_NAMES or screen in ("play", "fumble", "stall", "slap")


def test_continue_names_the_saved_games_seats_and_the_hosts_labels_follow_it():
    # The menu's mode says VS CPU NORMAL, the saved game is two players: CONTINUE and
    # seat_levels (the emulator's labels by the pads) say what that choice resumes.
    r = rig()
    r.frames(1)
    app = r.app
    app.start_game(8, Rules(), (None, None), r.clock.now)
    r.frames(2)
    app.to_title(r.clock.now)
    r.frames(2)
    app.settings["mode"] = 2
    assert app.menu_text(app.menu_items()[0]) == "CONTINUE 2 PLAYERS"
    assert app.title.sel == 0 and app.seat_levels() == (None, None)
    r.menu(["A"])                                   # START: the menu's mode
    assert app.seat_levels() == (None, 2)
    assert title.seats_name((None, 3)) == "VS CPU HARD"
    assert title.seats_name((1, 3)) == "CPU VS CPU"


def test_the_demo_says_any_button_ends_it():
    assert attract.AttractScreen(None).info.l2 == "ANY KEY"
