# A rematch with the same settings: a moment to see the running score of the session
# ("YOU 2 : 1 CPU") and which game this is, then the new deal. Presses are not
# taken here, so a late press cannot say Spit for anyone.

from shared_rules.arbiter import ticks_diff
from firmware.screens import REMATCH

from shared_rules.compat import const

SHOW_US = const(1500000)


class RematchScreen:
    kind = REMATCH

    def __init__(self, app):
        self.app = app
        self.since = 0

    def enter(self, t):
        self.since = t

    def press(self, t, p, code):
        pass

    def tick(self, now):
        if ticks_diff(now, self.since) >= SHOW_US:
            self.app.rematch(now)
            return True
        return False

    def draw(self, view, key):
        if not view.stale_text(REMATCH, key):
            return False
        app = self.app
        wins = app.series
        game_no = "GAME %d" % (wins[0] + wins[1] + app.series_draws + 1)
        h = []
        for p in (0, 1):
            h.append(("REMATCH", False, game_no,
                      series(wins, p, app.cpu[1 - p] is not None), (), -1))
        return view.banners(REMATCH, key, h[0], h[1])



def series(wins, p, cpu):
    """The running score of a session of rematches, as player p reads it."""
    return "YOU %d : %d %s" % (wins[p], wins[1 - p], "CPU" if cpu else "THEM")


SCREEN = RematchScreen
