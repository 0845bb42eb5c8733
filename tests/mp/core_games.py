# Runs unchanged under CPython and MicroPython: seeded games printed line by line.
# usage: core_games.py SEED [SEED ...]   (each game also uses manual_flip/points by seed)
# On a board (no sys.argv): import core_games; core_games.main([SEED, ...])
import sys

from shared_rules.game import Rules
from shared_rules.transcript import playthrough


def main(seeds):
    for seed in seeds:
        rules = Rules(points=seed % 3 == 1, manual_flip=seed % 2 == 1)
        g = playthrough(seed, rules, seed + 1, 20000, print)
        print("end seed=%d rounds=%d winner=%s scores=%d-%d rng=%d" % (
            seed, g.round, g.winner, g.scores[0], g.scores[1], g.rng.state))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]])
