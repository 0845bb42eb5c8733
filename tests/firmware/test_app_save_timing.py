"""When the app saves. A save is a flash erase on the device, which runs with
interrupts off for tens to hundreds of ms; a button touched then gets a late stamp.
So the app never saves in the frame of the deciding slap, nor while a slap that
lost its race can still land (R20, R26): it saves a few hundred ms into the summary,
once no race can be decided any more. The storage fake here records the app's clock
at every save."""

from desktop_emulator import framebuf
from firmware import app as A
from host.rig import Rig, MemoryStorage
from shared_rules.arbiter import ticks_diff
from shared_rules.game import Rules
from tests.helpers import layout

MS = 1000
RACE_NOTE_US = 250 * MS        # a slap this close after the decisive one lost a race
from firmware.screens.summary import MIN_US as SUMMARY_MIN_US  # noqa: E402


class ClockedStorage(MemoryStorage):
    """Remembers, for every save, the app's clock and screen at that moment."""

    def __init__(self):
        MemoryStorage.__init__(self)
        self.app = None
        self.at = []

    def save(self, d):
        self.at.append((self.app.now, self.app.screen))
        MemoryStorage.save(self, d)


def rig(storage):
    r = Rig(framebuf, storage=storage, start=5000)
    storage.app = r.app
    return r


def test_no_save_in_the_frame_of_the_deciding_slap_nor_while_the_loser_can_land():
    st = ClockedStorage()
    r = rig(st)
    r.frames(1)
    # Player 0 plays their last stockpile card: the round ends with two piles (R24a).
    g = layout(["5C", "", "", "", ""], ["KH", "QH", "", "", ""], ["7S 6S", "2D"],
               hands=("", ""))
    r.app.start_game(0, None, (None, None), r.clock.now, game=g)
    r.frames(1)
    r.tap(0, "B", frames=2)
    assert r.app.game.phase == "slap"
    r.until(lambda a: a.table.signalled)          # R44: slaps count from the signal
    before = len(st.at)
    # The two slaps close together: player 1 first, player 0 40 ms later, both in
    # the same frame (the frame that decides the slap).
    t = r.clock.now + 5 * MS
    r.inp.press(t, 1, "A")
    r.inp.press(t + 40 * MS, 0, "B")
    r.clock.now = t + 45 * MS
    r.frames(1)
    assert r.app.screen == A.SUMMARY
    r.frames(45)                                   # 1.5 s of summary
    saves = st.at[before:]
    assert saves, "the new round boundary was never saved"
    for now, screen in saves:
        assert ticks_diff(now, t) >= RACE_NOTE_US, "saved %d ms after the slap" % (
            ticks_diff(now, t) // MS)
        assert screen != A.GAME
    assert r.app.game.last_round["slap"] == [1, 1]
    # ... and the late slap still counts as a lost race (R20), by its true stamp.
    assert r.app.stats.races == [0, 1]


def test_in_whole_games_every_save_waits_until_no_race_is_open():
    st = ClockedStorage()
    r = rig(st)
    r.frames(1)
    app = r.app
    app.start_game(14, Rules(), (None, None), r.clock.now)
    r.add_bots(("hard", "hard"), seed=14)
    slaps = []

    def watch(a):
        tb = a.table
        if tb is not None and tb.slap_t is not None and (not slaps or slaps[-1] != tb.slap_t):
            slaps.append(tb.slap_t)
        return a.screen == A.OVER_SCREEN
    r.until(watch)
    r.frames(30)
    assert len(slaps) >= 2 and len(st.at) >= len(slaps)
    for now, screen in st.at:
        assert screen != A.GAME
        for s in slaps:
            d = ticks_diff(now, s)
            assert not 0 <= d < RACE_NOTE_US, "a save %d ms after a slap" % (d // MS)


def test_no_save_in_the_frame_that_draws_a_new_screen():
    # A flash write takes tens of ms on the device, a whole new screen about as much:
    # never both in one frame. A rematch saves the new game's first deal and shows the
    # table; the save's frame draws nothing, the table begins in the next.
    st = ClockedStorage()
    r = rig(st)
    app = r.app
    saves = []
    shows = []
    save = st.save
    st.save = lambda d: (saves.append(app.frames), save(d))
    show = r.disp.show_spans
    r.disp.show_spans = lambda s: (shows.append(app.frames), show(s))
    r.frames(1)
    app.start_game(14, Rules(), (3, 3), r.clock.now)
    r.until(lambda a: a.screen == A.OVER_SCREEN)
    r.frames(60)
    before = len(saves)
    while app.screen != A.GAME:                    # REMATCH, then on at once
        r.tap(0, "B", frames=1)
        assert app.frames < 100000
    assert len(saves) > before
    for frame in saves[before:]:
        assert frame not in shows, "a save and a picture in frame %d" % frame
    r.frames(10)
    assert saves[-1] + 1 in shows                  # the table begins the next frame
    assert not app.view.behind and r.disp.span_errors == 0
