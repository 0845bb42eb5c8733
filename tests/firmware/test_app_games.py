"""The firmware app (firmware/app.py) through fake ports, on a simulated clock: menus,
whole games with two scripted humans, the CPU seat, feedback for an illegal press vs a
lost race (R20), ties (R21), stall and spit again (R22-R23), the slap and its time
limit (R25-R26, R33), pause, game over, input overflow, the six-button scheme."""
import sys

import pytest

from desktop_emulator import framebuf
from firmware import app as A
from host.rig import Rig, ScriptInput
from firmware.screens.summary import lines as summary_lines
from firmware.view import BAR_MAX
from shared_rules.arbiter import ticks_diff
from shared_rules.cards import card
from shared_rules.game import Rules
from tests.helpers import all_cards, layout

MS = 1000


def rig(**kw):
    return Rig(framebuf, start=kw.pop("start", 5000), **kw)


def start(r, game, cpu=(None, None)):
    r.app.start_game(0, None, cpu, r.clock.now, game=game)
    r.frames(1)


def texts_of(app, p):
    m = app.msgs[p]
    return (m.l1, m.l2, m.inv)


def both_press(r, t_after=1000):
    t = r.clock.now + t_after
    r.inp.press(t, 0, "A")
    r.inp.press(t + 7000, 1, "A")
    r.frames(2)


# ---- menus --------------------------------------------------------------------------
def test_menu_a_moves_b_chooses_and_start_uses_the_settings():
    r = rig()
    app = r.app
    r.frames(1)
    assert app.screen == A.TITLE
    assert [app.menu_text(i) for i in app.menu_items()] == [
        "START", "2 PLAYERS", "STANDARD GAME", "AUTO FLIP", "FUMBLE 0.5 S",
        "SLAP SIGNAL ON", "SOUND ON", "HOW TO PLAY", "REACTION LAB"]
    r.menu(["A", "B", "B"])                  # mode: 2 players -> CPU easy -> CPU normal
    # points, manual flip, fumble, slap signal, sound
    r.menu(["A", "B", "A", "B", "A", "B", "A", "B", "A", "B"])
    assert app.settings == {"mode": 2, "points": 1, "flip": 1, "sound": 0, "fumble": 1000,
                            "signal": 0}
    assert app.menu_text(app.menu_items()[4]) == "FUMBLE 1 S"
    r.menu(["A"] * 9)                        # nine items: A wraps round to the same one
    assert app.title.sel % 9 == 6
    # Walk to START and choose it.
    while app.menu_text(app.menu_items()[app.title.sel % 9]) != "START":
        r.menu(["A"])
    r.menu(["B"])
    assert app.screen == A.GAME
    g = app.game
    assert g.rules.points and g.rules.manual_flip
    assert app.cpu == [None, 2] and not app.seats[1].human
    assert app.table.fumbles.us == 1000000 and app.conduct.signal == 0
    saved = r.storage.load()
    assert saved["settings"]["mode"] == 2 and saved["game"] is not None
    assert saved["settings"]["fumble"] == 1000


def test_sound_off_plays_nothing():
    r = rig()
    r.frames(1)
    r.menu(["U", "U", "U", "B"])             # sound off (back past REACTION LAB, HOW TO PLAY)
    n = len(r.sound.played)
    r.menu(["U", "U", "U", "U", "U", "U", "B"])   # START
    r.add_bots(("hard", "hard"), seed=2)
    r.frames(600)
    assert len(r.sound.played) == n


# ---- whole games ----------------------------------------------------------------------
@pytest.mark.parametrize("rules,seed", [
    (Rules(), 1), (Rules(points=True), 2), (Rules(manual_flip=True), 3),
    (Rules(points=True, manual_flip=True), 4)])
