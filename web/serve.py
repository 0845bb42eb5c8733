#!/usr/bin/env python3
"""`make web-serve`: serve the browser build (build/web/) on this machine only.

    python web/serve.py [--port 8000] [--dir build/web]

Binds 127.0.0.1 (nothing outside this computer can reach it). Sends the headers that
make the page cross-origin isolated, which gives performance.now() its finer
resolution (the stats line, `make bench-web`), and no-cache so a rebuilt page is
picked up on reload. Ctrl-C stops it.
"""

import argparse
import functools
import http.server
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
         ".json": "application/json", ".html": "text/html; charset=utf-8",
         ".css": "text/css", ".txt": "text/plain; charset=utf-8"}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES)
    quiet = False

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):
        if not self.quiet:
            super().log_message(fmt, *args)


def make_server(directory, port=0, quiet=False):
    """A threading HTTP server for `directory` on 127.0.0.1 (port 0: any free one)."""
    handler = functools.partial(type("H", (Handler,), {"quiet": quiet}), directory=directory)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Serve the browser build on 127.0.0.1.")
    ap.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "web"),
                    help="folder to serve (default build/web)")
    args = ap.parse_args(argv)
    if not os.path.exists(os.path.join(args.dir, "index.html")):
        print("web/serve.py: error: %s has no index.html: run `make web` first" % args.dir,
              file=sys.stderr)
        return 2
    try:
        srv = make_server(args.dir, args.port)
    except OSError as e:
        print("web/serve.py: error: cannot listen on 127.0.0.1:%d (%s); try "
              "`make web-serve WEB_PORT=%d`" % (args.port, e.strerror or e, args.port + 1),
              file=sys.stderr)
        return 2
    port = srv.server_address[1]
    print("Spit handheld: http://127.0.0.1:%d/  (one file: http://127.0.0.1:%d/spit.html; "
          "Ctrl-C stops)" % (port, port), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped.")
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
