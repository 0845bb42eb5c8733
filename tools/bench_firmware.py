"""Firmware speed and display traffic: a table, not a test (`make bench`).

    python tools/bench_firmware.py [--seed N] [--games N]

Run with CPython, it re-runs itself under .venv/bin/micropython (-X heapsize=4M: the
samples need room; tools/firmware_sim.py is the heap check;
MICROPYPATH = the repository root). Under MicroPython it plays whole games of the
firmware app with fake ports (as tools/firmware_sim.py: a scripted player 0 through
the input port, the app's CPU seat as player 1) and measures, per frame:

- frame time: app.step() on this machine's MicroPython (the unix port; an RP2040 at
  125 MHz runs MicroPython very roughly 30-50x slower, so read these as relative);
- bytes allocated by app.step() (gc.mem_alloc() around it, after a gc.collect());
- pages sent per frame and the I2C time at 400 kHz: what hw/display.py sends (the
  drawn columns of each page, plus one 8-byte window command a page), and what
  sending those pages whole would take (a page ~2.9 ms, a full frame ~23 ms);
- time from a button's stamp to the rules decision: how long after the touch the
  arbiter settled it (the loop's frame period plus the first-touch window).
"""

import sys

I2C_HZ = 400000


def i2c_us(nbytes):
    # Each byte is 9 clocks (8 bits + ACK); a transaction adds start, address, stop.
    return (nbytes * 9 * 1000000) // I2C_HZ


def page_us(width):
    """One page window: 8-byte command write + (address + control + data) write."""
    return i2c_us(1 + 7) + i2c_us(2 + width) + 2 * (20 * 1000000 // I2C_HZ)


FULL_PAGE_US = page_us(128)


def _pct(xs, q):
    if not xs:
        return 0
    xs = sorted(xs)
    i = (len(xs) * q) // 100
    if i >= len(xs):
        i = len(xs) - 1
    return xs[i]


def _row(out, name, xs, scale=1, unit=""):
    if not xs:
        out("%-38s %8s" % (name, "-"))
        return
    n = len(xs)
    mean = sum(xs) // n
    out("%-38s %8s %8s %8s %8s %7d" % (
        name, _fmt(mean, scale), _fmt(_pct(xs, 50), scale), _fmt(_pct(xs, 90), scale),
        _fmt(max(xs), scale), n))


def _fmt(v, scale):
    if scale == 1:
        return "%d" % v
    return "%d.%02d" % (v // scale, (v % scale) * 100 // scale)


def bench(seed, games, out=print):
    import gc
    import time
    import framebuf
    from firmware.app import App, Ports, GAME, OVER_SCREEN
    from host import rig as fp

    t_all = []
    t_idle = []
    t_drew = []
    a_all = []
    a_idle = []
    a_drew = []
    pages = []
    i2c_spans = []
    i2c_whole = []
    latency = []
    frames = 0
    for k in range(games):
        s = seed + k
        clock = fp.SimClock(0x3FFFFFFF - 3000000 + s)
        inp = fp.ScriptInput(clock)
        disp = fp.FrameDisplay(framebuf, check=False)
        app = App(Ports(inp, disp, fp.LogSound(False), fp.MemoryStorage()), now_us=clock.now)
        hand = fp.BotHand(app, 0, "hard", s * 31 + 7, inp)
        fp.run(app, clock, 3)
        fp.press_menu(app, clock, inp, ["A", "B", "B", "B", "U", "B"])   # CPU hard, START
        if app.screen != GAME:
            raise SystemExit("menu did not start a game")
        arb = None
        while app.screen != OVER_SCREEN and frames < 200000:
            now = clock.advance(fp.FRAME_US)
            hand.pump(now)
            if app.arbiter is not arb:
                # Note, for every decision, how long after its touch it was made.
                arb = app.arbiter
                arb.settle = _timed(arb.settle, clock, latency)
            busy = app.busy_frames
            gc.collect()
            m0 = gc.mem_alloc()
            t0 = time.ticks_us()
            drew = app.step(now)
            dt = time.ticks_diff(time.ticks_us(), t0)
            alloc = gc.mem_alloc() - m0
            frames += 1
            t_all.append(dt)
            a_all.append(alloc)
            if drew:
                t_drew.append(dt)
                a_drew.append(alloc)
                pages.append(app.last_pages)
                us = 0
                for w in disp.last_widths:
                    us += page_us(w)
                i2c_spans.append(us)
                i2c_whole.append(app.last_pages * FULL_PAGE_US)
            elif app.busy_frames == busy:
                t_idle.append(dt)
                a_idle.append(alloc)
    out("firmware bench: MicroPython %s, %d game(s) from seed %d, %d frames at 30 fps" % (
        ".".join([str(x) for x in sys.implementation.version[:3]]), games, seed, frames))
    out("%-38s %8s %8s %8s %8s %7s" % ("", "mean", "p50", "p90", "max", "n"))
    _row(out, "frame time, all frames (us)", t_all)
    _row(out, "frame time, idle frames (us)", t_idle)
    _row(out, "frame time, frames that drew (us)", t_drew)
    _row(out, "bytes allocated, all frames", a_all)
    _row(out, "bytes allocated, idle frames", a_idle)
    _row(out, "bytes allocated, frames that drew", a_drew)
    _row(out, "pages sent, frames that drew", pages)
    _row(out, "I2C ms, drawn columns only", i2c_spans, 1000)
    _row(out, "I2C ms, dirty pages sent whole", i2c_whole, 1000)
    _row(out, "stamp -> rules decision (ms)", latency, 1000)
    drawn = len(pages)
    le4 = 0
    for p in pages:
        if p <= 4:
            le4 += 1
    out("frames that drew: %d of %d (%d%%); of those, %d%% sent <= 4 pages" % (
        drawn, frames, drawn * 100 // (frames or 1), le4 * 100 // (drawn or 1)))
    out("a full frame (8 pages) would take %d.%02d ms of I2C; one page %d.%02d ms" % (
        8 * FULL_PAGE_US // 1000, (8 * FULL_PAGE_US % 1000) // 10,
        FULL_PAGE_US // 1000, (FULL_PAGE_US % 1000) // 10))


def _timed(real, clock, latency):
    def settle(now):
        res = real(now)
        for _a, t, _r in res:
            latency.append((clock.now - t) & ((1 << 30) - 1))
        return res
    return settle


def launch(argv):
    from mp_run import run_under_micropython     # tools/ is this script's path
    return run_under_micropython(__file__, argv, "4M")


def main(argv):
    seed = 1
    games = 3
    i = 0
    while i < len(argv):
        if argv[i] == "--seed":
            i += 1
            seed = int(argv[i])
        elif argv[i] == "--games":
            i += 1
            games = int(argv[i])
        i += 1
    bench(seed, games)


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        main(sys.argv[1:])
    else:
        sys.exit(launch(sys.argv[1:]))
