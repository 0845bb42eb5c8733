"""The fumble (RULES.md R41), the device's conduct: a play, fill or flip that the rules
refuse during play leaves that player's buttons dead for the fumble time, from the
refused press's touch stamp; shown on their half with a sound; a lost race (R20) is
never one; presses during it are recorded, so replays stay exact; the time is a menu
option kept in the settings (0 = off). Through the app on fake ports, like a player."""
import json

from desktop_emulator import framebuf
from firmware import app as A, savegame, sound
from host.rig import Rig, BotHand, MemoryStorage, ReplayInput
from firmware.view import BAR_MAX, MSG_W
from shared_rules.cards import card
from shared_rules.game import (ALREADY_SAID, NO_FIT, NOT_EMPTY, NOT_NOW, ALREADY_UP,
                               Rules)
from shared_rules.arbiter import BEATEN
from shared_rules.conduct import is_fumble, Fumbles, Conduct
from shared_rules import selfplay
from tests.helpers import layout, shoot_recorded_frames

MS = 1000


def rig(**kw):
    return Rig(framebuf, start=kw.pop("start", 5000), **kw)


def race_table():
    # Player 0: 5C fits 6S, 9D fits nothing, QD fits KD. Player 1: 5H fits 6S.
    return layout(["5C", "9D", "QD", "", ""], ["5H", "8S", "", "", ""], ["6S", "KD"],
                  hands=("2C", "3D"))


def start(r, fumble_ms=None, game=None):
    r.app.start_game(0, None, (None, None), r.clock.now, game=game or race_table(),
                     fumble_ms=fumble_ms)
    r.frames(1)
    r.until(lambda app: not app.view.behind)      # the whole table is on show


def fumble_at(r, p=0):
    """Move player 0's cursor to 9D (fits nowhere), press B: returns its stamp."""
    r.tap(p, "A", frames=2)
    assert r.app.pads[p].cursor == 1
    t = r.clock.now + 1000
    r.inp.press(t, p, "B")
    r.frames(2)
    return t


def test_r41_a_refused_play_leaves_the_buttons_dead_for_the_fumble_time():
    r = rig()
    start(r, fumble_ms=500)
    app = r.app
    before = app.game.snapshot()
    t0 = fumble_at(r)
    assert app.game.snapshot() == before           # R39: refused, nothing changed
    m = app.msgs[0]
    assert (m.l1, m.inv) == ("FUMBLE!", True) and 0 < m.bar <= BAR_MAX
    assert r.sound.played[-1] == "fumble" and app.stats.fumbles == [0, 1][::-1]
    # Dead: A does not move the cursor, B does not play QD (which would fit KD).
    r.inp.press(t0 + 100 * MS, 0, "A")
    r.inp.press(t0 + 300 * MS, 0, "A")
    r.frames(12)
    assert app.pads[0].cursor == 1 and app.game.snapshot() == before
    # The other player's buttons are live all along.
    r.tap(1, "B", frames=2)
    assert app.game.piles[0][-1] == card("5H")
    # After the fumble time the buttons work again and the message goes.
    r.clock.now = t0 + 520 * MS
    r.frames(1)
    assert app.msgs[0].l1 != "FUMBLE!"
    r.tap(0, "A", frames=2)
    assert app.pads[0].cursor == 2
    r.tap(0, "B", frames=2)
    assert app.game.piles[1][-1] == card("QD")


def test_r41_the_fumble_starts_at_the_refused_press_touch_stamp():
    # Both later presses reach the app in one late frame: only their stamps decide.
    for late_ms, dead in ((499, True), (500, False)):
        r = rig()
        start(r, fumble_ms=500)
        r.tap(0, "A", frames=2)
        t0 = r.clock.now + 1000
        r.inp.press(t0, 0, "B")                    # the fumble, touched at t0
        r.inp.press(t0 + late_ms * MS, 0, "A")
        r.clock.now = t0 + 600 * MS
        r.frames(1)
        assert r.app.stats.fumbles[0] == 1
        assert r.app.pads[0].cursor == (1 if dead else 2), late_ms


def test_r41_a_lost_race_is_never_a_fumble():
    r = rig()
    start(r)
    t = r.clock.now + 1000
    r.inp.press(t, 0, "B")
    r.inp.press(t + 3 * MS, 1, "B")               # 5H fitted 6S when pressed: beaten
    r.frames(2)
    app = r.app
    assert (app.msgs[1].l1, app.msgs[1].l2) == ("BEATEN", "BY 3 MS")
    assert app.stats.fumbles == [0, 0] and app.table.fumbles.start == [None, None]
    r.tap(1, "A", frames=2)                        # live at once
    assert app.pads[1].cursor == 1


