"""The link cable on two emulated Picos: clock-sync error, cross-device races, recovery
after a cut, the link's CPU time. Writes build/link-bench.json and prints a table.

    make bench-link                 # or: python tools/bench_link.py [--quick]

The real game firmware (main.py and all) on both chips, linked from the menu: the
host's clock sync read out after a deal and a stretch of the game, and presses on
both at set gaps, judged from the stamps and bounds its arbiter was given. Then both
chips run tools/link_probe_device.py (the asker on chip 0, the answerer on chip 1)
over the real UART0 and the PIO edge capture of firmware/hw/link_uart.py. The harness
knows both clocks exactly (desktop_emulator/pico/link.py: true_offset_us), so every
offset the asker estimates is compared with the truth. Figures are guest time.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from desktop_emulator import devicefiles                      # noqa: E402
from desktop_emulator.pico.device import (US, MS, S, TICKS_MASK, DeviceError,  # noqa: E402
                                          exception_line)
from desktop_emulator.pico.image import find_firmware       # noqa: E402
from desktop_emulator.pico.link import LinkedPicos           # noqa: E402

PROBE = ROOT / "tools" / "link_probe_device.py"
OUT = ROOT / "build" / "link-bench.json"
BUTTON = 2
#: Chip 1's µs timer starts this far ahead of chip 0's: offsets are never near zero.
TIMER_STARTS = (1_000, 300_000_777)


def ticks_diff(a, b):
    d = (a - b) & TICKS_MASK
    return d - (TICKS_MASK + 1) if d > TICKS_MASK // 2 else d


def device_files(workdir, firmware):
    files = devicefiles.build(Path(workdir) / "device", driver=firmware.ssd1306)
    return {k: v for k, v in files.items() if k != "main.py"}


def linked_pair(firmware, workdir, timer_starts=TIMER_STARTS, files=None):
    """Two booted Picos with the probe on board, each at its raw REPL. files: the
    device build without main.py (default: built here)."""
    if files is None:
        files = device_files(workdir, firmware)
    probe = {"link_probe.py": PROBE.read_bytes()}
    pair = LinkedPicos(firmware, files=(files, files), extra=(probe, probe),
                       buttons=(BUTTON,), timer_start_us=timer_starts)
    a, b = pair.boot()
    pair.run_for(50_000, wall_s=60)
    for c in (a, b):
        c.interrupt()
        c.enter_raw(soft_reset=False)
    return pair


def run_probe(pair, duration_ms, period_ms=20, during=None, wall_s=600.0):
    """Run the probe on both chips for duration_ms; during(pair) is called once both
    run (to schedule presses, cuts...). -> (asker's lines, answerer's lines)."""
    b = pair.chips[1]
    a = pair.chips[0]
    b.exec_start("import link_probe\nlink_probe.run(1, %d, %d)" % (duration_ms + 100, period_ms),
                 wall_s=wall_s)
    a.exec_start("import link_probe\nlink_probe.run(0, %d, %d)" % (duration_ms, period_ms),
                 wall_s=wall_s)
    if during is not None:
        during(pair)
    outs = pair.wait_lines([b"\x04", b"\x04"], guest_ms=duration_ms + 3000, wall_s=wall_s)
    for c in (a, b):
        err = c.read_until(b"\x04", guest_ms=1000, wall_s=60, what="end of errors")
        text = err[:-1].decode(errors="replace").strip()
        if text:
            raise DeviceError("probe on chip %d: %s" % (c.index, exception_line(text)), text)
        c.read_until(b">", guest_ms=1000, wall_s=60, what="raw REPL prompt")
    return [o.decode(errors="replace").splitlines() for o in outs]


def exchanges(pair, lines):
    """Per S line: dict(true_us, est_hw, est_sw, truth, rtt_hw, rtt_sw)."""
    a = pair.chips[0]
    out = []
    for line in lines:
        f = line.split()
        if not f or f[0] != "S":
            continue
        t1, t2, t3, t4, s1, s2, s3, s4 = (int(x) for x in f[2:10])
        est_hw = (ticks_diff(t2, t1) + ticks_diff(t3, t4)) / 2
        est_sw = (ticks_diff(s2, s1) + ticks_diff(s3, s4)) / 2
        mid = (t1 + ticks_diff(t4, t1) // 2) & TICKS_MASK
        local = a.guest_ns(mid) + (ticks_diff(t4, t1) % 2) * 500
        true_ns = pair.true_ns(0, local)
        out.append({"t_ms": true_ns / MS, "est_hw": est_hw, "est_sw": est_sw,
                    "truth": pair.true_offset_us(true_ns),
                    "rtt_hw": ticks_diff(t4, t1) - ticks_diff(t3, t2),
                    "rtt_sw": ticks_diff(s4, s1) - ticks_diff(s3, s2)})
    return out


def percentiles(xs):
    xs = sorted(abs(x) for x in xs)
    if not xs:
        return {"n": 0}
    n = len(xs)
    return {"n": n, "p50": round(xs[n // 2], 2), "p99": round(xs[min(n - 1, n * 99 // 100)], 2),
            "max": round(xs[-1], 2)}


def fit_predictions(ex, window=8):
    """Offset predicted for each exchange from a least-squares line through the
    previous `window` (the drift fit a linked device must make between exchanges)
    minus the truth, µs."""
    errs = []
    for i in range(window, len(ex)):
        xs = [e["t_ms"] for e in ex[i - window:i]]
        ys = [e["est_hw"] for e in ex[i - window:i]]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
        pred = my + slope * (ex[i]["t_ms"] - mx)
        errs.append(pred - ex[i]["truth"])
    return errs


def sync_case(firmware, workdir, files, ppm, duration_ms, period_ms):
    with linked_pair(firmware, workdir, files=files) as pair:
        pair.faults(ppm=ppm)
        w0 = time.monotonic()
        lines = run_probe(pair, duration_ms, period_ms)[0]
        wall = time.monotonic() - w0
        ex = exchanges(pair, lines)
        end = [ln.split() for ln in lines if ln.startswith("E ")]
        e = end[-1] if end else []
        return {
            "ppm": list(ppm), "exchanges": len(ex),
            "lost": int(e[2]) if e else None,
            "sync_error_us": percentiles([x["est_hw"] - x["truth"] for x in ex]),
            "sync_error_sw_us": percentiles([x["est_sw"] - x["truth"] for x in ex]),
            "predicted_error_us": percentiles(fit_predictions(ex)),
            "rtt_hw_us": percentiles([x["rtt_hw"] for x in ex]),
            "rtt_sw_us": percentiles([x["rtt_sw"] for x in ex]),
            "link_cpu_us": {"p50": int(e[3]), "p99": int(e[4]), "max": int(e[5])} if e else None,
            "edge_drops": int(e[6]) if e else None,
            "late_bits": pair.counters.get("late"),
            "guest_s": round(pair.t_ns / 1e9, 3), "wall_s": round(wall, 1),
        }


def race_case(firmware, workdir, files, gaps_us, per_gap, ppm=(0, 200)):
    """Presses on GP2 of both chips g µs apart (alternately chip 0 first and chip 1
    first), decided by the asker from its clock estimate. Each verdict is matched to its
    race by the true time of chip 0's press (a race the probe did not decide is counted
    as missing, never shifts the others)."""
    spacing_ms = 60
    warm_ms = 400                    # exchanges enough for a drift fit first
    plan = []
    for g in gaps_us:
        for k in range(per_gap):
            plan.append([g, k % 2, None])
    duration = warm_ms + spacing_ms * len(plan) + 200

    def press_all(pair):
        t = pair.t_ns + warm_ms * MS
        for race in plan:
            g, first = race[0], race[1]
            times = (t, t + g * US) if first == 0 else (t + g * US, t)
            race[2] = times[0]
            for i in range(2):
                c = pair.chips[i]
                at = pair.local_ns(i, times[i])
                c.schedule([(at, BUTTON, 0), (at + 20 * MS, BUTTON, 1)])
            t += spacing_ms * MS

    with linked_pair(firmware, workdir, files=files) as pair:
        pair.faults(ppm=ppm)
        lines = run_probe(pair, duration, 20, during=press_all)[0]
        a = pair.chips[0]
        verdicts = []
        for ln in lines:
            f = ln.split()
            if f and f[0] == "P":
                t_true = pair.true_ns(0, a.guest_ns(int(f[1])))
                race = min(plan, key=lambda r: abs(r[2] - t_true))
                if abs(race[2] - t_true) < 5 * MS:
                    verdicts.append((race, f[5], int(f[4]) / 2))
    rows = {g: {"gap_us": g, "n": 0, "earlier_won": 0, "ties": 0, "misordered": 0}
            for g in gaps_us}
    misordered_over = 0
    for (g, first, _t), verdict, _bound in verdicts:
        row = rows[g]
        row["n"] += 1
        if verdict == "T":
            row["ties"] += 1
        elif g == 0 or (verdict == "0") == (first == 0):
            row["earlier_won"] += 1          # at gap 0 no press was earlier: any winner is right
        else:
            row["misordered"] += 1
            misordered_over = max(misordered_over, g)
    return {"ppm": list(ppm), "races": [rows[g] for g in gaps_us], "decided": len(verdicts),
            "planned": len(plan), "misordered_over_us": misordered_over,
            "bound_us": max(b for _r, _v, b in verdicts) if verdicts else None}


def recover_case(firmware, workdir, files, cut_ms=2000):
    """A 2 s cable cut in the middle: time from the plug going back in to the next
    completed exchange."""
    with linked_pair(firmware, workdir, files=files) as pair:
        start = {}

        def cut(pair):
            start["t"] = pair.t_ns + 300 * MS
            pair.cut_for(cut_ms, start_ns=start["t"])

        lines = run_probe(pair, 300 + cut_ms + 500, 20, during=cut)[0]
        ex = exchanges(pair, lines)
        back = start["t"] + cut_ms * MS
        after = [e["t_ms"] for e in ex if e["t_ms"] * MS > back]
        lost = sum(1 for ln in lines if ln.startswith("L "))
        return {"cut_ms": cut_ms, "lost_exchanges": lost,
                "recover_ms": round(after[0] - back / MS, 2) if after else None,
                "cut_bytes": pair.counters.get("cut")}


GAME_BUTTONS = (2, 3, 14, 15)
_SYNC_STATE = ("(lambda l: [l.authority, l.edge_samples, l.sync._s, l.sync.t0, l.sync.offset, "
               "l.sync.drift_ppb, l.sync.base_bound, l.sync.slope_slack_ppb, "
               "__import__('time').ticks_us(), l.edges is not None, len(l._tx_e), len(l._rx_e)])"
               "(__import__('firmware.main').main.app.linkplay.link)")


def _wait_both(pair, pattern, guest_ms, wall_s):
    """Run until both chips' consoles match `pattern` (a bytes regex) -> the matches."""
    import re
    rx = re.compile(pattern)
    found = [None, None]
    end = pair.t_ns + guest_ms * MS
    while True:
        for i, c in enumerate(pair.chips):
            if found[i] is None:
                m = rx.search(bytes(c.serial))
                if m:
                    found[i] = m
                    del c.serial[:m.end()]
        if found[0] and found[1]:
            return found
        if pair.t_ns >= end:
            raise DeviceError("no %r on both chips within %d guest ms" % (pattern, guest_ms),
                              bytes(pair.chips[0].serial[-300:]) + b" / " +
                              bytes(pair.chips[1].serial[-300:]))
        pair.run_for(20_000, wall_s=wall_s)


