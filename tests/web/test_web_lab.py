"""The REACTION LAB in the browser build's Python (web/spitweb/), on a fake page bridge:
reached from the menu with the page's keys, its runs kept in localStorage beside the
game's save (item "spit-handheld/lab.json", the device's format), the CSV download's
text, a hidden tab pausing a run, and a page with no storage still giving the CSV of
the runs it holds."""
import pytest

from tests.web_helpers import CAPTURE_DOWNLOADS, FakeBridge

from desktop_emulator import framebuf as fb_standin
from firmware import lab, lab_store
from firmware.screens import lab as lab_screen
from shared_rules.game import Rules
from spitweb import session

pytestmark = pytest.mark.web

LAB_KEY = "spit-handheld/lab.json"


def web(store=None, **kw):
    b = FakeBridge(store=store, **kw)
    return session.Web(b, "", 1000.0, fb_module=fb_standin), b


class Page:
    def __init__(self, w):
        self.w = w
        self.t = 1000.0

    def frames(self, n=1):
        for _ in range(n):
            self.t += 16.0
            self.w.frame(self.t)

    def tap(self, code, t=None):
        t = self.t if t is None else t
        self.w.key(code, True, False, t, self.t)
        self.w.key(code, False, False, t + 40.0, self.t)
        self.frames(10)

    def until(self, cond, limit=2000):
        for _ in range(limit):
            if cond():
                return
            self.frames()
        raise AssertionError("not reached")


def one_run(page, rt_ms=(245.0,)):
    w = page.w
    page.frames(2)
    while w.app.menu_text(w.app.menu_items()[w.app.title.sel]) != "REACTION LAB":
        page.tap("KeyZ")                                  # A: the next item
    page.tap("KeyX")                                      # B: REACTION LAB
    scr = w.app.cur
    assert w.app.screen_name() == "lab"
    scr.practice = 0
    scr.trials = len(rt_ms)
    page.tap("KeyX")                                      # B: START
    assert scr.mode == lab_screen.RUN
    for rt in rt_ms:
        run = scr.run
        page.until(lambda: run.state == lab.SIGNAL)
        onset_ms = page.t                                  # the frame that showed it
        page.until(lambda: page.t >= onset_ms + rt + 20)
        page.tap("KeyX", t=onset_ms + rt)
        page.until(lambda: run.state != lab.FEEDBACK)
    page.until(lambda: scr.mode == lab_screen.RESULTS)
    return scr


def test_the_labs_runs_are_kept_in_local_storage_and_come_out_as_csv():
    store = {}
    w, b = web(store=store)
    assert w.lab_csv() is None                            # no runs yet
    scr = one_run(Page(w), (245.0, 310.0))
    assert list(store) == [LAB_KEY]                      # the game's save untouched
    text = w.lab_csv()
    rows, problems = lab_store.parse_csv(text)
    assert problems == [] and [r[6] for r in rows] == ["ok", "ok"]
    # The page's clock is in ms; the stamps keep whole microseconds of it.
    assert [abs(r[5] - want) <= 1000 for r, want in zip(rows, (245000, 310000))] == [True, True]
    assert scr.store.runs()[0][3] == [[0, r[3], r[4], r[5], 0] for r in rows]
    # A new page on the same storage (not on the lab's screen) gives the same CSV.
    w2, _ = web(store=store)
    assert w2.lab_csv() == text


def test_the_pads_are_peoples_in_the_lab_even_after_a_game_against_the_cpu():
    w, b = web(store={})
    page = Page(w)
    page.frames(2)
    w.app.start_game(3, Rules(), (None, 2), w.clock.ticks_us())
    page.frames(2)
    assert w.seat_names() == ["P0", "CPU NORMAL"]
    w.app.to_title(w.clock.ticks_us())
    page.frames(2)
    while w.app.menu_text(w.app.menu_items()[w.app.title.sel]) != "REACTION LAB":
        page.tap("KeyZ")
    page.tap("KeyX")
    assert w.app.screen_name() == "lab" and w.seat_names() == ["P0", "P1"]


def test_a_hidden_tab_pauses_a_lab_run():
    w, b = web(store={})
    page = Page(w)
    page.frames(2)
    while w.app.menu_text(w.app.menu_items()[w.app.title.sel]) != "REACTION LAB":
        page.tap("KeyZ")
    page.tap("KeyX")
    page.tap("KeyX")
    scr = w.app.cur
    assert scr.mode == lab_screen.RUN
    w.visibility(True, page.t)
    page.frames(2)
    assert scr.mode == lab_screen.PAUSED


def test_a_page_without_storage_still_gives_the_csv_of_the_runs_on_the_lab_screen():
    w, b = web(storage_ok=False)
    one_run(Page(w))
    rows, _ = lab_store.parse_csv(w.lab_csv())
    assert len(rows) == 1


def test_a_full_local_storage_says_so_and_still_gives_the_csv():
    w, b = web(store={}, writable=False)
    scr = one_run(Page(w))
    assert scr.store.message == "LAB: COULD NOT SAVE"
    assert len(lab_store.parse_csv(w.lab_csv())[0]) == 1


# ---------------------------------------------------------------- in headless Chromium

def test_the_pages_button_downloads_the_labs_csv(site, page):
    import json
    from firmware.hw.storage import encode
    page.goto(site)
    page.evaluate("localStorage.clear()")
    page.goto(site)
    page.wait_for("window.spit.debug().screen === 'title'", timeout=60)
    page.evaluate(CAPTURE_DOWNLOADS)
    page.evaluate("document.getElementById('lab-csv').click()")
    page.wait_for("document.getElementById('status').textContent.includes("
                  "'No reaction lab runs saved yet.')")
    assert page.evaluate("window.__downloads.length") == 0
    # A saved run, as the device's format keeps it in localStorage; then the download.
    run = lab.Run(5, lab.CHOICE, lab.SOUND, 2, 0)
    run.rows = [[0, 1, 2345, 251000, lab.OK], [0, 2, 3001, 300500, lab.ERROR]]
    store = lab_store.empty()
    store["runs"].append(lab_store.run_record(1, run, "done"))
    page.evaluate("localStorage.setItem(%s, %s)" % (json.dumps(LAB_KEY),
                                                    json.dumps(encode(store).decode())))
    page.reload()
    page.wait_for("window.spit.debug().screen === 'title'", timeout=60)
    page.evaluate(CAPTURE_DOWNLOADS)
    page.evaluate("document.getElementById('lab-csv').click()")
    page.wait_for("window.__downloads.length === 1")
    assert page.evaluate("window.__downloads[0].name") == "spit-lab.csv"
    text = page.evaluate("fetch(window.__downloads[0].href).then((r) => r.text())")
    rows, problems = lab_store.parse_csv(text)
    assert problems == [] and rows == [(1, 1, "choice-sound", 1, 2345, 251000, "ok"),
                                       (1, 1, "choice-sound", 2, 3001, 300500, "error")]
