"""Why a collection takes as long as it does on the chip (``make bench-gc``).

    python tools/bench_gc.py [--firmware PATH] [--out build/gc-bench.json]

MicroPython marks live objects depth first with a stack of 64 entries
(MICROPY_ALLOC_GC_STACK_SIZE on the stock rp2 build). An object with more unmarked
children than the stack has room for overflows it, and the collector then scans every
marked block of the heap once more (py/gc.c, gc_deal_with_stack_overflow): the pause
more than doubles. Two measurements on the real rp2 image, in guest time, from a fresh
REPL (nothing of the game's loop running):

- width: 60 KB of live data in narrow lists, then one list of N fresh small objects
  beside it: the pause for N around the stack's 64;
- modules: the game's modules imported one at a time (the single handheld's, then link
  play's): live heap and pause after each, so the jump, and the cost per KB without and
  with the rescan, can be read off;
- collector: that heap collected by a plain gc.collect() and by firmware/collector.py
  (the game loop's way: its chain of the modules, made, then kept).

Prints two tables and writes the figures as JSON. It measures MicroPython's collector
on our heap's shape; docs/BENCHMARKS.md says what follows for the game.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop_emulator import devicefiles                    # noqa: E402
from desktop_emulator.pico.device import Pico, DeviceError  # noqa: E402
from desktop_emulator.pico.image import find_firmware, ImageError  # noqa: E402

WIDTHS = (32, 62, 63, 64, 65, 66, 100)
# In the order the game loads them: the single handheld's, then link play's.
MODULES = (
    "shared_rules.arbiter", "shared_rules.pad", "shared_rules.match", "firmware.font",
    "firmware.view", "firmware.records", "firmware.seats", "firmware.stats",
    "firmware.table", "firmware.screens", "firmware.screens.game", "firmware.app",
    "firmware.link.frame", "firmware.link.sync", "firmware.link.link",
    "firmware.link.stream", "firmware.link.face", "firmware.link.play",
    "firmware.hw.link_uart",
)

DEVICE_CODE = """
import gc, time
def _pause():
    t = time.ticks_us()
    gc.collect()
    return time.ticks_diff(time.ticks_us(), t)
def _widths(ns):
    data = [[bytearray(1024) for _ in range(30)], [bytearray(1024) for _ in range(30)]]
    for n in ns:
        wide = [bytearray(8) for _ in range(n)]
        _pause()
        print('W', n, gc.mem_alloc(), _pause())
        wide = None
        gc.collect()
    data = None
def _modules(names):
    _pause()
    print('M', '-', gc.mem_alloc(), _pause())
    for m in names:
        __import__(m)
        _pause()
        print('M', m, gc.mem_alloc(), _pause())
def _collector():
    import firmware.collector as c
    def timed(f):
        t = time.ticks_us()
        f()
        return time.ticks_diff(time.ticks_us(), t)
    print('C', 'gc.collect()', gc.mem_alloc(), timed(gc.collect))
    print('C', 'collector,_making_its_chain', gc.mem_alloc(), timed(c.collect))
    print('C', 'collector,_its_chain_kept', gc.mem_alloc(), timed(c.collect))
"""


def measure(firmware, files, call, guest_ms=120_000, wall_s=900):
    with Pico(firmware, files=files, buttons=(2, 3, 14, 15)) as pico:
        pico.boot_to_raw()
        pico.exec(DEVICE_CODE)
        out = pico.exec(call, guest_ms=guest_ms, wall_s=wall_s)
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] in ("W", "M", "C"):
            rows.append((parts[1].replace("_", " "), int(parts[2]), int(parts[3])))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--firmware", help="a MicroPython rp2 image (default: ../shared/rp2)")
    ap.add_argument("--out", default=str(ROOT / "build" / "gc-bench.json"))
    a = ap.parse_args(argv)
    try:
        fw = find_firmware(a.firmware)
    except ImageError as e:
        print("bench_gc: %s" % e, file=sys.stderr)
        return 2
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        files = devicefiles.build(Path(tmp) / "dev", driver=fw.ssd1306, main_py=None)
        try:
            widths = measure(fw, files, "_widths(%r)" % (WIDTHS,))
            mods = measure(fw, files, "_modules(%r)" % (MODULES,))
            coll = measure(fw, files, "_modules(%r)\n_collector()" % (MODULES,))[-3:]
        except DeviceError as e:
            print("bench_gc: %s" % e, file=sys.stderr)
            return 1
    print("A list of N fresh objects beside 60 KB of live data (guest time):")
    print("| N | live KB | gc pause ms |")
    print("| ---: | ---: | ---: |")
    for n, live, us in widths:
        print("| %s | %.1f | %.2f |" % (n, live / 1024, us / 1000))
    print()
    print("The game's modules imported one at a time (guest time):")
    print("| module | live KB | gc pause ms | ms per live KB |")
    print("| --- | ---: | ---: | ---: |")
    for name, live, us in mods:
        print("| %s | %.1f | %.2f | %.3f |" % (name, live / 1024, us / 1000,
                                               us / 1000 / (live / 1024)))
    print()
    print("The same heap (all of them loaded), collected plainly and by firmware/collector.py:")
    print("| how | live KB | pause ms |")
    print("| --- | ---: | ---: |")
    for how, live, us in coll:
        print("| %s | %.1f | %.2f |" % (how, live / 1024, us / 1000))
    out = {"widths": [{"n": int(n), "live": live, "gc_us": us} for n, live, us in widths],
           "modules": [{"module": name, "live": live, "gc_us": us} for name, live, us in mods],
           "collector": [{"how": how, "live": live, "gc_us": us} for how, live, us in coll],
           "wall_s": round(time.time() - t0, 1)}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
    print("\nwrote %s (%.0f s)" % (a.out, out["wall_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
