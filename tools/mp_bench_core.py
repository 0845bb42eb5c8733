# Rules-core benchmark body; runs unchanged on CPython and MicroPython and prints
# "key value" lines for tools/bench_rules.py. usage: mp_bench_core.py [games]
import gc
import sys
import time

from shared_rules.game import Game, Rules
from shared_rules.rng import Rng

try:
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    ON_MP = True
except AttributeError:
    ON_MP = False

    def ticks_us():
        return time.perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b


def record_games(n):
    """Action lists of n seeded random games (both players' legal actions)."""
    games = []
    for seed in range(n):
        g = Game(seed, Rules())
        pick = Rng(seed + 1)
        actions = []
        while g.phase != "over":
            acts = g.legal_actions(0) + g.legal_actions(1)
            a = acts[pick.below(len(acts))]
            g.apply(a)
            actions.append(a)
        games.append(actions)
    return games


def bench(games):
    play_us = 0
    plays = 0
    other_us = 0
    others = 0
    legal_us = 0
    legal_calls = 0
    whole_us = 0
    alloc = 0
    alloc_plays = 0
    for seed in range(len(games)):
        actions = games[seed]
        g = Game(seed, Rules())
        t0 = ticks_us()
        for a in actions:
            t = ticks_us()
            g.legal_actions(0)
            g.legal_actions(1)
            legal_us += ticks_diff(ticks_us(), t)
            legal_calls += 2
            if ON_MP:
                gc.disable()
                m = gc.mem_alloc()
            t = ticks_us()
            g.apply(a)
            dt = ticks_diff(ticks_us(), t)
            if ON_MP:
                if a[0] == "play":
                    alloc += gc.mem_alloc() - m
                    alloc_plays += 1
                gc.enable()
            if a[0] == "play":
                play_us += dt
                plays += 1
            else:
                other_us += dt
                others += 1
        whole_us += ticks_diff(ticks_us(), t0)
    # A whole game without the measuring: choose and apply, as a real loop would.
    t0 = ticks_us()
    for seed in range(len(games)):
        g = Game(seed, Rules())
        pick = Rng(seed + 1)
        while g.phase != "over":
            acts = g.legal_actions(0) + g.legal_actions(1)
            g.apply(acts[pick.below(len(acts))])
    game_us = ticks_diff(ticks_us(), t0)
    # Calibrate the stopwatch itself.
    t0 = ticks_us()
    for _ in range(1000):
        t = ticks_us()
        ticks_diff(ticks_us(), t)
    overhead = ticks_diff(ticks_us(), t0) / 1000
    print("impl", "micropython" if ON_MP else "cpython")
    print("games", len(games))
    print("actions_per_game", (plays + others) // len(games))
    print("stopwatch_us", overhead)
    print("apply_play_us", play_us / plays)
    print("apply_other_us", other_us / max(1, others))
    print("legal_actions_us", legal_us / legal_calls)
    print("game_ms", game_us / len(games) / 1000)
    if ON_MP:
        print("alloc_per_play_bytes", alloc / alloc_plays)


n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
bench(record_games(n))
