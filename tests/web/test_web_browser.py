"""The browser build in headless Chromium (Debian's `chromium`, driven over the
DevTools protocol by web/cdp.py): the test mode prints the desktop emulator's state
line for the same games and replays; a person's path through the page -- title, keys,
a game, the on-screen pads, Esc, a hidden tab, a reload that offers CONTINUE; bad
query parameters and a corrupt save; spit.html from a file:// URL. Every wait has a
wall-time limit; nothing here measures speed (that is `make bench-web`)."""
import json
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.web_helpers import built_site, chromium, desktop_run, desktop_state, serving, site_url


pytestmark = pytest.mark.web

STORE_KEY = "spit-handheld/spit.json"


@pytest.fixture(scope="module")
def site():
    d, _ = built_site()
    with serving(d) as srv:
        yield {"dir": Path(d), "url": site_url(srv)}


@pytest.fixture(scope="module")
def browser():
    b = chromium()
    yield b
    b.close()


@pytest.fixture
def page(browser):
    p = browser.new_page()
    yield p
    errors = p.errors()
    p.close()
    assert errors == [], "the page logged errors: %s" % errors


def debug(page):
    return page.evaluate("window.spit.debug()")


def wait_debug(page, cond_js, timeout=20):
    """Wait until a JS condition on d = window.spit.debug() holds; then d."""
    page.wait_for("(() => { const d = window.spit.debug(); return %s; })()" % cond_js, timeout)
    return debug(page)


def fast_state(page, url):
    page.goto(url)
    return page.wait_for("document.getElementById('state').textContent || "
                         "(document.getElementById('message').hidden ? '' : "
                         "'message: ' + document.getElementById('message').textContent)",
                         timeout=60)


# ---------------------------------------------------------------- parity with the desktop

GAMES = [(3, "hard", "easy", "standard", "over", False),
         (8, "normal", "hard", "points", "over", False),
         (21, "easy", "easy", "standard", "over", False),
         (5, "hard", "hard", "points", "round", False),
         (40, "normal", "easy", "standard", "round", True)]


@pytest.mark.parametrize("seed,p0,p1,rules,until,flip", GAMES)
def test_fast_mode_prints_the_desktop_state_line(site, page, seed, p0, p1, rules, until, flip):
    q = "?seed=%d&p0=%s&p1=%s&rules=%s&until=%s&fast=1" % (seed, p0, p1, rules, until)
    args = ["--seed", str(seed), "--p0", p0, "--p1", p1, "--rules", rules, "--until", until]
    if flip:
        q += "&flip=1"
        args.append("--manual-flip")
    got = fast_state(page, site["url"] + q)
    assert got == desktop_state(*args)
    code, lines = desktop_run(*(args + ["--headless"]))
    assert page.evaluate("document.getElementById('summary').textContent") == lines[-1]


def test_a_desktop_replay_plays_fast_in_the_page_to_the_same_state(site, page, tmp_path):
    path = tmp_path / "game.txt"
    code, _ = desktop_run("--headless", "--p0", "hard", "--p1", "normal", "--seed", "17",
                          "--until", "round", "--record", str(path))
    assert code == 0
    got = fast_state(page, site["url"] + "?fast=1&replay=" + quote(path.read_text()))
    assert got == desktop_state("--replay", str(path))


def test_a_replay_plays_live_esc_freezes_it_and_it_ends_at_the_desktop_state(
        site, page, tmp_path):
    path = tmp_path / "short.txt"
    code, _ = desktop_run("--headless", "--p0", "hard", "--p1", "hard", "--seed", "4",
                          "--frames", "75", "--record", str(path))
    assert code == 0
    page.goto(site["url"] + "?replay=" + quote(path.read_text()))
    page.wait_for("window.spit.debug().steps >= 1")
    page.tap_key("Escape")
    d = wait_debug(page, "d.frozen")
    page.wait_for("!document.getElementById('overlay').hidden")
    steps = d["steps"]
    assert debug(page)["steps"] == steps                 # frozen: nothing is stepped
    page.tap_key("Escape")
    page.wait_for("!window.spit.debug().frozen")
    got = page.wait_for("document.getElementById('state').textContent", timeout=30)
    assert got == desktop_state("--replay", str(path))
    assert page.evaluate("document.getElementById('seat0').textContent") == "REPLAY HARD"


