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

The PIO capture (firmware/hw/buttons_pio.py) beside the GPIO-interrupt capture:
- pio_races: as races, with the PIO capture, at gaps 0, 0.1, 0.5, 1, 2, 5, 10, 20, 50 µs
  (races has those gaps too); pio_stamp_error_us: stamp minus the µs the edge fell in;
- irq_off: presses inside 20 ms windows with interrupts off (a flash erase's);
- bounce_first_touch: the first toucher's contact opens 3 µs later and closes again at
  60 µs; the other player presses cleanly at 30 µs: who wins;
- storm: 50-edge bounce storms (20 µs apart) with a clean press of the other player in
  the middle: presses, bounces, words or events lost, the clean press's stamp;
- cpu: the capture's CPU time per edge (a spin loop's lost turns) and per frame
  (drain() with its poll, nothing to report);
- pio_goals: the issue's goals for the PIO capture, met or not.
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop_emulator import devicefiles  # noqa: E402
from desktop_emulator.pico.device import Pico, DeviceError, US, MS, S  # noqa: E402
from desktop_emulator.pico.image import find_firmware  # noqa: E402
from firmware.boards import pico as board  # noqa: E402
from shared_rules.rng import Rng  # noqa: E402

GAPS_US = (0, 0.1, 0.5, 1, 2, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 200, 300, 500)
PIO_GAPS_US = (0, 0.1, 0.5, 1, 2, 5, 10, 20, 50)
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
            if line.startswith(b"Traceback") or (b"Error" in line[:40] and line[:2] != b"X "):
                pico.run_for(200_000)          # the rest of the traceback
                rest = buf + pico.drain_serial()
                raise SystemExit("bench: the board raised: %s %s" % (
                    line.decode(errors="replace"), rest.decode(errors="replace")[:1200]))
            yield line.decode(errors="replace")
            if line.startswith(done):
                return
        if pico.t_ns > end or time.monotonic() > wall_end:
            raise SystemExit("bench: no %r from the board in time" % done)
        pico.run_to(min(end, pico.t_ns + 200 * MS), wall_s=max(1.0, wall_end - time.monotonic()),
                    stop_on_serial=True)


def run_races(pico, trials_per, kind="gpio", gaps=GAPS_US, errors=None):
    """-> (races table rows, latencies of first presses in µs, tie win counts).
    errors: a list to extend with each stamp minus the µs its edge fell in."""
    rows = {}
    latencies = []
    tie_wins = [0, 0]
    for map_name, pins in pin_maps():
        gpio_b = {p: g for g, p, n in pins if n == "B"}
        specs = []
        for gap in gaps:
            for first in (0, 1):
                for _ in range(trials_per if gap else trials_per * 4):
                    specs.append((gap, first))
        pico.exec_start("import pico_bench_device as b\nb.races(%r, %d, kind=%r)\n"
                        % (pins, len(specs), kind))
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
            lat = _wrap(stamps[first] - pico.ticks_us(e_first)) - (e_first % US) / 1000.0
            latencies.append(lat)
            if errors is not None:
                for p, edge in ((first, plan[k][0]), (1 - first, plan[k][1])):
                    errors.append(_wrap(stamps[p] - pico.ticks_us(int(edge))))
            if stamps[0] == stamps[1]:          # one stamp: a tie, R21 decides
                row["ties"] += 1
                if gap == 0:
                    tie_wins[winner] += 1
            elif winner == first:
                row["earlier_won"] += 1
        pico.exec_finish(guest_ms=5000)
    return rows, latencies, tie_wins


GAME_SCREEN = 1
FRAME_GOALS = {"frame_ms": (16, 25), "press_to_pixels_ms": (35, 50)}   # p99, max
GC_PAUSE_GOAL_MS = 5


