# The key screens of the game, reached by playing: the firmware's app on a simulated
# clock with its fake ports (host/rig.py), a CPU-vs-CPU game for the table
# screens, scripted presses for the rest. Pure and deterministic, so the same
# screens come out of CPython (with the emulator's framebuf stand-in) and of the real
# MicroPython binary (with its C framebuf):
#
#   micropython desktop_emulator/screens.py      (MICROPYPATH=<repo root>)
#
# prints one line per screen, "<name> <hex of the 1024 framebuffer bytes>". The parity
# test compares those lines with key_screens(desktop_emulator.framebuf); the golden
# PNG test and docs/images use the same screens. MicroPython-compatible on purpose:
# no f-strings, no imports from desktop_emulator.

from shared_rules.game import Rules, PLAY, READY, SLAP
from shared_rules.pad import main_action
from firmware.app import App, Ports
from host import rig as fp

SEED = 3
LEVELS = (3, 2)          # hard (player 0) against normal (player 1)
NAMES = ("title", "howto", "play", "fumble", "stall", "slap", "summary", "over",
         "rematch", "pause", "attract")
MAX_FRAMES = 20000


def _new_app(framebuf):
    clock = fp.SimClock(0)
    inp = fp.ScriptInput(clock)
    disp = fp.FrameDisplay(framebuf, False)
    app = App(Ports(inp, disp, fp.LogSound(False), fp.MemoryStorage()))
    return app, clock, inp, disp


def _plays(app):
    return app.stats.plays[0] + app.stats.plays[1]


def _steps(app, clock, n):
    for _ in range(n):
        app.step(clock.advance(fp.FRAME_US))


def _until(app, clock, cond, what, limit=MAX_FRAMES):
    n = 0
    while not cond(app) and n < limit:
        app.step(clock.advance(fp.FRAME_US))
        n += 1
    if not cond(app):
        raise RuntimeError("never reached: " + what)


def _tap(app, clock, inp, player, button):
    inp.press(clock.advance(fp.FRAME_US), player, button, 40000)
    _steps(app, clock, 3)


def table_screens(framebuf, seed=SEED, levels=LEVELS):
    """[(name, bytes)]: play, stall, slap, summary, over, rematch (a CPU game)."""
    app, clock, inp, disp = _new_app(framebuf)
    app.step(clock.now)
    app.start_game(seed, Rules(), levels, clock.now)
    got = {}
    n = 0
    while len(got) < 5 and n < MAX_FRAMES:
        app.step(clock.advance(fp.FRAME_US))
        n += 1
        scr = app.screen_name()
        g = app.game
        name = None
        if scr == "game" and not app.view.behind:   # (a change spreads over steps)
            if "play" not in got and g.phase == PLAY and _plays(app) >= 6:
                name = "play"
            elif "stall" not in got and g.phase == READY and g.piles and _plays(app) >= 6:
                name = "stall"
            elif "slap" not in got and g.phase == SLAP and app.table.signalled:
                name = "slap"                          # the banner: after the signal (R44)
        elif scr == "summary" and "summary" not in got:
            name = "summary"
        elif scr == "over" and "over" not in got and app.screens[3].page == 1:
            name = "over"
        if name is not None:
            got[name] = bytes(disp.buf)
    out = []
    for name in ("play", "stall", "slap", "summary", "over"):
        if name not in got:
            raise RuntimeError("seed %d never showed the %s screen" % (seed, name))
        out.append((name, got[name]))
    _tap(app, clock, inp, 0, "B")                      # REMATCH
    if app.screen_name() != "rematch":
        raise RuntimeError("REMATCH did not show the rematch screen")
    out.append(("rematch", bytes(disp.buf)))
    return out


def menu_screens(framebuf):
    """title, the second page of "how to play", and the attract mode."""
    app, clock, inp, disp = _new_app(framebuf)
    app.step(clock.now)
    out = [("title", bytes(disp.buf))]
    while app.menu_text(app.menu_items()[app.title.sel]) != "HOW TO PLAY":
        _tap(app, clock, inp, 0, "A")
    _tap(app, clock, inp, 0, "B")
    _tap(app, clock, inp, 0, "B")
    if app.screen_name() != "howto":
        raise RuntimeError("HOW TO PLAY did not open")
    out.append(("howto", bytes(disp.buf)))
    while app.screen_name() == "howto":
        _tap(app, clock, inp, 0, "A")
    _until(app, clock, lambda a: a.screen_name() == "attract", "the attract mode")
    _until(app, clock, lambda a: _plays_demo(a) >= 4, "plays in the attract mode")
    out.append(("attract", bytes(disp.buf)))
    return out


def _plays_demo(app):
    t = app.screens[5].table
    return t.stats.plays[0] + t.stats.plays[1] if t is not None else 0


def human_screens(framebuf, seed=SEED):
    """Two humans: a fumble (player 0 presses B on a card that fits nowhere), then
    the pause (player 0 holds A and B for a second)."""
    app, clock, inp, disp = _new_app(framebuf)
    app.step(clock.now)
    app.start_game(seed, Rules(), (None, None), clock.now)
    t = clock.advance(fp.FRAME_US)
    inp.press(t, 0, "B")
    inp.press(t + 5000, 1, "B")
    # (the whole table drawn: a new round's comes over several frames, view.DRAW_BUDGET)
    _until(app, clock, lambda a: a.game.phase == PLAY and not a.view.behind, "play", 100)
    out = []
    for _ in range(5):
        # Move to a card that fits nowhere, then press B on it.
        if app.game.why_not(main_action(app.game, 0, app.pads[0].cursor)) is not None:
            break
        _tap(app, clock, inp, 0, "A")
    _tap(app, clock, inp, 0, "B")
    if app.msgs[0].l1 != "FUMBLE!":
        raise RuntimeError("no fumble")
    _steps(app, clock, 4)
    out.append(("fumble", bytes(disp.buf)))
    _steps(app, clock, 30)
    t = clock.advance(fp.FRAME_US)
    inp.press(t, 0, "A", 1500000)
    inp.press(t + 3000, 0, "B", 1500000)
    _until(app, clock, lambda a: a.screen_name() == "pause", "pause", 200)
    out.append(("pause", bytes(disp.buf)))
    return out


def key_screens(framebuf, seed=SEED):
    got = {}
    for name, data in menu_screens(framebuf) + table_screens(framebuf, seed) + \
            human_screens(framebuf, seed):
        got[name] = data
    return [(name, got[name]) for name in NAMES]


def main():
    import binascii
    import framebuf
    for name, data in key_screens(framebuf):
        print(name, binascii.hexlify(data).decode())


if __name__ == "__main__":
    main()
