#!/usr/bin/env python3
"""CPU-vs-CPU self-play: every pairing of difficulty levels, N games each, through
Pad -> Arbiter -> Game on a simulated clock (shared_rules/selfplay.py), no rendering.

    python tools/simulate.py --games 300            # the table + build/simulate.json
    python tools/simulate.py --pairing hard-normal --seed 12   # reproduce one game
    python tools/simulate.py --rules points         # the points variant
    python tools/simulate.py --fumble-ms 0          # the fumble (R41) turned off
    python tools/simulate.py --fumble-ms 1250       # another of the menu's fumble times
    python tools/simulate.py --flat-fumble --no-signal   # the conduct before R41's
                                                    # escalation and R44's signal

Every game is played with the device's conduct at its defaults: the fumble (R41) of
0.5 s, doubling for a repeated one up to 2 s, and the slap signal (R44), unless the
options say otherwise. The "masher" level reads nothing and presses B and A four times
a second each: the pairings (easy, masher) and (normal, masher) measure whether looking
beats pressing blindly. The "careful" player has normal's speed but presses the wrong
button once in twenty: (careful, normal) measures what the conduct costs an honest
player (its dead seconds a minute).

Game g of a pairing a-b is seed first_seed + g; level a sits in seat 0 for even seeds
and seat 1 for odd ones, so a seed and a pairing name one game exactly. Any broken
invariant is printed with the command that reproduces it, counted in the JSON's
"violations", and makes the exit status 1. See docs/SIMULATION.md.
"""

import argparse
import json
import os
import platform
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from shared_rules.bot import ALL_LEVELS, LEVEL_NAMES  # noqa: E402
from shared_rules.game import Rules  # noqa: E402
from shared_rules.conduct import Conduct, FUMBLE_US  # noqa: E402
from shared_rules.selfplay import play, summary  # noqa: E402

PAIRINGS = (("hard", "normal"), ("normal", "easy"), ("hard", "easy"),
            ("hard", "hard"), ("normal", "normal"), ("easy", "easy"),
            ("easy", "masher"), ("normal", "masher"), ("careful", "normal"))
# The targets: (a, b, lowest a win rate, highest a win rate). The levels must stay
# apart and equal levels even; looking must beat pressing blindly.
TARGETS = (("hard", "normal", 0.70, 1.0), ("normal", "easy", 0.70, 1.0),
           ("hard", "hard", 0.40, 0.60), ("normal", "normal", 0.40, 0.60),
           ("easy", "easy", 0.40, 0.60),
           ("easy", "masher", 0.88, 1.0), ("normal", "masher", 0.94, 1.0))
MINUTES_EQUAL = (2.0, 10.0)      # mean simulated minutes of a standard equal game
US_PER_MIN = 60000000


def parse_pairing(text):
    for sep in ("-", ",", ":"):
        if sep in text:
            a, b = text.split(sep, 1)
            break
    else:
        raise argparse.ArgumentTypeError("pairing is LEVEL-LEVEL, e.g. hard-normal")
    a = a.strip().lower()
    b = b.strip().lower()
    if a not in ALL_LEVELS or b not in ALL_LEVELS:
        raise argparse.ArgumentTypeError("levels are %s" % ", ".join(ALL_LEVELS))
    return (a, b)


def make_rules(args):
    return Rules(points=args.rules == "points", manual_flip=args.manual_flip)


def seats(pairing, seed):
    a, b = pairing
    return (a, b) if seed % 2 == 0 else (b, a)


def make_conduct(args):
    fumble_us = args.fumble_ms * 1000
    if args.flat_fumble:
        return Conduct(fumble_us, 0, signal=not args.no_signal)
    return Conduct(fumble_us, signal=not args.no_signal)


def run_one(task):
    """Worker: one game. task = (pairing index, a, b, seed, points, manual_flip,
    conduct line)."""
    k, a, b, seed, points, manual, conduct = task
    lv = seats((a, b), seed)
    st = play(seed, lv, Rules(points=points, manual_flip=manual),
              conduct=Conduct.parse(conduct.split()[1:]))
    a_seat = 0 if seed % 2 == 0 else 1
    return k, seed, lv, a_seat, st