def _link_and_deal(pair, lobby_ms, wall_s):
    """Both chips at the title: chip 0's player chooses LINK PLAY (A, then B), both
    link; after lobby_ms the host deals (B). -> the host's chip index."""
    pair.wait_lines([b"spit: screen=title", b"spit: screen=title"], guest_ms=5000,
                    wall_s=wall_s)
    a = pair.chips[0]
    a.press(GAME_BUTTONS[0], hold_us=40_000)      # A: to LINK PLAY
    pair.run_for(120_000, wall_s=wall_s)
    a.press(GAME_BUTTONS[1], hold_us=40_000)      # B: choose it
    links = _wait_both(pair, rb"spit: link LINKED host=([01])", 2000, wall_s)
    host_i = [int(m.group(1)) for m in links].index(1)
    pair.run_for(lobby_ms * 1000, wall_s=wall_s)
    pair.chips[host_i].press(GAME_BUTTONS[1], hold_us=40_000)   # B: deal
    return host_i


def game_sync_case(firmware, files, ppm, lobby_ms=1200, game_ms=1200, wall_s=900.0):
    """The real firmware (main.py and all) on both chips: LINK PLAY chosen on chip 0,
    the host deals, game_ms of the game; then both stopped (Ctrl-C) and the host's clock
    sync read out: each of its kept exchanges, and its fitted line at each, against the
    harness's true offset; the bound the arbiter used at those moments."""
    from desktop_emulator.pico.link import LinkedPicos
    w0 = time.monotonic()
    with LinkedPicos(firmware, files=(files, files), buttons=GAME_BUTTONS,
                     timer_start_us=TIMER_STARTS) as pair:
        pair.faults(ppm=ppm)
        pair.boot()
        host_i = _link_and_deal(pair, lobby_ms, wall_s)
        host = pair.chips[host_i]
        pair.run_for(game_ms * 1000, wall_s=wall_s)
        host.interrupt(wall_s=wall_s)
        host.enter_raw(soft_reset=False, wall_s=wall_s)
        st = host.eval_json(_SYNC_STATE, guest_ms=3000, wall_s=wall_s)
        screen = bytes(pair.chips[1 - host_i].serial)
        auth, edge_samples, samples, t0, offset, drift, base, slack, now = st[:9]
        sign = 1 if host_i == 0 else -1        # peer - local, as the host sees it
        raw, fitted, bounds = [], [], []
        for mid, off, rtt in samples:
            truth = sign * pair.true_offset_us(pair.true_ns(host_i, host.guest_ns(mid)))
            dt = ticks_diff(mid, t0)
            raw.append(off - truth)
            fitted.append(offset + drift * dt / 1e9 - truth)
            bounds.append(base + abs(dt) * slack / 1e9)
        truth_now = sign * pair.true_offset_us(pair.true_ns(host_i, host.guest_ns(now)))
        dt_now = ticks_diff(now, t0)
        return {
            "ppm": list(ppm), "firmware": "game (main.py)", "host_chip": host_i,
            "authority": auth, "edge_samples": edge_samples, "kept": len(samples),
            "edges": st[9:],
            "sync_error_us": percentiles(fitted),
            "sample_error_us": percentiles(raw),
            "bound_us": {"min": round(min(bounds), 1), "max": round(max(bounds), 1)}
            if bounds else None,
            "error_now_us": round(offset + drift * dt_now / 1e9 - truth_now, 2),
            "bound_now_us": round(base + abs(dt_now) * slack / 1e9, 1),
            "within_bound": all(abs(e) <= b for e, b in zip(fitted, bounds)),
            "guest_s": round(pair.t_ns / 1e9, 3), "wall_s": round(time.monotonic() - w0, 1),
            "guest_console_tail": screen[-120:].decode(errors="replace"),
        }