def run_play(pico, seconds, seed):
    """P0's buttons pressed by the host at seeded random moments during a game against
    the hard CPU; -> the raw figures of the session (frames with where their time went,
    presses to pixels, the firmware's own collections)."""
    pico.keep_i2c = True
    pico.i2c_log.clear()
    try:
        pico.watch_gc()              # every collection, MicroPython's own too (no probe)
        watched = True
    except DeviceError:              # an image without its symbol table
        watched = False
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
    frames = []      # (start, end, screen, draw, show, bytes, cpu, save) ticks and µs
    drained = []     # (stamp, player, button, frame)
    gcs = []         # (frame after it, pause µs)
    failed = []      # the frame in which the heap failed the game, if it did
    done = None
    for line in lines_until(pico, b"DONE", guest_s=seconds + 120):
        f = line.split()
        if f[0] == "F":
            frames.append(tuple(int(x) for x in f[1:]))
        elif f[0] == "E":
            drained.append((int(f[1]), int(f[2]), f[3], int(f[4])))
        elif f[0] == "C":
            gcs.append((int(f[1]), int(f[2])))
        elif f[0] == "DONE":
            done = [int(x) for x in f[1:]]
        elif f[0] == "X":
            failed.append(int(f[2]))
    pico.exec_finish(guest_ms=5000)
    spans = None
    if watched:
        # The session's collections: from its start to its last frame's end.
        last = pico.guest_ns(frames[-1][1]) if frames else t0
        spans = [(a, b) for a, b, *_ in pico.gc_stats()["spans"]
                 if b is not None and t0 <= a <= last]
    in_frames = collections_in_frames(pico, frames, spans)
    sent = sorted((a, b, len(data)) for a, b, addr, data, ok in pico.i2c_log)
    pixel_ends = sorted(b for a, b, addr, data, ok in pico.i2c_log if data[:1] == b"\x40")
    rows = []
    j = 0
    for n, (fs, fe, scr, draw, show, nbytes, cpu, save) in enumerate(frames):
        gc_ms = in_frames[n] if in_frames is not None else 0.0
        a_ns, b_ns = pico.guest_ns(fs), pico.guest_ns(fe)
        while j < len(sent) and sent[j][1] < a_ns:
            j += 1
        bus = 0
        k = j
        while k < len(sent) and sent[k][0] <= b_ns:
            bus += sent[k][1] - sent[k][0]
            k += 1
        ms = (fe - fs) % (1 << 30) / 1000.0
        rows.append({"ms": ms, "screen": scr, "draw": draw / 1000.0, "show": show / 1000.0,
                     "bus": bus / 1e6, "bytes": nbytes, "cpu": cpu / 1000.0,
                     "save": save / 1000.0, "gc": gc_ms,
                     "rules": max(0.0, ms - (draw + show + cpu + save) / 1000.0 - gc_ms)})
    # Edge -> stamp, and edge -> end of the I2C transfer of the frame that shows the result.
    latency = []
    to_pixels = []
    seen = 0
    for edge_ns, gpio in presses:
        edge_ticks = pico.ticks_us(edge_ns)
        hit = [e for e in drained if e[1] == 0 and abs(_wrap(e[0] - edge_ticks)) < 5000]
        if not hit:
            continue
        seen += 1
        stamp, _p, _b, i = hit[0]
        latency.append(_wrap(stamp - edge_ticks) - (edge_ns % US) / 1000.0)
        shown = i
        if gpio == board.P0_B:      # a play is decided WINDOW_US after its touch
            while shown < len(frames) and _wrap(frames[shown][0] - stamp) < 2000:
                shown += 1
        if shown < len(frames) and frames[shown][2] == GAME_SCREEN:
            end_ns = _frame_end_ns(pico, frames[shown][1], pixel_ends)
            if end_ns is not None:
                to_pixels.append((end_ns - edge_ns) / 1e6)
    return {"seed": seed, "rows": rows, "latency": latency, "to_pixels": to_pixels,
            "gc_us": [us for _f, us in gcs],
            "gc_every_ms": None if spans is None else [(b - a) / 1e6 for a, b in spans],
            "presses": len(presses), "presses_seen": seen,
            "gc_runs": done[1] if done else None, "memory_error_at_frame": failed,
            "seconds": seconds}


