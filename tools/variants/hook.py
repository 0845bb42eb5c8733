"""The hook: a Game whose fit rule (R3: which card may go on which pile) is one method,
`fits(card, top)`, to override in a variant.

The core (shared_rules/game.py) asks "does it fit?" in three places, each written for
speed on the device: why_not (may this play be made?), legal_actions (what can this
player do? the CPU player asks) and can_progress (can anybody move, or is it a stall?
R22). A hook must reach all three, or a game the variant calls stalled still has a
play, or one the variant calls playable has none; this class routes all three through
fits(), so a pupil changes one method and the game stays whole. Runs on CPython (the
checker and the desktop); the handheld plays the core's own rule until the variant
is written into the core (step 3 of the pupils' path).
"""

from shared_rules.cards import adjacent
from shared_rules.game import Game, NO_FIT, PLAY, STOCKPILES


class HookGame(Game):
    """Game with the fit rule in one place. Override fits(card, top) -> bool."""

    def fits(self, card, top):
        """May `card` go on a pile whose top is `top`? (cards are ints 0-51:
        rank = card >> 2, 0 for a 2 up to 12 for an Ace; suit = card & 3.)"""
        return adjacent(card, top)

    def why_not(self, action):
        reason = Game.why_not(self, action)
        # The core answers None or NO_FIT for a play only once every other check
        # (phase, indices, an empty or face-down stockpile) has passed: then the fit
        # is this class's to decide.
        if (reason is None or reason == NO_FIT) and action[0] == "play":
            card = self.stock[action[1]][action[2]][-1]
            top = self.piles[action[3]][-1]
            return None if self.fits(card, top) else NO_FIT
        return reason

    def legal_actions(self, p):
        out = []
        for a in Game.legal_actions(self, p):
            if a[0] != "play":
                out.append(a)
        if self.phase == PLAY and p in (0, 1):
            for i in range(STOCKPILES):
                s = self.stock[p][i]
                if s and not self.down[p][i]:
                    for j in range(len(self.piles)):
                        if self.fits(s[-1], self.piles[j][-1]):
                            out.append(("play", p, i, j))
        return out

    def can_progress(self):
        """R22 with this class's fit: a play, a revealing fill (R15) or a flip (R14)."""
        for p in (0, 1):
            has_empty = False
            has_two = False
            for i in range(STOCKPILES):
                s = self.stock[p][i]
                if not s:
                    has_empty = True
                    continue
                if self.down[p][i]:
                    return True
                for pile in self.piles:
                    if self.fits(s[-1], pile[-1]):
                        return True
                if len(s) > 1:
                    has_two = True
            if has_empty and has_two:
                return True
        return False
