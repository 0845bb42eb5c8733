"""firmware.main.loop, the device's loop, on the host: the app on the rig's ports, the
loop's clock a simulated one (its time module replaced), stopped by its probe.

- A press drained before its first-touch window has passed (R18-R19) is decided as
  soon as the window allows, not a whole frame later.
- A redraw spread over steps (view.DRAW_BUDGET, the display's SEND_BUDGET) goes on at
  once, not at the next frame.
- Garbage is collected between frames, never while a press waits for its decision or a
  slap is open, never close to the next frame.
- The CPU players' next look is worked out between frames (app.prepare), never while a
  press waits for its decision or close to the next frame, and changes nothing in the
  game."""
import gc

import pytest

from desktop_emulator import framebuf
from firmware import main as fm
from firmware.app import FRAME_US, GAME
from host.ports import ScriptInput
from host.rig import Rig
from shared_rules.arbiter import ticks_add, ticks_diff
from shared_rules.game import Rules, PLAY
from shared_rules.pad import main_action


class SimTime:
    """The time module the loop sees: the rig's clock; sleep moves it on."""

    def __init__(self, clock):
        self.clock = clock
        self.ticks_diff = ticks_diff
        self.ticks_add = ticks_add

    def ticks_us(self):
        return self.clock.ticks_us()

    def sleep_ms(self, ms):
        self.clock.advance(ms * 1000)


class RingInput(ScriptInput):
    """The rig's input with the ring's pending(): a press has come and is not drained."""

    def pending(self):
        now = self.clock.ticks_us()
        return any(e[3] and ticks_diff(e[0], now) <= 0 for e in self.queue)

    kind = "sim"
    errors = rearmed = 0

    def check(self):
        pass


class Quiet:
    ok = True

    def step(self, now):
        pass

    def play(self, tune):
        pass

    def stop(self):
        pass

    def feed(self):
        pass

    def check(self):
        pass

    errors = rearmed = 0
    kind = "sim"


class Stop(Exception):
    pass


def _playing_rig():
    r = Rig(framebuf)
    inp = RingInput(r.clock)
    r.app.ports.input = inp
    r.inp = inp
    app = r.app
    app.start_game(3, Rules(), (None, None), r.clock.now)
    t = r.clock.advance(FRAME_US)
    inp.press(t, 0, "B")
    inp.press(t + 5000, 1, "B")
    for _ in range(100):
        app.step(r.clock.advance(FRAME_US))
        if app.game.phase == PLAY and not app.view.behind:
            break
    assert app.game.phase == PLAY
    for _ in range(5):                      # a card of player 0 that plays (R17)
        if app.game.why_not(main_action(app.game, 0, app.pads[0].cursor)) is None:
            break
        inp.press(r.clock.advance(FRAME_US), 0, "A", 20000)
        for _ in range(3):
            app.step(r.clock.advance(FRAME_US))
    assert app.game.why_not(main_action(app.game, 0, app.pads[0].cursor)) is None
    for _ in range(3):
        app.step(r.clock.advance(FRAME_US))
    return r


def _run_loop(r, monkeypatch, until_us, on_frame=None):
    monkeypatch.setattr(fm, "time", SimTime(r.clock))
    end = ticks_add(r.clock.ticks_us(), until_us)
    q = Quiet()
    r.app.ports.display.ok = True            # the host's panel is always there

    def probe(app):
        if on_frame is not None:
            on_frame(app)
        if ticks_diff(r.clock.ticks_us(), end) >= 0:
            raise Stop()
    with pytest.raises(Stop):
        fm.loop(r.app, r.app.ports.display, r.inp, q, q, False, probe)


def test_a_press_drained_inside_its_window_is_decided_when_the_window_has_passed(monkeypatch):
    r = _playing_rig()
    app = r.app
    t0 = r.clock.ticks_us()
    # The loop steps at t0, then every FRAME_US; the press lands 0.8 ms before the second
    # regular frame's step drains it, inside its 2 ms window: the arbiter queues it.
    stamp = ticks_add(t0, FRAME_US - 133)
    r.inp.press(stamp, 0, "B", 20000)
    plays = app.stats.plays[0]
    seen = []

    def on_frame(a):
        if a.stats.plays[0] > plays and not seen:
            seen.append(ticks_diff(r.clock.ticks_us(), stamp))
    _run_loop(r, monkeypatch, 3 * FRAME_US, on_frame)
    assert seen, "the play was never decided"
    # Decided once its window has passed (2 ms + the extra step's 0.5 ms + the loop's
    # 1 ms sleeps), not at the next frame 33 ms on.
    assert seen[0] <= app.window_us + fm.EXTRA_STEP_US + 2000


