"""Whole games of the real firmware on the emulated Pico (``make pico-sim``).

    python tools/pico_sim.py [--firmware PATH] [--seed N | --seeds 1-5,9] [--p0 LEVEL]
                             [--p1 LEVEL] [--points] [--minutes M] [--heap-every N]

The deployed files boot on the emulated RP2040 (MicroPython's rp2 image); the game is
started through the raw REPL with ``firmware.main.run(start=...)``: the real main loop,
the real SSD1306 over I2C, the real buttons' IRQs (idle: both seats are CPU players),
the buzzer and saves to flash. A probe takes the live heap (gc.collect(), then
gc.mem_alloc()) every N frames. The game runs until the board reports its game-over
screen; then the host stops it and reads the board's recording of the game through the
raw REPL, record by record (as ``--engine pico`` does for a replay file), and checks it
is the whole game: a digest record for every round (R40). Each game prints

    pico: game over: winner=<0|1|draw> rounds=<n> frames=<n> peak_heap=<bytes> guest_s=<s>
          replay_bytes=<bytes> replay_flash=<bytes> replay_lost=<records> replay_rounds=<n>

(one line): replay_bytes is what the recording holds in the heap at the end, replay_flash
what went to flash between rounds, replay_lost the records dropped (0: kept whole) and
replay_rounds the rounds whose digest the host read back.

--seeds plays several seeds (a fresh boot each) and ends with the largest peak.
--minutes M is a soak: game after game on one boot (player 0 presses REMATCH on the
game-over screen, the rematch's seed is the board's clock) until M minutes of guest
time have passed; it ends with the heap's free bytes and its largest free block, from
``micropython.mem_info()``, after the board's own collection.
Exit status 1 if a recording was not whole.
"""

import argparse
import re
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop_emulator.display import FrameDisplay  # noqa: E402
from desktop_emulator.pico.engine import PicoMachine, CPU_CODE, button_gpios  # noqa: E402
from desktop_emulator.pico.device import DeviceError, US  # noqa: E402
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
REMATCH_AFTER_US = 2500000      # the game-over screen takes presses after 1.5 s
BLOCK = 16                      # bytes in a block of the rp2 port's heap (mem_info counts blocks)


def seed_list(text):
    """'1-5,9' -> [1, 2, 3, 4, 5, 9]; ArgumentTypeError with one line if it is not that."""
    out = []
    try:
        for part in text.split(","):
            a, dash, b = part.partition("-")
            lo = int(a)
            hi = int(b) if dash else lo
            if hi < lo:
                raise ValueError
            out.extend(range(lo, hi + 1))
    except ValueError:
        raise argparse.ArgumentTypeError("not seeds like 1-5,9: %r" % text) from None
    return out


def board_state(p):
    """The finished game on the board: frames, peak, heap bytes and flash bytes of its
    recording, lost records."""
    out = p.exec("import firmware.main as m\nr = m.app.replay.records\n"
                 "print(m.app.frames, peak[0], r.nbytes(), r.spilled(), r.lost)")
    return [int(x) for x in out.split()]


def rounds_recorded(info):
    return sum(1 for line in info["records"] if line.startswith("digest "))


def heap_free(p):
    """(free bytes, largest free block in bytes) after a collection, from mem_info()."""
    out = p.exec("import gc, micropython\ngc.collect()\nmicropython.mem_info()")
    free = re.search(r"free: (\d+)", out)
    big = re.search(r"max free sz: (\d+)", out)
    return (int(free.group(1)) if free else -1, int(big.group(1)) * BLOCK if big else -1)


