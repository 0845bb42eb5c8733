# Game over: a WIN / LOSE (or DRAW) banner for each player, one line that takes turns
# between the buttons' hint and the game's figures (plays, races won, fumbles, rounds
# or points, the pace), and a choice: REMATCH (the same settings) or MENU, lit from
# the start. Presses only count after a moment, so a press meant for the game never
# lands in the menu.

from shared_rules.arbiter import ticks_diff
from firmware import sound
from firmware.screens import OVER, REMATCH, B, PAUSE_BUTTON

from shared_rules.compat import const

MIN_US = const(1500000)
PAGE_US = const(2000000)         # the line under the banner turns every 2 s
CHOICES = ("REMATCH", "MENU")
HINT = "A: NEXT  B: CHOOSE"


class OverScreen:
    kind = OVER

    def __init__(self, app):
        self.app = app
        self.since = 0
        self.sel = 0
        self.page = 0

    def enter(self, t):
        self.since = t
        self.sel = 0
        self.page = 0

    def press(self, t, p, code):
        if code == PAUSE_BUTTON or ticks_diff(t, self.since) < MIN_US:
            return
        app = self.app
        if code == B:
            app.want(sound.CLICK)
            if self.sel == 0:
                app.go(REMATCH, t)
            else:
                app.to_title(t)
            return
        self.sel = 1 - self.sel
        app.want(sound.CLICK)
        app.touch()

    def tick(self, now):
        # The hint first (what A and B do), then the figures, in turn: a pure
        # function of the clock, so nothing needs recording.
        page = (ticks_diff(now, self.since) // PAGE_US) % 4
        if page != self.page:
            self.page = page
            self.app.touch()
        return False

    def half(self, p):
        app = self.app
        g = app.table.game
        banner, inv = result(g, p)
        line = HINT
        if self.page:
            line = figures(g, app.stats, p)[self.page - 1]
        return (banner, inv, line, "", CHOICES, self.sel)

    def draw(self, view, key):
        return view.banners(OVER, key, self.half(0), self.half(1))


def result(game, p):
    """The game-over banner for player p and whether it is inverted (a win)."""
    w = game.winner
    if w is None:
        return "DRAW", False
    if w == p:
        return "YOU WIN!", True
    return "YOU LOSE", False


def figures(game, stats, p):
    """The three lines of the game's figures, shown in turn under the banner."""
    l1 = "PLAYS %d  RACES %d" % (stats.plays[p], stats.races[p])
    if game.rules.points:
        l2 = "POINTS %d : %d" % (game.scores[p], game.scores[1 - p])
    else:
        l2 = "%d ROUND%s" % (game.round, "" if game.round == 1 else "S")
    l2 = "FUMBLES %d  %s" % (stats.fumbles[p], l2)
    gap = stats.mean_gap_ms(p)
    pace = ("%d MS A PLAY" % gap) if gap >= 0 else "NO TWO PLAYS IN A ROW"
    return l1, l2, pace


SCREEN = OverScreen
