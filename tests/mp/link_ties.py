# Runs unchanged under CPython and MicroPython: R43's ties between linked presses decided
# by the bound, not the arbiter's window (tests/mp/test_link_ties_mp.py compares what
# the two interpreters print).
from shared_rules.game import Game
from shared_rules.match import Match
from shared_rules.pad import B
from firmware.link.arbiter import LinkArbiter


def _quiet(*a):
    pass


def race(first, gap, bound):
    g = Game(3)
    g.apply(("spit", 0))
    g.apply(("spit", 1))
    m = Match(g, window_us=2000)
    m.arbiter = LinkArbiter(g, 2000, 1)
    m.on_outcome = _quiet
    m.on_phase = _quiet
    m.on_settled = _quiet
    m.arbiter.bound_us = bound
    cards = (g.stock[0][0][-1], g.stock[1][0][-1])
    t = 0x3FFFFFFF - 4000              # across the tick wrap
    m.press(t, first, B)
    m.press((t + gap) & 0x3FFFFFFF, 1 - first, B)
    m.settle((t + 2500) & 0x3FFFFFFF)
    m.settle((t + gap + bound + 2000) & 0x3FFFFFFF)
    winner = cards.index(g.piles[0][-1]) if g.piles[0][-1] in cards else -1
    print("race", first, gap, bound, "ties", m.arbiter.ties, "winner", winner,
          "pending", m.arbiter.pending())


for first in (0, 1):
    for gap, bound in ((3000, 5000), (5000, 5000), (5001, 5000), (1500, 1000)):
        race(first, gap, bound)