def test_two_scripted_humans_play_a_whole_game(rules, seed):
    r = rig(start=(1 << 30) - 40 * 1000 * 1000)       # the ticks wrap during the game
    app = r.app
    r.frames(1)
    app.start_game(seed, rules, (None, None), r.clock.now)
    r.add_bots(("hard", "normal"), seed=seed)
    screens = set()
    phases = set()

    def watch(a):
        screens.add(a.screen)
        if a.screen == A.GAME:
            phases.add(a.game.phase)
            assert sorted(all_cards(a.game)) == list(range(52))    # R29
        return a.screen == A.OVER_SCREEN

    r.until(watch)
    g = app.game
    assert g.phase == "over"
    assert {A.GAME, A.SUMMARY, A.OVER_SCREEN} <= screens
    assert {"ready", "play"} <= phases
    st = app.stats
    assert st.plays[0] + st.plays[1] > 20
    assert st.mean_gap_ms(0) > 0
    played = set(r.sound.played)
    assert {"play", "spit", "round-over"} <= played
    assert ("win" in played) or ("draw" in played)
    assert r.disp.span_errors == 0
    # game over -> after a moment, A (to MENU) and B -> title, the saved game gone
    r.frames(60)
    r.tap(1, "A", frames=2)
    r.tap(1, "B", frames=2)
    assert app.screen == A.TITLE
    assert app.saved is None
    assert r.storage.load()["game"] is None


def test_human_against_each_cpu_level():
    for level in (1, 2, 3):
        r = rig()
        r.frames(1)
        r.app.start_game(20 + level, Rules(), (None, level), r.clock.now)
        r.add_bots(("hard", "hard"), seed=level, players=(0,))
        r.until(lambda a: a.screen == A.OVER_SCREEN)
        assert r.app.stats.plays[1] > 0        # the CPU played through the same path


def test_hardware_buttons_of_the_cpu_seat_are_ignored_in_the_game():
    g = layout(["5C", "QD", "", "", ""], ["5H", "9S", "", "", ""], ["6S", "KD"],
               hands=("2C", "3D"))
    r = rig()
    start(r, g, cpu=(None, 3))
    before = r.app.game.snapshot()
    r.inp.press(r.clock.now + 500, 1, "B")      # someone mashes the CPU's button
    r.app.seats[1].bot.observe = lambda *a: None    # keep the CPU itself still
    r.app.seats[1].poll = lambda now, out: None
    r.frames(3)
    assert r.app.game.snapshot() == before


# ---- feedback: illegal vs lost race (R20), ties (R21) --------------------------------------
def race_table():
    # Both players' first stockpile fits pile 0 (6S) only; nobody can stall after.
    return layout(["5C", "9D", "QD", "", ""], ["5H", "8S", "", "", ""], ["6S", "KD"],
                  hands=("2C", "3D"))


def test_lost_race_says_beaten_by_how_much_and_sounds_different():
    r = rig()
    start(r, race_table())
    t = r.clock.now + 1000
    r.inp.press(t, 0, "B")
    r.inp.press(t + 3 * MS, 1, "B")
    r.frames(2)
    app = r.app
    assert app.game.piles[0][-1] == card("5C")
    assert texts_of(app, 1) == ("BEATEN", "BY 3 MS", True)
    assert texts_of(app, 0)[0] == ""
    assert "lost" in r.sound.played
    assert app.stats.races == [1, 0]
    # the message goes after a while
    r.frames(60)
    assert texts_of(app, 1) == ("", "", False)


def test_illegal_press_says_doesnt_fit_and_sounds_different():
    # With the fumble off (R41: 0); with it on, the fumble replaces this message.
    r = rig()
    r.app.start_game(0, None, (None, None), r.clock.now, game=race_table(), fumble_ms=0)
    r.frames(1)
    r.tap(0, "A", frames=2)                   # cursor to 9D
    assert r.app.pads[0].cursor == 1
    before = r.app.game.snapshot()
    r.tap(0, "B", frames=2)
    assert r.app.game.snapshot() == before    # R39: refused, nothing changed
    assert texts_of(r.app, 0) == ("DOESN'T", "FIT", False)
    assert r.sound.played[-1] == "illegal"
    assert "lost" not in r.sound.played


def test_a_tie_is_lost_in_a_tie():
    r = rig()
    start(r, race_table())
    t = r.clock.now + 1000
    r.inp.press(t, 0, "B")
    r.inp.press(t, 1, "B")                    # the same microsecond: a tie (R21)
    r.frames(2)
    app = r.app
    msgs = [texts_of(app, 0), texts_of(app, 1)]
    assert ("BEATEN", "IN A TIE", True) in msgs
    assert app.arbiter.ties == 1


