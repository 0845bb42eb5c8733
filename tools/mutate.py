"""Mutation testing of the rules core and the hardware layer (`make mutate`).

Cosmic Ray (pinned in requirements-mutate.txt) makes the mutants: it rewrites one
spot of the source on disk (a comparison flipped, a number moved, a condition negated,
`and` for `or`, a loop that never runs, ...), and the file stays plain Python, so the
MicroPython-tier tests (which run the real `micropython` binary on the source) see the
mutant as well as CPython does.

For each target file this tool
  1. copies the project into build/mutate/tree (the mutants are written there, never
     into the working tree, so an interrupted run leaves nothing mutated behind);
  2. runs the file's tests once unmutated (they must pass: a failing baseline would
     make every mutant look killed) and times them;
  3. `cosmic-ray init`s a session (build/mutate/<file>.sqlite) with every mutant of
     the file, and keeps a sample of them (the rest are marked skipped), drawn with a
     fresh seed each run (printed at the start and in the result; --seed repeats one);
  4. runs each sampled mutant against the file's tests only (pytest -x, derandomized
     hypothesis without its example database), in cosmic-ray's own worker;
  5. prints killed / survived / equivalent per file and lists the survivors, each
     with a ready-to-paste entry for tools/mutate_equivalents.toml.
A mutant whose tests run longer than the time-out counts as killed (cosmic-ray's
rule: a mutant that hangs the game is caught). A survivor that matches an entry of
tools/mutate_equivalents.toml (same file, function, operator and source line before
and after, whatever its line number) counts as equivalent, not as a survivor.

    python tools/mutate.py                                  # every file, the sample of tools/mutate.toml
    python tools/mutate.py --files shared_rules/game.py --sample 40
    python tools/mutate.py --files shared_rules/pad.py --sample all --jobs 2
    python tools/mutate.py --files shared_rules/pad.py --seed 7   # repeat the run of seed 7

Exit status 0 when every file reaches the goal (tools/mutate.toml), 1 when one does not,
2 for bad arguments or a failing baseline.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tools" / "mutate.toml"
EQUIVALENTS = ROOT / "tools" / "mutate_equivalents.toml"
BUILD = ROOT / "build" / "mutate"
# What a mutant's test run may see: the code under test, the tests and what they import.
COPY = ("shared_rules", "firmware", "host", "desktop_emulator", "web", "tests", "tools", "hardware", "docs",
        "README.md", "Makefile", "pytest.ini", "requirements-dev.txt")
TARGET_DIRS = ("shared_rules", "firmware/hw")


# ---- configuration ---------------------------------------------------------------------

def load_config(path=CONFIG):
    with open(path, "rb") as f:
        cfg = tomllib.load(f)
    defaults = cfg.get("defaults", {})
    files = cfg.get("files", {})
    return defaults, files


def load_equivalents(path=EQUIVALENTS):
    with open(path, "rb") as f:
        return tomllib.load(f).get("equivalent", [])


def target_files(root=ROOT):
    """Every module of the rules core and the hardware layer, as repo-relative paths."""
    out = []
    for d in TARGET_DIRS:
        for p in sorted((root / d).glob("*.py")):
            if p.name != "__init__.py":
                out.append(p.relative_to(root).as_posix())
    return out


def tests_for(path, files_cfg, root=ROOT):
    """The test files that run against mutants of `path`: those listed in the config,
    else every test file that imports the module (a new module still gets tested)."""
    entry = files_cfg.get(path)
    if entry and entry.get("tests"):
        return list(entry["tests"])
    module = path[:-3].replace("/", ".")
    found = []
    for t in sorted((root / "tests").rglob("test_*.py")):
        if module in t.read_text(encoding="utf-8"):
            found.append(t.relative_to(root).as_posix())
    return found


def sample_size(path, files_cfg, defaults, override):
    if override is not None:
        return override
    entry = files_cfg.get(path, {})
    return entry.get("sample", defaults.get("sample", 20))


# ---- matching survivors against the equivalents file ----------------------------------

def diff_lines(diff):
    """(before, after): the removed and the added source lines of a mutant's diff,
    stripped and joined with ' / ' (most mutants change a single line)."""
    before, after = [], []
    for line in (diff or "").splitlines():
        if line.startswith("---") or line.startswith("+++") or line.startswith("@@"):
            continue
        if line.startswith("-") and line[1:].strip():
            before.append(line[1:].strip())
        elif line.startswith("+") and line[1:].strip():
            after.append(line[1:].strip())
    return " / ".join(before), " / ".join(after)


def mutant_key(path, mutation, diff):
    before, after = diff_lines(diff)
    return {"file": path, "function": mutation.definition_name or "",
            "operator": mutation.operator_name, "before": before, "after": after}


def is_equivalent(key, equivalents):
    for e in equivalents:
        if (e.get("file") == key["file"] and e.get("operator") == key["operator"]
                and e.get("before") == key["before"] and e.get("after") == key["after"]
                and e.get("function", key["function"]) == key["function"]):
            return e
    return None


# ---- running ---------------------------------------------------------------------------

def make_tree(dest):
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    # The emulated-Pico tests look for ../shared/rp2 beside the repository; beside the
    # copy it must be the same folder, or those tests skip and kill no mutant.
    shared, beside = ROOT.parent / "shared", dest.parent / "shared"
    if shared.is_dir() and not beside.exists():
        beside.symlink_to(shared, target_is_directory=True)
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "*.mpy")
    linked = []

    def ignore(folder, names):
        # node_modules (rp2040js for the emulated Pico, the page's tools) are too big to
        # copy, but without them the emulated-Pico tests skip in the copy and kill no
        # mutant: the copy links to them instead.
        if "node_modules" in names:
            linked.append(Path(folder) / "node_modules")
        return set(junk(folder, names)) | ({"node_modules"} & set(names))

    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / name)
    for src in linked:
        if src.exists():
            (dest / src.relative_to(ROOT)).symlink_to(src.resolve(), target_is_directory=True)


SKIPPED = re.compile(r"\b(\d+) skipped\b")


def test_command(tests):
    # -x: the first failing test kills the mutant; the "mutate" hypothesis profile
    # (tests/conftest.py) is derandomized and keeps no example database, so a run is
    # repeatable and one mutant's failing example does not leak into the next.
    return " ".join([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                     "--hypothesis-profile=mutate"] + tests)


def baseline(tree, command, timeout=900):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    t0 = time.monotonic()
    p = subprocess.run(command.split(), cwd=tree, env=env, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, time.monotonic() - t0, p.stdout[-3000:] + p.stderr[-2000:]


def init_session(tree, path, session, command, timeout, n, seed):
    """A cosmic-ray session with every mutant of `path`; all but a seeded sample of `n`
    (None: all) marked skipped. Returns (mutants in the file, sampled job ids)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    cfg = session.with_suffix(".toml")
    cfg.write_text(
        "[cosmic-ray]\n"
        "module-path = %s\n"
        "timeout = %.1f\n"
        "excluded-modules = []\n"
        "test-command = %s\n"
        "[cosmic-ray.distributor]\n"
        "name = \"local\"\n" % (json.dumps(path), timeout, json.dumps(command)),
        encoding="utf-8")
    if session.exists():
        session.unlink()
    subprocess.run([str(Path(sys.executable).parent / "cosmic-ray"), "init", str(cfg),
                    str(session)], cwd=tree, check=True)
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = list(db.work_items)

        def order(item):
            m = item.mutations[0]
            return (tuple(m.start_pos), tuple(m.end_pos), m.operator_name, m.occurrence)

        items.sort(key=order)
        chosen = draw_sample(items, n, seed, path)
        keep = {i.job_id for i in chosen}
        skip = [i.job_id for i in items if i.job_id not in keep]
        if skip:
            db.set_multiple_results(skip, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    return len(items), keep


def draw_sample(items, n, seed, path):
    """`n` of `items` (None: all), drawn with `seed`: the same seed, file and items give
    the same sample."""
    if n is None or n >= len(items):
        return list(items)
    return random.Random("%s:%s" % (seed, path)).sample(items, n)


def pick_seed(given=None):
    """The sample's seed: `given` (--seed, SEED=) to repeat a run, else a fresh one, so
    every run draws a new sample."""
    if given is not None:
        return given
    return str(int.from_bytes(os.urandom(4), "big"))


_TREE = None


def _worker_init(trees):
    global _TREE
    _TREE = trees.get()
    os.chdir(_TREE)
    # No bytecode cache for the mutants' test runs: a .pyc is trusted while the source's
    # size and mtime (whole seconds) match, and two mutants of one length written within
    # the same second would otherwise run the first one's code for the second.
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"


def _run_one(job):
    from cosmic_ray.mutating import mutate_and_test
    item, command, timeout = job
    t0 = time.monotonic()
    result = mutate_and_test(item.mutations, command, timeout)
    return item.job_id, result, time.monotonic() - t0


def execute(tree_dirs, session, command, timeout, label):
    """Run the pending (sampled) mutants of a session, like `cosmic-ray exec` with the
    local distributor, on len(tree_dirs) workers, each in its own copy of the tree."""
    import multiprocessing

    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(session), WorkDB.Mode.open) as db:
        pending = sorted(db.pending_work_items,
                         key=lambda i: (tuple(i.mutations[0].start_pos), i.mutations[0].operator_name))
    total = len(pending)
    tty = sys.stdout.isatty()
    jobs = [(item, command, timeout) for item in pending]
    done = 0
    killed = 0
    ctx = multiprocessing.get_context("fork")
    trees = ctx.Queue()
    for d in tree_dirs:
        trees.put(str(d))
    with ctx.Pool(len(tree_dirs), _worker_init, (trees,)) as pool:
        with use_db(str(session), WorkDB.Mode.open) as db:
            for job_id, result, secs in pool.imap_unordered(_run_one, jobs):
                db.set_result(job_id, result)
                done += 1
                killed += result.is_killed
                if tty:
                    print("\r  %s: %d/%d mutants, %d killed" % (label, done, total, killed),
                          end="", flush=True)
                elif done % 10 == 0 or done == total:
                    print("  %s: %d/%d mutants, %d killed" % (label, done, total, killed),
                          flush=True)
        if tty:
            print()


