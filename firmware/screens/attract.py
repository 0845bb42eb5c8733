# The attract mode: when nobody has pressed anything on the title screen for a while,
# two CPU players play a demo game (silently, nothing recorded or saved) so that
# someone walking by sees what the game is. Any press goes back to the menu and does
# nothing else; the demo also ends with its game or after a few minutes' play.

from shared_rules.game import Game, Rules, OVER as GAME_OVER
from shared_rules.arbiter import ticks_diff
from firmware.table import Table
from firmware.stats import Stats
from firmware.view import Message
from firmware.screens import ATTRACT, TITLE, DEMO_LEVELS

from shared_rules.compat import const

MAX_US = const(120000000)          # a demo lasts at most this long
LEVELS = DEMO_LEVELS


def _silent(tune):
    pass


class AttractScreen:
    kind = ATTRACT

    def __init__(self, app):
        self.app = app
        self.table = None
        self.since = 0
        self.info = Message()
        self.info.set("DEMO", "ANY KEY")      # in both info corners: any button ends it
        self._evs = []

    def enter(self, t):
        app = self.app
        app.release_last_game()       # the device's heap holds one game at a time
        self.since = t
        game = Game(t & 0x3FFFFFFF, Rules())
        self.table = Table(game, LEVELS, app.scheme, app.window_us, app.settings_conduct(),
                           Stats(), _silent, t)
        self.table.enter(t)
        app.view.invalidate()

    def leave(self):
        self.table = None

    def press(self, t, p, code):
        self.app.go(TITLE, t)         # any press: back to the menu, and nothing more

    def tick(self, now):
        tb = self.table
        if ticks_diff(now, self.since) >= MAX_US:
            # Its time is up, even in the middle of a round.
            self.app.go(TITLE, now)
            return False
        evs = self._evs
        evs.clear()
        tb.poll(now, evs, self.app.on_cpu_press)
        # Both seats are CPUs: their presses in touch order (few a frame).
        for i in range(1, len(evs)):
            e = evs[i]
            j = i
            while j > 0 and ticks_diff(e[0], evs[j - 1][0]) < 0:
                evs[j] = evs[j - 1]
                j -= 1
            evs[j] = e
        for e in evs:
            if e[3] and not tb.ended:
                tb.press(e[0], e[1], e[2])
        evs.clear()
        if not tb.ended:
            tb.tick(now)
        if tb.ended:
            if tb.game.phase == GAME_OVER:
                self.app.go(TITLE, now)
                return False
            tb.make_seats(now)        # the next round, straight away
            tb.enter(now)
        return False

    def draw(self, view, key):
        return self.table.draw(view, self.info)


SCREEN = AttractScreen