def collections_in_frames(pico, frames, spans):
    """Per frame (start ticks, end ticks, ...): the ms of the collections (start ns, end
    ns: the emulator's watch, Pico.gc_stats) inside it. The loop collects between
    frames, so one inside a frame is MicroPython's own (an allocation that found no
    room). None if not watched."""
    if spans is None:
        return None
    out = []
    j = 0
    for f in frames:
        t0 = pico.guest_ns(f[0])
        t1 = pico.guest_ns(f[1])
        while j < len(spans) and spans[j][1] <= t0:
            j += 1
        ns = 0
        k = j
        while k < len(spans) and spans[k][0] < t1:
            ns += min(spans[k][1], t1) - max(spans[k][0], t0)
            k += 1
        out.append(ns / 1e6)
    return out


def play_figures(sessions):
    """The figures of several play sessions together (p99s over all their presses)."""
    rows = [r for s in sessions for r in s["rows"]]
    game = [r for r in rows if r["screen"] == GAME_SCREEN and r["save"] == 0]
    saving = [r for r in rows if r["save"] > 0]
    by_bytes = {}
    for r in game:
        n = r["bytes"]
        key = "0" if n == 0 else "1-128" if n <= 128 else "129-256" if n <= 256 else \
            "257-384" if n <= 384 else "385+"
        by_bytes.setdefault(key, []).append(r)
    parts = ("draw", "show", "bus", "cpu", "gc", "rules")
    out = {
        "frame_ms": summary([r["ms"] for r in game]),
        "frame_ms_all_screens": summary([r["ms"] for r in rows if r["save"] == 0]),
        "frame_parts_ms": {p: summary([r[p] for r in game], ("p50", "p99", "max"), 2)
                           for p in parts},
        "frame_bytes": summary([r["bytes"] for r in game], ("p50", "p99", "max"), 0),
        "frame_ms_by_bytes_sent": {
            k: {"frames": len(v), "frame": summary([r["ms"] for r in v]),
                "bus": summary([r["bus"] for r in v]),
                "draw": summary([r["draw"] for r in v]),
                "cpu": summary([r["cpu"] for r in v])}
            for k, v in sorted(by_bytes.items())},
        "press_latency_us": summary([x for s in sessions for x in s["latency"]]),
        "press_to_pixels_ms": summary([x for s in sessions for x in s["to_pixels"]]),
        "press_to_pixels_ms_by_seed": {str(s["seed"]): summary(s["to_pixels"])
                                       for s in sessions},
        "gc_pause_ms": summary([us / 1000.0 for s in sessions for us in s["gc_us"]],
                               ("p50", "max"), 2),
        "gc_runs": sum(len(s["gc_us"]) for s in sessions),
        # Every collection the emulator saw in play (the loop's and MicroPython's own
        # inside frames); None: the image has no symbol table to watch them by.
        "gc_pause_ms_every": None if any(s.get("gc_every_ms") is None for s in sessions)
        else summary([x for s in sessions for x in s["gc_every_ms"]], ("p50", "max"), 2),
        "gc_every_runs": None if any(s.get("gc_every_ms") is None for s in sessions)
        else sum(len(s["gc_every_ms"]) for s in sessions),
        "frames_with_a_collection": sum(1 for r in game if r["gc"] > 0),
        "save_frames_ms": summary([r["ms"] for r in saving], ("p50", "max")),
        "save_ms": summary([r["save"] for r in saving], ("p50", "max")),
        "frames": len(rows),
        "play_frames": len(game),
        "presses": sum(s["presses"] for s in sessions),
        "presses_seen": sum(s["presses_seen"] for s in sessions),
        "presses_shown": sum(len(s["to_pixels"]) for s in sessions),
        "saves": len(saving),
        "seeds": [s["seed"] for s in sessions],
        "seconds_per_seed": sessions[0]["seconds"] if sessions else None,
        "memory_errors": {str(s["seed"]): s["memory_error_at_frame"][0]
                          for s in sessions if s["memory_error_at_frame"]},
    }
    goals = {}
    for key, (p99, mx) in FRAME_GOALS.items():
        v = out[key]
        goals[key] = v["p99"] is not None and v["p99"] <= p99 and v["max"] <= mx
    # (Every collection when the emulator saw them all; else the loop's own.)
    pause = (out["gc_pause_ms_every"] or out["gc_pause_ms"])["max"]
    goals["gc_pause_ms"] = pause is not None and pause <= GC_PAUSE_GOAL_MS
    out["frame_goals"] = goals
    return out


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