def play(args, fw, seed, wall0):
    """One boot: one game, or a soak of games for --minutes. -> (exit status, peak)."""
    m = PicoMachine(fw, wall_limit_s=args.wall_limit)
    status = 0
    try:
        m.attach(FrameDisplay()).boot()
        p = m.pico
        p.interrupt()
        p.enter_raw(soft_reset=True)
        p.exec(PROBE % max(1, args.heap_every))
        start = {"seed": seed, "points": int(args.points), "flip": 0,
                 "cpu": [CPU_CODE[args.p0], CPU_CODE[args.p1]]}
        m.app.cpu = start["cpu"]
        p.exec_start("import firmware.main as m\nm.run(start=%r, probe=probe)\n" % (start,))
        t0 = p.t_ns
        soak_ns = int(args.minutes * 60e9) if args.minutes else 0
        rounds_seen = 0
        games = 0
        b0 = button_gpios(m.buttons)[(0, "B")]
        while True:
            while not m.reached("over"):
                m.run_guest(1_000_000)
                g = m.app.game
                # (on the rematch screen the board still reports the last game's round)
                if g is not None and g.round != rounds_seen and m.app.screen == "game":
                    rounds_seen = g.round
                    print("pico-sim: round %d at %.1f s guest, %.0f s wall" % (
                        g.round, (p.t_ns - t0) / 1e9, time.monotonic() - wall0), flush=True)
            games += 1
            if not soak_ns or p.t_ns - t0 >= soak_ns:
                break
            print("pico-sim: game %d over at %.1f s guest (round %d): rematch" % (
                games, (p.t_ns - t0) / 1e9, rounds_seen), flush=True)
            rounds_seen = 0
            p.press(b0, at_ns=p.t_ns + REMATCH_AFTER_US * US)
            while m.reached("over"):
                m.run_guest(500_000)
        guest_s = (p.t_ns - t0) / 1e9
        info = m.finish()
        snap = info["snap"]
        frames, peak, replay_bytes, replay_flash, replay_lost = board_state(p)
        got = rounds_recorded(info)
        free, largest = heap_free(p) if soak_ns else (None, None)
    except (DeviceError, ImageError) as e:
        print("pico-sim: %s" % e, file=sys.stderr)
        return 1, 0
    finally:
        m.close()
    w = snap["winner"]
    print("pico: game over: winner=%s rounds=%d frames=%d peak_heap=%d guest_s=%.1f "
          "replay_bytes=%d replay_flash=%d replay_lost=%d replay_rounds=%d" % (
              "draw" if w is None else w, snap["round"], frames, peak, guest_s,
              replay_bytes, replay_flash, replay_lost, got), flush=True)
    if replay_lost or got != snap["round"]:
        print("pico-sim: the board's recording of the game is not whole", file=sys.stderr)
        status = 1
    if soak_ns:
        print("pico: soak: games=%d guest_min=%.1f heap_free=%d largest_free_block=%d" % (
            games, guest_s / 60, free, largest), flush=True)
    return status, peak


def main(argv=None):
    # A `timeout` or a Ctrl-C ends the run through the finally blocks, which stop the
    # emulator's process rather than leave it running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--firmware")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=seed_list, metavar="LIST",
                    help="several seeds, e.g. 1-5,9 (a game each)")
    ap.add_argument("--p0", default="hard", choices=("easy", "normal", "hard"))
    ap.add_argument("--p1", default="normal", choices=("easy", "normal", "hard"))
    ap.add_argument("--points", action="store_true")
    ap.add_argument("--minutes", type=float, default=0.0, metavar="M",
                    help="soak: rematch after every game until M minutes of guest time")
    ap.add_argument("--heap-every", type=int, default=1, metavar="N")
    ap.add_argument("--wall-limit", type=float, default=3600.0, metavar="S")
    args = ap.parse_args(argv)
    if args.minutes < 0:
        ap.error("--minutes must be 0 or more")
    try:
        fw = find_firmware(args.firmware)
    except ImageError as e:
        print("pico-sim: %s" % e, file=sys.stderr)
        return 2
    wall0 = time.monotonic()
    seeds = args.seeds or [args.seed]
    worst = 0
    peaks = []
    for seed in seeds:
        if len(seeds) > 1:
            print("pico-sim: seed %d" % seed, flush=True)
        status, peak = play(args, fw, seed, wall0)
        worst = max(worst, status)
        peaks.append(peak)
    if len(seeds) > 1:
        print("pico: seeds=%d peak_heap max=%d min=%d" % (len(seeds), max(peaks), min(peaks)))
    print("pico-sim: %.0f s of wall time" % (time.monotonic() - wall0), file=sys.stderr)
    return worst


if __name__ == "__main__":
    sys.exit(main())