def test_a_game_recorded_in_the_page_replays_on_the_desktop(site, page, tmp_path):
    page.goto(site["url"] + "?p0=human&p1=hard&seed=21")
    wait_debug(page, "d.screen === 'game'")
    for code in ("KeyX", "KeyZ", "KeyX", "KeyZ", "KeyZ", "KeyX", "KeyX"):
        steps = debug(page)["steps"]
        page.tap_key(code)
        page.wait_for("window.spit.debug().steps >= %d" % (steps + 6), timeout=10)
    page.tap_key("Escape")
    wait_debug(page, "d.screen === 'pause'")
    path = tmp_path / "from-page.txt"
    path.write_text(page.evaluate("window.spit.replayText()"))
    desk = desktop_state("--replay", str(path))
    assert page.evaluate("window.spit.stateNow()").split()[1] == desk.split()[1]


# ---------------------------------------------------------------- a person at the page

def fresh(page, url):
    page.goto(url)
    page.evaluate("localStorage.clear()")
    page.goto(url)


def test_title_keys_a_game_esc_pauses_and_a_reload_offers_continue(site, page):
    fresh(page, site["url"])
    d = wait_debug(page, "d.screen === 'title' && d.menu.length > 0")
    assert d["menu"][0] == "START"                      # first: the obvious press starts
    assert d["status"] == ""
    page.tap_key("KeyX")                                # B: choose it
    d = wait_debug(page, "d.screen === 'game'")
    assert d["seats"] is None and d["settings"]["mode"] == 2     # the menu's "vs CPU normal"
    assert "click" in d["played"]
    cursor = d["cursors"][0]
    page.wait_for("window.spit.debug().phase === 'ready'")
    page.tap_key("KeyX")                                # "Spit!"
    d = wait_debug(page, "d.phase === 'play' || d.phase === 'ready' && d.events.length >= 2")
    page.tap_key("Escape")
    d = wait_debug(page, "d.screen === 'pause'")
    assert "pause" in d["played"]
    page.tap_key("Escape")
    wait_debug(page, "d.screen === 'game'")
    page.reload()
    d = wait_debug(page, "d.screen === 'title' && d.menu.length > 0")
    assert d["menu"][0] == "CONTINUE VS CPU NORMAL"      # the saved game's seats
    assert isinstance(cursor, int)


def test_auto_repeat_is_no_press_and_stamps_follow_event_timestamps(site, page):
    page.goto(site["url"] + "?p0=human&p1=human&seed=5")
    wait_debug(page, "d.screen === 'game'")
    page.evaluate("window.__stamps = []; addEventListener('keydown', e => "
                  "__stamps.push(e.timeStamp), true); addEventListener('keyup', e => "
                  "__stamps.push(e.timeStamp), true); 1")
    page.key("KeyM", True)
    for _ in range(3):
        page.key("KeyM", True, repeat=True)
    page.key("KeyM", False)
    d = wait_debug(page, "d.events.filter(e => e[1] === 1).length >= 2")
    mine = [e for e in d["events"] if e[1] == 1]
    assert [e[2:] for e in mine] == [["B", 1], ["B", 0]]
    stamps = page.evaluate("window.__stamps")
    assert len(stamps) == 5
    gap_us = round((stamps[-1] - stamps[0]) * 1000)
    assert abs((mine[1][0] - mine[0][0]) - gap_us) <= 1
    assert all(0 <= e[0] < 2 ** 30 for e in d["events"])