def _wrap(d):
    """A ticks difference folded into [-2**29, 2**29)."""
    return (d + (1 << 29)) % (1 << 30) - (1 << 29)


def _first_after(events, player, name, ticks, within_us=40000):
    """The stamp of player's `name` press that follows an edge at `ticks` (the first
    stamped no earlier than 2 µs before it), minus `ticks`; None if none within_us."""
    best = None
    for t, p, n in events:
        if p == player and n == name:
            d = _wrap(t - ticks)
            if -2 <= d < within_us and (best is None or d < best):
                best = d
    return best


def _ticks_ns(pico, ticks):
    """Guest ns at which the board's ticks_us() read `ticks` (ticks in the future too,
    within 2**29 µs)."""
    return pico.t_ns + _wrap(ticks - pico.ticks_us()) * US - pico.t_ns % US


def run_irq_off(pico, kind, windows, seed):
    """Presses of both players inside 20 ms interrupts-off windows (0.7 µs apart, both
    orders): -> stamp errors (stamp minus the edge's µs) and how late the stamps are."""
    pico.exec_start("import pico_bench_device as b\nb.irq_off(%r, %d)\n" % (kind, windows))
    for _ in lines_until(pico, b"READY"):
        pass
    rng = Rng(seed)
    edges = []
    presses = []                                   # (edge ns, player)
    gpio = {(p, n): g for g, p, n in board.BUTTONS}
    t = pico.t_ns
    # The windows come every ~80 ms of the board's own sleeps; the host presses
    # throughout (each button every 22+ ms: its debounce) and keeps the presses that
    # fell inside a window.
    for k in range(windows * 8):
        t += 11 * MS + rng.below(2000) * US
        first = rng.below(2)
        a = t + rng.below(1000)
        b = a + 700
        name = "A" if k % 2 else "B"
        edges += [(a, gpio[(first, name)], 0), (b, gpio[(1 - first, name)], 0),
                  (a + MS, gpio[(first, name)], 1), (b + MS, gpio[(1 - first, name)], 1)]
        presses += [(a, first, name), (b, 1 - first, name)]
    pico.schedule(edges)
    wins = []
    events = []
    dropped = 0
    for line in lines_until(pico, b"DONE", guest_s=windows + 60):
        f = line.split()
        if f[0] == "W":
            wins.append((int(f[1]), int(f[2])))
        elif f[0] == "E" and f[4] == "1":
            events.append((int(f[1]), int(f[2]), f[3]))
        elif f[0] == "X":
            dropped = int(f[1])
    pico.exec_finish(guest_ms=5000)
    errs = []
    late = []
    missing = 0
    for edge_ns, player, name in presses:
        tk = pico.ticks_us(int(edge_ns))
        if not any(_wrap(tk - w0) >= 0 and _wrap(w1 - tk) > 0 for w0, w1 in wins):
            continue
        exact = (pico.timer_start_us * 1000 + edge_ns - pico.boot_ns) / 1000.0
        d = _first_after(events, player, name, tk)
        if d is None:
            missing += 1
            continue
        errs.append(d)
        late.append(errs[-1] - (exact - int(exact)))
    return {"windows": len(wins), "presses": len(errs), "missing": missing, "dropped": dropped,
            "stamp_error_us": {"min": min(errs) if errs else None, "max": max(errs) if errs else None},
            "late_us": summary(late, ("p50", "max"), 1)}


def race_plans(trials):
    """Bounce at the first touch: (edges [(µs, player, level)], first player) per trial."""
    plans = []
    for k in range(trials):
        f = k % 2
        j = 0.25 * (k % 4)
        plans.append(([(0, f, 0), (3 + j, f, 1), (60 + j, f, 0), (30 + j, 1 - f, 0),
                       (30000, f, 1), (30000, 1 - f, 1)], f))
    return plans