# ---- report ----------------------------------------------------------------------------

def collect(path, session, equivalents):
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    row = {"file": path, "sampled": 0, "killed": 0, "timeouts": 0, "equivalent": 0,
           "survived": 0, "errors": 0, "survivors": [], "equivalents": [], "stale": []}
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            m = item.mutations[0]
            row["sampled"] += 1
            key = mutant_key(path, m, result.diff)
            key["line"] = m.start_pos[0]
            eq = is_equivalent(key, equivalents)
            if result.worker_outcome != WorkerOutcome.NORMAL:
                row["errors"] += 1
                key["error"] = (result.output or result.worker_outcome)[-500:]
                row["survivors"].append(key)
            elif result.test_outcome == TestOutcome.SURVIVED:
                if eq is not None:
                    row["equivalent"] += 1
                    row["equivalents"].append(dict(key, reason=eq.get("reason", "")))
                else:
                    row["survived"] += 1
                    row["survivors"].append(key)
            else:
                row["killed"] += 1
                row["timeouts"] += result.output == "timeout"
                if eq is not None:
                    row["stale"].append(key)    # said to be equivalent, yet killed
    judged = row["killed"] + row["survived"] + row["errors"]
    row["score"] = 100.0 * row["killed"] / judged if judged else 100.0
    return row


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


