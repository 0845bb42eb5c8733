"""A whole linked game (R43) on two emulated Picos running the real firmware, with
nobody at either: link play's cable test (house rule `link_player = cpu hard`,
docs/LINK.md) makes the CPU each handheld's own player, its presses stamped by that
handheld's clock and, on the guest, sent over the cable to the host's arbiter. The
host's house rules make the match short (points, R37's target 1: one round, R42).
Both handhelds reach game over with the same recording, the same game and digest; and
so they do through a noisy cable, a clock 200 ppm fast, the cable pulled for 1.5 s and
the guest restarted mid-game.
What each firmware says on its console ("spit: link ...", "spit: screen=...") is what
is followed; the recordings are compared at the end from each board's REPL. Every
wait has a guest-time and a wall-time limit."""
import re

import pytest

from desktop_emulator.pico.link import LinkedPicos
from firmware.boards.pico import P0_A, P0_B

pytestmark = pytest.mark.pico

BUTTONS = (P0_A, P0_B, 14, 15)
HOUSE = "rules = points\ntarget = 1\nlink_player = cpu hard\n"
LINKED = re.compile(rb"spit: link LINKED host=([01])")
LOST = re.compile(rb"spit: link LINK LOST host=[01]")
PLAY = re.compile(rb"spit: screen=game phase=play round=1 ")
OVER = re.compile(rb"spit: screen=over phase=over round=(\d+) scores=(\d+):(\d+) winner=(\S+)")
SCREEN = re.compile(rb"spit: screen=")
GAME_MS = 40_000           # guest time for a whole one-round game (about 10 s, LINK.md)

# What a board's recording and game came to (in its REPL after the game): the number
# of records, a SHA-256 over them, the game's digest, its snapshot, the recording's
# seed and rules.
_RECORDING = (
    "import firmware.main as _m, hashlib as _hl\n"
    "_h = _hl.sha256()\n"
    "_n = 0\n"
    "for _r in _m.app.replay.records:\n"
    "    _h.update(repr(_r).encode())\n"
    "    _n += 1\n"
    "_d = ''.join('%02x' % _b for _b in _h.digest())\n")
_RESULT = ("[_n, _d, _m.app.game.digest(), _m.app.game.snapshot(), _m.app.replay.seed, "
           "repr(_m.app.replay.rules), _m.app.screen_name(), _m.app.linkplay.diverged]")


def _wait(pair, pattern, guest_ms, wall_s, who=(0, 1)):
    """Run the pair until each chip in `who` printed `pattern` (a bytes regex) -> the
    matches by chip (consumed, with what came before them: {chip: (match, text)})."""
    found = {}
    end = pair.t_ns + guest_ms * 1_000_000
    while True:
        for i in who:
            c = pair.chips[i]
            if i not in found:
                m = pattern.search(bytes(c.serial))
                if m:
                    found[i] = (m, bytes(c.serial[:m.end()]))
                    del c.serial[:m.end()]
        if len(found) == len(who):
            return found
        assert pair.t_ns < end, "no %r on chips %r within %d ms of guest time: %r / %r" % (
            pattern.pattern, who, guest_ms, bytes(pair.chips[0].serial[-300:]),
            bytes(pair.chips[1].serial[-300:]))
        pair.run_for(20_000, wall_s=wall_s)


def _house_files(pico_files, tmp_path):
    house = tmp_path / "house.txt"
    house.write_text(HOUSE)
    files = dict(pico_files, **{"house.txt": house})
    return (files, files)


def _link_and_deal(pair):
    """Both at the title; chip 0's player chooses LINK PLAY (chip 1 joins from its
    menu); the host deals once its clocks are synced. -> (host, guest) chip indexes."""
    pair.wait_lines([b"spit: screen=title", b"spit: screen=title"], guest_ms=4000, wall_s=300)
    a = pair.chips[0]
    a.press(P0_A, hold_us=40_000)
    pair.run_for(120_000, wall_s=120)
    a.press(P0_B, hold_us=40_000)
    links = _wait(pair, LINKED, guest_ms=1500, wall_s=300)
    hosts = [int(links[i][0].group(1)) for i in (0, 1)]
    assert sorted(hosts) == [0, 1], hosts
    host = hosts.index(1)
    pair.run_for(400_000, wall_s=300)
    pair.chips[host].press(P0_B, hold_us=40_000)
    # Nobody presses from here on: the CPU says "Spit!" on each handheld (R23).
    _wait(pair, PLAY, guest_ms=3000, wall_s=300)
    return host, 1 - host