def test_a_spread_redraw_goes_on_at_once_not_at_the_next_frame(monkeypatch):
    r = Rig(framebuf)
    app = r.app
    r.inp = app.ports.input
    app.start_game(5, Rules(), (None, None), r.clock.now)     # the whole table to draw
    t0 = r.clock.ticks_us()
    done = []

    def on_frame(a):
        if not a.view.behind and not done:
            done.append(ticks_diff(r.clock.ticks_us(), t0))
    _run_loop(r, monkeypatch, 3 * FRAME_US, on_frame)
    assert done and done[0] < FRAME_US       # all of it well before the second frame


def test_garbage_is_collected_between_frames_and_never_while_a_race_is_open(monkeypatch):
    r = _playing_rig()
    app = r.app
    when = []

    def fake_collect():
        when.append((fm.deciding(app), fm.race_open(app), r.clock.ticks_us(), app.frames))
    monkeypatch.setattr(gc, "collect", fake_collect)
    # Presses of both players all along, each just before a frame drains it (still
    # inside its window: the arbiter holds it past that frame), and some between.
    t0 = r.clock.ticks_us()
    for k in range(1, 60):
        r.inp.press(ticks_add(t0, k * FRAME_US - 500), k % 2, "AB"[k % 3 != 0], 20000)
        if k % 4 == 0:
            r.inp.press(ticks_add(t0, k * FRAME_US + 9000), 1 - k % 2, "B", 20000)
    _run_loop(r, monkeypatch, 2000000)
    assert len(when) >= 5
    for deciding, open_, t, _n in when:
        assert not deciding and not open_
        # the next regular frame (every FRAME_US from the loop's start) is far enough
        since = ticks_diff(t, t0) % FRAME_US
        assert FRAME_US - since >= fm.GC_ROOM_US
    # and often enough: never more than a few frames' garbage between two
    gaps = [b[3] - a[3] for a, b in zip(when, when[1:])]
    assert max(gaps) <= 4 * fm.GC_EVERY


def _cpu_game(monkeypatch, seed, ahead, until_us=15000000):
    """A hard-against-hard game through the loop; ahead=False: app.prepare does nothing.
    -> (the rig, when prepare ran: (deciding, pending, µs to the next frame))."""
    r = Rig(framebuf)
    inp = RingInput(r.clock)
    r.app.ports.input = inp
    r.inp = inp
    app = r.app
    calls = []
    prepare = app.prepare
    t0 = r.clock.ticks_us()

    def watched():
        since = ticks_diff(r.clock.ticks_us(), t0) % FRAME_US
        calls.append((fm.deciding(app), inp.pending(), FRAME_US - since))
        if ahead:
            prepare()
    app.prepare = watched
    app.start_game(seed, Rules(), (3, 3), t0)
    _run_loop(r, monkeypatch, until_us)
    return r, calls


def test_the_cpu_players_look_ahead_between_frames_and_the_game_stays_the_same(monkeypatch):
    runs = []
    for ahead in (False, True):
        r, calls = _cpu_game(monkeypatch, 4, ahead)
        app = r.app
        bots = [s.bot for s in app.table.seats]
        runs.append((list(app.replay.records), app.game.digest(), app.game.round,
                     sum(b.looked_ahead for b in bots), calls))
    assert runs[0][:3] == runs[1][:3]          # the same presses, frames and state
    assert runs[0][2] >= 2 and len(runs[0][0]) > 200    # rounds were played
    assert runs[0][3] == 0 and runs[1][3] > 0   # the looks used what was prepared
    for deciding, pending, room in runs[1][4]:
        assert not deciding and not pending and room >= fm.PREPARE_ROOM_US
    assert len(runs[1][4]) > 300                # once after (nearly) every step


class _NewsLink:
    inbox = ()

    def poll(self, now):
        pass