def print_report(rows, goal, seconds, jobs, seed=None):
    print()
    print("| file | mutants | sampled | killed | (by time-out) | equivalent | survived | score |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    tot = {"mutants": 0, "sampled": 0, "killed": 0, "timeouts": 0, "equivalent": 0,
           "survived": 0, "errors": 0}
    for r in rows:
        for k in tot:
            tot[k] += r[k]
        print("| %s | %d | %d | %d | %d | %d | %d | %.1f %% |" % (
            r["file"], r["mutants"], r["sampled"], r["killed"], r["timeouts"],
            r["equivalent"], r["survived"] + r["errors"], r["score"]))
    judged = tot["killed"] + tot["survived"] + tot["errors"]
    print("| **all** | %d | %d | %d | %d | %d | %d | %.1f %% |" % (
        tot["mutants"], tot["sampled"], tot["killed"], tot["timeouts"], tot["equivalent"],
        tot["survived"] + tot["errors"], 100.0 * tot["killed"] / judged if judged else 100.0))
    print()
    print("score = killed / (sampled - equivalent); goal %.0f %% per file; %d mutants in "
          "%.0f s (%.1f s each) with %d job(s)" % (goal, tot["sampled"], seconds,
                                                   seconds / max(1, tot["sampled"]), jobs))
    if seed is not None:
        print("seed %s (repeat this sample: SEED=%s, or --seed %s)" % (seed, seed, seed))
    for r in rows:
        for s in r["survivors"]:
            print()
            print("SURVIVOR %s:%d in %s  %s" % (s["file"], s["line"], s["function"] or "-",
                                                s["operator"]))
            print("    - %s" % s["before"])
            print("    + %s" % s["after"])
            if "error" in s:
                print("    (worker error: %s)" % s["error"].strip().splitlines()[-1])
            print("  if equivalent, add to tools/mutate_equivalents.toml:")
            print("    [[equivalent]]")
            print("    file = %s" % toml_str(s["file"]))
            print("    function = %s" % toml_str(s["function"]))
            print("    operator = %s" % toml_str(s["operator"]))
            print("    before = %s" % toml_str(s["before"]))
            print("    after = %s" % toml_str(s["after"]))
            print("    reason = \"...\"")
        for s in r["stale"]:
            print()
            print("STALE EQUIVALENT %s:%d %s: marked equivalent but the tests kill it; "
                  "remove the entry" % (s["file"], s["line"], s["operator"]))
    below = [r["file"] for r in rows if r["score"] < goal]
    print()
    if below:
        print("below the goal of %.0f %%: %s" % (goal, ", ".join(below)))
    else:
        print("every file reaches the goal of %.0f %%" % goal)
    return not below


