#!/usr/bin/env python3
"""Desktop emulator speed, printed as a table; part of `make bench`.

1. Headless CPU against CPU: whole games through the firmware's app, stepped every
   device frame (33.3 ms) on a simulated clock, as multiples of real time (target:
   at least 50x, so CI can afford many whole games).
2. The window, with SDL's dummy video driver: the time of one window frame (events,
   app.step, drawing the screen and the skin, flip) against the 16.7 ms a 60 fps frame
   may take. The dummy driver does not reach a GPU, so this is the emulator's own
   cost; a real display adds the compositor's.
3. The terminal demo's half-block conversion of one frame.

    python tools/bench_emulator.py [--games N] [--frames N]
"""

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from desktop_emulator import session  # noqa: E402
from desktop_emulator import loops, window
from desktop_emulator.clock import SimClock  # noqa: E402
from desktop_emulator.display import FrameDisplay  # noqa: E402
from desktop_emulator.sound import ListSound  # noqa: E402
from desktop_emulator.storage import MemoryStorage  # noqa: E402
from shared_rules.game import Rules  # noqa: E402

PAIRINGS = (("hard", "easy"), ("hard", "hard"), ("normal", "normal"), ("easy", "easy"))


def headless_games(games):
    rows = []
    frame_us = session.device_frame_us()
    for a, b in PAIRINGS:
        sim_us = 0
        wall = 0.0
        frames = 0
        for seed in range(games):
            clock = SimClock()
            m = session.AppEngine(clock, session.QueueInput(), FrameDisplay(), ListSound(),
                                MemoryStorage())
            m.start_game((a, b), seed, Rules())
            t0 = time.perf_counter()
            loops.run_headless(m, frame_us, until="over")
            wall += time.perf_counter() - t0
            sim_us += clock.elapsed_us()
            frames += m.steps
        rows.append(("%s vs %s" % (a, b), games, sim_us / 1e6, wall, frames))
    return rows


def window_frames(frames, skin=True):
    import pygame
    from desktop_emulator.display import WindowDisplay, Skin
    from desktop_emulator.keyboard import KeyboardInput
    from desktop_emulator.sound import MixerSound
    pygame.display.init()
    clock = SimClock()
    disp = WindowDisplay(scale=6, skin=skin, skin_obj=Skin() if skin else None,
                         fit_desktop=False)
    kb = KeyboardInput(clock)
    m = session.AppEngine(clock, kb, disp, MixerSound(), MemoryStorage())
    m.start_game(("hard", "normal"), 1, Rules())
    win = window.Window(m, disp, kb, realtime=False, out=open(os.devnull, "w"))
    win.set_caption()
    times = []
    for _ in range(frames):
        t0 = time.perf_counter()
        win.frame()
        times.append(time.perf_counter() - t0)
    pygame.display.quit()
    return times


def terminal_frames(n):
    from desktop_emulator.terminal import half_block_lines
    buf = bytes(range(256)) * 4
    t0 = time.perf_counter()
    for _ in range(n):
        half_block_lines(buf)
    return (time.perf_counter() - t0) / n


def gif_clip_s():
    """Seconds to encode a 30 s clip at 10 fps (scale 3) of real game screens."""
    from desktop_emulator.gif import GifWriter
    sys.path.insert(0, os.path.join(ROOT, "tests", "emulator"))
    try:
        from test_emulator_gif import some_frames
    finally:
        sys.path.pop(0)
    frames = some_frames()
    w = GifWriter(scale=3)
    for i in range(300):
        w.add(frames[(i * 3) % len(frames)], 10)
    t0 = time.perf_counter()
    w.finish()
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=5, help="games per pairing (default 5)")
    ap.add_argument("--frames", type=int, default=600, help="window frames (default 600)")
    args = ap.parse_args(argv)

    print("Desktop emulator benchmark (%s, Python %s)" % (sys.platform, sys.version.split()[0]))
    print()
    print("Headless CPU vs CPU, whole games, app.step every %.1f ms (simulated)"
          % (session.device_frame_us() / 1000))
    print("| pairing | games | simulated s | wall s | frames/s | x real time |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    tot_sim = tot_wall = 0.0
    for name, games, sim_s, wall, frames in headless_games(args.games):
        tot_sim += sim_s
        tot_wall += wall
        print("| %s | %d | %.1f | %.2f | %.0f | %.0fx |" % (
            name, games, sim_s, wall, frames / wall, sim_s / wall))
    ratio = tot_sim / tot_wall
    print("| all | | %.1f | %.2f | | **%.0fx** (target >= 50x: %s) |" % (
        tot_sim, tot_wall, ratio, "met" if ratio >= 50 else "NOT MET"))
    print()
    print("Window frame (SDL dummy video driver, scale 6, CPU vs CPU), %d frames" % args.frames)
    print("| skin | mean ms | median ms | p95 ms | max ms | budget at 60 fps |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for skin in (True, False):
        ts = sorted(window_frames(args.frames, skin))
        mean = statistics.mean(ts) * 1000
        p95 = ts[int(len(ts) * 0.95) - 1] * 1000
        print("| %s | %.2f | %.2f | %.2f | %.2f | %.0f%% of 16.7 ms |" % (
            "on" if skin else "off", mean, statistics.median(ts) * 1000, p95,
            ts[-1] * 1000, mean / 16.667 * 100))
    print()
    print("Terminal half-block conversion: %.3f ms a frame" % (terminal_frames(500) * 1000))
    gif = gif_clip_s()
    print("GIF clip (30 s at 10 fps, scale 3) encoded in %.2f s (target < 5 s: %s)"
          % (gif, "met" if gif < 5 else "NOT MET"))
    return 0 if ratio >= 50 else 1


if __name__ == "__main__":
    sys.exit(main())
