"""Worked example, step 2 of the pupils' path: "snap" -- a card also fits on a card
of the same rank (a 7 on a 7), besides R3's ranks next to each other.

    make check-variant VARIANT=tools/variants/same_rank.py
"""

from variants.hook import HookGame


class Variant(HookGame):
    def fits(self, card, top):
        same_rank = (card >> 2) == (top >> 2)
        return same_rank or HookGame.fits(self, card, top)
