"""The CPU seats look at a change of the table off the frame that made it (on the chip
their look took 1-1.6 ms of the slowest frames): between frames (the device loop's
prepare()) or at their next poll, whichever comes first, as of the frame's time. Nothing
changes the table in between, so they decide exactly what they would have decided."""
import pytest

from desktop_emulator import framebuf
from firmware.app import GAME, OVER_SCREEN
from firmware.table import Table
from host.rig import Rig
from shared_rules.game import Rules


def _cpu_game(seed, cpu=(None, 3)):
    rig = Rig(framebuf)
    rig.app.start_game(seed, Rules(), cpu, rig.clock.now)
    rig.frames(1)
    return rig


def _looks(rig, p):
    seat = rig.app.table.seats[p]
    seen = []
    look = seat.observe

    def logged(game, now, cursor):
        seen.append(now)
        look(game, now, cursor)
    seat.observe = logged
    return seen


def _a_change_unseen():
    """Player 0 says Spit (a change of the table, R9) in a game against the CPU: -> the
    rig, the CPU seat's looks so far (none yet) and the time of the frame that did it."""
    rig = _cpu_game(3)
    seen = _looks(rig, 1)
    assert not rig.app.game.said[0]
    rig.tap(0, "B", frames=0)
    rig.until(lambda app: app.game.said[0], limit=5)
    assert seen == []
    return rig, seen, rig.clock.now


def test_the_cpu_looks_at_a_change_at_its_next_poll_as_of_the_frame_that_made_it():
    rig, seen, t_change = _a_change_unseen()
    rig.frames(1)                                # its poll, at the start of the next frame
    assert seen == [t_change] and rig.clock.now != t_change
    rig.frames(1)
    assert seen == [t_change]                    # once


def test_between_frames_the_look_comes_in_prepare_and_not_again_at_the_poll():
    rig, seen, t_change = _a_change_unseen()
    rig.app.prepare()
    assert seen == [t_change]
    rig.frames(2)
    assert seen == [t_change]


def _whole_game(seed, look_in_the_tick, monkeypatch):
    if look_in_the_tick:
        tick = Table.tick

        def tick_and_look(self, now):
            state = tick(self, now)
            self._looked()
            return state
        monkeypatch.setattr(Table, "tick", tick_and_look)
    rig = _cpu_game(seed, cpu=(2, 3))
    app = rig.app
    for _ in range(60000):
        rig.frames(1)
        if app.screen == GAME and seed % 2:
            app.prepare()                        # as the device's loop, when idle
        if app.screen == OVER_SCREEN:
            break
    monkeypatch.undo()
    assert app.screen == OVER_SCREEN
    return app.game.snapshot(), list(app.replay.records), app.frames


@pytest.mark.parametrize("seed", [1, 2])
def test_a_cpu_game_is_the_same_game_as_when_the_seats_looked_in_the_frame(seed, monkeypatch):
    later = _whole_game(seed, False, monkeypatch)
    at_once = _whole_game(seed, True, monkeypatch)
    assert later == at_once
    assert len(later[1]) > 200