def test_pointer_presses_on_the_pads_and_player_1s_pad_is_turned_round(site, page):
    page.goto(site["url"] + "?p0=human&p1=human&seed=9")
    wait_debug(page, "d.screen === 'game'")
    a1 = page.centre('.pad-button[data-player="1"][data-button="A"]')
    b1 = page.centre('.pad-button[data-player="1"][data-button="B"]')
    a0 = page.centre('.pad-button[data-player="0"][data-button="A"]')
    b0 = page.centre('.pad-button[data-player="0"][data-button="B"]')
    assert a0[0] < b0[0] and a1[0] > b1[0]           # facing each other across the table
    assert a1[1] < a0[1]
    page.mouse("mousePressed", *a1)
    page.wait_for("document.querySelector('.pad-button[data-player=\"1\"][data-button=\"A\"]')"
                  ".classList.contains('lit')")
    page.mouse("mouseReleased", *a1)
    d = wait_debug(page, "d.events.length >= 2")
    assert [e[1:] for e in d["events"][:2]] == [[1, "A", 1], [1, "A", 0]]
    page.wait_for("!document.querySelector('.pad-button[data-player=\"1\"]"
                  "[data-button=\"A\"]').classList.contains('lit')")
    page.touch("touchStart", [(b0[0], b0[1], 1)])
    page.touch("touchEnd", [])
    d = wait_debug(page, "d.events.length >= 4")
    assert [e[1:] for e in d["events"][2:4]] == [[0, "B", 1], [0, "B", 0]]


def test_hiding_the_tab_pauses_a_game(site, page):
    page.goto(site["url"] + "?p1=normal&seed=3")
    wait_debug(page, "d.screen === 'game' && d.steps > 3")
    page.evaluate("Object.defineProperty(document, 'hidden', {get: () => true}); "
                  "document.dispatchEvent(new Event('visibilitychange')); 1")
    d = wait_debug(page, "d.screen === 'pause'")
    assert "pause" in d["played"]