def test_r41_cursor_spit_slaps_and_late_presses_are_never_fumbles():
    assert is_fumble(("play", 0, 1, 0), NO_FIT)
    assert is_fumble(("fill", 0, 1, 2), NOT_EMPTY)
    assert is_fumble(("flip", 0, 1), ALREADY_UP)
    assert not is_fumble(("play", 0, 1, 0), BEATEN)           # R20
    assert not is_fumble(("play", 0, 1, 0), NOT_NOW)          # the phase moved on
    assert not is_fumble(("play", 0, 1, 0), None)             # applied
    assert not is_fumble(("spit", 0), ALREADY_SAID)
    assert not is_fumble(("slap", 0, 0), NOT_NOW)
    f = Fumbles(0)
    assert not f.settled(("play", 0, 1, 0), 10, NO_FIT)       # 0 = off
    # In the app: cursor presses and a second Spit change nothing of the sort.
    r = rig()
    r.frames(1)
    r.app.start_game(4, Rules(), (None, None), r.clock.now)
    r.frames(1)
    r.tap(0, "A", frames=2)
    r.tap(0, "B", frames=2)                        # said Spit, then again: refused quietly
    r.tap(0, "A", frames=2)
    assert r.app.stats.fumbles == [0, 0]


def test_r41_zero_turns_it_off():
    r = rig()
    start(r, fumble_ms=0)
    fumble_at(r)
    app = r.app
    assert (app.msgs[0].l1, app.msgs[0].l2) == ("DOESN'T", "FIT")
    assert r.sound.played[-1] == "illegal" and app.stats.fumbles == [0, 0]
    r.tap(0, "A", frames=2)
    assert app.pads[0].cursor == 2                 # live at once


def test_r41_it_is_shown_on_the_players_half_and_runs_out():
    r = rig()
    start(r)
    fumble_at(r)
    buf = r.disp.buf

    def lit(x0, y0, w, h):
        return sum((buf[(y >> 3) * 128 + x] >> (y & 7)) & 1
                   for y in range(y0, y0 + h) for x in range(x0, x0 + w))
    mine = lit(0, 32, MSG_W, 15)                  # player 0's message corner
    theirs = lit(128 - MSG_W, 17, MSG_W, 15)      # player 1's, turned round
    # Lit box, dark 7-row letters: about half the corner lit, the other corner not.
    assert mine > 0.5 * MSG_W * 15 and theirs < 0.2 * MSG_W * 15
    bars = []
    for _ in range(16):
        r.frames(1)
        bars.append(r.app.msgs[0].bar)
    assert bars == sorted(bars, reverse=True) and bars[0] > bars[-1]
    assert sound.FUMBLE not in (sound.ILLEGAL, sound.LOST)


def test_r41_the_time_is_a_menu_option_kept_in_the_settings():
    r = rig()
    r.frames(1)
    app = r.app
    names = []
    r.menu(["A", "A", "A", "A"])                   # to FUMBLE
    for _ in range(7):
        names.append(app.menu_text(app.menu_items()[app.title.sel]))
        r.menu(["B"])                              # the next time
    # From the default (R41: 0.5 s) round the choices and back.
    assert names == ["FUMBLE 0.5 S", "FUMBLE 1 S", "FUMBLE 1.25 S", "FUMBLE 1.5 S",
                     "FUMBLE OFF", "FUMBLE 0.5 S", "FUMBLE 1 S"]
    assert app.settings["fumble"] == 1250
    r.menu(["B", "B"])                             # 1.5 s, then OFF, saved at once
    assert app.menu_text(app.menu_items()[app.title.sel]) == "FUMBLE OFF"
    assert json.loads(r.storage.text)["settings"]["fumble"] == 0
    r2 = Rig(framebuf, storage=MemoryStorage(r.storage.text))
    assert r2.app.settings["fumble"] == 0          # OFF is kept, not taken for missing
    # A file saved before the fumble existed still loads: the missing key is the default.
    old = {"v": 1, "settings": {"mode": 2, "points": 1, "flip": 0, "sound": 1}, "game": None}
    r3 = Rig(framebuf, storage=MemoryStorage(json.dumps(old)))
    assert r3.app.settings == dict(old["settings"], fumble=savegame.FUMBLE_MS, signal=1)
    assert r3.app.note == ""
    bad = dict(old, settings=dict(old["settings"], fumble=-5))
    assert savegame.unpack(bad)[2] == "SETTINGS RESET"
    assert savegame.next_fumble(750) == 1000 and savegame.next_fumble(2000) == 0
    assert savegame.default_settings()["fumble"] == savegame.FUMBLE_MS == 500     # R41