def last_seed():
    """The seed of the last run (build/mutate/report.json), or None."""
    try:
        return json.loads((BUILD / "report.json").read_text(encoding="utf-8")).get("seed")
    except (OSError, ValueError):
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", nargs="*", help="repo-relative .py files (default: every "
                    "module of shared_rules/ and firmware/hw/)")
    ap.add_argument("--sample", help="mutants per file, or 'all' (default: tools/mutate.toml)")
    ap.add_argument("--seed", help="sample seed, to repeat a run's sample (default: a "
                    "fresh seed each run, printed)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    ap.add_argument("--report-only", action="store_true",
                    help="report the last run's sessions again (after editing the equivalents)")
    args = ap.parse_args(argv)
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        print("mutate: cosmic-ray is not installed; run `make mutate` (it installs "
              "requirements-mutate.txt)", file=sys.stderr)
        return 2
    defaults, files_cfg = load_config()
    equivalents = load_equivalents()
    files = args.files if args.files else target_files()
    for f in files:
        if not (ROOT / f).is_file() or not f.endswith(".py"):
            print("mutate: no such Python file: %s" % f, file=sys.stderr)
            return 2
    override = None
    if args.sample is not None:
        if args.sample == "all":
            override = 10 ** 9
        elif args.sample.isdigit() and int(args.sample) > 0:
            override = int(args.sample)
        else:
            print("mutate: --sample must be a positive number or 'all'", file=sys.stderr)
            return 2
    if args.jobs < 1:
        print("mutate: --jobs must be >= 1", file=sys.stderr)
        return 2
    if args.report_only:
        seed = args.seed if args.seed is not None else last_seed()
    else:
        seed = pick_seed(args.seed)
        print("mutate: seed %s (repeat this sample with SEED=%s, or --seed %s)" % (
            seed, seed, seed))
    goal = float(defaults.get("goal", 95.0))
    BUILD.mkdir(parents=True, exist_ok=True)
    trees = [BUILD / ("tree%d" % k) for k in range(args.jobs)]
    rows = []
    failed = []
    t_start = time.monotonic()
    if not args.report_only:
        for t in trees:
            make_tree(t)
    for path in files:
        tests = tests_for(path, files_cfg)
        session = BUILD / (path.replace("/", "__")[:-3] + ".sqlite")
        if not tests:
            print("mutate: %s: no test file imports it; add it to tools/mutate.toml" % path,
                  file=sys.stderr)
            return 2
        if not args.report_only:
            command = test_command(tests)
            rc, secs, out = baseline(trees[0], command)
            if rc != 0:
                # Every mutant would look killed: report it, go on with the other files.
                print("mutate: the tests of %s fail without any mutant; skipped:\n%s" % (
                    path, out), file=sys.stderr)
                failed.append(path)
                continue
            skipped = SKIPPED.search(out)
            if skipped:
                # A skipped test kills nothing: its mutants would all look like survivors.
                print("mutate: %s of the tests of %s skip without any mutant (%s); "
                      "not run" % (skipped.group(1), path, " ".join(tests)), file=sys.stderr)
                failed.append(path)
                continue
            timeout = max(float(defaults.get("min_timeout", 30)),
                          secs * float(defaults.get("timeout_factor", 10)))
            n = sample_size(path, files_cfg, defaults, override)
            count, keep = init_session(trees[0], path, session, command, timeout, n, seed)
            print("%s: %d mutants, %d sampled; tests %s (%.1f s clean, time-out %.0f s)" % (
                path, count, len(keep), " ".join(t.split("/")[-1] for t in tests), secs,
                timeout))
            execute(trees, session, command, timeout, path.split("/")[-1])
        if not session.exists():
            print("mutate: no session for %s; run without --report-only first" % path,
                  file=sys.stderr)
            return 2
        row = collect(path, session, equivalents)
        from cosmic_ray.work_db import WorkDB, use_db
        with use_db(str(session), WorkDB.Mode.open) as db:
            row["mutants"] = db.num_work_items
        rows.append(row)
    seconds = time.monotonic() - t_start
    ok = print_report(rows, goal, seconds, args.jobs, seed)
    (BUILD / "report.json").write_text(json.dumps(
        {"seed": seed, "seconds": round(seconds, 1), "jobs": args.jobs, "files": rows},
        indent=1), encoding="utf-8")
    if failed:
        print("the tests of %s fail without any mutant: fix them first" % ", ".join(failed))
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