_RECORDS = ("[r for r in __import__('firmware.main').main.app.replay.records "
            "if r[0] in ('bound', 'frame') or (r[0] == 'button' and r[4])]")


def game_race_case(firmware, files, ppm, gaps_us, per_gap, lobby_ms=1200, wall_s=900.0):
    """The real firmware on both chips, in a linked game: each handheld's player presses
    A (the cursor: never a conflict on the table) g µs after or before the other's, for
    each gap. The host's recording holds every press the game's arbiter was given, in
    game time (its own player's stamps and the guest's converted ones) and the bound it
    was given with them: the verdict R43 makes of those (a tie within the bound, else
    the earlier stamp) is compared with the true order."""
    from desktop_emulator.pico.link import LinkedPicos
    w0 = time.monotonic()
    spacing_ms = 60
    with LinkedPicos(firmware, files=(files, files), buttons=GAME_BUTTONS,
                     timer_start_us=TIMER_STARTS) as pair:
        pair.faults(ppm=ppm)
        pair.boot()
        host_i = _link_and_deal(pair, lobby_ms, wall_s)
        host = pair.chips[host_i]
        pair.run_for(300_000, wall_s=wall_s)
        for c in pair.chips:                                   # "Spit!" on each
            c.press(GAME_BUTTONS[1], hold_us=40_000)
        pair.run_for(400_000, wall_s=wall_s)
        plan = []
        t = pair.t_ns + 50 * MS
        for g in gaps_us:
            for k in range(per_gap):
                first = k % 2                                  # the chip that presses first
                times = [t, t]
                times[1 - first] = t + g * US
                plan.append((g, first))
                for i in range(2):
                    at = pair.local_ns(i, times[i])
                    pair.chips[i].schedule([(at, GAME_BUTTONS[0], 0),
                                            (at + 20 * MS, GAME_BUTTONS[0], 1)])
                t += spacing_ms * MS
        pair.run_to(t + 300 * MS, wall_s=wall_s)
        host.interrupt(wall_s=wall_s)
        host.enter_raw(soft_reset=False, wall_s=wall_s)
        recs = host.eval_json(_RECORDS, guest_ms=5000, wall_s=wall_s)
        guest_s = pair.t_ns / 1e9
    me = {host_i: 0, 1 - host_i: 1}          # chip -> player (the host is player 0)
    presses = [[], []]                        # per player: (stamp, bound in force)
    bound = 0
    pending = []
    for r in recs:
        if r[0] == "bound":
            bound = r[3]             # for the whole frame it is recorded in (host/replays.py)
        elif r[0] == "button":
            pending.append(r)
        else:
            for b in pending:
                presses[b[2]].append((b[1], bound if b[2] == 1 else 0))
            pending = []
    # Each player's last len(plan) presses are the races' (before them: "Spit!").
    n = len(plan)
    rows = {g: {"gap_us": g, "n": 0, "earlier_won": 0, "ties": 0, "misordered": 0}
            for g in gaps_us}
    over = 0
    bounds = []
    if len(presses[0]) >= n and len(presses[1]) >= n:
        p0 = presses[0][-n:]
        p1 = presses[1][-n:]
        for (g, first), (t0, _b0), (t1, b1) in zip(plan, p0, p1):
            row = rows[g]
            row["n"] += 1
            bounds.append(b1)
            d = ticks_diff(t1, t0)            # player 1's stamp - player 0's, game time
            first_player = me[first]
            if abs(d) <= b1:
                row["ties"] += 1
            elif g == 0 or (d > 0) == (first_player == 0):
                row["earlier_won"] += 1
            else:
                row["misordered"] += 1
                over = max(over, g)
    return {"ppm": list(ppm), "firmware": "game (main.py)", "races": [rows[g] for g in gaps_us],
            "planned": n, "recorded": [len(presses[0]), len(presses[1])],
            "misordered_over_us": over,
            "bound_us": {"min": min(bounds), "max": max(bounds)} if bounds else None,
            "guest_s": round(guest_s, 3), "wall_s": round(time.monotonic() - w0, 1)}