def test_r41_presses_during_a_fumble_are_recorded_and_the_replay_is_exact():
    # A blind masher as player 0 (through the input port, like a person) fumbles a
    # lot; the recording holds its dead presses too and replays to the same end.
    r = Rig(framebuf, start=(1 << 30) - 8000000, record_limit=1 << 20)
    r.frames(1)
    app = r.app
    app.start_game(21, Rules(), (None, 2), r.clock.now)
    shots, real = shoot_recorded_frames(r)
    r.hands.append(BotHand(app, 0, "masher", 5, r.inp))
    r.until(lambda a: a.screen != A.GAME)          # a whole round
    app.replay.frame = real
    presses = [rec for rec in app.replay.records if rec[0] == "button" and rec[2] == 0
               and rec[4] == 1]
    assert len(presses) > 3 * app.stats.fumbles[0]   # most of them fell in dead time
    inp = ReplayInput()
    r2 = Rig(framebuf, inp=inp)
    records = list(app.replay.records)
    r2.app.start_game(app.replay.seed, app.replay.rules, (None, None), records[0][1],
                      conduct=app.replay.conduct)
    n = 0
    for rec in records[1:]:
        if rec[0] == "button":
            inp.events.append(rec[1:])
        elif rec[0] == "frame":
            r2.app.step(rec[1])
            if rec[1] in shots:
                assert bytes(r2.disp.buf) == shots[rec[1]][0]
                assert r2.app.game.snapshot() == shots[rec[1]][1]
                n += 1
    assert n == len(shots) > 50
    assert r2.app.stats.fumbles == app.stats.fumbles


def test_r41_the_easy_cpu_pays_for_its_mistakes_and_waits_them_out():
    r = Rig(framebuf, start=777, record_limit=1 << 20)
    r.frames(1)
    app = r.app
    app.start_game(8, Rules(), (None, 1), r.clock.now)      # the easy CPU is player 1
    r.add_bots(("hard", "hard"), seed=8, players=(0,))
    told = []

    def watch(a):
        seat = a.seats[1]
        if not getattr(seat, "_watched", False):
            real = seat.fumbled

            def fumbled(until, now, _real=real):
                told.append((now, until))
                _real(until, now)
            seat.fumbled = fumbled
            seat._watched = True
        return a.screen == A.OVER_SCREEN
    r.until(watch)
    assert app.stats.fumbles[1] >= 1 and len(told) == app.stats.fumbles[1]
    downs = [rec[1] for rec in app.replay.records
             if rec[0] == "button" and rec[2] == 1 and rec[4] == 1]
    for now, until in told:
        # Told at `now`, it presses nothing more until its buttons are live again.
        assert not [t for t in downs if now < t < until], (now, until)


def test_r41_the_simulation_plays_the_same_fumble():
    st = selfplay.play(3, ("easy", "masher"))
    assert st["fumbles"] > 10 and st["dead"] > st["fumbles"] and not st["violations"]
    off = selfplay.play(3, ("easy", "masher"), conduct=Conduct(0))
    assert off["fumbles"] == 0 and off["dead"] == 0 and not off["violations"]


def _emptied_cursor_table():
    # Each player's first stockpile is a lone card that fits both piles: played, it
    # leaves the cursor on an empty slot. 9D and 9H fit nothing.
    return layout(["5C", "9D", "", "", ""], ["5H", "9H", "", "", ""], ["6S", "6D"],
                  hands=("2C", "3D"))


def test_r41_a_press_on_the_slot_the_players_own_play_emptied_is_never_a_fumble():
    # The cursor stays where the card was (the pad never moves it by itself, so
    # recorded presses replay exactly); B, or a six-button play or fill, there is
    # refused without dead buttons, for either player on either pad.
    for scheme, presses in ((2, ("B",)), (6, ("A", "B", "U"))):
        for p in (0, 1):
            r = rig(scheme=scheme)
            start(r, fumble_ms=500, game=_emptied_cursor_table())
            app = r.app
            r.tap(p, "B" if scheme == 2 else "A", frames=2)     # the lone 5 is played
            assert not app.game.stock[p][0] and app.pads[p].cursor == 0
            for b in presses:
                before = app.game.snapshot()
                r.tap(p, b, frames=2)
                assert app.game.snapshot() == before
                assert app.stats.fumbles == [0, 0], (scheme, p, b)
                assert app.table.fumbles.start == [None, None]
                assert app.msgs[p].l1 == "NO CARD" and app.msgs[p].bar == -1
            # The buttons are live at once: the cursor moves on to 9.
            r.tap(p, "A" if scheme == 2 else "R", frames=2)
            assert app.pads[p].cursor == 1
            assert r.sound.played[-1] != "fumble"


def test_r41_older_recordings_replay_with_a_press_on_an_empty_slot_a_fumble():
    # A recording from before this conduct (its "fumble" line, or a conduct line with
    # empty=0) played such a press as a fumble: its replay must too (R40).
    assert Conduct.legacy(500).empty == 0 and Conduct().empty == 1
    r = rig()
    r.frames(1)
    r.app.start_game(0, None, (None, None), r.clock.now, game=_emptied_cursor_table(),
                     conduct=Conduct.legacy(500))
    r.frames(1)
    r.tap(0, "B", frames=2)                              # the lone 5 is played
    r.tap(0, "B", frames=2)                              # B on the emptied slot
    assert r.app.stats.fumbles == [1, 0] and r.app.msgs[0].l1 == "FUMBLE!"
    assert is_fumble(("play", 1, 1, 1), NO_FIT)
