# The smallest whole game: one seeded random game, no output but its end. Used to find
# the smallest heap a game runs in (tools/bench_rules.py runs it from .mpy files).
from shared_rules.game import Game
from shared_rules.rng import Rng

g = Game(3)
pick = Rng(4)
while g.phase != "over":
    acts = g.legal_actions(0) + g.legal_actions(1)
    g.apply(acts[pick.below(len(acts))])
print("over", g.round, g.winner)
