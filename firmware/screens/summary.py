# Between rounds: what each player took (R25-R27, R30, R33), their cards and points
# (R36, R38). A slap that lands just after the decisive one lost that race (R20, R26)
# and is told by how much. Presses right after the round (the slaps) do not skip it;
# it moves on by itself after a while.

from shared_rules.arbiter import ticks_diff
from firmware import sound, texts
from firmware.screens import SUMMARY, GAME, PAUSE_BUTTON

from shared_rules.compat import const

MIN_US = const(800000)             # presses right after a round (slaps) don't skip it
AUTO_US = const(8000000)           # it moves on by itself after this
RACE_NOTE_US = const(250000)       # a slap this close after the decisive one lost a race

# What decided the slap when nobody won it by first touch (R26, R44): said in the head.
NOBODY = "NOBODY SLAPPED"
YOU_FALSE = "YOU FALSE STARTED"
THEY_FALSE = "THEY FALSE STARTED"


class SummaryScreen:
    kind = SUMMARY

    def __init__(self, app):
        self.app = app
        self.since = 0
        self.notes = ["", ""]
        self._noted = [False, False]

    def enter(self, t):
        self.since = t
        self.notes[0] = self.notes[1] = ""
        self._noted[0] = self._noted[1] = False
        tb = self.app.table
        lr = tb.game.last_round
        if lr is not None and lr["slap"] is not None:
            if tb.nobody:
                self.notes[0] = self.notes[1] = NOBODY
            elif tb.false_p >= 0:
                # R44: the slap was decided against a false start.
                self.notes[tb.false_p] = YOU_FALSE
                self.notes[1 - tb.false_p] = THEY_FALSE

    def press(self, t, p, code):
        if code == PAUSE_BUTTON:
            return
        app = self.app
        tb = app.table
        # A slap that arrives just after the decisive one lost that race (R20, R26).
        if tb.slap_t is not None and p != tb.slap_p and not self._noted[p]:
            d = ticks_diff(t, tb.slap_t)
            if 0 <= d < RACE_NOTE_US:
                self._noted[p] = True
                app.stats.won_race(tb.slap_p)
                self.notes[p] = texts.beaten_line(d)
                app.want(sound.LOST)
                app.touch()
                return
        if ticks_diff(t, self.since) >= MIN_US:
            self._next(t)

    def _next(self, t):
        tb = self.app.table
        tb.make_seats(t)
        self.app.go(GAME, t)

    def tick(self, now):
        if ticks_diff(now, self.since) >= AUTO_US:
            self._next(now)
            return True
        return False

    def draw(self, view, key):
        # Two halves, each facing its player (player 1's turned round), four lines
        # each in the medium font, read at arm's length.
        if not view.begin_text(SUMMARY, key):
            return False
        g = self.app.table.game
        for rot in (0, 1):
            y = 33
            for line in lines(g, rot, self.notes[rot]):
                view.med_centred(line, y, 1, rot)
                y += 8
        return True


def lines(game, p, note):
    """Round summary for player p (R25-R27, R30, R33, R36, R38): four lines of about
    25 letters. What decided the slap (or a lost slap race, the note) heads it; then
    what the player took, what they hold, and the points (points game) or the hint."""
    lr = game.last_round
    took = lr["took"]
    slap = lr["slap"]
    if took[0] and took[1] and slap is not None:
        # Two piles: the first slapper took the pile they slapped, the other the other.
        s, j = slap[0], slap[1]
        mine = j if p == s else 1 - j
        side = "LEFT" if mine == (0 if p == 0 else 1) else "RIGHT"
        head = note or ("YOU SLAPPED FIRST" if p == s else "THEY SLAPPED FIRST")
        line = "YOU TOOK %s PILE: %d" % (side, took[p])
    else:
        head = note or "ROUND %d OVER" % lr["round"]
        line = "YOU TOOK THE PILE: %d" % took[p] if took[p] else "YOU WENT OUT FIRST"
    hold = "YOU HOLD %d CARDS" % lr["cards"][p]
    if lr.get("redeal"):
        hold = "NEW DEAL: 26 EACH"          # R38: what they hold no longer counts
    if game.rules.points:
        last = "POINTS +%d = %d" % (lr["points"][p], game.scores[p])
    else:
        last = "PRESS ANY BUTTON"
    return [head, line, hold, last]


SCREEN = SummaryScreen
