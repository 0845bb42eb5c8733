"""Recording and replay (DESIGN.md "Replays"): the app records every button event it
used, with its stamp, and the frames that changed anything, into a Replay; feeding that
recording to a fresh app reproduces the game exactly, the picture included, at every
recorded frame. And the app behaves identically under CPython and MicroPython."""
import subprocess
import sys

import pytest

from desktop_emulator import framebuf
from firmware import app as A
from host.rig import Rig, ReplayInput
from firmware.records import PackedRecords
from shared_rules.game import Rules
from shared_rules.conduct import Conduct
from shared_rules.replay import Replay, parse
from tests.helpers import ROOT, MICROPYTHON, run_micropython, shoot_recorded_frames


def record(seed, rules, cpu, via_menu=False):
    # A generous record_limit: these games are long; the limit has its own test.
    r = Rig(framebuf, start=(1 << 30) - 30 * 1000 * 1000 + seed, record_limit=1 << 20)
    app = r.app
    r.frames(2)
    if via_menu:
        r.menu(["A"] + ["B"] * (cpu[1] or 0) + ["U", "B"])       # mode ... START
    else:
        app.start_game(seed, rules, cpu, r.clock.now)
    assert app.screen == A.GAME
    shots, real = shoot_recorded_frames(r)
    r.add_bots(("hard", "normal"), seed=seed, players=[p for p in (0, 1) if not cpu[p]])
    r.until(lambda a: a.screen == A.OVER_SCREEN)
    app.replay.frame = real
    return r, shots


def replay_into(replay, snapshot=None, shots=None):
    inp = ReplayInput()
    inp_rig = Rig(framebuf, inp=inp)
    app = inp_rig.app
    records = list(replay.records)
    assert records[0][0] == "frame"
    t0 = records[0][1]
    app.start_game(replay.seed, replay.rules, (None, None), t0, snapshot=snapshot)
    k = 0
    for rec in records[1:]:
        if rec[0] == "button":
            inp.events.append((rec[1], rec[2], rec[3], rec[4]))
        elif rec[0] == "frame":
            app.step(rec[1])
            if shots is not None and rec[1] in shots:
                buf, snap = shots[rec[1]]
                assert app.game.snapshot() == snap, "state differs at frame %d" % k
                assert bytes(inp_rig.disp.buf) == buf, "picture differs at frame %d" % k
                k += 1
    return inp_rig, k


@pytest.mark.parametrize("seed,rules,cpu", [
    (1, Rules(), (None, None)),
    (2, Rules(points=True), (None, 3)),
    (3, Rules(manual_flip=True), (1, None)),
])
def test_replay_reproduces_the_game_and_the_picture(seed, rules, cpu):
    r, shots = record(seed, rules, cpu)
    app = r.app
    assert app.replay.records.lost == 0
    r2, n = replay_into(app.replay, shots=shots)
    assert n == len(shots) > 100
    assert r2.app.game.snapshot() == app.game.snapshot()
    assert r2.app.screen == A.OVER_SCREEN
    assert r2.app.stats.to_list() == app.stats.to_list()
    # the recording is the events the app used, not every frame
    assert n < app.frames // 2


def test_a_game_started_from_the_menu_replays_too():
    r, shots = record(4, None, (None, 2), via_menu=True)
    r2, n = replay_into(r.app.replay, shots=shots)
    assert n == len(shots) > 100
    assert r2.app.game.snapshot() == r.app.game.snapshot()


def test_replay_text_round_trip():
    r, _ = record(5, Rules(), (None, 1))
    rp = r.app.replay
    text = rp.format()
    back = parse(text)
    assert back.seed == rp.seed and back.rules == rp.rules
    assert rp.records == back.records
    # The conduct it was played under, every parameter (R41, R44): the defaults.
    assert back.conduct == rp.conduct == Conduct()
    same = Replay(rp.seed, rp.rules, list(rp.records))
    assert back != same                       # the conduct is part of the game
    same.conduct = Conduct()
    assert back == same
    same.conduct = Conduct(signal=0)
    assert back != same
    r2, _ = replay_into(back)
    assert r2.app.game.snapshot() == r.app.game.snapshot()