def test_presses_are_taken_in_stamp_order_not_arrival_order():
    # Player 1's touch is earlier but reaches the app in the same frame: it wins.
    r = rig()
    start(r, race_table())
    t = r.clock.now + 1000
    r.inp.press(t + 5 * MS, 0, "B")
    r.inp.press(t, 1, "B")
    r.frames(2)
    assert r.app.game.piles[0][-1] == card("5H")
    assert texts_of(r.app, 0) == ("BEATEN", "BY 5 MS", True)


# ---- stall and spit again (R22-R23) ----------------------------------------------------
def test_stall_says_spit_again_and_both_presses_turn_new_cards():
    g = layout(["3C", "9C", "", "", ""], ["9D", "", "", "", ""], ["2S", "JH"],
               hands=("4C 7C", "5D 8D"))
    r = rig()
    start(r, g)
    r.tap(0, "B", frames=2)                   # 3C onto 2S: now nobody can play
    app = r.app
    assert app.game.phase == "ready" and app.game.piles
    assert texts_of(app, 0)[:2] == ("NO PLAY", "SPIT: A/B")
    assert texts_of(app, 1)[:2] == ("NO PLAY", "SPIT: A/B")
    r.tap(1, "A", frames=2)
    assert texts_of(app, 1)[:2] == ("READY", "WAIT...")
    assert app.game.phase == "ready"
    r.tap(0, "B", frames=2)
    assert app.game.piles[0][-1] == card("7C") and app.game.piles[1][-1] == card("8D")
    assert "spit" in r.sound.played


# ---- the slap and its time limit (R25, R26, R33) -------------------------------------------
def slap_table():
    # Player 0 plays their last stockpile card: the round ends with two piles (R24a).
    return layout(["5C", "", "", "", ""], ["KH", "QH", "", "", ""], ["7S 6S", "2D"],
                  hands=("", ""))


def to_signal(r):
    """Step until the slap signal (R44) shows: before it the time limit does not run."""
    assert r.app.game.phase == "slap" and r.app.table.slap_bar == -1
    r.until(lambda a: a.table.signalled)


def go_to_slap(r):
    start(r, slap_table())
    r.tap(0, "B", frames=2)
    to_signal(r)
    assert r.app.table.slap_bar > 0           # the banner's time limit is running


def test_first_slap_takes_its_pile_the_other_takes_the_other():
    r = rig()
    go_to_slap(r)
    app = r.app
    t1 = r.clock.now + 1000
    r.tap(1, "A", frames=2)                       # player 1's left pile is pile 1 (2D)
    assert app.screen == A.SUMMARY
    lr = app.game.last_round
    assert lr["slap"] == [1, 1]
    assert lr["took"] == [3, 1]
    # player 0 slaps 60 ms later: they lost that race, and are told by how much
    r.inp.press(t1 + 60 * MS, 0, "B")
    r.frames(2)
    assert app.screens[A.SUMMARY].notes[0] == "BEATEN BY 60 MS"
    assert app.stats.races[1] == 1
    assert app.screen == A.SUMMARY                # that slap did not skip the summary
    # the summary waits for a press, then the next round's ready screen
    r.frames(30)
    r.tap(0, "A", frames=2)
    assert app.screen == A.GAME and app.game.phase == "ready" and app.game.round == 2


def test_nobody_slaps_in_time_each_takes_the_pile_they_started():
    r = rig()
    go_to_slap(r)
    app = r.app
    t0 = r.clock.now
    bars = []
    r.until(lambda a: bars.append(a.table.slap_bar) or a.screen != A.GAME)
    waited = r.clock.now - t0
    assert A.SLAP_LIMIT_US - 100 * MS <= waited <= A.SLAP_LIMIT_US + 100 * MS
    assert max(bars) > 20 and 0 in bars        # the bar ran down
    lr = app.game.last_round
    assert lr["slap"] == [0, 0]               # R26 ruling: player 0 pile 0, player 1 pile 1
    assert lr["took"] == [3, 1]
    assert app.screens[A.SUMMARY].notes == ["NOBODY SLAPPED", "NOBODY SLAPPED"]


def test_a_slap_touched_before_the_limit_beats_the_limit():
    r = rig()
    go_to_slap(r)
    app = r.app
    deadline = app.table.deadline
    # Touched 1 ms before the limit, but it reaches the app a frame after the limit.
    r.clock.now = deadline + 20 * MS
    r.inp.press(deadline - 1 * MS, 1, "B")    # player 1's right pile: pile 0
    r.frames(1)
    assert app.game.last_round["slap"] == [1, 0]


