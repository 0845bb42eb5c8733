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
from shared_rules.game import PLAY, READY, SLAP, STOCKPILES

A = 0
B = 1
LEFT = 2
RIGHT = 3
UP = 4
DOWN = 5

BUTTON_NAMES = ("A", "B", "L", "R", "U", "D")    # each button code's name, by code

TWO_BUTTON = 2
SIX_BUTTON = 6


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
