#!/usr/bin/env python3
"""`make web-serve`: serve the browser build (build/web/) on this machine only, or,
when asked, to a classroom's tablets.

    python web/serve.py [--port 8000] [--dir build/web]
    python web/serve.py --lan          # every device on this network (make web-serve LAN=1)
    python web/serve.py --host ADDR    # one address of this computer

Binds 127.0.0.1 by default (nothing outside this computer can reach it). Only --lan
(0.0.0.0) or --host opens it to other devices: it then prints a warning and the
addresses the tablets type in. Sends the headers that
make the page cross-origin isolated, which gives performance.now() its finer
resolution (the stats line, `make bench-web`), and no-cache so a rebuilt page is
picked up on reload. Ctrl-C stops it.
"""

import argparse
import functools
import http.server
import os
import socket
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


LOOPBACK = "127.0.0.1"
EVERYWHERE = "0.0.0.0"


def make_server(directory, port=0, quiet=False, host=LOOPBACK):
    """A threading HTTP server for `directory` on `host` (port 0: any free one)."""
    handler = functools.partial(type("H", (Handler,), {"quiet": quiet}), directory=directory)
    return http.server.ThreadingHTTPServer((host, port), handler)


def lan_addresses():
    """This computer's IPv4 addresses other than loopback, as the tablets reach it.
    A UDP socket "connected" to an outside address names the interface of the default
    route without sending anything; the host name's addresses cover a classroom
    network with no route out."""
    found = []
    for probe in ("192.0.2.1", "10.255.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sk:
                sk.connect((probe, 9))
                found.append(sk.getsockname()[0])
        except OSError:
            pass
    try:
        found.extend(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    out = []
    for a in found:
        if not a.startswith("127.") and a != EVERYWHERE and a not in out:
            out.append(a)
    return out


def lan_banner(host, port, addresses):
    """What --lan/--host prints before serving: the warning, then the addresses."""
    lines = ["WARNING: serving to other devices (%s:%d): anyone on this network can "
             "load the game (it sends files, never receives any). Use a classroom "
             "network you trust; Ctrl-C stops it." % (host, port)]
    if host != EVERYWHERE:
        addresses = [host]
    if not addresses:
        lines.append("No network address found: is this computer on the classroom "
                     "network? (http://127.0.0.1:%d/ works here.)" % port)
    for a in addresses:
        lines.append("Tablets open: http://%s:%d/   (one file: http://%s:%d/spit.html)"
                     % (a, port, a, port))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description="Serve the browser build on 127.0.0.1 "
                                 "(or, with --lan, to a classroom's tablets).")
    ap.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--lan", action="store_true",
                       help="serve every device on this network (0.0.0.0), with a warning")
    where.add_argument("--host", default=LOOPBACK,
                       help="the address to listen on (default 127.0.0.1: this computer)")
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "web"),
                    help="folder to serve (default build/web)")
    args = ap.parse_args(argv)
    if not os.path.exists(os.path.join(args.dir, "index.html")):
        print("web/serve.py: error: %s has no index.html: run `make web` first" % args.dir,
              file=sys.stderr)
        return 2
    host = EVERYWHERE if args.lan else args.host
    try:
        srv = make_server(args.dir, args.port, host=host)
    except (OSError, OverflowError) as e:
        print("web/serve.py: error: cannot listen on %s:%d (%s); try "
              "`make web-serve WEB_PORT=%d`" % (host, args.port,
                                                getattr(e, "strerror", None) or e,
                                                args.port + 1), file=sys.stderr)
        return 2
    port = srv.server_address[1]
    if host != LOOPBACK:
        for line in lan_banner(host, port, lan_addresses()):
            print(line, flush=True)
    here = LOOPBACK if host in (LOOPBACK, EVERYWHERE) else host
    print("Spit handheld: http://%s:%d/  (one file: http://%s:%d/spit.html; "
          "Ctrl-C stops)" % (here, port, here, port), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped.")
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
