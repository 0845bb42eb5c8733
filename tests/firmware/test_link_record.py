"""A linked game's recording (R43, R40): the bound each remote press was decided with
is recorded, so the recording replayed on one handheld ties the same near-ties and is
the same game."""
import pytest

from desktop_emulator import framebuf
from firmware.app import App, Ports
from firmware.link.arbiter import LinkArbiter
from host.ports import FrameInput, Panel, MemoryStorage
from host.replays import (ReplayError, parse_replay, format_replay, start_loaded,
                          step_loaded, digests_of, divergence)
from host.rig import BotHand
from host.simlink import LinkedPair, authority
from shared_rules.arbiter import Arbiter
from shared_rules.game import PLAY

# Seed 3's first deal: both players' stockpile 0 fits pile 0, and whichever card goes
# there the other no longer fits (a conflict), and the first tie's priority is
# player 1's. A slow cable (5 ms each way) makes the clock bound about 8.5 ms.
SEED = 3
LATENCY_US = 5000
# Player 1 touches this long after player 0: inside the bound, and inside the arbiter's
# 2 ms window (tests/firmware/test_link_ties.py ties presses further apart).
LATER_US = 1500


def linked_game_in_play():
    pair = LinkedPair(framebuf, seed=SEED, latency_us=LATENCY_US)
    for d in pair.devs:
        d.app.link_play(d.clock.now)
    pair.run_until(lambda: all(d.app.linkplay.link.state == 1 for d in pair.devs), 10000)
    host = authority(pair)
    pair.run_until(lambda: host.app.linkplay.link.sync.synced(), 10000)
    host.app.linkplay.start(host.clock.now, seed=SEED)
    pair.run_until(lambda: all(d.app.screen_name() == "game" for d in pair.devs), 10000)
    guest = pair.devs[1] if host is pair.devs[0] else pair.devs[0]
    for d in (host, guest):
        d.pad.press(d.clock.now + 1000, 0, 0)              # "Spit!" (R5)
    pair.run_until(lambda: host.app.game.phase == PLAY, 5000)
    pair.step_ms(300)
    return pair, host, guest


def replay_alone(text, honour_bounds=True):
    """The recording played on one app, as the hosts play a replay file."""
    loaded = parse_replay(text)
    if not honour_bounds:
        loaded.bounds = {}
    inp = FrameInput()
    app = App(Ports(inp, Panel(framebuf), None, MemoryStorage(), None),
              now_us=loaded.start_t, record_limit=1 << 24)
    start_loaded(app, loaded)
    for k in range(len(loaded.frames)):
        step_loaded(app, inp, loaded, k)
    return app, loaded


@pytest.fixture(scope="module")
def near_tie_game():
    """A whole linked game whose first race is a near-tie inside the bound: the
    authority's and the guest's devices, and the authority's recording as text."""
    pair, host, guest = linked_game_in_play()
    g = host.app.game
    assert host.app.linkplay.me == 0 and guest.app.linkplay.me == 1
    assert g.tie_priority == 1
    bound = host.app.linkplay.link.sync.bound_at(host.clock.now)
    assert LATER_US < bound < 0xFFFF
    card0 = g.stock[0][0][-1]
    card1 = g.stock[1][0][-1]
    # Both press B on stockpile 0 (the cursors start there); player 1 1.5 ms later.
    host.pad.press(host.clock.now + 50000, 0, 1)
    guest.pad.press(guest.clock.now + 50000 + LATER_US, 0, 1)
    pair.step_ms(500)
    # A tie (R43 -> R21): player 1 had the priority and played, though touched later.
    assert host.app.arbiter.ties == 1
    assert g.piles[0][-1] == card1 and g.stock[0][0][-1] == card0
    assert g.tie_priority == 0
    # The rest of the game, CPU hands on both devices.
    for d in (host, guest):
        me = d.app.linkplay.me
        pair.hands.append(BotHand(d.app, me, "hard", SEED * 2 + me, d.pad))
    pair.run_until(lambda: all(d.app.screen_name() == "over" for d in pair.devs), 3000000)
    pair.step_ms(2000)
    assert host.app.replay == guest.app.replay
    return host, guest, format_replay(host.app.replay, ("human", "human"))


def test_r43_a_near_tie_inside_the_bound_replays_alone_as_the_same_game(near_tie_game):
    host, guest, text = near_tie_game
    bounds = [ln.split() for ln in text.splitlines() if ln.startswith("bound ")]
    assert bounds and bounds[0][2] == "1" and int(bounds[0][3]) > LATER_US

    app, loaded = replay_alone(text)
    assert isinstance(app.arbiter, LinkArbiter)
    assert app.game.digest() == host.app.game.digest()
    assert app.game.winner == host.app.game.winner and app.game.phase == "over"
    assert digests_of(app.replay.records) == loaded.digests
    assert divergence(loaded, digests_of(app.replay.records), True) is None
    assert [r for r in app.replay.records if r[0] == "bound"] == \
        [r for r in host.app.replay.records if r[0] == "bound"]

    # Without the bounds the near-tie goes by stamp: player 0 plays, another game.
    app0, _ = replay_alone(text, honour_bounds=False)
    assert type(app0.arbiter) is Arbiter
    assert divergence(loaded, digests_of(app0.replay.records), True) is not None


def test_r43_the_desktop_replays_a_linked_games_recording_to_its_end(near_tie_game, tmp_path):
    from host.state import state_line
    from tests.web_helpers import desktop_state
    host, guest, text = near_tie_game
    path = tmp_path / "linked.txt"
    path.write_text(text)
    want = state_line(host.app.game.snapshot(), b"").split()[1]
    assert desktop_state("--replay", str(path)).split()[1] == want


