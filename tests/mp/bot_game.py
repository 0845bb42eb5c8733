# CPU-vs-CPU games to the end through Pad -> Arbiter -> Game (shared_rules.selfplay),
# one summary line per game (every count, a hash of every press and of the final
# hands). Run under MicroPython and CPython alike; the output must be identical
# (tests/rules/test_bot.py):
#   MICROPYPATH=. .venv/bin/micropython -X heapsize=150K tests/mp/bot_game.py [GAME ...]
#   PYTHONPATH=. .venv/bin/python tests/mp/bot_game.py [GAME ...]
# GAME is seed:levelA:levelB:rules (rules: standard, points or manual), e.g.
# 7:hard:normal:standard. Without arguments, the games in DEFAULT.
import sys

from shared_rules.game import Rules
from shared_rules.selfplay import play, summary

DEFAULT = ("7:hard:normal:standard", "8:easy:easy:manual", "3:normal:easy:points")
# Start just before the tick counter wraps, as on a device that has been on a while.
START_US = (1 << 30) - 5000000


def run(spec):
    parts = spec.split(":")
    seed = int(parts[0])
    a = parts[1] if len(parts) > 1 else "hard"
    b = parts[2] if len(parts) > 2 else "normal"
    kind = parts[3] if len(parts) > 3 else "standard"
    rules = Rules(points=kind == "points", manual_flip=kind == "manual")
    st = play(seed, (a, b), rules, start_us=START_US)
    print("%s %s-%s %s" % (kind, a, b, summary(st)))
    for v in st["violations"]:
        print("violation: " + v)
    return len(st["violations"])


def main(argv):
    specs = argv[1:] or DEFAULT
    bad = 0
    for spec in specs:
        bad += run(spec)
    print("games=%d violations=%d" % (len(specs), bad))


main(sys.argv)