def test_single_pile_stall_with_equal_counts_is_decided_by_a_slap():
    # R33: a stalled single-pile round, both with one stockpile card: slap the pile.
    g = layout(["3C", "9C", "", "", ""], ["9D", "", "", "", ""], ["2S"], hands=("", ""))
    r = rig()
    start(r, g)
    r.tap(0, "B", frames=2)
    app = r.app
    assert app.game.phase == "slap" and len(app.game.piles) == 1
    to_signal(r)
    r.tap(1, "A", frames=2)
    lr = app.game.last_round
    assert lr["out"] == 1 and lr["took"] == [2, 0]


def test_single_pile_nobody_slaps_goes_to_the_tie_priority_player():
    g = layout(["3C", "9C", "", "", ""], ["9D", "", "", "", ""], ["2S"], hands=("", ""))
    r = rig()
    start(r, g)
    prio = r.app.game.tie_priority
    r.tap(0, "B", frames=2)
    r.until(lambda a: a.screen != A.GAME)
    assert r.app.game.last_round["out"] == prio


# ---- pause -------------------------------------------------------------------------------
def test_hold_both_buttons_to_pause_then_resume_or_quit():
    r = rig()
    r.frames(1)
    app = r.app
    app.start_game(9, Rules(), (None, None), r.clock.now)
    both_press(r)                               # Spit!
    assert app.game.phase == "play"
    snap = app.game.snapshot()
    t = r.clock.now + 1000
    r.inp.push(t, 0, "A", True)
    r.inp.push(t + 20 * MS, 0, "B", True)
    r.frames(10)
    assert app.screen == A.GAME                 # not yet: a second is needed
    r.frames(30)
    assert app.screen == A.PAUSE
    assert "pause" in r.sound.played
    paused = app.game.snapshot()
    t = r.clock.now + 1000
    r.inp.push(t, 0, "A", False)
    r.inp.push(t, 0, "B", False)
    r.frames(2)
    r.tap(1, "B", frames=2)                     # either player: RESUME
    assert app.screen == A.GAME and app.game.snapshot() == paused
    # pause again, choose QUIT GAME: back to the title, which offers CONTINUE
    t = r.clock.now + 1000
    r.inp.push(t, 1, "B", True)
    r.inp.push(t + 5 * MS, 1, "A", True)
    r.frames(40)
    assert app.screen == A.PAUSE
    r.inp.push(r.clock.now + 1000, 1, "B", False)
    r.inp.push(r.clock.now + 1000, 1, "A", False)
    r.frames(2)
    r.tap(0, "A", frames=2)
    r.tap(0, "B", frames=2)
    assert app.screen == A.TITLE
    assert app.menu_text(app.menu_items()[0]) == "CONTINUE 2 PLAYERS"
    assert snap is not None


def test_continue_resumes_the_saved_round():
    r = rig()
    r.frames(1)
    app = r.app
    app.start_game(12, Rules(points=True), (None, None), r.clock.now)
    r.add_bots(("hard", "hard"), seed=12)
    r.until(lambda a: a.screen == A.SUMMARY)
    boundary = app.game.snapshot()
    r.frames(15)                  # the save comes a moment into the summary (see below)
    # a new app on the same storage: the title offers CONTINUE at the next round
    r2 = Rig(framebuf, storage=r.storage, start=r.clock.now)
    r2.frames(1)
    assert r2.app.menu_text(r2.app.menu_items()[0]) == "CONTINUE 2 PLAYERS"
    r2.menu(["B"])
    assert r2.app.screen == A.GAME
    assert r2.app.game.snapshot() == boundary
    assert r2.app.stats.plays == app.stats.plays


# ---- input overflow, six buttons, recording limit --------------------------------------------
def test_ring_buffer_overflow_is_reported():
    r = rig()
    r.frames(1)
    r.app.start_game(3, Rules(), (None, None), r.clock.now)
    r.frames(1)
    r.inp.dropped += 3
    r.frames(1)
    assert r.app.dropped == 3
    assert texts_of(r.app, 0)[:2] == ("INPUT", "LOST!")
    assert r.sound.played[-1] == "warn"
    assert "INPUT LOST: 3" in r.app.note


