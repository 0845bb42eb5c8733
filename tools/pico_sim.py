"""One whole game of the real firmware on the emulated Pico (``make pico-sim``).

    python tools/pico_sim.py [--firmware PATH] [--seed N] [--p0 LEVEL] [--p1 LEVEL]
                             [--points] [--heap-every N]

The deployed files boot on the emulated RP2040 (MicroPython's rp2 image); the game is
started through the raw REPL with ``firmware.main.run(start=...)``: the real main loop,
the real SSD1306 over I2C, the real buttons' IRQs (idle: both seats are CPU players),
the buzzer and saves to flash. A probe takes the live heap (gc.collect(), then
gc.mem_alloc()) every N frames. The game runs until the board reports its game-over
screen; the last line printed is

    pico: game over: winner=<0|1|draw> rounds=<n> frames=<n> peak_heap=<bytes> guest_s=<s>
          replay_bytes=<bytes> replay_lost=<records>

(one line): replay_bytes is what the game's recording holds on the device, at most
firmware/app.py's RECORD_LIMIT; replay_lost counts the records left out past it.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop_emulator.display import FrameDisplay  # noqa: E402
from desktop_emulator.pico.engine import PicoMachine, CPU_CODE  # noqa: E402
from desktop_emulator.pico.device import DeviceError  # noqa: E402
from desktop_emulator.pico.image import find_firmware, ImageError  # noqa: E402

PROBE = """import gc
peak = [0]
def probe(app, n=[0]):
    n[0] += 1
    if n[0] %% %d == 0:
        gc.collect()
        a = gc.mem_alloc()
        if a > peak[0]:
            peak[0] = a
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--firmware")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--p0", default="hard", choices=("easy", "normal", "hard"))
    ap.add_argument("--p1", default="normal", choices=("easy", "normal", "hard"))
    ap.add_argument("--points", action="store_true")
    ap.add_argument("--heap-every", type=int, default=1, metavar="N")
    ap.add_argument("--wall-limit", type=float, default=3600.0, metavar="S")
    args = ap.parse_args(argv)
    try:
        fw = find_firmware(args.firmware)
    except ImageError as e:
        print("pico-sim: %s" % e, file=sys.stderr)
        return 2
    wall0 = time.monotonic()
    m = PicoMachine(fw, wall_limit_s=args.wall_limit)
    try:
        m.attach(FrameDisplay()).boot()
        p = m.pico
        p.interrupt()
        p.enter_raw(soft_reset=True)
        p.exec(PROBE % max(1, args.heap_every))
        start = {"seed": args.seed, "points": int(args.points), "flip": 0,
                 "cpu": [CPU_CODE[args.p0], CPU_CODE[args.p1]]}
        m.app.cpu = start["cpu"]
        p.exec_start("import firmware.main as m\nm.run(start=%r, probe=probe)\n" % (start,))
        t0 = p.t_ns
        rounds_seen = 0
        while not m.reached("over"):
            m.run_guest(1_000_000)
            g = m.app.game
            if g is not None and g.round != rounds_seen:
                rounds_seen = g.round
                print("pico-sim: round %d at %.1f s guest, %.0f s wall" % (
                    g.round, (p.t_ns - t0) / 1e9, time.monotonic() - wall0), flush=True)
        guest_s = (p.t_ns - t0) / 1e9
        info = m.finish()
        snap = info["snap"]
        out = p.exec("import firmware.main as m\nr = m.app.replay.records\n"
                     "print(m.app.frames, peak[0], r.nbytes(), r.lost)")
        frames, peak, replay_bytes, replay_lost = (int(x) for x in out.split())
    except (DeviceError, ImageError) as e:
        print("pico-sim: %s" % e, file=sys.stderr)
        return 1
    finally:
        m.close()
    w = snap["winner"]
    print("pico: game over: winner=%s rounds=%d frames=%d peak_heap=%d guest_s=%.1f "
          "replay_bytes=%d replay_lost=%d" % ("draw" if w is None else w, snap["round"], frames,
                                               peak, guest_s, replay_bytes, replay_lost))
    print("pico-sim: %.0f s of wall time" % (time.monotonic() - wall0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