def reproduce_cmd(pairing, seed, args):
    cmd = "python tools/simulate.py --pairing %s-%s --seed %d" % (pairing[0], pairing[1], seed)
    if args.rules != "standard":
        cmd += " --rules " + args.rules
    if args.manual_flip:
        cmd += " --manual-flip"
    if args.fumble_ms != FUMBLE_US // 1000:
        cmd += " --fumble-ms %d" % args.fumble_ms
    if args.flat_fumble:
        cmd += " --flat-fumble"
    if args.no_signal:
        cmd += " --no-signal"
    return cmd


def pct(x):
    return "%5.1f%%" % (100.0 * x)


def aggregate(pairing, games):
    """games: [(a_seat, stats)] -> the pairing's row (a dict, JSON-ready)."""
    n = len(games)
    a_wins = b_wins = draws = 0
    rounds = us = races = ties = stalls = plays = fumbles = 0
    a_plays = b_plays = a_fumbles = b_fumbles = a_slaps = b_slaps = 0
    a_dead = b_dead = a_false = b_false = 0
    minutes = []
    for a_seat, st in games:
        b_seat = 1 - a_seat
        a_plays += st["plays%d" % a_seat]
        b_plays += st["plays%d" % b_seat]
        a_fumbles += st["fumbles%d" % a_seat]
        b_fumbles += st["fumbles%d" % b_seat]
        a_slaps += st["slaps%d" % a_seat]
        b_slaps += st["slaps%d" % b_seat]
        a_dead += st["dead_us%d" % a_seat]
        b_dead += st["dead_us%d" % b_seat]
        a_false += st["false%d" % a_seat]
        b_false += st["false%d" % b_seat]
        w = st["winner"]
        if w < 0:
            draws += 1
        elif w == a_seat:
            a_wins += 1
        else:
            b_wins += 1
        rounds += st["rounds"]
        us += st["us"]
        races += st["races"]
        ties += st["ties"]
        stalls += st["stalls"]
        plays += st["plays"]
        fumbles += st["fumbles"]
        minutes.append(st["us"] / US_PER_MIN)
    minutes.sort()
    total_min = us / US_PER_MIN
    return {
        "a": pairing[0], "b": pairing[1], "games": n,
        "a_wins": a_wins, "b_wins": b_wins, "draws": draws,
        "a_win_rate": round(a_wins / n, 3) if n else 0.0,
        "mean_rounds": round(rounds / n, 2) if n else 0.0,
        "mean_minutes": round(total_min / n, 2) if n else 0.0,
        "median_minutes": round(minutes[n // 2], 2) if n else 0.0,
        "p90_minutes": round(minutes[(n * 9) // 10], 2) if n else 0.0,
        "max_minutes": round(minutes[-1], 2) if n else 0.0,
        "races_per_game": round(races / n, 2) if n else 0.0,
        "ties_per_game": round(ties / n, 3) if n else 0.0,
        "stalls_per_round": round(stalls / rounds, 2) if rounds else 0.0,
        "plays_per_minute": round(plays / total_min, 1) if total_min else 0.0,
        "fumbles_per_game": round(fumbles / n, 1) if n else 0.0,
        # Each side's own: plays per minute, fumbles per game, and the share of the
        # rounds' deciding slaps (R26: the first) that it made.
        "a_plays_per_minute": round(a_plays / total_min, 1) if total_min else 0.0,
        "b_plays_per_minute": round(b_plays / total_min, 1) if total_min else 0.0,
        "a_fumbles_per_game": round(a_fumbles / n, 1) if n else 0.0,
        "b_fumbles_per_game": round(b_fumbles / n, 1) if n else 0.0,
        "a_first_slap_rate": round(a_slaps / (a_slaps + b_slaps), 3) if a_slaps + b_slaps else 0.0,
        # Seconds of dead buttons a minute (R41) and false starts a game (R44), each side.
        "a_dead_s_per_minute": round(a_dead / 1e6 / total_min, 2) if total_min else 0.0,
        "b_dead_s_per_minute": round(b_dead / 1e6 / total_min, 2) if total_min else 0.0,
        "a_false_starts_per_game": round(a_false / n, 2) if n else 0.0,
        "b_false_starts_per_game": round(b_false / n, 2) if n else 0.0,
    }


HEADER = ("pairing", "games", "a wins", "draws", "rounds", "minutes", "med", "p90",
          "races/g", "ties/g", "stalls/rd", "plays/min", "fumbles/g", "a:b plays/min",
          "a slaps 1st", "a:b dead s/min", "a:b false/g")


def format_table(rows):
    lines = []
    fmt = "%-15s %5s %7s %5s %6s %7s %5s %5s %7s %6s %9s %9s %9s %13s %11s %14s %11s"
    lines.append(fmt % HEADER)
    for r in rows:
        lines.append(fmt % (
            "%s-%s" % (r["a"], r["b"]), r["games"], pct(r["a_win_rate"]), r["draws"],
            "%.1f" % r["mean_rounds"], "%.2f" % r["mean_minutes"],
            "%.1f" % r["median_minutes"], "%.1f" % r["p90_minutes"],
            "%.1f" % r["races_per_game"], "%.2f" % r["ties_per_game"],
            "%.2f" % r["stalls_per_round"], "%.0f" % r["plays_per_minute"],
            "%.1f" % r["fumbles_per_game"],
            "%.1f:%.1f" % (r["a_plays_per_minute"], r["b_plays_per_minute"]),
            pct(r["a_first_slap_rate"]),
            "%.2f:%.2f" % (r["a_dead_s_per_minute"], r["b_dead_s_per_minute"]),
            "%.1f:%.1f" % (r["a_false_starts_per_game"], r["b_false_starts_per_game"])))
    return "\n".join(lines)


def check_targets(rows, standard):
    """The targets, as (description, met) pairs, for the rows present."""
    by = {}
    for r in rows:
        by[(r["a"], r["b"])] = r
    out = []
    for a, b, lo, hi in TARGETS:
        r = by.get((a, b))
        if r is None:
            continue
        what = "%s beats %s" % (a, b) if a != b else "%s-%s near even" % (a, b)
        out.append(("%s: %s of games to %s, target %d%%..%d%%" % (
            what, pct(r["a_win_rate"]).strip(), a, round(lo * 100), round(hi * 100)),
            lo <= r["a_win_rate"] <= hi))
    if standard:
        for lvl in LEVEL_NAMES:
            r = by.get((lvl, lvl))
            if r is None:
                continue
            lo, hi = MINUTES_EQUAL
            out.append(("%s-%s lasts %.2f min (mean) in [%g, %g]" % (
                lvl, lvl, r["mean_minutes"], lo, hi), lo <= r["mean_minutes"] <= hi))
    return out


class Progress:
    def __init__(self, total, stream):
        self.total = total
        self.stream = stream
        self.on = total > 1 and stream.isatty()
        self.done = 0
        self.last = -1

    def tick(self):
        self.done += 1
        if not self.on:
            return
        filled = (30 * self.done) // self.total
        if filled != self.last or self.done == self.total:
            self.last = filled
            self.stream.write("\r[%s%s] %d/%d games" % (
                "#" * filled, "." * (30 - filled), self.done, self.total))
            self.stream.flush()

    def close(self):
        if self.on:
            self.stream.write("\r" + " " * 60 + "\r")
            self.stream.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", "-n", type=int, default=300, help="games per pairing (300)")
    ap.add_argument("--pairing", type=parse_pairing, action="append",
                    help="only this pairing, e.g. hard-normal (repeatable)")
    ap.add_argument("--seed", type=int, help="play just this seed (reproduce one game)")
    ap.add_argument("--first-seed", type=int, default=0, help="seed of game 0 (0)")
    ap.add_argument("--rules", choices=("standard", "points"), default="standard")
    ap.add_argument("--manual-flip", action="store_true", help="the manual_flip option")
    ap.add_argument("--fumble-ms", type=int, default=FUMBLE_US // 1000,
                    help="the device's fumble time, R41 (%d; 0: off)" % (FUMBLE_US // 1000))
    ap.add_argument("--flat-fumble", action="store_true",
                    help="every fumble lasts the fumble time (R41 before its escalation)")
    ap.add_argument("--no-signal", action="store_true",
                    help="no slap signal (R44 off): slap on sight")
    ap.add_argument("--json", default=None,
                    help="where to write the JSON (build/simulate.json; none with --seed)")
    ap.add_argument("--jobs", "-j", type=int, default=0, help="processes (0: one per CPU)")
    ap.add_argument("--strict", action="store_true", help="also fail if a target is missed")
    args = ap.parse_args(argv)
    if not 0 <= args.fumble_ms <= 60000:
        ap.error("--fumble-ms must be 0 .. 60000")
    pairings = args.pairing or list(PAIRINGS)
    if args.seed is not None:
        seeds = [args.seed]
    else:
        if args.games < 1:
            ap.error("--games must be at least 1")
        seeds = list(range(args.first_seed, args.first_seed + args.games))
    json_path = args.json
    if json_path is None and args.seed is None:
        json_path = os.path.join(ROOT, "build", "simulate.json")
    rules = make_rules(args)
    conduct = make_conduct(args)
    tasks = []
    for k, (a, b) in enumerate(pairings):
        for s in seeds:
            tasks.append((k, a, b, s, rules.points, rules.manual_flip, conduct.format()))

    t0 = time.time()
    progress = Progress(len(tasks), sys.stderr)
    jobs = args.jobs or (os.cpu_count() or 1)
    results = []
    if jobs > 1 and len(tasks) > 20:
        import multiprocessing
        with multiprocessing.Pool(jobs) as pool:
            for r in pool.imap(run_one, tasks, chunksize=4):
                results.append(r)
                progress.tick()
    else:
        for t in tasks:
            results.append(run_one(t))
            progress.tick()
    progress.close()
    elapsed = time.time() - t0

    per = [[] for _ in pairings]
    violations = []
    for k, seed, lv, a_seat, st in results:
        per[k].append((a_seat, st))
        for msg in st["violations"]:
            violations.append({"pairing": "%s-%s" % pairings[k], "seed": seed,
                               "seats": list(lv), "message": msg,
                               "reproduce": reproduce_cmd(pairings[k], seed, args)})
        if args.seed is not None:
            print("%s-%s seats %s/%s: %s" % (pairings[k][0], pairings[k][1], lv[0], lv[1],
                                             summary(st)))
    rows = [aggregate(p, g) for p, g in zip(pairings, per)]

    label = args.rules + (" + manual_flip" if args.manual_flip else "") + " rules"
    label += ", fumble %s" % ("off" if not args.fumble_ms else "%d ms" % args.fumble_ms)
    if args.fumble_ms == FUMBLE_US // 1000:
        label += " (the default)"
    label += ", %s fumbles, slap signal %s" % ("flat" if args.flat_fumble else "escalating",
                                               "off" if args.no_signal else "on")
    print("Spit CPU vs CPU, %s, %d game(s) per pairing (seeds %d..%d), %.1f s"
          % (label, len(seeds), seeds[0], seeds[-1], elapsed))
    print(format_table(rows))
    targets = check_targets(rows, args.rules == "standard" and not args.manual_flip)
    if args.seed is None:
        for desc, ok in targets:
            print("  [%s] %s" % ("ok" if ok else "MISSED", desc))
    for v in violations:
        print("VIOLATION %s seed %d (seats %s/%s): %s\n  reproduce: %s" % (
            v["pairing"], v["seed"], v["seats"][0], v["seats"][1], v["message"], v["reproduce"]))
    print("violations: %d" % len(violations))

    if json_path:
        d = os.path.dirname(json_path)
        if d:
            os.makedirs(d, exist_ok=True)
        out = {
            "rules": rules.to_dict(), "fumble_ms": args.fumble_ms,
            "conduct": conduct.format(),
            "games_per_pairing": len(seeds),
            "first_seed": seeds[0], "pairings": rows,
            "targets": [{"target": desc, "met": ok} for desc, ok in targets],
            "violations": len(violations), "violation_list": violations,
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "seconds": round(elapsed, 1),
        }
        with open(json_path + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        os.replace(json_path + ".tmp", json_path)
        print("wrote %s" % json_path)
    if violations:
        return 1
    if args.strict and not all(ok for _, ok in targets):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