def test_six_button_scheme():
    r = rig(scheme=6)
    start(r, race_table())
    app = r.app
    r.tap(0, "R", frames=2)
    assert app.pads[0].cursor == 1
    r.tap(0, "L", frames=2)
    assert app.pads[0].cursor == 0
    r.tap(0, "A", frames=2)                      # A plays onto the left pile
    assert app.game.piles[0][-1] == card("5C")


def test_six_button_menu_up_goes_back():
    r = rig(scheme=6)
    r.frames(1)
    r.menu(["D", "D", "U"])
    assert r.app.title.sel == 1


def test_recording_stops_at_its_limit_without_failing():
    r = rig(record_limit=300)
    r.frames(1)
    r.app.start_game(5, Rules(), (None, None), r.clock.now)
    r.add_bots(("hard", "hard"), seed=5)
    r.until(lambda a: a.screen == A.OVER_SCREEN)
    assert r.app.replay.records.lost > 0
    assert r.app.replay.records.nbytes() <= 512


def test_input_port_without_a_list_argument_still_works():
    class OldInput(ScriptInput):
        def drain(self):
            return ScriptInput.drain(self)
    r = rig()
    r.app.ports.input = OldInput(r.clock)
    r.inp = r.app.ports.input
    r.frames(1)
    r.tap(0, "A", frames=2)                      # from START to the mode
    r.tap(0, "B", frames=2)                      # "2 PLAYERS" -> "VS CPU EASY"
    assert r.app.settings["mode"] == 1


def test_settings_are_saved_when_changed_and_keep_the_resumable_game():
    r = rig()
    r.frames(1)
    r.app.start_game(8, Rules(), (None, None), r.clock.now)
    r.frames(2)
    boundary = r.storage.load()["game"]
    r.app.to_title(r.clock.now)                # e.g. quit from the pause menu
    r.frames(2)
    assert r.app.menu_text(r.app.menu_items()[0]) == "CONTINUE 2 PLAYERS"
    r.menu(["A"] * 7 + ["B"])                   # SOUND: off (after CONTINUE, START ...)
    d = r.storage.load()
    assert d["settings"]["sound"] == 0
    assert d["game"] == boundary


def test_a_game_set_up_mid_round_is_not_saved():
    r = rig()
    r.frames(1)
    saves = r.storage.saves
    start(r, race_table())
    assert r.storage.saves == saves


def test_the_pause_button_pauses_and_resumes_without_touching_the_game():
    # The emulator's Esc: a button of its own, so pausing never moves a cursor or plays.
    r = rig()
    r.frames(1)
    app = r.app
    app.start_game(4, Rules(), (None, None), r.clock.now)
    both_press(r)
    assert app.game.phase == "play"
    snap = app.game.snapshot()
    cursors = [pad.cursor for pad in app.pads]
    r.tap(0, "PAUSE", frames=2)
    assert app.screen == A.PAUSE
    assert app.game.snapshot() == snap and [pad.cursor for pad in app.pads] == cursors
    r.tap(1, "PAUSE", frames=2)
    assert app.screen == A.GAME and app.game.snapshot() == snap


def loaded_screens():
    return sorted(m for m in sys.modules if m.startswith("firmware.screens."))


def test_only_the_game_screen_is_in_memory_while_a_game_is_played(monkeypatch):
    # docs/ARCHITECTURE.md: during play every other screen's code is off the heap; the
    # pause and rematch screens draw like the game-over screen and must not load it.
    from firmware import screens
    for name in screens.LAZY.values():             # as at power-up, whatever ran before
        monkeypatch.delitem(sys.modules, "firmware.screens." + name, raising=False)
        monkeypatch.delattr(screens, name, raising=False)
    only_game = ["firmware.screens.game"]
    r = rig()
    app = r.app
    r.frames(1)
    assert loaded_screens() == only_game + ["firmware.screens.title"]
    while app.menu_text(app.menu_items()[app.title.sel % 7]) != "START":
        r.menu(["A"])
    r.menu(["B"])
    assert app.screen == A.GAME and loaded_screens() == only_game
    both_press(r)
    assert app.game.phase == "play"
    r.tap(0, "PAUSE", frames=2)
    assert app.screen == A.PAUSE
    assert loaded_screens() == only_game + ["firmware.screens.pause"]
    r.tap(0, "PAUSE", frames=2)
    assert app.screen == A.GAME and loaded_screens() == only_game
    r.add_bots(("hard", "hard"), seed=5)
    seen = set()

    def watch(app):
        if app.screen == A.GAME:
            seen.add(tuple(loaded_screens()))
        return app.screen == A.OVER
    r.until(watch)
    assert seen == {tuple(only_game)}
    assert loaded_screens() == only_game + ["firmware.screens.over"]
    r.hands.clear()
    r.frames(60)                                   # the result stands a moment first
    r.tap(0, "B", frames=2)                        # REMATCH
    assert app.screen == A.REMATCH
    assert loaded_screens() == only_game + ["firmware.screens.rematch"]
    r.until(lambda app: app.screen == A.GAME)
    assert loaded_screens() == only_game


