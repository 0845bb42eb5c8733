"""R43's tie on the firmware level: two conflicting presses on the two linked devices
whose converted stamps are within the bound are a tie (R21), even when they are further
apart than the arbiter's 2 ms window; further apart than the bound, the earlier wins."""
import pytest

from shared_rules.game import Game, PLAY
from shared_rules.match import Match, QUEUED
from shared_rules.pad import B
from firmware.link.arbiter import LinkArbiter
from tests.firmware.test_link_record import linked_game_in_play

WINDOW_US = 2000


def conflict_match():
    """Seed 3 after both say "Spit!": stockpile 0 of each player fits pile 0 and the
    other's play no longer fits after either; player 1 has the first tie's priority.
    A Match whose arbiter is the linked one, player 1 remote."""
    g = Game(3)
    g.apply(("spit", 0))
    g.apply(("spit", 1))
    assert g.phase == PLAY and g.tie_priority == 1
    m = Match(g, window_us=WINDOW_US)
    m.arbiter = LinkArbiter(g, WINDOW_US, 1)
    m.on_outcome = lambda *a: None
    m.on_phase = lambda *a: None
    m.on_settled = lambda *a: None
    return m, g


@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize("gap_us, bound_us, tie", [
    (3000, 5000, True),      # past the window, within the bound: one instant
    (5000, 5000, True),      # exactly the bound: still "no further apart"
    (5001, 5000, False),     # a µs past the bound: the earlier stamp wins
    (1500, 1000, False),
])
def test_r43_the_bound_not_the_window_decides_a_tie_between_linked_presses(
        first, gap_us, bound_us, tie):
    # The second press is handed over (Match.press) gap_us after the first's stamp, as
    # a linked authority hands the guest's presses over: it settles first what is due
    # by then, but nothing the new press may still tie with.
    m, g = conflict_match()
    card = [g.stock[0][0][-1], g.stock[1][0][-1]]
    m.arbiter.bound_us = bound_us
    assert m.press(10_000, first, B) == QUEUED
    assert m.press(10_000 + gap_us, 1 - first, B) == QUEUED
    m.settle(10_000 + WINDOW_US + 500)
    m.settle(10_000 + gap_us + bound_us + WINDOW_US)
    assert m.arbiter.pending() == 0
    winner = 1 if tie else first            # player 1 holds the first tie's priority
    assert m.arbiter.ties == (1 if tie else 0)
    assert g.tie_priority == (0 if tie else 1)
    assert g.piles[0][-1] == card[winner] and g.stock[1 - winner][0][-1] == card[1 - winner]


def test_r43_linked_devices_tie_presses_3_ms_apart_inside_a_larger_bound():
    # Two simulated devices over a slow cable (a bound of several ms): player 1 touches
    # 3 ms after player 0, past the 2 ms window but within the bound, so a tie that
    # player 1's priority wins; both devices play the same game.
    pair, host, guest = linked_game_in_play()
    g = host.app.game
    assert host.app.linkplay.me == 0 and g.tie_priority == 1
    bound = host.app.linkplay.link.sync.bound_at(host.clock.now)
    later = 3000
    assert WINDOW_US < later < bound < 0xFFFF
    card0 = g.stock[0][0][-1]
    card1 = g.stock[1][0][-1]
    host.pad.press(host.clock.now + 50000, 0, 1)
    guest.pad.press(guest.clock.now + 50000 + later, 0, 1)
    pair.step_ms(500)
    assert host.app.arbiter.ties == 1 and host.app.linkplay.late == 0
    assert g.piles[0][-1] == card1 and g.stock[0][0][-1] == card0
    assert g.tie_priority == 0
    assert guest.app.game.digest() == g.digest()