@pytest.mark.web
def test_r43_the_page_replays_a_linked_games_recording_to_its_end(near_tie_game):
    from urllib.parse import quote
    from host.state import state_line
    from tests.web_helpers import FakeBridge
    from spitweb import session
    host, guest, text = near_tie_game
    b = FakeBridge()
    w = session.Web(b, "?fast=1&replay=" + quote(text), 1000.0, fb_module=framebuf)
    while not w.run_fast(300):
        pass
    want = state_line(host.app.game.snapshot(), b"").split()[1]
    assert w.state_line().split()[1] == want
    assert w.replay_divergence(True) is None


@pytest.mark.parametrize("line, why", [
    ("bound 1000 1 65536", "bound 65536 us is not 0 .. 65535"),
    ("bound 1000 1 -1", "bound -1 us is not 0 .. 65535"),
    ("bound 1000 2 400", "bound: player 2 is not 0 or 1"),
    ("bound 1000 1 4x", "bound: not an integer: '4x'"),
    ("bound 1000 1", "unknown record 'bound 1000 1'"),
    ("bound 1073741824 1 400", "time 1073741824 is not a tick"),
])
def test_r43_a_bad_bound_record_is_refused_with_its_reason(line, why):
    text = "spit-replay 1\nseed 1\nframe 1000\n%s\nframe 2000\n" % line
    with pytest.raises(ReplayError) as e:
        parse_replay(text, "replay x.txt")
    msg = str(e.value)
    assert msg.startswith("replay x.txt: replay line 4: ") and why in msg
    assert "\n" not in msg


def test_a_recording_without_bounds_replays_on_the_plain_arbiter():
    loaded = parse_replay("spit-replay 1\nseed 1\nframe 1000\nframe 2000\n")
    assert loaded.bounds == {}
    inp = FrameInput()
    app = App(Ports(inp, Panel(framebuf), None, MemoryStorage(), None), now_us=1000)
    start_loaded(app, loaded)
    assert type(app.arbiter) is Arbiter


def test_r43_bound_records_round_trip_through_the_text_and_the_packed_recording(tmp_path):
    from firmware.hw.storage import FileStorage
    from firmware.records import Recording
    from shared_rules.game import Rules
    from shared_rules.replay import Replay, parse
    rp = Replay(7)
    rp.frame(1000)
    rp.bound(2000, 1, 412)
    rp.bound(2500, 0, 0xFFFF)
    rp.button(2400, 1, 1, 1)          # a stamp before the bound's frame time
    rp.bound(1 << 29, 1, 0)
    text = rp.format()
    assert "bound 2000 1 412\nbound 2500 0 65535\n" in text
    assert parse(text) == rp
    st = FileStorage(str(tmp_path / "s.json"))
    rec = Recording(7, Rules(), 4096, st)
    want = []
    for k in range(400):              # enough to spill: packed, a bound is 3-5 bytes
        want.append(("bound", k * 997, k & 1, (k * 331) & 0xFFFF))
        want.append(("frame", k * 997 + 5))
    for r in want:
        rec.records.append(r)
    assert rec.records.spill() > 0 and rec.records._other == []
    assert list(rec.records) == want
    again = parse(rec.format())
    assert list(again.records) == want


def test_r43_a_rules_level_replay_ties_presses_within_the_recorded_bound():
    from shared_rules.game import Game
    from shared_rules.replay import Replay, run
    g = Game(3)
    g.apply(("spit", 0))
    g.apply(("spit", 1))
    # A conflict on the first deal: both players have a play onto one pile, and after
    # either the other no longer fits.
    pile = None
    for j in range(2):
        for i0 in range(5):
            for i1 in range(5):
                a = ("play", 0, i0, j)
                b = ("play", 1, i1, j)
                if g.why_not(a) is None and g.why_not(b) is None:
                    t = g.copy()
                    t.apply(a)
                    if t.why_not(b) is not None:
                        pile = (j, i0, i1)
    assert pile is not None
    j, i0, i1 = pile
    first = 1 - g.tie_priority       # touched first, but loses the tie (R21)

    def play(bound):
        rp = Replay(3)
        rp.press(1000, ("spit", 0))
        rp.press(1000, ("spit", 1))
        rp.settle(5000)
        if bound:
            rp.bound(5000, 1 - first, bound)
        rp.press(10000, ("play", first, (i0, i1)[first], j))
        rp.press(11500, ("play", 1 - first, (i0, i1)[1 - first], j))
        rp.settle(20000)
        return run(rp)[1][-2:]

    by_stamp = play(0)
    assert by_stamp[0][0][1] == first and by_stamp[0][2] is None
    tied = play(2000)
    assert tied[0][0][1] == 1 - first and tied[0][2] is None
    assert tied[1][2] is not None


def test_r43_the_emulated_picos_pins_refuse_a_linked_recording_in_one_line():
    # The pins carry presses, not bounds: played through them the near-ties would go by
    # stamp. The refusal comes before the board is touched (no board is made here).
    from desktop_emulator.pico.device import DeviceError
    from desktop_emulator.pico.engine import PicoMachine
    loaded = parse_replay("spit-replay 1\nseed 1\nframe 1000\nbound 2000 1 400\n"
                          "button 2000 1 1 1\nframe 2000\n")
    assert loaded.bounds == {0: (1, 400)}
    machine = PicoMachine.__new__(PicoMachine)
    with pytest.raises(DeviceError) as e:
        machine.start_replay(loaded)
    assert "linked game" in str(e.value) and "\n" not in str(e.value)