def test_the_pause_button_does_nothing_on_the_title():
    r = rig()
    r.frames(1)
    app = r.app
    r.tap(0, "PAUSE", frames=2)
    assert app.screen == A.TITLE


def test_default_settings_can_be_chosen_by_the_host_and_are_checked():
    from firmware.app import App, Ports
    r = rig()
    app = App(Ports(r.inp, r.app.ports.display), defaults={"mode": 3, "points": 1, "flip": 0,
                                                          "sound": 1})
    assert app.settings["mode"] == 3 and app.settings["points"] == 1
    with pytest.raises(ValueError):
        App(Ports(r.inp, r.app.ports.display), defaults={"mode": 9})


# ---- the slap signal on the screen (R44) ----------------------------------------------
def banner_lit(r, p=0):
    """How many pixels of player p's band are lit (the SLAP! banner is mostly lit)."""
    from firmware.view import HALF_Y, HALF_H
    buf = r.disp.buf
    n = 0
    for y in range(HALF_Y, HALF_Y + HALF_H - 3):
        yy = y if p == 0 else 63 - y
        for x in range(128):
            n += (buf[(yy >> 3) * 128 + x] >> (yy & 7)) & 1
    return n


def test_r44_the_table_waits_then_slap_shows_and_sounds_and_the_bar_starts_there():
    r = rig()
    start(r, slap_table())
    r.tap(0, "B", frames=2)
    app = r.app
    tb = app.table
    assert app.game.phase == "slap" and not tb.signalled
    waiting = banner_lit(r)
    assert "slap-now" not in r.sound.played and tb.slap_bar == -1
    r.until(lambda a: a.table.signalled)
    assert r.clock.now - tb.signal_t < 40 * MS                  # the first frame after it
    assert r.sound.played[-1] == "slap-now"
    assert banner_lit(r) > 3 * waiting and banner_lit(r, 1) > 3 * waiting   # both banners
    assert tb.slap_bar == BAR_MAX or tb.slap_bar == BAR_MAX - 1   # the bar starts full


def test_r44_a_false_start_is_shown_on_that_players_side_and_said_in_the_summary():
    r = rig()
    start(r, slap_table())
    r.tap(0, "B", frames=2)
    app = r.app
    t_end = app.table.end_t
    r.inp.press(t_end + 100 * MS, 0, "A")          # too soon: ignored
    r.clock.now = t_end + 500 * MS
    r.frames(1)
    assert app.game.phase == "slap" and app.stats.false_starts == [0, 0]
    r.inp.press(t_end + 520 * MS, 1, "A")          # player 1, before the signal
    r.frames(2)
    assert app.screen == A.SUMMARY and app.stats.false_starts == [0, 1]
    assert app.msgs[1].l1 == "FALSE" and app.msgs[1].inv
    lr = app.game.last_round
    assert lr["took"][1] == 3 and lr["took"][0] == 1      # the larger pile (7S 6S 5C)
    notes = app.screens[A.SUMMARY].notes
    assert notes == ["THEY FALSE STARTED", "YOU FALSE STARTED"]
    assert summary_lines(app.game, 1, notes[1])[0] == "YOU FALSE STARTED"


def test_r44_the_cpu_slaps_a_reaction_after_the_signal_never_before():
    r = rig()
    start(r, slap_table(), cpu=(None, 3))
    r.tap(0, "B", frames=2)
    app = r.app
    sig = app.table.signal_t
    r.until(lambda a: a.screen != A.GAME)
    slaps = [rec for rec in app.replay.records if rec[0] == "button" and rec[2] == 1
             and rec[4] == 1]
    assert slaps and ticks_diff(slaps[0][1], sig) >= 100 * MS    # a hard CPU's rt_min
    assert app.stats.false_starts == [0, 0]
