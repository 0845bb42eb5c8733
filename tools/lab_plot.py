"""A class picture of the REACTION LAB's data (docs/LAB.md): from one CSV or many
devices' CSVs merged, three plots on one page: a run chart (each run's reaction
times trial by trial), a histogram of all counted reaction times, and a box plot by
condition.

    python tools/lab_plot.py lab.csv                       # -> lab.png
    python tools/lab_plot.py kit1.csv kit2.csv kit3.csv -o class.png   (.pdf, .svg too)

`make lab-plot CSV="kit1.csv kit2.csv"` runs it. The plotting library is matplotlib
(requirements-lab.txt, installed by `make lab-plot`, never by `make test`): the
reference plotting library of scientific Python, maintained for twenty years with
releases every few months, wheels for Windows, macOS, Linux and the Raspberry Pi, box
plots and histograms built in, and files (PNG for a slide, PDF or SVG for print)
written without a display or a browser. Only counted trials are plotted: flag "ok",
practice (negative trial numbers) left out; the rest are counted in the title.

The data preparation (prepare) needs no plotting library; it is what the tests check.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from firmware import lab_store  # noqa: E402
from firmware.lab import HIST_FROM_US, HIST_STEP_US  # noqa: E402

INSTALL = "pip install -r requirements-lab.txt (or: make lab-plot)"


class LabPlotError(Exception):
    pass


def read_csvs(paths):
    """Rows of every CSV, each with its source: [(source, row)], and the problems
    (one line each) of rows left out. A file that is no lab CSV of this version, or
    cannot be read, is LabPlotError: one line naming it."""
    out = []
    problems = []
    sources = _source_names(paths)
    for path, source in zip(paths, sources):
        try:
            with open(path, encoding="utf-8-sig", newline="") as f:
                text = f.read()
        except (OSError, UnicodeError) as e:
            raise LabPlotError("cannot read %s: %s" % (path, getattr(e, "strerror", None) or e))
        try:
            rows, bad = lab_store.parse_csv(text)
        except lab_store.LabDataError as e:
            raise LabPlotError("%s: %s" % (path, e))
        for b in bad:
            problems.append("%s %s (left out)" % (path, b))
        for r in rows:
            out.append((source, r))
    return out, problems


def _source_names(paths):
    """A short name per file (its name without .csv; the folder too where two clash)."""
    base = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    out = []
    for p, n in zip(paths, base):
        if base.count(n) > 1:
            n = os.path.join(os.path.basename(os.path.dirname(os.path.abspath(p))), n)
        out.append(n)
    return out


def prepare(tagged):
    """What the plots show, from read_csvs' rows:
      runs:       {(source, run): (condition, [(trial, reaction_ms)])}, counted OK trials
      conditions: {condition: [reaction_ms, ...]} over every source and run
      all_ms:     every counted reaction time (ms), for the histogram
      bins:       the histogram's bin edges (ms), 50 ms wide like the device's
      left_out:   {flag: count} of counted trials not plotted (false starts, ...)"""
    runs = {}
    conditions = {}
    all_ms = []
    left_out = {}
    for source, r in tagged:
        run, player, cond, trial, wait, rt, flag = r
        if trial < 0:
            continue
        if flag != "ok":
            left_out[flag] = left_out.get(flag, 0) + 1
            continue
        ms = rt / 1000.0
        key = (source, run) if player == 1 else (source, "%d P%d" % (run, player))
        runs.setdefault(key, (cond, []))[1].append((trial, ms))
        conditions.setdefault(cond, []).append(ms)
        all_ms.append(ms)
    for key in runs:
        runs[key][1].sort()
    step = HIST_STEP_US // 1000
    lo = HIST_FROM_US // 1000
    top = max(all_ms) if all_ms else lo + step
    bins = list(range(lo, int(top) + 2 * step, step))
    return {"runs": runs, "conditions": conditions, "all_ms": all_ms, "bins": bins,
            "left_out": left_out}


def plot(prep, out, title=None, dpi=120):
    """Draw the three plots into the file out (its extension picks the format)."""
    try:
        import matplotlib
        matplotlib.use("Agg")                        # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise LabPlotError("matplotlib is not installed: " + INSTALL)
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.8))
    for (source, run), (cond, pts) in sorted(prep["runs"].items(), key=str):
        ax1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                 linewidth=1, label="%s run %s (%s)" % (source, run, cond))
    from matplotlib.ticker import MaxNLocator
    ax1.xaxis.set_major_locator(MaxNLocator(integer=True))     # trials are whole numbers
    ax1.set_title("Run chart")
    ax1.set_xlabel("trial")
    ax1.set_ylabel("reaction time (ms)")
    if len(prep["runs"]) <= 12:
        ax1.legend(fontsize=7)
    ax2.hist(prep["all_ms"], bins=prep["bins"], edgecolor="black")
    ax2.set_title("Histogram (all counted trials)")
    ax2.set_xlabel("reaction time (ms)")
    ax2.set_ylabel("trials")
    names = sorted(prep["conditions"])
    ax3.boxplot([prep["conditions"][c] for c in names])
    ax3.set_xticks(range(1, len(names) + 1))
    ax3.set_xticklabels(["%s\n(n=%d)" % (c, len(prep["conditions"][c])) for c in names],
                        fontsize=8)
    ax3.set_title("By condition")
    ax3.set_ylabel("reaction time (ms)")
    left = prep["left_out"]
    note = ", ".join("%d %s" % (left[k], k) for k in sorted(left)) or "none"
    fig.suptitle((title or "Reaction lab") + " - %d counted trials; not counted: %s"
                 % (len(prep["all_ms"]), note))
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=dpi)
    except (OSError, ValueError) as e:
        raise LabPlotError("cannot write %s: %s" % (out, getattr(e, "strerror", None) or e))
    finally:
        plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/lab_plot.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="lab CSV files (tools/lab_csv.py), one per device")
    ap.add_argument("-o", "--out", default="lab.png", help="the picture (.png, .pdf, .svg)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--dpi", type=int, default=120, help="dots per inch of a .png")
    a = ap.parse_args(argv)
    try:
        tagged, problems = read_csvs(a.csv)
        for p in problems:
            print("lab_plot: %s" % p, file=sys.stderr)
        prep = prepare(tagged)
        if not prep["all_ms"]:
            raise LabPlotError("no counted trials to plot in %s" % " ".join(a.csv))
        plot(prep, a.out, a.title, a.dpi)
    except LabPlotError as e:
        print("lab_plot: %s" % e, file=sys.stderr)
        return 1
    print("lab_plot: %d counted trials from %d file%s -> %s" % (
        len(prep["all_ms"]), len(a.csv), "" if len(a.csv) == 1 else "s", a.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
