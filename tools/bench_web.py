#!/usr/bin/env python3
"""Browser build speed (docs/WEB.md), printed as tables; part of `make bench`.

Headless Chromium (Debian's) over the DevTools protocol, on the site served from
127.0.0.1 (cross-origin isolated, so performance.now() is fine-grained) and on
spit.html from a file:// URL. Nothing here is a test: the numbers are measured and
printed, never judged.

1. Fast test mode: whole CPU-against-CPU games on the simulated clock, one Python
   call per batch of 120 device frames, as multiples of real time.
2. Live: CPU against CPU at the page's own animation frames: frames a second, the
   time of one call into Python (app.step and everything around it) and of drawing
   the panel on the canvas, the interpreter's load time, and its heap.
3. File sizes of the build.

    python tools/bench_web.py [--games N] [--seconds S] [--write-docs]

--write-docs replaces the "Browser" section of docs/BENCHMARKS.md with the tables.
"""

import argparse
import datetime
import os
import platform
import re
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "web"))
import cdp  # noqa: E402
import serve  # noqa: E402

PAIRINGS = (("hard", "easy"), ("hard", "hard"), ("normal", "normal"), ("easy", "easy"))
SITE = os.path.join(ROOT, "build", "web")
DOCS = os.path.join(ROOT, "docs", "BENCHMARKS.md")
HEADING = "## Browser (`tools/bench_web.py`)"


def fast_games(page, base, games):
    rows = []
    for a, b in PAIRINGS:
        ms = steps = 0
        heap = 0
        for seed in range(games):
            page.goto(base + "?seed=%d&p0=%s&p1=%s&fast=1" % (seed, a, b), timeout=60)
            page.wait_for("window.spit.stats().fastMs !== null", timeout=120)
            s = page.evaluate("window.spit.stats()")
            ms += s["fastMs"]
            steps += s["fastSteps"]
            heap = max(heap, page.evaluate("window.spit.heap()"))
        sim_s = steps * 33333 / 1e6
        rows.append(("%s vs %s" % (a, b), games, sim_s, ms / 1000, steps, heap))
    return rows


def live(page, url, seconds):
    page.goto(url, timeout=60)
    page.wait_for("window.spit.stats().frames >= 10", timeout=60)
    heap0 = page.evaluate("window.spit.heap()")
    time.sleep(seconds)
    s = page.evaluate("window.spit.stats()")
    s["heap0"] = heap0
    s["heap1"] = page.evaluate("window.spit.heap()")
    return s


def tables(fast, lives, sizes, games, seconds):
    out = []
    out.append("Fast test mode (`?fast=1`): CPU vs CPU, whole games, app.step every 33.3 ms "
               "(simulated), %d game(s) per pairing" % games)
    out.append("| pairing | games | simulated s | wall s | ms per step | x real time | "
               "heap after, KB |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    tsim = twall = 0.0
    for name, n, sim_s, wall_s, steps, heap in fast:
        tsim += sim_s
        twall += wall_s
        out.append("| %s | %d | %.1f | %.2f | %.3f | %.0fx | %.0f |" % (
            name, n, sim_s, wall_s, wall_s * 1000 / max(steps, 1), sim_s / max(wall_s, 1e-9),
            heap / 1024))
    out.append("| all | | %.1f | %.2f | | **%.0fx** | |" % (tsim, twall, tsim / max(twall, 1e-9)))
    out.append("")
    out.append("Live (CPU hard vs CPU hard, the page's animation frames, %d s each)" % seconds)
    out.append("| page | fps | step mean ms | step p95 ms | draw mean ms | load ms | "
               "heap KB (start -> end) | fine timer |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")
    for name, s in lives:
        out.append("| %s | %.1f | %.3f | %.3f | %.3f | %.0f | %.0f -> %.0f | %s |" % (
            name, s["fps"], s["stepMeanMs"], s["stepP95Ms"], s["drawMeanMs"], s["loadMs"],
            s["heap0"] / 1024, s["heap1"] / 1024, "yes" if s["crossOriginIsolated"] else "no"))
    out.append("")
    out.append("Build sizes: " + ", ".join("%s %.0f KB" % (k, v / 1024) for k, v in sizes))
    return "\n".join(out)


def write_docs(text, chromium_version):
    with open(DOCS) as f:
        doc = f.read()
    section = "%s\n\nMeasured by `make bench-web` on %s: %s, %s, %s.\n\n%s\n\n%s\n" % (
        HEADING, datetime.date.today().isoformat(), platform.machine(),
        "%d cores" % (os.cpu_count() or 0), chromium_version, NOTES.strip(), text)
    if HEADING in doc:
        start = doc.index(HEADING)
        m = re.search(r"^## ", doc[start + len(HEADING):], re.M)
        end = start + len(HEADING) + m.start() if m else len(doc)
        doc = doc[:start] + section + ("\n" if m else "") + doc[end:]
    else:
        doc = doc.rstrip("\n") + "\n\n" + section
    with open(DOCS, "w") as f:
        f.write(doc)


NOTES = """
Headless Chromium animates at 60 frames a second whatever the machine, so "fps" says
whether the page keeps up, not how fast it could go. "step" is one call from
JavaScript into Python per animation frame (the clock, the input, `app.step`, the
skin's lights), timed with performance.now() around the call; "draw" reads the 1024
panel bytes out of the interpreter's memory and paints the canvas (only after frames
that changed the picture). Without cross-origin isolation (spit.html from a file)
Chromium rounds performance.now() to 0.1 ms, so those step times are coarse. The
heap columns are MicroPython's `gc.mem_alloc()`, read between calls from JavaScript
(where the collector can reclaim memory): after whole games and during live play they
stay near 100 KB.
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3, help="fast games per pairing (3)")
    ap.add_argument("--seconds", type=float, default=6.0, help="seconds of each live run")
    ap.add_argument("--write-docs", action="store_true",
                    help="replace the Browser section of docs/BENCHMARKS.md")
    args = ap.parse_args(argv)
    if not os.path.exists(os.path.join(SITE, "spit.html")):
        print("bench_web: error: build/web is missing: run `make web`", file=sys.stderr)
        return 2
    srv = serve.make_server(SITE, 0, quiet=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % srv.server_address[1]
    try:
        with cdp.Chromium() as browser:
            version = browser.send("Browser.getVersion")["product"].replace("/", " ")
            page = browser.new_page()
            fast = fast_games(page, base, args.games)
            lives = [("site, 127.0.0.1", live(page, base + "?p0=hard&p1=hard&seed=7&stats=1",
                                               args.seconds)),
                     ("spit.html, file://", live(page, "file://" + os.path.join(
                         SITE, "spit.html") + "?p0=hard&p1=hard&seed=7&stats=1",
                         args.seconds))]
            errors = page.errors()
    finally:
        srv.shutdown()
        srv.server_close()
    sizes = [(n, os.path.getsize(os.path.join(SITE, n)))
             for n in ("spit.html", "micropython.wasm", "micropython.mjs", "modules.json")]
    text = tables(fast, lives, sizes, args.games, args.seconds)
    print("Browser benchmark: %s\n" % version)
    print(text)
    if errors:
        print("\npage errors: %s" % errors, file=sys.stderr)
    if args.write_docs:
        write_docs(text, version)
        print("\nwritten to docs/BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
