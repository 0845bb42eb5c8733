"""A mixed linked game (R43): the real firmware on an emulated Pico at one end of the
cable, the app engine (the firmware's app on CPython) at the other
(desktop_emulator/pico/mixed.py). The Pico's menu hears the app calling and joins; one
host is elected; the host deals; a "Spit!" on each side; a CPU plays the app's player
while another presses the Pico's own buttons for its player; and both ends hold the
same game.

The app engine runs on the emulator's guest time, so both ends share one clock. Every
wait has a guest-time and a wall-time limit."""
import re

import pytest

from desktop_emulator.pico.mixed import MixedLink
from firmware.boards.pico import P0_A, P0_B
from firmware.link.link import LINKED
from firmware.link.play import PLAYING

pytestmark = pytest.mark.pico

WALL_S = 300
LINKED_LINE = re.compile(rb"spit: link LINKED host=([01])")
GAME_LINE = re.compile(rb"spit: screen=game phase=(\w+) round=(\d+) scores=(\d+):(\d+)")
SNAPSHOT = "__import__('firmware.main').main.app.game.snapshot()"
#: The Pico's game and the presses its link play took from the app (as the host).
PICO_GAME = ("(lambda a: [a.game.snapshot(), a.linkplay.presses_in])"
             "(__import__('firmware.main').main.app)")
#: Ids that make the app the host (larger than the Pico's e6 60 58 ...) or the guest.
APP_HOSTS = b"\xf0\x00\x00\x00\x00\x00\x00\x01"
PICO_HOSTS = b"\x10\x00\x00\x00\x00\x00\x00\x01"


def _last(pattern, m):
    found = pattern.findall(bytes(m.pico.transcript))
    return found[-1] if found else None


def link_up(m):
    """The app chooses LINK PLAY; the Pico's menu joins; both linked, the host synced."""
    lp = m.app_link_play()
    m.run_until(lambda: _last(LINKED_LINE, m) is not None and lp.link.state == LINKED,
                1500, "link between the Pico and the app", wall_s=WALL_S)
    host_is_app = lp.link.authority
    assert int(_last(LINKED_LINE, m)) == (0 if host_is_app else 1)   # exactly one host
    if host_is_app:
        m.run_until(lp.link.sync.synced, 1500, "the app's clock sync", wall_s=WALL_S)
    else:
        m.run_for(400_000, wall_s=WALL_S)       # the Pico host syncs (LINK.md: < 1 s)
    return lp


class _PicoButtons:
    """The Pico's own A and B as a BotHand's input: each press goes onto its pins now."""

    def __init__(self, m):
        self.m = m

    def press(self, t, player, button, hold_us=40_000):
        self.m.press(P0_A if button == 0 else P0_B, hold_us=40_000)


@pytest.mark.parametrize("app_uid,app_hosts", [
    pytest.param(APP_HOSTS, True, id="app-hosts"),
    pytest.param(PICO_HOSTS, False, id="pico-hosts")])