def run_bounce(pico, kind, trials):
    pins = board.BUTTONS
    gpio_b = {p: g for g, p, n in pins if n == "B"}
    plans = race_plans(trials)
    pico.exec_start("import pico_bench_device as b\nb.races(%r, %d, kind=%r)\n"
                    % (pins, len(plans), kind))
    for _ in lines_until(pico, b"READY"):
        pass
    t0 = pico.t_ns + 20 * MS
    edges = []
    for k, (plan, _f) in enumerate(plans):
        base = t0 + k * TRIAL_NS
        edges += [(base + dt * US, gpio_b[p], lv) for dt, p, lv in plan]
    pico.schedule(edges)
    won = ties = lost = 0
    late = []
    for line in lines_until(pico):
        if not line.startswith("R "):
            continue
        _r, k, winner, _why, s0, s1 = line.split()
        k, winner = int(k), int(winner)
        f = plans[k][1]
        if s0 == "None" or s1 == "None" or winner < 0:
            lost += 1
            continue
        st = (int(s0), int(s1))
        late.append(_wrap(st[f] - pico.ticks_us(int(t0 + k * TRIAL_NS))))
        if st[0] == st[1]:
            ties += 1
        elif winner == f:
            won += 1
    pico.exec_finish(guest_ms=5000)
    return {"n": len(plans), "first_won": won, "ties": ties, "lost": lost,
            "first_stamp_late_us": summary(late, ("p50", "max"), 0)}


def run_storm(pico, kind, storms):
    pico.exec_start("import pico_bench_device as b\nb.storm(%r, %d)\n" % (kind, storms))
    for _ in lines_until(pico, b"READY"):
        pass
    t0 = pico.t_ns + 10 * MS
    edges = []
    clean = []
    for k in range(storms):
        base = t0 + k * 120 * MS
        edges += [(base + 20 * j * US, board.P1_B, j % 2) for j in range(50)]
        c = base + 503.7 * US
        edges += [(c, board.P0_A, 0), (c + 60 * MS, board.P0_A, 1)]
        clean.append(c)
    pico.schedule(edges)
    events = []
    counts = None
    for line in lines_until(pico, b"DONE", guest_s=storms + 60):
        f = line.split()
        if f[0] == "E" and f[4] == "1":
            events.append((int(f[1]), int(f[2]), f[3]))
        elif f[0] == "C":
            counts = [int(x) for x in f[1:]]
    pico.exec_finish(guest_ms=5000)
    errs = []
    for c in clean:
        tk = pico.ticks_us(int(c))
        d = _first_after(events, 0, "A", tk)
        if d is not None:
            errs.append(d)
    storm_presses = len([e for e in events if e[1] == 1 and e[2] == "B"])
    return {"storms": storms, "edges": 50 * storms, "storm_presses": storm_presses,
            "clean_presses": len(errs), "presses": counts[0], "bounces": counts[1],
            "dropped": counts[2], "lost_words": counts[3],
            "clean_stamp_error_us": {"min": min(errs) if errs else None,
                                     "max": max(errs) if errs else None}}