def game_frames_case(firmware, seconds, seed, wall_s=3600.0, keep_lines=False,
                     hops=False):
    """The game firmware as shipped on both chips (firmware.main.run: its loop, its
    collections), linked from the menu, two people playing: the host presses A and B on
    each chip at seeded random moments. Per chip: frame_ms (game-screen frames) and
    press_to_pixels_ms, from a press's edge to the end of the pixel transfer of the
    frame that shows it on that chip's own panel (the cursor's move, or the frame its
    outcome was decided in: on the guest, when the host's decision has come back over
    the cable). The same measures as bench-pico's, for comparison. keep_lines: the
    boards' figures as printed, and the edges' true times, in the result too."""
    import tempfile
    from shared_rules.rng import Rng
    from tools.bench_pico import summary, _frame_end_ns
    w0 = time.monotonic()
    bench = {"pico_bench_device.py": (ROOT / "tools" / "pico_bench_device.py").read_bytes()}
    with tempfile.TemporaryDirectory(prefix="spit-link-frames-") as tmp, \
            LinkedPicos(firmware, extra=(bench, bench), buttons=GAME_BUTTONS,
                        timer_start_us=TIMER_STARTS,
                        files=(devicefiles.build(Path(tmp) / "device", driver=firmware.ssd1306,
                                                 main_py=None),) * 2) as pair:
        pair.boot()
        pair.run_for(50_000, wall_s=wall_s)
        for c in pair.chips:
            c.interrupt(wall_s=wall_s)
            c.enter_raw(soft_reset=False, wall_s=wall_s)
        for c in pair.chips:
            c.keep_i2c = True
            c.i2c_log.clear()
            c.exec_start("import pico_bench_device as b\nb.linked(%d, hops=%r)\n"
                         % (seconds, hops), wall_s=wall_s)
        host_i = _link_and_deal(pair, 1200, wall_s)
        pair.run_for(300_000, wall_s=wall_s)
        watched = []                   # which collections marked the heap twice (the emulator sees)
        for c in pair.chips:
            try:
                c.watch_gc()
                watched.append(True)
            except DeviceError:        # an image without its symbol table
                watched.append(False)
        t0 = pair.t_ns
        rng = Rng(seed)
        presses = [[], []]                                     # per chip: true ns of the edge
        for i, c in enumerate(pair.chips):
            t = t0
            edges = []
            while t < t0 + (seconds + 1) * S:
                g = GAME_BUTTONS[0] if rng.below(10) < 5 else GAME_BUTTONS[1]
                t += (150 + rng.below(450)) * MS + rng.below(1000) * US
                at = int(pair.local_ns(i, t))
                edges += [(at, g, 0), (at + 50 * MS, g, 1)]
                presses[i].append(t)
            c.schedule(edges)
        got = [{"F": [], "P": [], "O": [], "C": [], "S": [], "R": [], "Q": [], "T": [],
                "K": [], "W": [], "B": None} for _ in range(2)]
        for i, c in enumerate(pair.chips):
            text = c.exec_finish(guest_ms=(seconds + 120) * 1000, wall_s=wall_s)
            for line in text.splitlines():
                f = line.split()
                if f and f[0] in ("F", "P", "O", "C", "S", "R", "Q", "T", "K", "W"):
                    got[i][f[0]].append(tuple(int(x) for x in f[1:]))
                elif f and f[0] in ("B", "L"):
                    got[i][f[0]] = tuple(int(x) for x in f[1:])
            if got[i]["B"] is None:
                raise DeviceError("bench: chip %d ended without its figures" % i, text[-600:])
            got[i]["gc_watch"] = c.gc_stats() if watched[i] else None
        guest_s = pair.t_ns / 1e9
        base = got[host_i]["B"][0]
        out = {"seed": seed, "seconds": seconds, "host_chip": host_i, "chips": []}
        for i, c in enumerate(pair.chips):
            d = got[i]
            me = d["B"][1]
            game_frames = [f for f in d["F"] if f[2] == 1]
            frame_ms = [((f[1] - f[0]) & TICKS_MASK) / 1000.0 for f in game_frames]
            frame_gc_ms = _collections_in_frames(c, game_frames, d["gc_watch"])
            asked = _asked_in_frames(c, game_frames, d["gc_watch"])
            pixel_ends = sorted(t1 for _t0, t1, _addr, data, _ok in c.i2c_log
                                if data[:1] == b"\x40")
            outcomes = {}
            for t, fr in d["O"]:
                outcomes.setdefault(t, fr)
            to_pixels = []
            taken = 0
            hops = {}
            for edge in presses[i]:
                want = (pair.ticks_us(host_i, edge) - base) & TICKS_MASK
                hit = [pr for pr in d["P"] if pr[1] == me and abs(ticks_diff(pr[0], want)) < 2000]
                if not hit:
                    continue
                taken += 1
                t, _p, fr, moved = hit[0]
                shown = fr if moved else outcomes.get(t)
                if shown is None or shown >= len(d["F"]) or d["F"][shown][2] != 1:
                    continue
                end_ns = _frame_end_ns(c, d["F"][shown][1], pixel_ends)
                if end_ns is not None:
                    to_pixels.append((end_ns - pair.local_ns(i, edge)) / 1e6)
                    _press_hops(pair, got, host_i, i, edge, want, d["F"][shown][0],
                                pair.true_ns(i, end_ns), hops)
            out["chips"].append({
                "role": "host" if i == host_i else "guest", "player": me,
                "frame_ms": summary(frame_ms), "frames": len(game_frames),
                "press_to_pixels_ms": summary(to_pixels), "presses": len(presses[i]),
                "presses_taken": taken, "presses_shown": len(to_pixels),
                "gc_pause_ms": summary([us / 1000.0 for _f, us in d["C"]], ("p50", "max"), 2),
                "gc_runs": len(d["C"]),
                "gc_watched": d["gc_watch"] and {k: v for k, v in d["gc_watch"].items()
                                                 if k != "spans"},
                "link": dict(zip(("resends", "bad", "good", "foreign", "dropped_tx"),
                                 d.get("L") or ())),
                "_slow": _slow_frame_parts(d["W"], d["F"]), "_asked": asked,
                "_frame_ms": frame_ms, "_frame_gc_ms": frame_gc_ms, "_to_pixels": to_pixels,
                "_hops": hops})
        if keep_lines:
            out["lines"] = got
            out["edges_ns"] = presses
        out["guest_s"] = round(guest_s, 3)
        out["wall_s"] = round(time.monotonic() - w0, 1)
        return out


