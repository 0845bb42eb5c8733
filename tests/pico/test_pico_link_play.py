"""Link play on two emulated Picos running the real firmware (main.py and all), joined
by the cable (desktop_emulator/pico/link.py): one player chooses LINK PLAY with their
buttons, the other handheld joins by itself from its menu (firmware/link/wake.py), the
handshake elects one host (R43), a game dealt on the host reaches both screens, and a
press on each handheld is decided the same way on both.
What each firmware says on its console ("spit: link ...", "spit: screen=...") is what
is asserted. Every wait has a guest-time and a wall-time limit."""
import re

import pytest

from desktop_emulator.pico.link import LinkedPicos
from firmware.boards.pico import P0_A, P0_B

pytestmark = pytest.mark.pico

BUTTONS = (P0_A, P0_B, 14, 15)
LINKED = re.compile(rb"spit: link LINKED host=([01])")
GAME = re.compile(rb"spit: screen=game phase=(\w+) round=(\d+) scores=(\d+):(\d+)")


def _wait(pair, pattern, guest_ms, wall_s):
    """Run the pair until both chips printed `pattern` (a bytes regex) -> the two
    matches (consumed)."""
    found = [None, None]
    end = pair.t_ns + guest_ms * 1_000_000
    for _ in range(100000):
        for i, c in enumerate(pair.chips):
            if found[i] is None:
                m = pattern.search(bytes(c.serial))
                if m:
                    found[i] = m
                    del c.serial[:m.end()]
        if found[0] and found[1]:
            return found
        assert pair.t_ns < end, "no %r on both within %d ms of guest time: %r / %r" % (
            pattern.pattern, guest_ms, bytes(pair.chips[0].serial[-200:]),
            bytes(pair.chips[1].serial[-200:]))
        pair.run_for(20_000, wall_s=wall_s)
    raise AssertionError("unreachable")


def test_r43_two_handhelds_find_each_other_and_play_one_game(pico_firmware, pico_files):
    with LinkedPicos(pico_firmware, files=(pico_files, pico_files), buttons=BUTTONS,
                     timer_start_us=(0, 3_333)) as pair:
        pair.boot()
        pair.wait_lines([b"spit: screen=title", b"spit: screen=title"], guest_ms=4000, wall_s=240)
        a, b = pair.chips
        # Only chip 0's player acts: A to LINK PLAY (just below START), B to choose it.
        a.press(P0_A, hold_us=40_000)
        pair.run_for(120_000, wall_s=120)
        a.press(P0_B, hold_us=40_000)
        links = _wait(pair, LINKED, guest_ms=1500, wall_s=240)
        hosts = [int(m.group(1)) for m in links]
        assert sorted(hosts) == [0, 1], hosts       # exactly one host, elected by chip id
        host = pair.chips[hosts.index(1)]
        # The host deals (B) once its clocks are synced (well under a second, LINK.md).
        pair.run_for(400_000, wall_s=240)
        host.press(P0_B, hold_us=40_000)
        games = _wait(pair, GAME, guest_ms=1500, wall_s=240)
        assert games[0].groups() == games[1].groups() == (b"ready", b"1", b"0", b"0")
        # R23: play begins once both players have said "Spit!": one press on each
        # handheld's own pad, the guest's crossing the cable to the host's arbiter.
        guest = pair.chips[hosts.index(0)]
        host.press(P0_B, hold_us=40_000)
        pair.run_for(150_000, wall_s=120)
        guest.press(P0_B, hold_us=40_000)
        games = _wait(pair, GAME, guest_ms=1500, wall_s=240)
        assert games[0].groups() == games[1].groups() == (b"play", b"1", b"0", b"0")
        # Stopped (Ctrl-C leaves the app for the REPL): the very same game on both.
        snaps = []
        for c in pair.chips:
            c.interrupt(wall_s=120)
            c.enter_raw(soft_reset=False, wall_s=120)
            snaps.append(c.eval_json("__import__('firmware.main').main.app.game.snapshot()",
                                     guest_ms=3000, wall_s=120))
        assert snaps[0]["phase"] == "play" and snaps[0]["piles"]
        assert snaps[0] == snaps[1]
