# What a button press means (DESIGN.md "Controls"). This is pure game logic, kept in
# the rules core so the CPU player can plan its presses through exactly the mapping a
# person uses; the firmware's controls feed it stamped button events.
#
# Two-button pad:  A moves the cursor to the next non-empty stockpile; B plays the card
# under the cursor where it fits (the better follow-up if both piles fit), else fills an
# empty slot with it (R15), else flips it (manual_flip). Ready: either button says
# "Spit!". Slap: A slaps the pile on the player's left, B the one on their right.
# Six-button pad: LEFT/RIGHT move the cursor, A/B play onto the left/right pile, UP fills,
# DOWN flips.

from shared_rules.cards import adjacent
from shared_rules.game import PLAY, READY, SLAP, STOCKPILES, NOT_NOW
from shared_rules.arbiter import BEATEN, ticks_diff

A = 0
B = 1
LEFT = 2
RIGHT = 3
UP = 4
DOWN = 5

TWO_BUTTON = 2
SIX_BUTTON = 6

# The fumble (RULES.md R41) is the device's conduct, not a rule of the cards; it is
# here, beside what a press means, so that the firmware app and the self-play
# simulation (which must measure the game the device plays) share one definition.
FUMBLE_US = 500000        # the default fumble time: R41's 0.5 s
_FUMBLE_VERBS = ("play", "fill", "flip")


def is_fumble(action, reason):
    """R41: was this settled action a fumble? A play, fill or flip the rules refused
    during play. Never a lost race ("beaten", R20: it fitted when pressed), never a
    press the phase had moved past ("not now"), never the cursor, Spit! or a slap."""
    return (reason is not None and reason != BEATEN and reason != NOT_NOW and
            action[0] in _FUMBLE_VERBS)


class Fumbles:
    """Both players' fumbles (R41): a fumble at touch stamp t leaves that player's
    buttons dead from t for `us` microseconds (0: fumbles are off)."""

    def __init__(self, us=FUMBLE_US):
        self.us = us
        self.start = [None, None]
        self.count = [0, 0]

    def settled(self, action, t, reason):
        """Note a settled action; True if it was a fumble that starts a dead time."""
        if self.us <= 0 or not is_fumble(action, reason):
            return False
        p = action[1]
        self.start[p] = t
        self.count[p] += 1
        return True

    def dead(self, p, t):
        """Are player p's buttons dead for a press touched at t?"""
        s = self.start[p]
        if s is None:
            return False
        d = ticks_diff(t, s)
        return 0 <= d < self.us

    def left_us(self, p, now):
        """How long player p's buttons stay dead after now (0: live)."""
        s = self.start[p]
        if s is None:
            return 0
        d = ticks_diff(now, s)
        if d < 0 or d >= self.us:
            return 0
        return self.us - d


def pile_on_left(game, p):
    # Players sit face to face: player 0's left is pile 0, player 1's left is pile 1.
    if len(game.piles) < 2:
        return 0
    return 0 if p == 0 else 1


def follow_ups(game, p, i, j):
    """How many of player p's other face-up tops would fit a pile after p plays
    stockpile i onto pile j (only what the player can see)."""
    card = game.stock[p][i][-1]
    tops = []
    for k in range(len(game.piles)):
        tops.append(card if k == j else game.piles[k][-1])
    n = 0
    for m in range(STOCKPILES):
        s = game.stock[p][m]
        if m == i or not s or game.down[p][m]:
            continue
        for t in tops:
            if adjacent(s[-1], t):
                n += 1
                break
    return n


def best_play(game, p, i):
    """The pile for stockpile i's top: the one that fits, or of two that fit the one
    leaving more follow-ups (ties go to the player's left pile). None if neither."""
    s = game.stock[p][i]
    if not s or game.down[p][i]:
        return None
    fits = []
    for j in range(len(game.piles)):
        if adjacent(s[-1], game.piles[j][-1]):
            fits.append(j)
    if not fits:
        return None
    if len(fits) == 1:
        return fits[0]
    left = pile_on_left(game, p)
    a = follow_ups(game, p, i, left)
    b = follow_ups(game, p, i, 1 - left)
    return left if a >= b else 1 - left


def first_empty(game, p):
    for k in range(STOCKPILES):
        if not game.stock[p][k]:
            return k
    return None


def next_stockpile(game, p, cursor, step=1):
    """The next non-empty stockpile after cursor (wrapping); cursor if none."""
    for n in range(1, STOCKPILES + 1):
        k = (cursor + step * n) % STOCKPILES
        if game.stock[p][k]:
            return k
    return cursor


def main_action(game, p, i):
    """What B does with stockpile i: play, else fill, else flip; an illegal play onto
    the left pile when nothing fits (so the game refuses it with its reason)."""
    s = game.stock[p][i]
    if s and game.down[p][i]:
        return ("flip", p, i)
    j = best_play(game, p, i)
    if j is not None:
        return ("play", p, i, j)
    k = first_empty(game, p)
    if s and len(s) > 1 and k is not None:
        return ("fill", p, i, k)
    return ("play", p, i, pile_on_left(game, p))


class Pad:
    """One player's pad: its cursor and what each press means."""

    def __init__(self, player, scheme=TWO_BUTTON):
        self.player = player
        self.scheme = scheme
        self.cursor = 0

    def press(self, game, button):
        """Interpret a press now: move the cursor (returns None) or return the action
        to hand to the arbiter (which may still be refused)."""
        p = self.player
        phase = game.phase
        if phase == READY:
            return ("spit", p)
        if phase == SLAP:
            left = pile_on_left(game, p)
            if button == A or button == LEFT:
                return ("slap", p, left)
            if button == B or button == RIGHT:
                return ("slap", p, 1 - left if len(game.piles) > 1 else 0)
            return None
        if phase != PLAY:
            return None
        if self.scheme == TWO_BUTTON:
            if button == A:
                self.cursor = next_stockpile(game, p, self.cursor)
                return None
            if button == B:
                return main_action(game, p, self.cursor)
            return None
        i = self.cursor
        if button == LEFT or button == RIGHT:
            self.cursor = next_stockpile(game, p, i, -1 if button == LEFT else 1)
            return None
        if button == A or button == B:
            left = pile_on_left(game, p)
            j = left if button == A else (1 - left if len(game.piles) > 1 else 0)
            return ("play", p, i, j)
        if button == UP:
            k = first_empty(game, p)
            return ("fill", p, i, k if k is not None else i)
        if button == DOWN:
            return ("flip", p, i)
        return None
