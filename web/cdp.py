"""A small driver for headless Chromium over the DevTools protocol, for the browser
tests and `make bench-web`. Standard library only: Chromium is started with
``--remote-debugging-pipe`` and speaks NUL-separated JSON on its file descriptors 3
(commands in) and 4 (replies and events out), so no WebSocket client is needed.

    with Chromium() as browser:
        page = browser.new_page("http://127.0.0.1:8000/?seed=3&p0=hard&p1=easy&fast=1")
        page.wait_for("document.getElementById('state').textContent", timeout=30)

Every wait has a wall-time limit and raises ``CdpTimeout`` when it runs out; the
browser is killed on close if it does not quit by itself.
"""

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--autoplay-policy=no-user-gesture-required", "--remote-debugging-pipe")


class CdpError(Exception):
    pass


class CdpTimeout(CdpError):
    pass


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def cut(text, n=300):
    """The interpreter's Emscripten assertions make very long error lines."""
    text = str(text)
    return text if len(text) <= n else text[:n] + " [... %d more characters]" % (len(text) - n)


class Chromium:
    def __init__(self, exe=None, args=(), window=(900, 800)):
        self.exe = exe or find_chromium()
        if not self.exe:
            raise CdpError("chromium not found (make test installs Debian's chromium)")
        self.profile = tempfile.mkdtemp(prefix="spit-chromium-")
        self._next = 0
        self._lock = threading.Lock()
        self._replies = {}
        self._cond = threading.Condition()
        self.events = queue.Queue()
        self.console = []           # (session, level, text) of console messages and errors
        r_cmd, w_cmd = os.pipe()
        r_out, w_out = os.pipe()
        # Chromium wants the pipes as fds 3 and 4: move ours out of the way first.
        r_cmd_hi = _dup_high(r_cmd)
        w_out_hi = _dup_high(w_out)

        def child_fds():
            os.dup2(r_cmd_hi, 3)
            os.dup2(w_out_hi, 4)

        cmd = [self.exe] + list(FLAGS) + ["--user-data-dir=" + self.profile,
                                          "--window-size=%d,%d" % window] + list(args) + [
            "about:blank"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, preexec_fn=child_fds,
                                     pass_fds=(3, 4))
        for fd in (r_cmd, w_out, r_cmd_hi, w_out_hi):
            os.close(fd)
        self._w = os.fdopen(w_cmd, "wb", buffering=0)
        self._r = os.fdopen(r_out, "rb", buffering=0)
        self._stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.send("Target.setDiscoverTargets", {"discover": False}, timeout=30)

    # -- the wire
    def _drain_stderr(self):
        for line in self.proc.stderr:
            self._stderr.append(line.decode("utf-8", "replace").rstrip())
            if len(self._stderr) > 200:
                del self._stderr[:100]

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = self._r.read(65536)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                with self._cond:
                    self._replies[None] = "closed"
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw.decode("utf-8"))
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                else:
                    self._event(msg)

    def _event(self, msg):
        method = msg.get("method")
        p = msg.get("params", {})
        sid = msg.get("sessionId")
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            self.console.append((sid, p.get("type"), cut(text)))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            text = d.get("exception", {}).get("description") or d.get("text", "")
            self.console.append((sid, "exception", cut(text)))
        self.events.put(msg)

    def send(self, method, params=None, session=None, timeout=30):
        with self._lock:
            self._next += 1
            mid = self._next
            msg = {"id": mid, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = session
            self._w.write(json.dumps(msg).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while mid not in self._replies:
                if None in self._replies:
                    raise CdpError("chromium went away during %s; stderr: %s" % (
                        method, cut(" | ".join(self._stderr[-5:]))))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CdpTimeout("%s: no reply in %.0f s" % (method, timeout))
                self._cond.wait(left)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise CdpError("%s: %s" % (method, cut(reply["error"].get("message"))))
        return reply.get("result", {})

    # -- pages
    def new_page(self, url="about:blank", width=900, height=800):
        tid = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        sid = self.send("Target.attachToTarget", {"targetId": tid, "flatten": True})["sessionId"]
        page = Page(self, tid, sid)
        page.send("Runtime.enable")
        page.send("Page.enable")
        page.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        if url != "about:blank":
            page.goto(url)
        return page

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("Browser.close", timeout=5)
            except CdpError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for f in (self._w, self._r):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _dup_high(fd):
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, 10)


class Page:
    def __init__(self, browser, target, session):
        self.browser = browser
        self.target = target
        self.session = session

    def send(self, method, params=None, timeout=30):
        return self.browser.send(method, params, self.session, timeout)

    READY = ("window.spit !== undefined || (document.getElementById('message') !== null"
             " && !document.getElementById('message').hidden)")

    def goto(self, url, ready=READY, timeout=30):
        """Load url and wait until the new document exists and `ready` is true (the
        game has started, or shown an error)."""
        try:
            self.evaluate("window.__leaving = true")
        except CdpError:
            pass
        self.send("Page.navigate", {"url": url})
        self.wait_for("(() => { try { return window.__leaving === undefined && "
                      "document.readyState !== 'loading' && (%s); } catch (e) { return false; }"
                      " })()" % (ready or "true"), timeout)

    def reload(self, **kw):
        self.goto(self.evaluate("location.href"), **kw)

    def evaluate(self, expr, timeout=30):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CdpError("evaluate %s: %s" % (cut(expr, 80), cut(
                d.get("exception", {}).get("description") or d.get("text"))))
        return r.get("result", {}).get("value")

    def wait_for(self, expr, timeout=30, interval=0.02):
        """Poll a JavaScript expression until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                v = self.evaluate(expr)
            except CdpError as e:
                if "Cannot find context" not in str(e) and "context" not in str(e):
                    raise
                v = None
            if v:
                return v
            if time.monotonic() > deadline:
                raise CdpTimeout("waited %.0f s for %s" % (timeout, cut(expr, 120)))
            time.sleep(interval)

    def key(self, code, down=True, repeat=False, key=None):
        """A physical key by its e.code ('KeyZ', 'Escape')."""
        key = key or (code[3:].lower() if code.startswith("Key") else code)
        vk = ord(key.upper()) if len(key) == 1 else {"Escape": 27}.get(code, 0)
        params = {"type": "keyDown" if down else "keyUp", "code": code, "key": key,
                  "windowsVirtualKeyCode": vk, "autoRepeat": bool(repeat)}
        if down and len(key) == 1:
            params["text"] = key
        self.send("Input.dispatchKeyEvent", params)

    def tap_key(self, code):
        self.key(code, True)
        self.key(code, False)

    def mouse(self, kind, x, y):
        """kind: 'mousePressed', 'mouseReleased' or 'mouseMoved' at page pixels."""
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                               "button": "left" if kind != "mouseMoved" else "none",
                                               "clickCount": 1})

    def touch(self, kind, points):
        """kind: 'touchStart', 'touchEnd', ...; points: [(x, y, id), ...]."""
        self.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
            {"x": x, "y": y, "id": i} for x, y, i in points]})

    def centre(self, selector):
        r = self.evaluate("(() => { const r = document.querySelector(%s)"
                          ".getBoundingClientRect(); return [r.left + r.width / 2, "
                          "r.top + r.height / 2]; })()" % json.dumps(selector))
        return r[0], r[1]

    def screenshot(self, path):
        import base64
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def errors(self):
        return [t for s, level, t in self.browser.console
                if s == self.session and level in ("error", "exception")]

    def close(self):
        try:
            self.browser.send("Target.closeTarget", {"targetId": self.target}, timeout=10)
        except CdpError:
            pass
