"""The REACTION LAB in the browser build (MicroPython WebAssembly in headless Chromium)
gives the same rows and CSV as the app under CPython (the host rig) for the same seed
and presses. The page's clock and animation frames are the test's: performance.now()
and requestAnimationFrame are replaced before the page's scripts run, so the run's
seed (the START press's stamp) is fixed, and each press is a key event carrying the
stamp the test chose, a fixed time after the signal (or during the wait: a false
start)."""

import pytest

from tests.web_helpers import CAPTURE_DOWNLOADS

from desktop_emulator import framebuf
from firmware import lab, lab_store
from firmware.screens import lab as lab_screen
from host.rig import Rig

pytestmark = pytest.mark.web

T0_MS = 1000          # the page's clock when it loads; game time 0
FRAME_MS = 16
HOLD_MS = 40
# Per attempt: press this many ms after the signal, or -1: 400 ms into the wait.
PATTERN = (250, 231, -1, 95, 412, 188, 263, 307, 199, 281, 344, 226, 240, 318)
FALSE_START_MS = 400

# The test's own clock and frames, in the page before its scripts.
FAKE_TIME = """(() => {
  let t = %d;
  let queued = [];
  performance.now = () => t;
  window.requestAnimationFrame = (cb) => { queued.push(cb); return queued.length; };
  const key = (type, code, stamp) => {
    const e = new KeyboardEvent(type, { code, bubbles: true });
    Object.defineProperty(e, "timeStamp", { value: stamp });
    dispatchEvent(e);
  };
  window.__lab = {
    now: () => t,
    // Frames until cond(debug) holds (or limit frames): the debug state then.
    until(cond, limit) {
      for (let i = 0; i < limit; i++) {
        const d = window.spit.debug();
        if (cond(d)) return d;
        t += %d;
        const q = queued; queued = [];
        for (const cb of q) cb(t);
      }
      return null;
    },
    // A press and release of a key, stamped at `stamp` ms (not after now).
    tap(code, stamp) { key("keydown", code, stamp); key("keyup", code, stamp + %d); },
  };
})()""" % (T0_MS, FRAME_MS, HOLD_MS)


def until(page, cond_js, limit=3000):
    d = page.evaluate("window.__lab.until((d) => %s, %d)" % (cond_js, limit), timeout=60)
    assert d is not None, "not reached in %d frames: %s" % (limit, cond_js)
    return d


def tap(page, code, stamp_ms):
    """A key at stamp_ms, once the page's clock has passed its release."""
    until(page, "window.__lab.now() >= %d" % (stamp_ms + HOLD_MS + FRAME_MS))
    page.evaluate("window.__lab.tap(%s, %d)" % (repr(code), stamp_ms))


def page_run(page):
    """Through the title menu to the lab, 10 trials, START at a fixed stamp, then the
    pattern's presses: (the lab's settings and run at the end, START's stamp)."""
    d = until(page, "d.screen === 'title'")
    for _ in range(len(d["menu"]) - 1):               # A: down to REACTION LAB, the last
        tap(page, "KeyZ", page.evaluate("window.__lab.now()"))
    tap(page, "KeyX", page.evaluate("window.__lab.now()"))
    until(page, "d.screen === 'lab'", 100)
    for code in ("KeyZ",) * 3 + ("KeyX",) * 3 + ("KeyZ",) * 2:   # TRIALS: 20->30->40->10
        tap(page, code, page.evaluate("window.__lab.now()"))
    until(page, "d.lab.trials === 10", 100)
    start_ms = page.evaluate("window.__lab.now()") + 200
    tap(page, "KeyX", start_ms)                          # B: START, its stamp the seed
    until(page, "d.lab.mode === %d" % lab_screen.RUN, 100)
    seen = None
    k = 0
    while True:
        want = lab.WAITING if PATTERN[k % len(PATTERN)] == -1 else lab.SIGNAL
        d = until(page, "d.lab.mode === %d || (d.lab.state === %d && "
                        "(d.lab.trial !== %d || d.lab.start !== %d))"
                  % (lab_screen.RESULTS, want, seen[0] if seen else 99,
                     seen[1] if seen else -1))
        L = d["lab"]
        if L["mode"] == lab_screen.RESULTS:
            break
        seen = (L["trial"], L["start"])
        v = PATTERN[k % len(PATTERN)]
        k += 1
        # Game time is the page's ms since load (no gaps): whole-ms stamps stay exact.
        assert L["start"] % 1000 == 0 and L["onset"] % 1000 == 0
        if v == -1:
            tap(page, "KeyX", T0_MS + L["start"] // 1000 + FALSE_START_MS)
        else:
            tap(page, "KeyX", T0_MS + L["onset"] // 1000 + v)
    return L, start_ms


class Subject:
    """The same presses on the host rig: relative to the signal, or into the wait."""

    def __init__(self, rig):
        self.rig = rig
        self.k = 0
        self.seen = None

    def pump(self, now):
        app = self.rig.app
        if app.screen_name() != "lab" or app.cur.mode != lab_screen.RUN:
            return
        run = app.cur.run
        v = PATTERN[self.k % len(PATTERN)]
        want = lab.WAITING if v == -1 else lab.SIGNAL
        if run.state != want or (run.trial, run.start) == self.seen:
            return
        self.seen = (run.trial, run.start)
        self.k += 1
        if v == -1:
            t = run.start + FALSE_START_MS * 1000
        else:
            t = run.onset + v * 1000
        self.rig.inp.press(t, 0, "B", HOLD_MS * 1000)


def rig_run(settings, seed):
    r = Rig(framebuf)
    r.frames(2)
    app = r.app
    while app.menu_text(app.menu_items()[app.title.sel]) != "REACTION LAB":
        r.menu(["A"])
    r.menu(["B"])
    scr = app.cur
    scr.task, scr.signal = settings["task"], settings["signal"]
    scr.trials, scr.practice = settings["trials"], settings["practice"]
    scr.start_run(seed, r.clock.now, 0)
    r.hands.append(Subject(r))
    r.until(lambda a: a.cur.mode == lab_screen.RESULTS, 20000)
    return scr.store.runs()


def test_the_browsers_lab_run_gives_the_rows_and_csv_of_cpython_for_its_seed(site, page):
    page.send("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_TIME})
    page.goto(site)
    page.evaluate("localStorage.clear()")
    page.reload()
    settings, start_ms = page_run(page)
    seed = settings["seed"]
    assert seed == (start_ms - T0_MS) * 1000          # START's stamp, in game µs
    # The page's own CSV download (its button), caught before it leaves the page.
    page.evaluate(CAPTURE_DOWNLOADS)
    page.evaluate("document.getElementById('lab-csv').click()")
    page.wait_for("window.__downloads.length === 1")
    csv = page.evaluate("fetch(window.__downloads[0].href).then((r) => r.text())")
    runs = rig_run(settings, seed)
    want = lab_store.csv_text(runs)
    rows = runs[-1][3]
    flags = [r[4] for r in rows]
    assert flags.count(lab.FALSE_START) == 1 and flags.count(lab.ANTICIPATION) == 1
    assert len([r for r in rows if r[1] > 0 and r[4] != lab.FALSE_START]) == 10
    assert runs[-1][2] == "done"
    got, problems = lab_store.parse_csv(csv)
    assert problems == [] and len(got) == len(rows)
    assert csv == want