HOPS_S = 10                        # the hop stamps' session: seconds at most
SLOW_PARTS = ("draw", "face", "panel", "link", "rest")
SLOW_MS = 16                       # pico_bench_device.SLOW_US
SLOW_LABELS = {"frame": "the frame", "draw": "drawing", "face": "turning it for its player",
               "panel": "the panel's I2C", "link": "the link's poll",
               "rest": "the rest (rules, link play's own)"}


def _slow_frame_parts(lines, frames):
    """The game-screen frames over pico_bench_device.SLOW_US and where their time went
    (the probe's "W frame total draw face panel link" lines, µs): -> [{part: ms}]."""
    out = []
    for i, total, draw, face, panel, link in lines:
        if i < len(frames) and frames[i][2] == 1:
            out.append({"frame": total / 1000, "draw": draw / 1000, "face": face / 1000,
                        "panel": panel / 1000, "link": link / 1000,
                        "rest": max(0, total - draw - face - panel - link) / 1000})
    return out


def _collections_in_frames(pico, frames, watched):
    """Per frame, the ms of collections inside it (the emulator's watch of the
    collector: MicroPython's own, as the loop collects between frames); None: not
    watched."""
    from tools.bench_pico import collections_in_frames
    if not watched:
        return None
    return collections_in_frames(pico, frames, [(a, b) for a, b, *_ in watched["spans"]
                                                if b is not None])


def _asked_in_frames(pico, frames, watched):
    """The bytes asked for by the allocation that set off each collection inside a
    frame (Pico.gc_stats: the last gc_alloc before it)."""
    import bisect
    if not watched:
        return []
    starts = [pico.guest_ns(f[0]) for f in frames]
    ends = [pico.guest_ns(f[1]) for f in frames]
    out = []
    for a, b, _m, n in watched["spans"]:
        j = bisect.bisect_right(starts, a) - 1
        if b is not None and j >= 0 and a < ends[j]:
            out.append(n)
    return out


# Where a linked press's time goes: its hops, in the order it takes them, each from
# the chips' own stamps (pico_bench_device.linked). A guest's press: on its cable,
# read by the host, decided there and its outcome on the cable back, the guest's step
# that shows it, that step's pixels. A host's press waits for the guest's word that
# nothing touched before it is still to come (R43): the host's question, its answer.
GUEST_HOPS = (("edge_to_cable", "guest: edge -> press on the cable"),
              ("cable_to_host", "cable, host busy -> host read it"),
              ("host_decides", "host: read -> outcome on the cable"),
              ("back_to_guest", "cable, guest busy -> guest's step"),
              ("guest_draws", "guest: step -> pixels sent"))
HOST_HOPS = (("edge_to_ask", "host: edge -> question on the cable"),
             ("ask_to_answer", "guest's T: question -> answer read"),
             ("answer_to_step", "host: answer read -> its step"),
             ("edge_to_step", "host: edge -> the step that shows it"),
             ("host_draws", "host: step -> pixels sent"))
# The hops a press on one handheld does not take (the rest it has too: its loop's
# wait for the press, the first-touch window, the step, the picture).
LINK_ONLY = ("cable_to_host", "host_decides", "back_to_guest", "ask_to_answer")


def _press_hops(pair, got, host_i, i, edge, want, step_start, pixels_ns, hops):
    """One press shown on chip i (edge: its true ns; want: its host game time; the
    step that shows it: its start in chip i's ticks; its pixels: true ns): each hop's
    ms into `hops`."""
    def true(k, ticks):
        return pair.true_ns(k, pair.chips[k].guest_ns(ticks))

    one = {}

    def put(key, a, b):
        if a is not None and b is not None:
            one[key] = (b - a) / 1e6
    _hops_of_press(pair, got, host_i, i, edge, want, true(i, step_start), step_start,
                   pixels_ns, true, put)
    for key, ms in one.items():
        hops.setdefault(key, []).append(ms)
    mine = [k for k in LINK_ONLY if k in dict(GUEST_HOPS if i != host_i else HOST_HOPS)]
    if all(k in one for k in mine):
        hops.setdefault("link_only", []).append(sum(one[k] for k in mine))
    elif i == host_i and "edge_to_step" in one and "ask_to_answer" not in one:
        hops.setdefault("not_asked", []).append(1)


def _hops_of_press(pair, got, host_i, i, edge, want, step_ns, step_start, pixels_ns,
                   true, put):
    put("guest_draws" if i != host_i else "host_draws", step_ns, pixels_ns)
    if i == host_i:
        put("edge_to_step", edge, step_ns)
        stamp = pair.ticks_us(i, edge)
        asked = [q for q in got[i]["Q"] if 0 <= ticks_diff(q[0], stamp) < 200_000 and q[1]]
        if asked and ticks_diff(asked[0][1], step_start) <= 0:
            q, a = asked[0]
            put("edge_to_ask", edge, true(i, q))
            put("ask_to_answer", true(i, q), true(i, a))
            put("answer_to_step", true(i, a), step_ns)
        return
    stamp = pair.ticks_us(i, edge)
    sent = [at for st, at in got[i]["S"] if abs(ticks_diff(st, stamp)) < 2000]
    read = [at for st, at in got[host_i]["R"] if abs(ticks_diff(st, stamp)) < 2000]
    h = got[host_i]
    hp = [pr for pr in h["P"] if pr[1] != h["B"][1] and abs(ticks_diff(pr[0], want)) < 2000]
    told = None
    if hp:
        t, _p, fr, moved = hp[0]
        shown = fr if moved else dict((o[0], o[1]) for o in reversed(h["O"])).get(t)
        tells = dict(h["T"])
        if shown is not None and shown in tells:
            told = true(host_i, tells[shown])
    sent_ns = true(i, sent[0]) if sent else None
    read_ns = true(host_i, read[0]) if read else None
    put("edge_to_cable", edge, sent_ns)
    put("cable_to_host", sent_ns, read_ns)
    put("host_decides", read_ns, told)
    put("back_to_guest", told, step_ns)