class _LinkPlayAt:
    """A linked game's stand-in: the link brings news at `at` (the guest's press on
    the authority, the authority's frames on the guest); its step takes it."""

    def __init__(self, clock, at, guest=False):
        self.clock = clock
        self.at = at
        self.guest = guest
        self.link = _NewsLink()
        self.steps = []
        self.taken = None
        self.asked = []

    def ask(self, now):
        self.asked.append(now)

    def guest_playing(self):
        return self.guest

    def news(self):
        return self.taken is None and ticks_diff(self.clock.ticks_us(), self.at) >= 0

    def step(self, now):
        self.steps.append(now)
        if self.taken is None and ticks_diff(now, self.at) >= 0:
            self.taken = now
        return False


@pytest.mark.parametrize("into_frame_us", [1000, FRAME_US // 2, FRAME_US - 3000])
def test_r43_what_the_link_brings_is_stepped_at_once_not_at_the_next_frame(
        monkeypatch, into_frame_us):
    r = Rig(framebuf)
    r.inp = RingInput(r.clock)
    t0 = r.clock.ticks_us()
    lp = _LinkPlayAt(r.clock, ticks_add(t0, FRAME_US + into_frame_us))
    r.app.linkplay = lp
    _run_loop(r, monkeypatch, 3 * FRAME_US)
    assert lp.taken is not None
    # Within the loop's pass after it came (its 1 ms sleep), wherever in a frame.
    assert 0 <= ticks_diff(lp.taken, lp.at) <= 2000
    # And no extra steps without news: the four frames, and the one the news asked for.
    assert len(lp.steps) == 5 and lp.taken in lp.steps


def test_r43_a_press_on_the_authority_asks_the_guest_at_once_not_after_its_window(monkeypatch):
    """The authority's own press waits for the guest's "all sent before" (R43): the loop
    asks for it in the pass that sees the press in the ring, before the step that takes
    it (its window later), so the answer can be in by then."""
    r = Rig(framebuf)
    r.inp = RingInput(r.clock)
    t0 = r.clock.ticks_us()
    lp = _LinkPlayAt(r.clock, ticks_add(t0, 100 * FRAME_US))    # no news in this run
    r.app.linkplay = lp
    touched = ticks_add(t0, FRAME_US + FRAME_US // 3)
    r.inp.press(touched, 0, "A", 40000)
    _run_loop(r, monkeypatch, 3 * FRAME_US)
    assert lp.asked, "the guest was never asked"
    assert 0 <= ticks_diff(lp.asked[0], touched) <= 2000
    step = [t for t in lp.steps if ticks_diff(t, touched) >= 0][0]
    assert ticks_diff(step, lp.asked[0]) >= r.app.window_us


def test_r43_a_press_on_the_guest_goes_to_the_authority_at_once_not_after_a_window(monkeypatch):
    """The guest's arbiter decides none of its player's presses (the authority's does,
    R43): the loop steps in the pass that sees the press in the ring, so it is on the
    cable at once, and asks nobody for anything."""
    r = Rig(framebuf)
    r.inp = RingInput(r.clock)
    t0 = r.clock.ticks_us()
    lp = _LinkPlayAt(r.clock, ticks_add(t0, 100 * FRAME_US), guest=True)
    r.app.linkplay = lp
    touched = ticks_add(t0, FRAME_US + FRAME_US // 3)
    r.inp.press(touched, 0, "A", 40000)
    _run_loop(r, monkeypatch, 3 * FRAME_US)
    step = [t for t in lp.steps if ticks_diff(t, touched) >= 0][0]
    assert ticks_diff(step, touched) <= 1000 < r.app.window_us     # the next pass
    assert lp.asked == []


@pytest.mark.parametrize("linked", [False, True])
def test_a_linked_game_is_collected_twice_as_often(monkeypatch, linked):
    r = Rig(framebuf)
    r.inp = RingInput(r.clock)
    steps = []
    if linked:
        lp = _LinkPlayAt(r.clock, ticks_add(r.clock.ticks_us(), 1000 * FRAME_US))
        r.app.linkplay = lp
        steps = lp.steps
    at = []
    monkeypatch.setattr(gc, "collect", lambda: at.append(len(steps) if linked else
                                                         r.app.frames))
    _run_loop(r, monkeypatch, 48 * FRAME_US)
    every = fm.GC_EVERY_LINKED if linked else fm.GC_EVERY
    gaps = [b - a for a, b in zip(at, at[1:])]
    assert gaps and set(gaps) == {every}
    assert fm.GC_EVERY_LINKED < fm.GC_EVERY