def _results(pair):
    """Let what is still on the line arrive, then stop both (Ctrl-C: the app stays in
    firmware.main) -> what each recorded. (The host records the frames it decides at
    once; its last message may still need a resend, 60 ms each, through a noisy cable:
    stopped at once, a guest would lack it.)"""
    pair.run_for(2_000_000, wall_s=600)
    out = []
    for c in pair.chips:
        c.interrupt(wall_s=120)
        c.enter_raw(soft_reset=False, wall_s=120)
    for c in pair.chips:
        c.exec(_RECORDING, guest_ms=20_000, wall_s=300)
        out.append(c.eval_json(_RESULT, guest_ms=20_000, wall_s=300))
    return out


def _same_whole_game(results, overs):
    (n0, sha0, dig0, snap0, seed0, rules0, screen0, div0), other = results[0], results[1]
    assert screen0 == "over" and div0 == -1, results[0][6:]
    assert rules0 == "Rules(points=True, manual_flip=False, target=1)"
    assert snap0["phase"] == "over" and snap0["winner"] is not None
    # R42: the round's scores reached the target: the game ended with it, on both.
    assert overs[0][0].groups() == overs[1][0].groups()
    assert overs[0][0].group(1) == b"1" and max(snap0["scores"]) >= 1
    # The same transcript on both (R40, R43): every record, the game and its digest.
    assert n0 > 100
    assert other == results[0]


# The game through every fault with the host restarted (the guest takes the game over,
# the restarted chip catches up the whole game: the hardest case) runs in `make test`
# (about 5 minutes of CPU); the clean game and the guest restarted, which it covers, in
# `make test-soak` (docs/TESTING.md).
@pytest.mark.slow
@pytest.mark.soak
def test_r43_two_handhelds_play_a_whole_game_by_themselves_with_the_same_transcript(
        pico_firmware, pico_files, tmp_path):
    with LinkedPicos(pico_firmware, files=_house_files(pico_files, tmp_path),
                     buttons=BUTTONS, timer_start_us=(0, 3_333)) as pair:
        pair.boot()
        _link_and_deal(pair)
        overs = _wait(pair, OVER, guest_ms=GAME_MS, wall_s=600)
        _same_whole_game(_results(pair), overs)


@pytest.mark.slow
@pytest.mark.parametrize("restarts", [pytest.param("guest", marks=pytest.mark.soak), "host"])
def test_r43_a_whole_game_through_noise_drift_a_pulled_cable_and_a_restart_loses_nothing(
        pico_firmware, pico_files, tmp_path, restarts):
    with LinkedPicos(pico_firmware, files=_house_files(pico_files, tmp_path),
                     buttons=BUTTONS, timer_start_us=(0, 3_333)) as pair:
        pair.boot()
        # From power-up: 1 % of the bytes lost, a few damaged, chip 1's crystal 200 ppm
        # fast (the cable's true time is chip 0's).
        pair.faults(drop=0.01, flip=0.0005, ppm=(0, 200), seed=43)
        host, guest = _link_and_deal(pair)
        pair.run_for(1_500_000, wall_s=600)
        # The cable pulled for 1.5 s mid-game: LINK LOST on both within a second, and
        # nothing moves (no screen, phase or round changes) until it is back.
        cut_at = pair.t_ns
        pair.cut_for(1500)
        lost = _wait(pair, LOST, guest_ms=1000, wall_s=300)
        assert pair.t_ns - cut_at <= 1_000_000_000
        for i in (0, 1):
            assert OVER.search(lost[i][1]) is None, "the game ended before the cut"
        back = _wait(pair, LINKED, guest_ms=3000, wall_s=300)
        assert pair.t_ns - cut_at >= 1_500_000_000
        for i in (0, 1):
            assert SCREEN.search(back[i][1]) is None, back[i][1]   # it stood still
        assert [int(back[i][0].group(1)) for i in (host, guest)] == [1, 0]   # same roles
        pair.run_for(1_000_000, wall_s=600)
        # One handheld restarts (the reset button, a flat battery) mid-game: its menu
        # hears the other, joins link play as the same player and catches up; the game
        # goes on from where it was and its CPU plays again. A restarted host holds
        # nothing: the guest, holding the game, takes it over and is the host now.
        k = guest if restarts == "guest" else host
        assert OVER.search(bytes(pair.chips[k].serial)) is None, "over before the reset"
        pair.chips[k].power_cycle()
        _wait(pair, LOST, guest_ms=1000, wall_s=300, who=(1 - k,))
        rejoined = _wait(pair, LINKED, guest_ms=8000, wall_s=900)
        assert int(rejoined[k][0].group(1)) == 0 and int(rejoined[1 - k][0].group(1)) == 1
        assert b"spit: screen=title" in rejoined[k][1]                   # it did restart
        overs = _wait(pair, OVER, guest_ms=GAME_MS, wall_s=900)
        c = pair.counters
        assert sum(c["dropped"]) > 10 and sum(c["flipped"]) > 0 and sum(c["cut"]) > 0, c
        # Nothing lost: the same whole game, record for record, on both.
        _same_whole_game(_results(pair), overs)