def codec_case(firmware, tmp, n=40):
    """The frame codec's µs on the chip, per frame kind (pico_bench_device.codec)."""
    from tools.bench_pico import make_pico
    w0 = time.monotonic()
    pico = make_pico(firmware, tmp)
    text = pico.exec("import pico_bench_device as b\nb.codec(%d)\n" % n, guest_ms=60_000,
                     wall_s=600)
    rows = []
    done = None
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "K":
            rows.append({"frame": f[1], "encode_us": int(f[2]), "decode_us": int(f[3]),
                         "v1_encode_us": int(f[4]), "v1_decode_us": int(f[5]),
                         "bytes": int(f[6]), "encode_garbage_bytes": int(f[7]),
                         "decode_garbage_bytes": int(f[8])})
        elif f and f[0] == "DONE":
            done = (int(f[1]), int(f[2]))
    if done is None or done[0] != 3 * n * len(rows) or done[1]:
        raise DeviceError("bench: the codec run did not decode every frame it made: %s"
                          % (done,), text[-600:])
    return {"rows": rows, "n": n, "wall_s": round(time.monotonic() - w0, 1)}


def frames_figures(sessions):
    """Several seeds' sessions together: per role, p99s over all their frames and presses."""
    from tools.bench_pico import summary
    res = {"seeds": [s["seed"] for s in sessions],
           "seconds_per_seed": sessions[0]["seconds"] if sessions else None}
    for role in ("host", "guest"):
        cs = [c for s in sessions for c in s["chips"] if c["role"] == role]
        res[role] = {
            "frame_ms": summary([x for c in cs for x in c["_frame_ms"]]),
            "press_to_pixels_ms": summary([x for c in cs for x in c["_to_pixels"]]),
            "frames": sum(c["frames"] for c in cs),
            "presses": sum(c["presses"] for c in cs),
            "presses_taken": sum(c["presses_taken"] for c in cs),
            "presses_shown": sum(c["presses_shown"] for c in cs),
            "gc_pause_ms_max": max([c["gc_pause_ms"]["max"] or 0 for c in cs] or [0]),
            # (every collection in play, the loop's and MicroPython's own: Pico.watch_gc)
            "gc_collections": sum((c.get("gc_watched") or {}).get("collections", 0) for c in cs),
            "gc_marked_twice": sum((c.get("gc_watched") or {}).get("rescanned", 0) for c in cs),
            **_frames_and_collections(cs),
            **_slow_frames(cs),
            "hops_ms": _hop_figures(cs, GUEST_HOPS if role == "guest" else HOST_HOPS),
        }
    res["by_seed"] = [{k: v for k, v in s.items() if k != "chips"} | {
        "chips": [{k: v for k, v in c.items() if not k.startswith("_")} for c in s["chips"]]}
        for s in sessions]
    single = ROOT / "build" / "pico-bench.json"
    if single.exists():
        try:
            one = json.loads(single.read_text())
            res["single_handheld"] = {k: one.get(k) for k in ("frame_ms", "press_to_pixels_ms")}
        except (ValueError, OSError) as e:
            res["single_handheld"] = {"error": "%s: %s" % (single, e)}
    return res


def _slow_frames(chips):
    from tools.bench_pico import summary
    rows = [r for c in chips for r in c.get("_slow", ())]
    return {"slow_frames": len(rows),
            "slow_frame_parts_ms": {k: summary([r[k] for r in rows], ("p50", "max"))
                                    for k in ("frame",) + SLOW_PARTS}}


def _frames_and_collections(chips):
    """The frames a collection fell inside (the emulator's watch), and frame_ms without
    them: how much of the slow frames' time is MicroPython collecting by itself."""
    from tools.bench_pico import summary
    pairs = [(ms, gc) for c in chips if c.get("_frame_gc_ms") is not None
             for ms, gc in zip(c["_frame_ms"], c["_frame_gc_ms"])]
    if not pairs:
        return {}
    hit = [(ms, gc) for ms, gc in pairs if gc > 0]
    asked = [n for c in chips for n in c.get("_asked", ())]
    return {"frames_with_a_collection": len(hit),
            "collection_in_frame_asked_bytes": summary(asked, ("p50", "max"), 0),
            "collection_in_frame_ms": summary([gc for _ms, gc in hit], ("p50", "max")),
            "frame_ms_without_them": summary([ms for ms, gc in pairs if gc <= 0])}


def _hop_figures(chips, names):
    from tools.bench_pico import summary
    out = {}
    for key, _label in names:
        xs = [x for c in chips for x in c["_hops"].get(key, [])]
        out[key] = summary(xs, ("p50", "p90", "p99", "max")) | {"n": len(xs)}
    # Per press, the hops one handheld does not take, summed (presses with all of them).
    link_only = [x for c in chips for x in c["_hops"].get("link_only", [])]
    out["link_only"] = summary(link_only, ("p50", "p90", "p99", "max")) | {"n": len(link_only)}
    out["not_asked"] = sum(len(c["_hops"].get("not_asked", [])) for c in chips)
    return out


