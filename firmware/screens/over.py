# Game over: a WIN / LOSE (or DRAW) banner for each player, the game's figures
# (plays, races won, fumbles, rounds or points, the pace) and a choice: REMATCH (the
# same settings) or MENU. Presses only count after a moment, so a press meant for
# the game never lands in the menu; the choice lights up when they do.

from shared_rules.arbiter import ticks_diff
from firmware import sound
from firmware.screens import OVER, REMATCH, B, PAUSE_BUTTON

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

MIN_US = const(1500000)
CHOICES = ("REMATCH", "MENU")


class OverScreen:
    kind = OVER

    def __init__(self, app):
        self.app = app
        self.since = 0
        self.sel = 0
        self.ready = False

    def enter(self, t):
        self.since = t
        self.sel = 0
        self.ready = False

    def press(self, t, p, code):
        if code == PAUSE_BUTTON or ticks_diff(t, self.since) < MIN_US:
            return
        app = self.app
        self.ready = True
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
        if not self.ready and ticks_diff(now, self.since) >= MIN_US:
            self.ready = True
            self.app.touch()
        return False

    def half(self, p):
        app = self.app
        g = app.table.game
        banner, inv = result(g, p)
        l1, l2 = figures(g, app.stats, p)
        return (banner, inv, l1, l2, CHOICES, self.sel if self.ready else -1)

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
    """The two lines of the game's figures under the banner."""
    l1 = "PLAYS %d  RACES %d  FUMBLES %d" % (stats.plays[p], stats.races[p],
                                            stats.fumbles[p])
    gap = stats.mean_gap_ms(p)
    pace = ("%d MS A PLAY" % gap) if gap >= 0 else "NO TWO PLAYS IN A ROW"
    if game.rules.points:
        l2 = "POINTS %d : %d  %s" % (game.scores[p], game.scores[1 - p],
                                     pace if gap >= 0 else "")
    else:
        l2 = "%d ROUND%s  %s" % (game.round, "" if game.round == 1 else "S", pace)
    return l1, l2.strip()


SCREEN = OverScreen
