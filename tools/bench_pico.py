"""Figures measured on the emulated Pico, in guest time (``make bench-pico``).

    python tools/bench_pico.py [--firmware PATH] [--trials N] [--play-s S] [--no-sim]

The firmware's own parts run on the real MicroPython rp2 image on rp2040js; the host
drives the button pins at exact guest times (tools/pico_bench_device.py is the board's
side). Prints tables and writes build/pico-bench.json:

- races: presses of P0 and P1 injected g µs apart (both players first, both pin maps:
  the reference wiring and one with the players' pins swapped), decided by the
  firmware's ButtonCapture and the rules core's Arbiter; misordered_over_us;
- irq_latency_us: from the edge to the stamp the hard IRQ wrote (isolated presses of
  the race trials, and presses during play);
- frame_ms: app.step with the display transfer, during play (P0 pressed by the host,
  P1 the hard CPU); press_to_pixels_ms: from a press's edge to the end of the I2C
  transfer that shows its result; peak_heap (live, after gc.collect); gc_pause_ms;
  save_ms (the storage port's atomic save, flash erase stalls included);
- pico_sim: the last line of tools/pico_sim.py (a whole game; skipped by --no-sim).
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop_emulator import devicefiles  # noqa: E402
from desktop_emulator.pico.device import Pico, US, MS, S  # noqa: E402
from desktop_emulator.pico.image import find_firmware  # noqa: E402
from firmware.boards import pico as board  # noqa: E402
from shared_rules.rng import Rng  # noqa: E402

GAPS_US = (0, 1, 2, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 200, 300, 500)
TRIAL_NS = 80 * MS
OUT = ROOT / "build" / "pico-bench.json"


def pin_maps():
    std = board.BUTTONS
    swapped = tuple((g, 1 - p, n) for g, p, n in std)     # P0 on GP14/15, P1 on GP2/3
    return (("reference", std), ("swapped", swapped))


def pct(values, q):
    if not values:
        return None
    v = sorted(values)
    k = min(len(v) - 1, max(0, int(round(q / 100.0 * (len(v) - 1)))))
    return v[k]


def summary(values, keys=("p50", "p99", "max"), nd=1):
    out = {}
    for k in keys:
        x = max(values) if k == "max" and values else pct(values, int(k[1:])) if values else None
        out[k] = None if x is None else round(x, nd)
    return out


def make_pico(fw, workdir):
    files = devicefiles.build(Path(workdir) / "device", driver=fw.ssd1306, main_py=None)
    extra = {"pico_bench_device.py": (ROOT / "tools" / "pico_bench_device.py").read_bytes()}
    pico = Pico(fw, files=files, extra=extra, buttons=[g for g, _p, _n in board.BUTTONS])
    pico.boot()
    pico.run_for(50_000)
    pico.interrupt()
    pico.enter_raw()
    return pico


def lines_until(pico, done=b"DONE", guest_s=600, wall_s=3600):
    """Run the board until it prints `done`; yield its lines as they come."""
    end = pico.t_ns + guest_s * S
    wall_end = time.monotonic() + wall_s
    buf = b""
    while True:
        got = pico.drain_serial()
        buf += got
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            line = line.strip(b"\r\x04")
            if line.startswith(b"Traceback") or b"Error" in line[:40]:
                rest = buf + pico.drain_serial()
                raise SystemExit("bench: the board raised: %s %s" % (
                    line.decode(errors="replace"), rest.decode(errors="replace")[:400]))
            yield line.decode(errors="replace")
            if line.startswith(done):
                return
        if pico.t_ns > end or time.monotonic() > wall_end:
            raise SystemExit("bench: no %r from the board in time" % done)
        pico.run_to(min(end, pico.t_ns + 200 * MS), wall_s=max(1.0, wall_end - time.monotonic()),
                    stop_on_serial=True)


def run_races(pico, trials_per):
    """-> (races table rows, latencies of first presses in µs, tie win counts)."""
    rows = {}
    latencies = []
    tie_wins = [0, 0]
    for map_name, pins in pin_maps():
        gpio_b = {p: g for g, p, n in pins if n == "B"}
        specs = []
        for gap in GAPS_US:
            for first in (0, 1):
                for _ in range(trials_per if gap else trials_per * 4):
                    specs.append((gap, first))
        pico.exec_start("import pico_bench_device as b\nb.races(%r, %d)\n" % (pins, len(specs)))
        lines = lines_until(pico, b"READY")
        for _ in lines:
            pass
        t0 = pico.t_ns + 20 * MS
        edges = []
        plan = []
        for k, (gap, first) in enumerate(specs):
            base = t0 + k * TRIAL_NS
            a, b = gpio_b[first], gpio_b[1 - first]
            edges += [(base, a, 0), (base + gap * US, b, 0),
                      (base + 30 * MS, a, 1), (base + 30 * MS, b, 1)]
            plan.append((base, base + gap * US))
        pico.schedule(edges)
        for line in lines_until(pico):
            if not line.startswith("R "):
                continue
            _r, k, winner, _why, s0, s1 = line.split()
            k, winner = int(k), int(winner)
            gap, first = specs[k]
            stamps = (int(s0), int(s1)) if s0 != "None" and s1 != "None" else None
            row = rows.setdefault((gap, map_name, first), {"n": 0, "earlier_won": 0, "ties": 0,
                                                          "lost": 0})
            row["n"] += 1
            if stamps is None or winner < 0:
                row["lost"] += 1
                continue
            e_first = plan[k][0]
            lat = (stamps[first] - pico.ticks_us(e_first)) % (1 << 30) - (e_first % US) / 1000.0
            latencies.append(lat)
            if stamps[0] == stamps[1]:          # one stamp: a tie, R21 decides
                row["ties"] += 1
                if gap == 0:
                    tie_wins[winner] += 1
            elif winner == first:
                row["earlier_won"] += 1
        pico.exec_finish(guest_ms=5000)
    return rows, latencies, tie_wins


def run_play(pico, seconds, seed):
    """P0's buttons pressed by the host at seeded random moments during a game against
    the hard CPU; -> the figures of the play session."""
    pico.keep_i2c = True
    pico.i2c_log.clear()
    pico.exec_start("import pico_bench_device as b\nb.play(%d, %d)\n" % (seconds, seed))
    lines = lines_until(pico, b"START")
    start_line = [x for x in lines][-1]
    start_ticks = int(start_line.split()[1])
    t0 = pico.guest_ns(start_ticks)
    rng = Rng(seed)
    edges = []
    presses = []                         # (edge ns, gpio)
    t = t0 + 400 * MS
    while t < t0 + (seconds - 1) * S:
        g = board.P0_A if rng.below(10) < 6 else board.P0_B
        t += (150 + rng.below(450)) * MS + rng.below(1000) * US
        edges += [(t, g, 0), (t + 50 * MS, g, 1)]
        presses.append((t, g))
    pico.schedule(edges)
    frames = []                          # (start, end, screen, [press stamps])
    saves = []
    gcs = []
    for line in lines_until(pico, b"DONE", guest_s=seconds + 60):
        f = line.split()
        if f[0] == "F":
            frames.append((int(f[1]), int(f[2]), int(f[3]), []))
        elif f[0] == "E" and frames:
            frames[-1][3].append((int(f[1]), int(f[2]), f[3]))
        elif f[0] == "S":
            saves.append((int(f[2]) - int(f[1])) % (1 << 30) / 1000.0)
        elif f[0] == "G":
            gcs.append((int(f[1]) / 1000.0, int(f[2])))
    pico.exec_finish(guest_ms=5000)
    play_frames = [(b - a) % (1 << 30) / 1000.0 for a, b, scr, _e in frames if scr == 1]
    # What a frame's time goes to: the bytes it sent to the panel (bus time) or Python.
    sent = sorted((t0, t1, len(data)) for t0, t1, addr, data, ok in pico.i2c_log)
    by_bytes = {}
    for a, b, scr, _e in frames:
        if scr != 1:
            continue
        a_ns, b_ns = pico.guest_ns(a), pico.guest_ns(b)
        n = 0
        bus = 0
        for t0, t1, size in sent:
            if a_ns <= t0 and t1 <= b_ns + 1000:
                n += size
                bus += t1 - t0
        key = "0" if n == 0 else "1-256" if n <= 256 else "257-512" if n <= 512 else "513+"
        by_bytes.setdefault(key, []).append(((b - a) % (1 << 30) / 1000.0, bus / 1e6))
    # Edge -> stamp, and edge -> end of the I2C transfer of the frame that shows the result.
    ends = sorted(t1 for _t0, t1, addr, data, ok in pico.i2c_log if data[:1] == b"\x40")
    latency = []
    to_pixels = []
    k = 0
    for edge_ns, gpio in presses:
        edge_ticks = pico.ticks_us(edge_ns)
        for i, (fs, fe, _scr, evs) in enumerate(frames):
            hit = [e for e in evs if e[1] == 0 and abs(((e[0] - edge_ticks + (1 << 29)) % (1 << 30))
                                                          - (1 << 29)) < 5000]
            if not hit:
                continue
            stamp = hit[0][0]
            latency.append(((stamp - edge_ticks) % (1 << 30)) - (edge_ns % US) / 1000.0)
            shown = i
            if gpio == board.P0_B:      # a play is decided WINDOW_US after its touch
                while shown < len(frames) and ((frames[shown][0] - stamp) % (1 << 30)) < 2000:
                    shown += 1
            if shown < len(frames) and frames[shown][2] == 1:     # shown on the game screen
                end_ns = _frame_end_ns(pico, frames[shown][1], ends)
                if end_ns is not None:
                    to_pixels.append((end_ns - edge_ns) / 1e6)
            k += 1
            break
    return {
        "frame_ms": summary(play_frames),
        "frame_ms_by_bytes_sent": {k: {"frames": len(v), "frame": summary([x for x, _b in v]),
                                       "bus": summary([b for _x, b in v])}
                                   for k, v in sorted(by_bytes.items())},
        "press_latency_us": summary(latency),
        "press_to_pixels_ms": summary(to_pixels, ("p50", "p99", "max")),
        "peak_heap": max(a for _p, a in gcs) if gcs else None,
        "gc_pause_ms": summary([p for p, _a in gcs], ("p50", "max"), 2),
        "save_ms": summary(saves, ("p50", "max")),
        "frames": len(frames),
        "play_frames": len(play_frames),
        "presses": len(presses),
        "presses_seen": k,
        "saves": len(saves),
    }


def _frame_end_ns(pico, end_ticks, ends):
    """Guest ns of the last pixel transfer that ended by the frame's end (its picture)."""
    # ticks -> ns: the frame ended within the last 2**29 µs
    now_ticks = pico.ticks_us()
    end_ns = (pico.t_ns // US - ((now_ticks - end_ticks) % (1 << 30)) + 1) * US
    best = None
    for t in ends:
        if t <= end_ns:
            best = t
        else:
            break
    return best


def run_sim(args):
    import subprocess
    cmd = [sys.executable, str(ROOT / "tools" / "pico_sim.py")]
    if args.firmware:
        cmd += ["--firmware", args.firmware]
    p = subprocess.run(cmd, capture_output=True, text=True)
    lines = [x for x in p.stdout.splitlines() if x.startswith("pico: ")]
    if p.returncode != 0 or not lines:
        return "pico-sim failed: %s" % (p.stderr.strip().splitlines() or ["?"])[-1]
    return lines[-1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--firmware")
    ap.add_argument("--trials", type=int, default=6, help="races per gap, pin map and order")
    ap.add_argument("--play-s", type=int, default=45)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-sim", action="store_true", help="skip the whole-game pico-sim")
    args = ap.parse_args(argv)
    fw = find_firmware(args.firmware)
    import tempfile
    wall0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        pico = make_pico(fw, tmp)
        try:
            rows, race_lat, tie_wins = run_races(pico, args.trials)
            play = run_play(pico, args.play_s, args.seed)
        finally:
            pico.close()
    races = []
    by_gap = {}
    for (gap, map_name, first), r in sorted(rows.items()):
        races.append({"gap_us": gap, "pins": map_name, "first": first, "n": r["n"],
                      "earlier_won": r["earlier_won"], "ties": r["ties"], "lost": r["lost"]})
        g = by_gap.setdefault(gap, {"gap_us": gap, "n": 0, "earlier_won": 0, "ties": 0})
        g["n"] += r["n"]
        g["earlier_won"] += r["earlier_won"]
        g["ties"] += r["ties"]
    # The smallest gap at and above which no race was won by the later press (a tie,
    # decided by R21's alternating priority, is not a misorder).
    over = None
    for gap in sorted((g for g in by_gap if g > 0), reverse=True):
        g = by_gap[gap]
        if g["n"] - g["earlier_won"] - g["ties"] > 0:
            break
        over = gap
    result = {
        "races": sorted(by_gap.values(), key=lambda g: g["gap_us"]),
        "races_detail": races,
        "misordered_over_us": over,
        "tie_wins": {"p0": tie_wins[0], "p1": tie_wins[1]},
        "irq_latency_us": summary(race_lat),
        "irq_latency_in_play_us": play.pop("press_latency_us"),
    }
    result.update(play)
    if not args.no_sim:
        result["pico_sim"] = run_sim(args)
    result["wall_s"] = round(time.monotonic() - wall0, 1)
    old = {}
    if OUT.exists():
        try:
            old = json.loads(OUT.read_text())
        except ValueError:
            old = {}
    old.update(result)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(old, indent=1, sort_keys=True))
    print_tables(result)
    print("wrote %s" % OUT.relative_to(ROOT))


def print_tables(r):
    print("Races on the emulated Pico (GPIO-IRQ capture + arbiter), both players first, "
          "both pin maps")
    print("| gap µs | races | earlier won | ties | misordered |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for g in r["races"]:
        mis = g["n"] - g["earlier_won"] - g["ties"]
        print("| %d | %d | %d | %d | %d |" % (g["gap_us"], g["n"], g["earlier_won"], g["ties"],
                                             mis if g["gap_us"] else 0))
    print("misordered_over_us: %s   same-instant ties won: P0 %d, P1 %d" % (
        r["misordered_over_us"], r["tie_wins"]["p0"], r["tie_wins"]["p1"]))
    print()
    print("| measure | p50 | p99 | max |")
    print("| --- | ---: | ---: | ---: |")
    for key, unit in (("irq_latency_us", "µs"), ("irq_latency_in_play_us", "µs"),
                      ("frame_ms", "ms"), ("press_to_pixels_ms", "ms")):
        v = r[key]
        print("| %s (%s) | %s | %s | %s |" % (key, unit, v.get("p50"), v.get("p99"), v.get("max")))
    print("| gc_pause_ms | %s | | %s |" % (r["gc_pause_ms"]["p50"], r["gc_pause_ms"]["max"]))
    for k, v in r["frame_ms_by_bytes_sent"].items():
        print("| frame_ms, %s bytes sent (%d frames; of it I2C p50 %s) | %s | %s | %s |" % (
            k, v["frames"], v["bus"]["p50"], v["frame"]["p50"], v["frame"]["p99"],
            v["frame"]["max"]))
    print("| save_ms | %s | | %s |" % (r["save_ms"]["p50"], r["save_ms"]["max"]))
    print("peak_heap: %s bytes   frames: %d (%d in play)   presses: %d (%d seen)   saves: %d"
          % (r["peak_heap"], r["frames"], r["play_frames"], r["presses"], r["presses_seen"],
             r["saves"]))
    if "pico_sim" in r:
        print(r["pico_sim"])


if __name__ == "__main__":
    main()
