# The screens of the handheld, one small module each with enter/press/tick/draw;
# firmware/app.py is the loop and the routing between them. A screen is given the
# app (its ports, settings, the current game's table, the view) and calls app.go()
# to move on.
#
#   title -> game (ready / play / stall / slap) -> summary -> game ... -> over
#   over -> rematch -> game, or over -> title;  game <-> pause;  title <-> how to play;
#   title -> attract (after a while with no press; any press comes back)
#   title <-> lab (the reaction lab: its menu, runs and results)
#
# Buttons on menus: A = next item, B = choose (six-button pads: UP/LEFT = previous,
# DOWN/RIGHT = next).

from shared_rules.compat import const

TITLE = const(0)
GAME = const(1)
SUMMARY = const(2)
OVER = const(3)
PAUSE = const(4)
ATTRACT = const(5)
HOWTO = const(6)
REMATCH = const(7)
LAB = const(8)
NAMES = ("title", "game", "summary", "over", "pause", "attract", "howto", "rematch", "lab")
# Every screen but the game's own is loaded when shown and unloaded when left (the
# app's go), so that while a game is played only its code is on the heap: screen
# number -> module name (the module's SCREEN is its class).
LAZY = {TITLE: "title", SUMMARY: "summary", OVER: "over", PAUSE: "pause",
        ATTRACT: "attract", HOWTO: "howto", REMATCH: "rematch", LAB: "lab"}

DEMO_LEVELS = (3, 2)      # the attract mode's CPUs: hard (player 0) against normal

# The pad's button codes (one home: shared_rules.pad) and a pause button of its own
# (the emulator's Esc; on the device, hold A+B of a pad).
from shared_rules.pad import A, B, LEFT, RIGHT, UP, DOWN  # noqa: E402,F401
PAUSE_BUTTON = const(6)


def back(code):
    """A menu press that goes to the previous item (six-button pads)."""
    return code == UP or code == LEFT
