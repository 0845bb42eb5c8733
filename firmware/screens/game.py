# The game screen: the table in play (ready, play, stall, slap), drawn from the app's
# Table. Presses go to the table (the pad, the arbiter, the fumble); holding A and B
# of a pad for a second, or the pause button, pauses (ready or play phase). When the
# table says the round is over, the app shows the summary (or the game-over screen).

from shared_rules.game import READY, PLAY
from shared_rules.arbiter import ticks_diff
from firmware.screens import GAME, PAUSE, PAUSE_BUTTON

from shared_rules.compat import const

HOLD_US = const(1000000)           # hold A+B this long to pause


class GameScreen:
    kind = GAME

    def __init__(self, app):
        self.app = app

    def enter(self, t):
        app = self.app
        app.table.enter(t)
        for p in (0, 1):
            # Buttons still held from the menu or the pause must be let go first.
            app.hold_used[p] = app.down[p] & 3 == 3
        app.view.invalidate()

    def _can_pause(self):
        ph = self.app.table.game.phase
        return ph == READY or ph == PLAY

    def press(self, t, p, code):
        app = self.app
        if code == PAUSE_BUTTON:
            if self._can_pause():
                app.go(PAUSE, t)
            return
        if not app.table.press(t, p, code):
            # The round ended before this press was touched: it belongs to what
            # comes next (a slap that just lost its race, R20, R26).
            app.round_over(t)
            app.route(t, p, code)

    def tick(self, now):
        app = self.app
        tb = app.table
        state = tb.tick(now)
        if tb.ended:
            app.round_over(now)
            return True
        if self._can_pause():
            for p in (0, 1):
                if app.down[p] & 3 == 3 and not app.hold_used[p]:
                    dt = app.down_t[p]
                    t_both = dt[0] if ticks_diff(dt[0], dt[1]) > 0 else dt[1]
                    if ticks_diff(now, t_both) >= HOLD_US:
                        app.hold_used[p] = True
                        app.go(PAUSE, now)
                        return True
        return state

    def draw(self, view, key):
        return self.app.table.draw(view)