def run_cpu(pico, kind, ms=200):
    pico.exec_start("import pico_bench_device as b\nb.cpu(%r, %d)\n" % (kind, ms))
    frame = None
    for line in lines_until(pico, b"READY"):
        if line.startswith("F "):
            us, n = map(int, line.split()[1:])
            frame = us / float(n)
    t0 = pico.t_ns + (ms + 5) * MS                 # inside the second spin
    gpios = [g for g, _p, _n in board.BUTTONS]
    edges = []
    n_edges = ms - 20
    for j in range(n_edges):
        g = gpios[j % 4]
        edges.append((t0 + j * MS + 137 * j, g, (j // 4) % 2))
    level = {g: 1 for g in gpios}
    for _t, g, lv in edges:
        level[g] = lv
    # Every button released again before the window ends (the next run starts clean).
    edges += [(t0 + (n_edges + 2) * MS, g, 1) for g in gpios if not level[g]]
    n_edges = len(edges)
    pico.schedule(edges)
    spin = None
    for line in lines_until(pico, b"DONE", guest_s=30):
        if line.startswith("S "):
            spin = [int(x) for x in line.split()[1:]]
    pico.exec_finish(guest_ms=5000)
    quiet, busy, window = spin
    per_edge = (quiet - busy) * window / float(quiet) / n_edges
    return {"per_edge_us": round(per_edge, 1), "per_frame_us": round(frame, 1),
            "edges": n_edges}


def pio_goals(r):
    """The issue's goals for the PIO capture, from the figures."""
    races = {g["gap_us"]: g for g in r["pio_races"]}
    misordered = sum(g["n"] - g["earlier_won"] - g["ties"] for gap, g in races.items() if gap)
    err = r["pio_stamp_error_us"]
    off = r["irq_off"]["pio"]
    return {
        "no_misordered": misordered == 0,
        "no_tie_from_1us": all(g["ties"] == 0 for gap, g in races.items() if gap >= 1),
        "stamp_error_le_1us": err["min"] >= -1 and err["max"] <= 1,
        "exact_through_irq_off": off["presses"] > 0 and off["missing"] == 0 and
        off["stamp_error_us"]["min"] >= -1 and off["stamp_error_us"]["max"] <= 1,
        "bouncing_first_touch_wins": r["bounce_first_touch"]["pio"]["first_won"] ==
        r["bounce_first_touch"]["pio"]["n"],
        "storm_nothing_lost": r["storm"]["pio"]["dropped"] == 0 and
        r["storm"]["pio"]["lost_words"] == 0 and
        r["storm"]["pio"]["clean_presses"] == r["storm"]["pio"]["storms"],
        "frame_cost_not_higher": r["cpu"]["pio"]["per_frame_us"] <= r["cpu"]["gpio"]["per_frame_us"],
    }


def run_pio(pico, args):
    """Everything the PIO capture is measured by, beside the GPIO-interrupt capture."""
    out = {}
    errors = []
    rows, lat, _tie = run_races(pico, args.trials, "pio", PIO_GAPS_US, errors)
    by_gap = {}
    for (gap, _map, _first), row in rows.items():
        g = by_gap.setdefault(gap, {"gap_us": gap, "n": 0, "earlier_won": 0, "ties": 0})
        for key in ("n", "earlier_won", "ties"):
            g[key] += row[key]
    out["pio_races"] = sorted(by_gap.values(), key=lambda g: g["gap_us"])
    out["pio_stamp_error_us"] = {"min": min(errors), "max": max(errors),
                                 "p50": pct(errors, 50), "n": len(errors)}
    out["pio_latency_us"] = summary(lat)
    out["irq_off"] = {k: run_irq_off(pico, k, 4, args.seed) for k in ("gpio", "pio")}
    out["bounce_first_touch"] = {k: run_bounce(pico, k, 16) for k in ("gpio", "pio")}
    out["storm"] = {k: run_storm(pico, k, 8) for k in ("gpio", "pio")}
    out["cpu"] = {k: run_cpu(pico, k) for k in ("gpio", "pio")}
    out["pio_goals"] = pio_goals(out)
    return out


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
    ap.add_argument("--play-s", type=int, default=20, help="seconds of play per seed")
    ap.add_argument("--seed", type=int, default=7, help="the races' seed")
    ap.add_argument("--seeds", default="1,2,3,4,5,6,7,8,9",
                    help="the play sessions' seeds (comma-separated; each a game)")
    ap.add_argument("--only-play", action="store_true",
                    help="only the play sessions: frames, presses to pixels, collections")
    ap.add_argument("--no-sim", action="store_true", help="skip the whole-game pico-sim")
    ap.add_argument("--only-pio", action="store_true",
                    help="only the PIO capture's figures (beside the GPIO capture's)")
    args = ap.parse_args(argv)
    fw = find_firmware(args.firmware)
    import tempfile
    wall0 = time.monotonic()
    seeds = [int(x) for x in args.seeds.split(",") if x.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        pico = make_pico(fw, tmp)
        try:
            if args.only_play:
                play = play_figures([run_play(pico, args.play_s, sd) for sd in seeds])
                play["wall_s_play"] = round(time.monotonic() - wall0, 1)
                write(play)
                print_play_tables(play)
                return
            pio = run_pio(pico, args)
            if args.only_pio:
                pio["wall_s_pio"] = round(time.monotonic() - wall0, 1)
                write(pio)
                print_pio_tables(pio)
                return
            rows, race_lat, tie_wins = run_races(pico, args.trials)
            play = play_figures([run_play(pico, args.play_s, sd) for sd in seeds])
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
    result.update(pio)
    if not args.no_sim:
        result["pico_sim"] = run_sim(args)
    result["wall_s"] = round(time.monotonic() - wall0, 1)
    write(result)
    print_tables(result)
    print()
    print_pio_tables(result)
    print("wrote %s" % OUT.relative_to(ROOT))


def write(result):
    """Merge `result` into build/pico-bench.json (keys others wrote are kept)."""
    old = {}
    if OUT.exists():
        try:
            old = json.loads(OUT.read_text())
        except ValueError:
            old = {}
    old.update(result)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(old, indent=1, sort_keys=True))


def print_pio_tables(r):
    gpio = {g["gap_us"]: g for g in r.get("races", ())}
    print("Races: the GPIO-interrupt capture and the PIO capture (+ arbiter), both players "
          "first, both pin maps")
    print("| gap µs | races | GPIO earlier won | GPIO ties | GPIO misordered | PIO earlier won "
          "| PIO ties | PIO misordered |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for g in r["pio_races"]:
        o = gpio.get(g["gap_us"])
        cells = ("%d | %d | %d" % (o["earlier_won"], o["ties"],
                                   o["n"] - o["earlier_won"] - o["ties"] if g["gap_us"] else 0)
                 if o else "- | - | -")
        print("| %s | %d | %s | %d | %d | %d |" % (
            g["gap_us"], g["n"], cells, g["earlier_won"], g["ties"],
            g["n"] - g["earlier_won"] - g["ties"] if g["gap_us"] else 0))
    e = r["pio_stamp_error_us"]
    print("PIO stamp minus the edge's µs: min %s, max %s (%d stamps)" % (e["min"], e["max"], e["n"]))
    print()
    print("| measure | GPIO IRQ | PIO |")
    print("| --- | --- | --- |")
    g, p = r["irq_off"]["gpio"], r["irq_off"]["pio"]
    print("| 20 ms interrupts off: presses inside, stamp error min..max µs | %d, %s..%s | %d, %s..%s |"
          % (g["presses"], g["stamp_error_us"]["min"], g["stamp_error_us"]["max"],
             p["presses"], p["stamp_error_us"]["min"], p["stamp_error_us"]["max"]))
    g, p = r["bounce_first_touch"]["gpio"], r["bounce_first_touch"]["pio"]
    print("| bounce at the first touch: first toucher won / ties / trials | %d / %d / %d | %d / %d / %d |"
          % (g["first_won"], g["ties"], g["n"], p["first_won"], p["ties"], p["n"]))
    g, p = r["storm"]["gpio"], r["storm"]["pio"]
    print("| 50-edge storms: storm presses, clean presses, dropped, clean stamp error max µs | "
          "%d, %d/%d, %d, %s | %d, %d/%d, %d, %s |"
          % (g["storm_presses"], g["clean_presses"], g["storms"], g["dropped"],
             g["clean_stamp_error_us"]["max"], p["storm_presses"], p["clean_presses"],
             p["storms"], p["dropped"], p["clean_stamp_error_us"]["max"]))
    g, p = r["cpu"]["gpio"], r["cpu"]["pio"]
    print("| CPU per edge µs | %s | %s |" % (g["per_edge_us"], p["per_edge_us"]))
    print("| CPU per frame (drain, nothing new) µs | %s | %s |" % (g["per_frame_us"], p["per_frame_us"]))
    print()
    print("PIO goals: " + ", ".join("%s %s" % (k, "met" if v else "MISSED")
                                    for k, v in sorted(r["pio_goals"].items())))


def print_play_tables(r):
    print("Play on the emulated Pico: seeds %s, P0 pressed by the host, P1 the hard CPU; "
          "%d frames (%d on the game screen without a save), %d presses (%d seen, %d shown)"
          % (",".join(str(x) for x in r["seeds"]), r["frames"], r["play_frames"],
             r["presses"], r["presses_seen"], r["presses_shown"]))
    if r["memory_errors"]:
        print("MemoryError (seed: frame): %s" % r["memory_errors"])
    print("| measure | p50 | p99 | max | goal |")
    print("| --- | ---: | ---: | ---: | --- |")
    for key, unit in (("press_latency_us", "µs"), ("frame_ms", "ms"),
                      ("frame_ms_all_screens", "ms"), ("press_to_pixels_ms", "ms")):
        v = r[key]
        goal = ""
        if key in FRAME_GOALS:
            goal = "p99 <= %d, max <= %d: %s" % (FRAME_GOALS[key] + (
                "met" if r["frame_goals"][key] else "MISSED",))
        print("| %s (%s) | %s | %s | %s | %s |" % (key, unit, v.get("p50"), v.get("p99"),
                                                   v.get("max"), goal))
    every = r.get("gc_pause_ms_every")
    print("| gc_pause_ms (%d collections, the loop's, between frames) | %s | | %s | %s |" % (
        r["gc_runs"], r["gc_pause_ms"]["p50"], r["gc_pause_ms"]["max"], "" if every else
        "max <= %d: %s" % (GC_PAUSE_GOAL_MS, "met" if r["frame_goals"]["gc_pause_ms"]
                           else "MISSED")))
    if every:
        print("| gc_pause_ms, every collection the emulator saw (%d; %d game frames had "
              "one inside) | %s | | %s | max <= %d: %s |" % (
                  r["gc_every_runs"], r["frames_with_a_collection"], every["p50"],
                  every["max"], GC_PAUSE_GOAL_MS,
                  "met" if r["frame_goals"]["gc_pause_ms"] else "MISSED"))
    print("| frames with a flash save (%d): frame ms / save ms | %s / %s | | %s / %s | |" % (
        r["saves"], r["save_frames_ms"]["p50"], r["save_ms"]["p50"],
        r["save_frames_ms"]["max"], r["save_ms"]["max"]))
    for s, v in sorted(r["press_to_pixels_ms_by_seed"].items()):
        print("| press_to_pixels_ms, seed %s | %s | %s | %s | |" % (s, v["p50"], v["p99"],
                                                                  v["max"]))
    print()
    print("Where a game-screen frame's time goes (ms; bus: the I2C transfers' own time, "
          "inside the display port's)")
    print("| part | p50 | p99 | max |")
    print("| --- | ---: | ---: | ---: |")
    names = {"draw": "drawing (view)", "show": "display port (I2C writes)",
             "bus": "of it, bus time", "cpu": "CPU player (its poll)",
             "gc": "MicroPython's own collections inside the frame",
             "rules": "the rest: input, rules, timers, recording"}
    for p in ("draw", "show", "bus", "cpu", "gc", "rules"):
        v = r["frame_parts_ms"][p]
        print("| %s | %s | %s | %s |" % (names[p], v["p50"], v["p99"], v["max"]))
    v = r["frame_bytes"]
    print("| bytes sent to the panel | %s | %s | %s |" % (v["p50"], v["p99"], v["max"]))
    print()
    print("| bytes sent | frames | frame p50 / p99 / max | bus p50 / max | draw p50 / max "
          "| CPU p50 / max |")
    print("| --- | ---: | --- | --- | --- | --- |")
    for k, v in r["frame_ms_by_bytes_sent"].items():
        print("| %s | %d | %s / %s / %s | %s / %s | %s / %s | %s / %s |" % (
            k, v["frames"], v["frame"]["p50"], v["frame"]["p99"], v["frame"]["max"],
            v["bus"]["p50"], v["bus"]["max"], v["draw"]["p50"], v["draw"]["max"],
            v["cpu"]["p50"], v["cpu"]["max"]))


def print_tables(r):
    print("Races on the emulated Pico (GPIO-IRQ capture + arbiter), both players first, "
          "both pin maps")
    print("| gap µs | races | earlier won | ties | misordered |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for g in r["races"]:
        mis = g["n"] - g["earlier_won"] - g["ties"]
        print("| %s | %d | %d | %d | %d |" % (g["gap_us"], g["n"], g["earlier_won"], g["ties"],
                                             mis if g["gap_us"] else 0))
    print("misordered_over_us: %s   same-instant ties won: P0 %d, P1 %d" % (
        r["misordered_over_us"], r["tie_wins"]["p0"], r["tie_wins"]["p1"]))
    print()
    print_play_tables(r)
    if "pico_sim" in r:
        print(r["pico_sim"])


if __name__ == "__main__":
    main()