def test_the_canvas_shows_the_panel_with_square_pixels(site, page):
    page.goto(site["url"])
    wait_debug(page, "d.screen === 'title' && d.steps > 2")
    panel = bytes.fromhex(page.evaluate("window.spit.panelHex()"))
    assert any(panel)
    k, ky = page.evaluate("""(() => {
        const c = document.getElementById('screen');
        return [c.width / 128, c.height / 64];
    })()""")
    lit = canvas_pixels(page)
    assert k == ky and k == int(k) and k >= 2
    for y in range(64):
        for x in range(128):
            assert lit[y * 128 + x] == (panel[(y // 8) * 128 + x] >> (y % 8)) & 1, (x, y)


def canvas_pixels(page):
    return page.evaluate("""(() => {
        const c = document.getElementById('screen');
        const k = c.width / 128;
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const out = [];
        for (let y = 0; y < 64; y++) for (let x = 0; x < 128; x++) {
            const o = ((Math.floor(y * k + k / 2) * c.width) + Math.floor(x * k + k / 2)) * 4;
            out.push(px[o] > 100 ? 1 : 0);
        }
        return out;
    })()""")


def vlsb_pixels(buf):
    return [(buf[(y // 8) * 128 + x] >> (y % 8)) & 1 for y in range(64) for x in range(128)]


def test_upright_turns_player_1s_half_on_the_canvas_and_the_control_turns_it_back(
        site, page):
    from host import upright as turn
    url = site["url"] + "?seed=3&p0=hard&p1=easy&until=round&fast=1&upright=1"
    assert fast_state(page, url) == desktop_state("--seed", "3", "--p0", "hard", "--p1",
                                                  "easy", "--until", "round")
    panel = bytes.fromhex(page.evaluate("window.spit.panelHex()"))
    assert page.evaluate("document.getElementById('upright').checked") is True
    assert page.evaluate("document.getElementById('device').classList.contains('upright')")
    assert canvas_pixels(page) == vlsb_pixels(turn.upright(panel, turn.HALF))
    page.evaluate("document.getElementById('upright').click(); 1")
    assert page.evaluate("document.getElementById('upright').checked") is False
    assert canvas_pixels(page) == vlsb_pixels(panel)
    # Player 1's pad: upright letters, the buttons where the handheld has them.
    a1 = page.centre('.pad-button[data-player="1"][data-button="A"]')
    b1 = page.centre('.pad-button[data-player="1"][data-button="B"]')
    page.evaluate("document.getElementById('upright').click(); 1")
    assert canvas_pixels(page) == vlsb_pixels(turn.upright(panel, turn.HALF))
    assert page.evaluate("getComputedStyle(document.querySelector('.pad-top')).transform") \
        == "none"
    assert page.centre('.pad-button[data-player="1"][data-button="A"]') == a1
    assert page.centre('.pad-button[data-player="1"][data-button="B"]') == b1


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("query,words", [
    ("?seed=abc", "seed=abc: not a whole number"),
    ("?level=3", "unknown parameter 'level'"),
    ("?fast=1&p0=human", "fast=1 has no keyboard"),
    ("?fast=1&replay=garbage", "replay: replay line 1: not a spit replay"),
])
def test_a_bad_query_is_a_message_on_the_page(site, page, query, words):
    page.goto(site["url"] + query)
    msg = page.wait_for("!document.getElementById('message').hidden && "
                        "document.getElementById('message').textContent")
    assert words in msg
    assert page.evaluate("document.getElementById('loading').hidden")
    assert page.evaluate("window.spit.error()") == msg


def test_a_corrupt_save_starts_clean_and_says_so(site, page):
    fresh(page, site["url"])
    page.evaluate("localStorage.setItem(%s, 'SPIT1 1234abcd 9\\n{\"oops\": ')" % json.dumps(
        STORE_KEY))
    page.reload()
    d = wait_debug(page, "d.screen === 'title' && d.menu.length > 0")
    assert d["note"] == "SAVED DATA CORRUPT"
    assert "starting clean" in page.evaluate("document.getElementById('status').textContent")
    assert d["menu"][0] == "START"
    page.tap_key("KeyX")                                # START: the new game is saved
    page.wait_for("localStorage.getItem(%s).startsWith('SPIT1 ')" % json.dumps(STORE_KEY))
    page.reload()
    d = wait_debug(page, "d.screen === 'title' && d.menu.length > 0")
    assert d["note"] != "SAVED DATA CORRUPT" and d["status"] == ""
    assert d["menu"][0] == "CONTINUE VS CPU NORMAL"


# ---------------------------------------------------------------- the one-file build

def test_spit_html_plays_from_a_file_url(site, page):
    url = (site["dir"] / "spit.html").as_uri()
    got = fast_state(page, url + "?seed=3&p0=hard&p1=easy&until=over&fast=1")
    assert got == desktop_state("--seed", "3", "--p0", "hard", "--p1", "easy")
    page.goto(url + "?p0=human&p1=easy&seed=2")
    wait_debug(page, "d.screen === 'game'")
    page.tap_key("KeyZ")
    d = wait_debug(page, "d.events.length >= 2")
    assert d["events"][0][1:] == [0, "A", 1]


def test_the_site_page_opened_from_a_file_points_to_spit_html(site, page):
    page.goto((site["dir"] / "index.html").as_uri())
    msg = page.evaluate("document.getElementById('message').textContent")
    assert "open spit.html" in msg and "make web-serve" in msg


def test_a_cpu_game_animates_and_the_page_measures_itself(site, page):
    page.goto(site["url"] + "?p0=hard&p1=hard&seed=7&stats=1")
    page.wait_for("window.spit.stats().frames >= 45", timeout=30)
    s = page.evaluate("window.spit.stats()")
    # Measured, not judged here (`make bench-web` prints the table): only that the
    # animation loop runs, calls Python each frame and times it.
    assert s["fps"] > 0 and s["stepMeanMs"] > 0 and s["loadMs"] > 0
    d = debug(page)
    assert d["steps"] >= 45 and d["seats"] == ["hard", "hard"]
    assert page.evaluate("document.getElementById('seat1').textContent") == "CPU HARD"
    print("browser: %.1f fps, step %.3f ms, load %.0f ms" % (
        s["fps"], s["stepMeanMs"], s["loadMs"]))