def table(res):
    rows = ["link bench (two emulated Picos, 1 Mbaud, PIO edge stamps; guest time)", ""]
    if res.get("game_sync") or res.get("sync"):
        rows.append("%-28s %8s %8s %8s %6s" % ("sync_error_us", "p50", "p99", "max", "n"))
    for c in res.get("game_sync", []):
        p = c["sync_error_us"]
        rows.append("%-28s %8s %8s %8s %6s   bound %s..%s us, within: %s, edge exchanges %s" % (
            "GAME ppm %s" % c["ppm"][1], p.get("p50"), p.get("p99"), p.get("max"), p["n"],
            (c["bound_us"] or {}).get("min"), (c["bound_us"] or {}).get("max"),
            c["within_bound"], c["edge_samples"]))
    if res.get("game_races"):
        r = res["game_races"]
        rows += ["", "GAME races (ppm %s, bound %s us; verdicts of R43 on the stamps and bounds "
                 "the game's arbiter was given)" % (r["ppm"][1], r["bound_us"]),
                 "%8s %5s %12s %5s %11s" % ("gap_us", "n", "earlier_won", "ties", "misordered")]
        for x in r["races"]:
            rows.append("%8d %5d %12d %5d %11d" % (x["gap_us"], x["n"], x["earlier_won"],
                                                  x["ties"], x["misordered"]))
        rows.append("misordered_over_us %d" % r["misordered_over_us"])
        rows.append("")
    if res.get("game_frames"):
        f = res["game_frames"]
        one = f.get("single_handheld") or {}
        rows += ["GAME frames (two people playing, %s s a seed, seeds %s; the firmware as "
                 "shipped)" % (f["seconds_per_seed"], f["seeds"]),
                 "%-34s %8s %8s %8s %8s" % ("", "p50", "p99", "max", "n")]
        for role in ("host", "guest"):
            r = f[role]
            for key, n in (("frame_ms", r["frames"]), ("press_to_pixels_ms", r["presses_shown"])):
                rows.append("%-34s %8s %8s %8s %8s" % ("%s %s" % (role, key), r[key]["p50"],
                                                       r[key]["p99"], r[key]["max"], n))
        for key in ("frame_ms", "press_to_pixels_ms"):
            v = one.get(key) or {}
            if v:
                rows.append("%-34s %8s %8s %8s %8s" % ("single handheld %s" % key, v.get("p50"),
                                                       v.get("p99"), v.get("max"),
                                                       "(pico-bench.json)"))
        rows.append("presses taken/made: host %d/%d, guest %d/%d; GC pause max host %s, "
                    "guest %s ms" % (f["host"]["presses_taken"], f["host"]["presses"],
                                     f["guest"]["presses_taken"], f["guest"]["presses"],
                                     f["host"]["gc_pause_ms_max"], f["guest"]["gc_pause_ms_max"]))
        if f["host"].get("gc_collections") or f["guest"].get("gc_collections"):
            rows.append("collections in play that marked the heap twice (a mark-stack "
                        "overflow): host %d of %d, guest %d of %d" % (
                            f["host"]["gc_marked_twice"], f["host"]["gc_collections"],
                            f["guest"]["gc_marked_twice"], f["guest"]["gc_collections"]))
        for role in ("host", "guest"):
            r = f[role]
            if "frames_with_a_collection" in r:
                rows.append("%s: %d frames had a collection inside (MicroPython's own, an "
                            "allocation that found no room: %s ms p50, %s max; it asked for "
                            "%s bytes p50, %s max); frame_ms without them p99 %s, max %s" % (
                                role, r["frames_with_a_collection"],
                                r["collection_in_frame_ms"]["p50"],
                                r["collection_in_frame_ms"]["max"],
                                r["collection_in_frame_asked_bytes"]["p50"],
                                r["collection_in_frame_asked_bytes"]["max"],
                                r["frame_ms_without_them"]["p99"],
                                r["frame_ms_without_them"]["max"]))
        for role in ("host", "guest"):
            r = f[role]
            if r.get("slow_frames"):
                sp = r["slow_frame_parts_ms"]
                rows.append("%s: %d game frames over %d ms; in them, ms p50 (max): %s" % (
                    role, r["slow_frames"], SLOW_MS, ", ".join(
                        "%s %s (%s)" % (SLOW_LABELS[k], sp[k]["p50"], sp[k]["max"])
                        for k in ("frame",) + SLOW_PARTS)))
        stamped = any(((f[role].get("hops_ms") or {}).get("link_only") or {}).get("n")
                      for role in ("host", "guest"))
        if f.get("hops_failed"):
            rows.append("the session with the hop stamps did not run: %s" % f["hops_failed"])
        if stamped:
            hf = f.get("hops_from")
            rows += ["", "where a linked press's time goes (ms, guest time; * = a hop one "
                     "handheld does not take; %s)" % (
                         "from a session of its own with the hop stamps, seed %d, %d s" % (
                             hf["seed"], hf["seconds"]) if hf else "--hops"),
                     "%-40s %7s %7s %7s %7s %5s" % ("", "p50", "p90", "p99", "max", "n")]
        for role, names in (("guest", GUEST_HOPS), ("host", HOST_HOPS)) if stamped else ():
            hp = f[role].get("hops_ms") or {}
            for key, label in names + (("link_only", "%s: the * hops, summed" % role),):
                v = hp.get(key)
                if v and v.get("n"):
                    rows.append("%-40s %7s %7s %7s %7s %5s" % (
                        ("* " if key in LINK_ONLY else "  ") + label, v["p50"], v["p90"],
                        v["p99"], v["max"], v["n"]))
            if role == "host" and hp.get("not_asked"):
                rows.append("  (%d host presses needed no question: the guest's T had "
                            "passed them)" % hp["not_asked"])
        if not one or one.get("error"):
            rows.append("goals against one handheld's frame_ms and press_to_pixels_ms p99: "
                        "not judged, %s" % (one.get("error") or "no build/pico-bench.json "
                                            "(make bench-pico writes it)"))
        single = (one.get("frame_ms") or {}).get("p99")
        for role in ("host", "guest"):
            p99 = f[role]["frame_ms"]["p99"]
            if single is not None and p99 is not None:
                rows.append("goal %s frame_ms p99 <= single handheld's: %s (%s against %s "
                            "ms)" % (role, "met" if p99 <= single else "MISSED", p99, single))
        single = (one.get("press_to_pixels_ms") or {}).get("p99")
        for role in ("host", "guest"):
            p99 = f[role]["press_to_pixels_ms"]["p99"]
            extra = ((f[role].get("hops_ms") or {}).get("link_only") or {}).get("p50")
            if single is not None and p99 is not None:
                rows.append("goal %s press_to_pixels p99 <= single handheld's: %s (%s "
                            "against %s ms%s)" % (
                                role, "met" if p99 <= single else "MISSED", p99, single,
                                "" if extra is None else
                                "; the * hops alone take %s ms at p50" % extra))
        rows.append("")
    if res.get("codec"):
        rows += ["frame codec on the chip (us per frame; version 1: its CRC-16 in Python; "
                 "bytes of garbage per frame)",
                 "%-18s %6s %8s %8s %10s %10s %9s %9s" % (
                     "frame", "bytes", "encode", "decode", "v1 encode", "v1 decode",
                     "enc trash", "dec trash")]
        for r in res["codec"]["rows"]:
            rows.append("%-18s %6d %8d %8d %10d %10d %9d %9d" % (
                r["frame"], r["bytes"], r["encode_us"], r["decode_us"], r["v1_encode_us"],
                r["v1_decode_us"], r["encode_garbage_bytes"], r["decode_garbage_bytes"]))
        rows.append("")
    for c in res.get("sync", []):
        for key, label in (("sync_error_us", "edge stamps"), ("predicted_error_us", "  drift-fit prediction"),
                           ("sync_error_sw_us", "  software stamps")):
            p = c[key]
            rows.append("%-28s %8s %8s %8s %6s" % ("%s ppm %s" % (label, c["ppm"][1]),
                                                   p.get("p50"), p.get("p99"), p.get("max"), p["n"]))
    if res.get("races"):
        r = res["races"]
        rows += ["", "races (ppm %s, bound %s us)" % (r["ppm"][1], r["bound_us"]),
                 "%8s %5s %12s %5s %11s" % ("gap_us", "n", "earlier_won", "ties", "misordered")]
        for x in r["races"]:
            rows.append("%8d %5d %12d %5d %11d" % (x["gap_us"], x["n"], x["earlier_won"], x["ties"],
                                                  x["misordered"]))
        rows.append("misordered_over_us %d" % r["misordered_over_us"])
    if res.get("recover"):
        rows += ["", "recover_ms after a %d ms cut: %s" % (res["recover"]["cut_ms"],
                                                          res["recover"]["recover_ms"])]
    if res.get("sync"):
        c = res["sync"][0]
        rows += ["", "link CPU per loop pass (us): p50 %s p99 %s max %s" % (
            c["link_cpu_us"]["p50"], c["link_cpu_us"]["p99"], c["link_cpu_us"]["max"])]
    rows.append("wall time %.0f s" % res.get("wall_s", 0))
    return "\n".join(rows)


