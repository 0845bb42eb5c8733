# The pause menu, in both halves: RESUME or QUIT GAME (either player chooses). The
# CPU starts afresh on resume: nothing it planned before the pause carries over.

from firmware import sound
from firmware.screens import PAUSE, GAME, B, PAUSE_BUTTON

HINT = "A: NEXT  B: CHOOSE"
ITEMS = ("RESUME", "QUIT GAME")


class PauseScreen:
    kind = PAUSE

    def __init__(self, app):
        self.app = app
        self.sel = 0

    def enter(self, t):
        self.sel = 0
        self.app.want(sound.PAUSE)

    def press(self, t, p, code):
        app = self.app
        if code == PAUSE_BUTTON or (code == B and self.sel == 0):
            app.want(sound.RESUME)
            app.table.make_seats(t)
            app.go(GAME, t)
            return
        if code == B:
            app.to_title(t)
            return
        self.sel = 1 - self.sel
        app.want(sound.CLICK)
        app.touch()

    def tick(self, now):
        return False

    def draw(self, view, key):
        half = ("PAUSED", False, HINT, "", ITEMS, self.sel)
        return view.banners(PAUSE, key, half, half)


SCREEN = PauseScreen
