"""Shared by the browser build's tests: the web folder on sys.path, a fake page bridge,
the desktop emulator's state line, one build of the site per test run, the site served
on loopback, and a headless Chromium."""
import atexit
import contextlib
import importlib.util
import io
import shutil
import sys
import tempfile
import threading

import pytest

from tests.helpers import ROOT

WEB = ROOT / "web"
if str(WEB) not in sys.path:
    sys.path.insert(0, str(WEB))


def load_build_module():
    spec = importlib.util.spec_from_file_location("spit_web_build", WEB / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_SITE = {}


def built_site():
    """build/web's contents, built once per test run into a temporary folder from the
    sources as they are now (so the tests never test a stale build)."""
    if "dir" not in _SITE:
        d = tempfile.mkdtemp(prefix="spit-web-test-")
        atexit.register(shutil.rmtree, d, True)
        info = load_build_module().build(d)
        _SITE["dir"] = d
        _SITE["info"] = info
    return _SITE["dir"], _SITE["info"]


def desktop_run(*args):
    """`python -m desktop_emulator ARGS` in this process: (exit status, output lines)."""
    from desktop_emulator import cli
    out = io.StringIO()
    code = cli.main(list(args), stdout=out)
    return code, out.getvalue().splitlines()


def desktop_state(*args):
    code, lines = desktop_run(*(list(args) + ["--headless", "--print-state"]))
    assert code == 0, lines
    assert lines[-1].startswith("state "), lines
    return lines[-1]


class FakeBridge:
    """What spit.js hands Python, in memory: localStorage is a dict."""

    def __init__(self, store=None, storage_ok=True, writable=True):
        self.store = {} if store is None else store
        self.storage_ok = storage_ok
        self.writable = writable
        self.failed = []
        self.statuses = []
        self.finished_lines = []
        self.names_shown = None
        self.tones = []

    def fail(self, text):
        self.failed.append(text)

    def status(self, text):
        self.statuses.append(text)

    def finished(self, summary, line):
        self.finished_lines.append((summary, line))

    def names(self, a, b):
        self.names_shown = (a, b)

    def tone(self, text):
        self.tones.append(text)

    def store_ok(self):
        return self.storage_ok

    def store_get(self, key):
        return self.store.get(key)

    def store_set(self, key, value):
        if not self.writable:
            return False
        self.store[key] = value
        return True

    def store_remove(self, key):
        self.store.pop(key, None)

    def random_seed(self):
        return 12345


@contextlib.contextmanager
def serving(directory):
    """web/serve.py serving `directory` on a free loopback port in a thread -> the
    server; it is shut down on leaving (a test never leaves a port open)."""
    import serve
    srv = serve.make_server(str(directory), 0, quiet=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


def site_url(srv):
    return "http://127.0.0.1:%d/" % srv.server_address[1]


def chromium():
    """A headless Chromium over the DevTools protocol; without one the test fails
    (`make test` installs Debian's package), it never skips."""
    import cdp
    if cdp.find_chromium() is None:
        pytest.fail("chromium is not installed: `make test` installs Debian's package")
    return cdp.Chromium()


#: Run in a page before a download: anchors record what they would save instead of
#: opening the browser's save dialog (window.__downloads: {name, href}).
CAPTURE_DOWNLOADS = """(() => { window.__downloads = [];
  HTMLAnchorElement.prototype.click = function () {
    window.__downloads.push({ name: this.download, href: this.href }); }; })()"""