def note(text):
    print(text, file=sys.stderr, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs (a smoke test)")
    ap.add_argument("--firmware", help="the MicroPython UF2 (default: ../shared/rp2)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--no-probe", action="store_true", help="only the game firmware")
    ap.add_argument("--no-game", action="store_true", help="only the probe")
    ap.add_argument("--hops", action="store_true",
                    help="frames sessions with the per-hop stamps (where a linked press's "
                         "time goes); their ~3 KB of arrays on each chip's heap make the "
                         "linked firmware collect inside frames, so its frame and press "
                         "figures are not the firmware's as shipped")
    ap.add_argument("--codec-only", action="store_true",
                    help="only the frame codec's timing on the chip")
    ap.add_argument("--frames-s", type=int, default=30,
                    help="seconds of two-player linked play per seed for frame_ms and "
                         "press_to_pixels_ms (default 30; 0: none)")
    ap.add_argument("--frames-seeds", default="1,2,3",
                    help="the seeds of those sessions (default 1,2,3)")
    ap.add_argument("--frames-only", action="store_true",
                    help="only those sessions (no sync, races or probe)")
    ap.add_argument("--game-ppm", default="0,200,-200",
                    help="chip 1's crystal error in ppm for each game sync run (default "
                         "0,200,-200; the races run at +200)")
    args = ap.parse_args(argv)
    import tempfile
    w0 = time.monotonic()
    firmware = find_firmware(args.firmware) if args.firmware else find_firmware()
    dur = 400 if args.quick else 1000
    res = {"sync": []}
    with tempfile.TemporaryDirectory(prefix="spit-link-") as tmp:
        if args.codec_only:
            res["codec"] = codec_case(firmware, tmp)
            res["wall_s"] = round(time.monotonic() - w0, 1)
            print(table(res))
            return 0
        files = device_files(tmp, firmware)
        if not args.no_game:
            # The real firmware: main.py and all, linked from the menu (R43's sync as
            # the game does it, and the stamps and bounds its arbiter is given).
            game_files = devicefiles.build(Path(tmp) / "game", driver=firmware.ssd1306)
            res["game_sync"] = []
            for ppm in [(0, int(x)) for x in args.game_ppm.split(",") if x.strip()
                        and not args.frames_only]:
                res["game_sync"].append(game_sync_case(firmware, game_files, ppm))
                note("game sync ppm %s: %s bound %s (%.0f s)" % (
                    ppm[1], res["game_sync"][-1]["sync_error_us"],
                    res["game_sync"][-1]["bound_us"], res["game_sync"][-1]["wall_s"]))
            gaps = [0, 5, 10, 20, 50, 100, 1000] if not args.quick else [0, 10, 100]
            if not args.frames_only:
                res["game_races"] = game_race_case(firmware, game_files, (0, 200), gaps,
                                                   2 if args.quick else 4)
                note("game races: %s" % res["game_races"]["races"])
            seconds = min(args.frames_s, 8) if args.quick else args.frames_s
            seeds = [int(x) for x in args.frames_seeds.split(",") if x.strip()]
            if seconds > 0 and seeds:
                sessions = []
                for seed in (seeds[:1] if args.quick else seeds):
                    sessions.append(game_frames_case(firmware, seconds, seed,
                                                     hops=args.hops))
                    note("game frames seed %d: %s" % (seed, [
                        (c["role"], c["frame_ms"], c["press_to_pixels_ms"])
                        for c in sessions[-1]["chips"]]))
                res["game_frames"] = frames_figures(sessions)
                if not args.hops and not args.quick:
                    # Where the time goes: a session of its own with the hop stamps,
                    # whose arrays would make the figures above longer (--hops).
                    # Its arrays can leave the linked firmware too little heap to
                    # start (it has little to spare; with the frames' arrays of 20 s
                    # and more it did not reach the title): so at most HOPS_S seconds,
                    # and the figures above stand anyway if it fails.
                    hops_s = min(seconds, HOPS_S)
                    try:
                        hs = game_frames_case(firmware, hops_s, seeds[0], hops=True)
                    except DeviceError as e:
                        res["game_frames"]["hops_failed"] = str(e).splitlines()[0][:200]
                        note("hops session failed: %s" % res["game_frames"]["hops_failed"])
                    else:
                        note("hops session seed %d done" % seeds[0])
                        res["game_frames"]["hops_from"] = {"seed": seeds[0],
                                                           "seconds": hops_s}
                        for role, names in (("host", HOST_HOPS), ("guest", GUEST_HOPS)):
                            res["game_frames"][role]["hops_ms"] = _hop_figures(
                                [c for c in hs["chips"] if c["role"] == role], names)
        if args.no_probe or args.frames_only:
            res["wall_s"] = round(time.monotonic() - w0, 1)
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
            print(table(res))
            print("\nwrote %s" % args.out)
            return 0
        res["codec"] = codec_case(firmware, tmp)
        note("codec: %s" % res["codec"]["rows"])
        for ppm in ((0, 0), (0, 200), (0, -200)):
            res["sync"].append(sync_case(firmware, tmp, files, ppm, dur, 20))
            note("sync ppm %s: %s" % (ppm[1], res["sync"][-1]["sync_error_us"]))
        gaps = [0, 5, 10, 20, 50] if args.quick else [0, 2, 5, 10, 20, 50, 100]
        res["races"] = race_case(firmware, tmp, files, gaps, 2 if args.quick else 4)
        note("races: %s" % res["races"]["races"])
        if not args.quick:
            res["recover"] = recover_case(firmware, tmp, files)
            note("recover: %s" % res["recover"])
    res["wall_s"] = round(time.monotonic() - w0, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    print(table(res))
    print("\nwrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