def test_packed_records_round_trip_any_times():
    recs = PackedRecords()
    want = []
    t = (1 << 30) - 5
    for k in range(3000):
        t = (t + (k * 7919) % 90000 - 3000) % (1 << 30)
        rec = ("frame", t) if k % 3 == 0 else ("button", t, k & 1, k % 6, (k >> 1) & 1)
        recs.append(rec)
        want.append(rec)
    for rec in (("button", 77, 1, 1, 1), ("button", 77, 1, 1, 0),     # a tap: one record
                ("button", 78, 1, 1, 1), ("button", 78, 0, 1, 0),     # not a tap
                ("button", 79, 0, 2, 0), ("button", 79, 0, 2, 0)):
        recs.append(rec)
        want.append(rec)
    recs.append(("press", 5, ("play", 0, 1, 1)))
    want.append(("press", 5, ("play", 0, 1, 1)))
    assert list(recs) == want and recs == want and len(recs) == len(want)
    assert recs.nbytes() < 4 * len(want) + 256


def test_resumed_game_replays_from_its_snapshot():
    r, _ = record(6, Rules(points=True), (None, None))
    # resume the same seed's first saved round boundary and record from there
    r1 = Rig(framebuf, record_limit=1 << 20)
    r1.frames(1)
    g = r.app.game
    r1.app.start_game(7, Rules(), (None, None), r1.clock.now)
    snap = r1.app.game.snapshot()
    r1.app.start_game(0, None, (None, None), r1.clock.now, snapshot=snap)
    r1.add_bots(("hard", "hard"), seed=9)
    r1.until(lambda a: a.screen == A.OVER_SCREEN)
    assert r1.app.replay_snapshot == snap
    r2, _ = replay_into(r1.app.replay, snapshot=r1.app.replay_snapshot)
    assert r2.app.game.snapshot() == r1.app.game.snapshot()
    assert g is not None


@pytest.mark.mp
def test_the_app_is_the_same_under_cpython_and_micropython():
    if not MICROPYTHON.exists():
        pytest.skip("no micropython binary")
    script = ROOT / "tests" / "mp" / "app_game.py"
    for seed, level in ((3, 2), (8, 3)):
        mp = run_micropython(script, str(seed), str(level), heap="1M")
        assert mp.returncode == 0, mp.stdout + mp.stderr
        cp = subprocess.run([sys.executable, str(script), str(seed), str(level)],
                            capture_output=True, text=True, cwd=str(ROOT),
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert cp.returncode == 0, cp.stdout + cp.stderr
        assert mp.stdout == cp.stdout
        assert "table over" in mp.stdout


def test_a_game_with_a_pause_replays_too():
    r = Rig(framebuf, start=12345, record_limit=1 << 20)
    app = r.app
    r.frames(2)
    app.start_game(31, Rules(), (None, None), r.clock.now)
    shots, real = shoot_recorded_frames(r)
    r.add_bots(("hard", "normal"), seed=31)
    r.frames(400)
    r.until(lambda a: a.screen == A.GAME and a.game.phase == "play")
    hands = r.hands
    r.hands = [hands[0]]                        # player 1 holds A and B: no other presses
    r.frames(10)
    t = r.clock.now + 1000
    r.inp.push(t, 1, "A", True)
    r.inp.push(t + 30 * 1000, 1, "B", True)
    r.until(lambda a: a.screen == A.PAUSE, limit=100)
    r.inp.push(r.clock.now + 1000, 1, "A", False)
    r.inp.push(r.clock.now + 9000, 1, "B", False)
    r.frames(10)
    r.tap(0, "B", frames=3)                     # RESUME
    assert app.screen == A.GAME
    r.hands = hands
    r.until(lambda a: a.screen == A.OVER_SCREEN)
    app.replay.frame = real
    r2, n = replay_into(app.replay, shots=shots)
    assert n == len(shots)
    assert r2.app.game.snapshot() == app.game.snapshot()


def test_recording_stops_when_the_heap_is_full(monkeypatch):
    from firmware import records
    recs = PackedRecords()
    for k in range(50):
        recs.append(("frame", k * 1000))
    real = bytearray

    def full(n):
        raise MemoryError()
    monkeypatch.setattr(records, "bytearray", full, raising=False)
    for k in range(50, 400):
        recs.append(("frame", k * 1000))
    monkeypatch.setattr(records, "bytearray", real, raising=False)
    assert recs.lost > 0 and len(recs) + recs.lost == 400
    assert list(recs) == [("frame", k * 1000) for k in range(len(recs))]
