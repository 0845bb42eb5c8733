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


def bench(n, measure_alloc):
    """Play n seeded random games; time (or count the bytes of) each apply() and each
    legal_actions() call. The chooser's own work is outside the measurements."""
    play_us = plays = other_us = others = legal_us = legal_calls = 0
    alloc = 0
    for seed in range(n):
        g = Game(seed, Rules())
        pick = Rng(seed + 1)
        while g.phase != "over":
            t = ticks_us()
            acts = g.legal_actions(0)
            legal_us += ticks_diff(ticks_us(), t)
            acts += g.legal_actions(1)
            legal_calls += 1
            a = acts[pick.below(len(acts))]
            if measure_alloc:
                gc.collect()          # so a deal never meets a full heap with the GC off
                gc.disable()
                m = gc.mem_alloc()
                g.apply(a)
                if a[0] == "play":
                    alloc += gc.mem_alloc() - m
                    plays += 1
                gc.enable()
                continue
            t = ticks_us()
            g.apply(a)
            dt = ticks_diff(ticks_us(), t)
            if a[0] == "play":
                play_us += dt
                plays += 1
            else:
                other_us += dt
                others += 1
    if measure_alloc:
        print("alloc_per_play_bytes", alloc / plays)
        return
    print("games", n)
    print("actions_per_game", (plays + others) // n)
    print("apply_play_us", play_us / plays)
    print("apply_other_us", other_us / others)
    print("legal_actions_us", legal_us / legal_calls)


def whole_games(n):
    t0 = ticks_us()
    for seed in range(n):
        g = Game(seed, Rules())
        pick = Rng(seed + 1)
        while g.phase != "over":
            acts = g.legal_actions(0) + g.legal_actions(1)
            g.apply(acts[pick.below(len(acts))])
    print("game_ms", ticks_diff(ticks_us(), t0) / n / 1000)


def stopwatch():
    t0 = ticks_us()
    for _ in range(1000):
        t = ticks_us()
        ticks_diff(ticks_us(), t)
    print("stopwatch_us", ticks_diff(ticks_us(), t0) / 1000)


print("impl", "micropython" if ON_MP else "cpython")
n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
bench(n, False)
whole_games(n)
stopwatch()
if ON_MP:
    bench(n, True)