def test_r43_the_app_engine_and_the_pico_firmware_play_one_game(pico_firmware, pico_files,
                                                                 app_uid, app_hosts):
    from host.rig import BotHand
    from host.simlink import _PadInput
    with MixedLink(pico_firmware, files=pico_files, app_uid=app_uid) as m:
        m.boot(wall_s=WALL_S)
        lp = link_up(m)
        assert lp.link.authority == app_hosts
        # The host deals: the app with B in its lobby, the Pico with its own B.
        if app_hosts:
            m.app_press("B")
        else:
            m.press(P0_B)
        m.run_until(lambda: lp.mode == PLAYING and _last(GAME_LINE, m) is not None,
                    1500, "the deal on both", wall_s=WALL_S)
        assert _last(GAME_LINE, m) == (b"ready", b"1", b"0", b"0")
        assert m.app.game.phase == "ready"
        # R23: play begins once both have said "Spit!", one press on each side's pad.
        m.press(P0_B)
        m.run_for(60_000, wall_s=WALL_S)
        m.app_press("B")
        m.run_until(lambda: m.app.game.phase == "play" and _last(GAME_LINE, m)[0] == b"play",
                    1500, "play on both", wall_s=WALL_S)
        # Races: a CPU plays the app's player; another presses the Pico's own buttons
        # for its player, reading the game off the app's copy (a frame or two from the
        # Pico's). A deal may leave a player nothing to play for seconds (the Pico's
        # deal here: the app's player has no move until a stall, R22-R23), so play goes
        # on until the app's CPU has pressed and a card was played, within a guest-time
        # limit (how soon depends on the firmware's timing to the µs).
        cpu = BotHand(m.app, lp.me, "hard", 5, _PadInput(m.inp, m.clock))
        pico_player = BotHand(m.app, 1 - lp.me, "hard", 6, _PicoButtons(m))
        m.hands += [cpu, pico_player]
        m.run_for(600_000, wall_s=WALL_S)
        m.run_until(lambda: cpu.presses >= 3 and sum(len(p) for p in m.app.game.piles) > 2,
                    12000, "three presses of the app's CPU and a card played",
                    wall_s=WALL_S)
        m.hands = []
        m.run_for(300_000, wall_s=WALL_S)        # the last steps reach the guest
        assert lp.link.state == LINKED
        if app_hosts:            # (a guest acknowledges in its message of every frame)
            m.run_until(lambda: lp.link.pending() == 0, 1000, "every step acknowledged",
                        wall_s=WALL_S)
        mine = m.app.game.snapshot()
        theirs, heard = m.pico_eval(PICO_GAME, wall_s=WALL_S)
        assert theirs == mine
        assert cpu.presses >= 3 and pico_player.presses > 0
        assert sum(len(p) for p in mine["piles"]) > 2                       # cards were played
        if not app_hosts:
            assert heard > 0                     # the app's presses reached the Pico's arbiter
        assert _cards(mine) == 52                                          # none lost
        assert m.pair.counters["misframed"] == [0, 0]


def _cards(snap):
    return (sum(len(s) for side in snap["stock"] for s in side) +
            sum(len(h) for h in snap["hand"]) + sum(len(p) for p in snap["piles"]))


def _deal_and_spit(m, lp):
    """The app (host) deals; a "Spit!" on each side (R23): play on both."""
    m.app_press("B")
    m.run_until(lambda: lp.mode == PLAYING and _last(GAME_LINE, m) is not None,
                1500, "the deal on both", wall_s=WALL_S)
    m.press(P0_B)
    m.run_for(60_000, wall_s=WALL_S)
    m.app_press("B")
    m.run_until(lambda: m.app.game.phase == "play" and _last(GAME_LINE, m)[0] == b"play",
                1500, "play on both", wall_s=WALL_S)


def test_r43_corrupt_frames_and_a_peer_that_stops_mid_race_lose_no_card(pico_firmware,
                                                                         pico_files):
    from host.rig import BotHand
    from host.simlink import _PadInput
    with MixedLink(pico_firmware, files=pico_files, app_uid=APP_HOSTS) as m:
        m.boot(wall_s=WALL_S)
        lp = link_up(m)
        _deal_and_spit(m, lp)
        m.hands.append(BotHand(m.app, lp.me, "hard", 9, _PadInput(m.inp, m.clock)))
        # Corrupt frames: about one byte in 40 has a bit flipped, both ways.
        m.pair.faults(flip=0.025, seed=11)
        for k in range(4):
            m.press(P0_B if k % 2 else P0_A)
            m.run_for(150_000, wall_s=WALL_S)
        m.pair.faults(flip=0)
        flipped = m.pair.counters["flipped"]
        assert flipped[0] > 0 and flipped[1] > 0
        assert lp.link.dec.bad > 0 and lp.link.resends > 0       # thrown away, sent again
        # The peer stops answering with a race in flight: the Pico's press is on the wire.
        m.press(P0_B)
        m.run_for(3_000, wall_s=WALL_S)
        m.answering = False
        m.run_until(lambda: b"spit: link LINK LOST host=0" in m.pico.transcript, 1500,
                    "LINK LOST on the Pico", wall_s=WALL_S)
        m.run_for(300_000, wall_s=WALL_S)                        # it stands still, alive
        m.answering = True
        m.run_until(lambda: m.pico.transcript.rfind(b"spit: link LINKED host=0") >
                    m.pico.transcript.rfind(b"spit: link LINK LOST"), 1500,
                    "the link back on the Pico", wall_s=WALL_S)
        m.hands = []
        m.run_for(300_000, wall_s=WALL_S)
        m.run_until(lambda: lp.link.pending() == 0, 1000, "every step acknowledged",
                    wall_s=WALL_S)
        assert lp.link.state == LINKED and lp.link.lost_count == 1
        assert b"Traceback" not in m.pico.transcript
        mine = m.app.game.snapshot()
        assert m.pico_eval(SNAPSHOT, wall_s=WALL_S) == mine
        assert _cards(mine) == 52


