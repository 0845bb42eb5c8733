"""One whole game of the firmware app under the real MicroPython interpreter.

    python tools/firmware_sim.py [--seed N] [--points] [--flip] [--level 1-3] [--heap 192K]
                                 [--record-limit BYTES] [--source]

(`make firmware-sim`). Run with CPython, it compiles the device's modules with
mpy-cross into build/mpy (as `make deploy` does for the board), then starts
.venv/bin/micropython with a heap of HEAP (`-X heapsize=192K`) and MICROPYPATH
set to build/mpy, on this same file; with --source, MICROPYPATH is the repository
root and the sources are compiled on import instead (the app loads most of its screens
only when they are shown, so from sources it would compile them mid-game, which the
device never does). Under MicroPython it builds the app with fake ports: the real
`framebuf` (a FrameDisplay that checks every show against the view's page spans), a
simulated clock, simulated buttons and the device's storage on files. Player 0's buttons
are pressed by a scripted player (a CPU player's presses fed through the input port,
with releases, like a person's IRQ-stamped buttons) who first walks the title menu to
"VS CPU <level>" and START; player 1 is the app's own CPU seat. The game runs to the
game-over screen. The last line printed is

    game over: winner=<0|1|draw> rounds=<n> frames=<n> peak_heap=<bytes>

peak_heap is the largest live heap seen (gc.mem_alloc() right after gc.collect(),
sampled every frame).

Why 192K, when the device uses about 100-116 KB: this is MicroPython's 64-bit unix port,
where every pointer, object header and list slot takes twice the RP2040's 4 bytes, so
the same modules and game take much more heap here (140-152 KB live over seeds 1-40
and the tests' games, with the press pipeline and conduct modules of the rules core,
against 103-116 KB measured on the emulated RP2040 before them). At 176K seed 9 with
manual flip against the normal CPU (152 KB live) and seed 13 run out: the heap is then
too fragmented for one more module; HEAP is one 16K step above that, so a layout change
does not fail CI, yet growth of the app's heap does. --record-limit sets the app's
recording limit (the device's 16 KB by default).
It is a guard, not the device's figure. `make pico-sim` measures the device itself: the deployed firmware
on the emulated RP2040, which has about 240 KB of heap after boot (docs/FIRMWARE.md).

Storage is the device's own port (firmware/hw/storage.py) on files in build/sim/, so
the recording goes to a file between rounds as on the board: replay_bytes is what it
holds in the heap at the end, replay_flash what went to the file.
"""

import sys

MAX_FRAMES = 30 * 60 * 60          # an hour of simulated play: a game never lasts that long
HEAP = "192K"                      # see above: the 64-bit unix port's figure, not the device's


def _args(argv):
    opts = {"seed": 1, "points": False, "flip": False, "level": 3, "heap": HEAP,
            "source": False, "record_limit": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--seed":
            i += 1
            opts["seed"] = int(argv[i])
        elif a == "--points":
            opts["points"] = True
        elif a == "--flip":
            opts["flip"] = True
        elif a == "--level":
            i += 1
            opts["level"] = int(argv[i])
        elif a == "--heap":
            i += 1
            opts["heap"] = argv[i]
        elif a == "--source":
            opts["source"] = True
        elif a == "--record-limit":
            i += 1
            opts["record_limit"] = int(argv[i])
        else:
            raise SystemExit("unknown argument: %s" % a)
        i += 1
    return opts


def launch(argv):
    """CPython: run this file under the real MicroPython binary. (The launching code
    is in tools/mp_run.py: everything defined here is on the simulated heap too.)"""
    from mp_run import compile_device, run_under_micropython   # tools/ is on the path
    opts = _args(argv)
    path = None if opts["source"] else compile_device()
    return run_under_micropython(__file__, argv, opts["heap"], path)


def SimStorage(path):
    """The device's storage port on files (a save count for the summary line)."""
    import os
    from firmware.hw.storage import FileStorage
    try:
        os.mkdir("build")
    except OSError:
        pass
    try:
        os.mkdir("build/sim")
    except OSError:
        pass

    class Counted(FileStorage):
        saves = 0

        def save(self, d):
            FileStorage.save(self, d)
            self.saves += 1
    st = Counted(path)
    st.fs.remove(path)                   # every run starts with no saved game
    return st


def simulate(opts, out=print):
    import gc
    import framebuf
    from firmware.app import App, Ports, GAME, OVER_SCREEN
    from host import rig as fp

    seed = opts["seed"]
    clock = fp.SimClock(0x3FFFFFFF - 5000000 + seed)     # the ticks wrap during the game
    inp = fp.ScriptInput(clock)
    disp = fp.FrameDisplay(framebuf, check=True)
    snd = fp.LogSound(keep=False)
    storage = SimStorage("build/sim/seed%d-%d%s%s.json" % (
        seed, opts["level"], "p" if opts["points"] else "", "f" if opts["flip"] else ""))
    kw = {}
    if opts["record_limit"] is not None:
        kw["record_limit"] = opts["record_limit"]
    app = App(Ports(inp, disp, snd, storage), now_us=clock.now, **kw)
    hand = fp.BotHand(app, 0, "hard", seed * 31 + 7, inp)

    # The menu, by buttons: mode -> "VS CPU <level>", rules, flip, then back to START.
    fp.run(app, clock, 3)
    buttons = ["A"] + ["B"] * opts["level"]              # the mode item (after START)
    buttons += ["A"] + (["B"] if opts["points"] else [])  # the rules item
    buttons += ["A"] + (["B"] if opts["flip"] else [])    # the flip item
    buttons += ["U", "U", "U", "B"]                       # back to START
    fp.press_menu(app, clock, inp, buttons)
    if app.screen != GAME:
        raise SystemExit("the menu did not start a game (screen %s)" % app.screen_name())
    out("sim: seed=%d rules=%r cpu=%r" % (seed, app.game.rules, app.cpu))

    peak = 0
    frames = 0
    while app.screen != OVER_SCREEN and frames < MAX_FRAMES:
        now = clock.advance(fp.FRAME_US)
        hand.pump(now)
        app.step(now)
        frames += 1
        gc.collect()
        m = gc.mem_alloc()
        if m > peak:
            peak = m
    g = app.game
    st = app.stats
    out("sim: plays=%d/%d races_won=%d/%d mean_gap_ms=%d/%d scores=%d-%d" % (
        st.plays[0], st.plays[1], st.races[0], st.races[1], st.mean_gap_ms(0),
        st.mean_gap_ms(1), g.scores[0], g.scores[1]))
    out("sim: shows=%d pages=%d bytes=%d busy_frames=%d sounds=%d saves=%d "
        "replay_records=%d replay_bytes=%d replay_flash=%d replay_lost=%d span_errors=%d "
        "dropped=%d" % (
            app.shows, app.pages_sent, app.bytes_sent, app.busy_frames, snd.count,
            storage.saves, len(app.replay.records), app.replay.records.nbytes(),
            app.replay.records.spilled(), app.replay.records.lost, disp.span_errors,
            app.dropped))
    if app.screen != OVER_SCREEN:
        raise SystemExit("no game over after %d frames" % frames)
    if disp.span_errors:
        raise SystemExit("the view drew outside the spans it reported")
    winner = "draw" if g.winner is None else str(g.winner)
    out("game over: winner=%s rounds=%d frames=%d peak_heap=%d" % (winner, g.round, frames, peak))
    return app


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        simulate(_args(sys.argv[1:]))
    else:
        sys.exit(launch(sys.argv[1:]))
