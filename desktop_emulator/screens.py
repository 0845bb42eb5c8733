# The key screens of the game, reached by playing: the firmware's app on a simulated
# clock with its fake ports (firmware/fakeports.py), a CPU-vs-CPU game for the table
# screens and a scripted two-human game for the pause screen. Pure and deterministic,
# so the same screens come out of CPython (with the emulator's framebuf stand-in) and
# of the real MicroPython binary (with its C framebuf):
#
#   micropython desktop_emulator/screens.py      (MICROPYPATH=<repo root>)
#
# prints one line per screen, "<name> <hex of the 1024 framebuffer bytes>". The parity
# test compares those lines with key_screens(desktop_emulator.framebuf); the golden
# PNG test and docs/images use the same screens. MicroPython-compatible on purpose:
# no f-strings, no imports from desktop_emulator.

from shared_rules.game import Rules, PLAY, READY, SLAP
from firmware.app import App, Ports
from firmware import fakeports as fp

SEED = 3
LEVELS = (3, 2)          # hard (player 0) against normal (player 1)
NAMES = ("title", "play", "stall", "slap", "summary", "over", "pause")
MAX_FRAMES = 20000


def _new_app(framebuf):
    clock = fp.SimClock(0)
    inp = fp.ScriptInput(clock)
    disp = fp.FrameDisplay(framebuf, False)
    app = App(Ports(inp, disp, fp.LogSound(False), fp.MemoryStorage()))
    return app, clock, inp, disp


def _plays(app):
    return app.stats.plays[0] + app.stats.plays[1]


def table_screens(framebuf, seed=SEED, levels=LEVELS):
    """[(name, bytes)]: title, play, stall, slap, summary, over."""
    app, clock, inp, disp = _new_app(framebuf)
    out = []
    app.step(clock.now)
    out.append(("title", bytes(disp.buf)))
    app.start_game(seed, Rules(), levels, clock.now)
    got = {}
    n = 0
    while len(got) < 5 and n < MAX_FRAMES:
        app.step(clock.advance(fp.FRAME_US))
        n += 1
        scr = app.screen_name()
        g = app.game
        name = None
        if scr == "game":
            if "play" not in got and g.phase == PLAY and _plays(app) >= 6:
                name = "play"
            elif "stall" not in got and g.phase == READY and g.piles and _plays(app) >= 6:
                name = "stall"
            elif "slap" not in got and g.phase == SLAP:
                name = "slap"
        elif scr == "summary" and "summary" not in got:
            name = "summary"
        elif scr == "over" and "over" not in got:
            name = "over"
        if name is not None:
            got[name] = bytes(disp.buf)
    for name in NAMES[1:6]:
        if name not in got:
            raise RuntimeError("seed %d never showed the %s screen" % (seed, name))
        out.append((name, got[name]))
    return out


def pause_screen(framebuf, seed=SEED):
    """Two humans: both say Spit, then player 0 holds A and B for a second."""
    app, clock, inp, disp = _new_app(framebuf)
    app.step(clock.now)
    app.start_game(seed, Rules(), (None, None), clock.now)
    t = clock.advance(fp.FRAME_US)
    inp.press(t, 0, "B")
    inp.press(t + 5000, 1, "B")
    n = 0
    while app.game.phase != PLAY and n < 100:
        app.step(clock.advance(fp.FRAME_US))
        n += 1
    t = clock.advance(fp.FRAME_US)
    inp.press(t, 0, "A", 1500000)
    inp.press(t + 3000, 0, "B", 1500000)
    n = 0
    while app.screen_name() != "pause" and n < 200:
        app.step(clock.advance(fp.FRAME_US))
        n += 1
    if app.screen_name() != "pause":
        raise RuntimeError("holding A+B did not pause")
    return ("pause", bytes(disp.buf))


def key_screens(framebuf, seed=SEED):
    out = table_screens(framebuf, seed)
    out.append(pause_screen(framebuf, seed))
    return out


def main():
    import binascii
    import framebuf
    for name, data in key_screens(framebuf):
        print(name, binascii.hexlify(data).decode())


if __name__ == "__main__":
    main()