LINES = "__import__('firmware.main').main.app.linkplay.lines()"


@pytest.mark.parametrize("case", ["loopback", "tx-to-tx", "floating", "other-baud"])
def test_each_bad_cable_is_named_on_the_pico_and_on_the_app(pico_firmware, pico_files, case):
    """The Pico's player chooses LINK PLAY from its menu; what the cable does is said
    on its LINK screen (firmware/link/play.py lines()), and the device still answers."""
    with MixedLink(pico_firmware, files=pico_files) as m:
        m.boot(wall_s=WALL_S)
        if case == "loopback":
            m.pair.faults(loopback=(True, False))   # the self-test plug: GP0 to GP1
        elif case == "other-baud":
            m.set_peer_baud(115_200)
        else:
            m.wiring = case
        if case != "loopback":
            m.app_link_play()
        m.press(P0_A)                                # down to LINK PLAY (below START)
        m.run_for(120_000, wall_s=WALL_S)
        m.press(P0_B)
        # At another rate no 0 (a frame's end) ever gets through, so noise shows once a
        # frame's worth of garbage has come: about 2 s of HELLOs.
        m.run_for(2_600_000 if case == "other-baud" else 900_000, wall_s=WALL_S)
        app_lines = None if case == "loopback" else m.app.linkplay.lines()
        said = bytes(m.pico.transcript)
        pico_lines = m.pico_eval(LINES, wall_s=WALL_S)      # it still answers
    assert b"Traceback" not in said
    if case == "loopback":
        assert b"spit: link LOOPED BACK host=0" in said
        assert pico_lines[:2] == ["CABLE LOOPED BACK", "LOOPBACK TEST OK"]
    elif case == "tx-to-tx":
        # Nothing ever reaches either RX: both say so, and what to check.
        assert pico_lines[:3] == ["LOOKING FOR PEER", "CONNECT THE CABLE", "TX TO RX, RX TO TX"]
        assert app_lines[:3] == ("LOOKING FOR PEER", "CONNECT THE CABLE", "TX TO RX, RX TO TX")
    elif case == "floating":
        assert pico_lines[0] == "NOISE ON THE CABLE" and pico_lines[2] == "CHECK WIRING AND BAUD"
        assert int(pico_lines[1].split()[0]) > 0
    else:
        # Each reads the other's bytes as garbage: neither links, the Pico names noise.
        assert pico_lines[0] == "NOISE ON THE CABLE", pico_lines
        assert app_lines[0] == "NOISE ON THE CABLE", app_lines
        assert m.app.linkplay.link.peer_uid is None
    assert b"spit: link LINKED" not in said


def _emu(*args):
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return subprocess.run([sys.executable, "-m", "desktop_emulator", "--headless",
                           "--engine", "pico"] + list(args), capture_output=True, text=True,
                          cwd=str(root), env=env, timeout=1200)


def test_the_command_line_plays_the_mixed_game_and_finds_both_ends_alike(pico_firmware):
    p = _emu("--link", "app", "--p0", "hard", "--seed", "4", "--frames", "30")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("mixed link: app host; rtt ")
    assert p.stdout.rstrip().endswith("the same game on both ends")


def test_the_command_line_names_a_tx_to_tx_cable_in_one_line_and_exits_2(pico_firmware):
    p = _emu("--link", "app:tx-to-tx")
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr
    nothing = "LOOKING FOR PEER / CONNECT THE CABLE / TX TO RX, RX TO TX"
    assert "no link with the Pico after 2.0 s: the Pico says %s; the app says %s" % (
        nothing, nothing) in lines[0]
