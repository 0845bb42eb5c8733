"""One or more tests per rule of RULES.md, named after the rule (R1-R42; R41, the
fumble, is the device's conduct: tests/firmware/test_app_fumble.py).

Scenarios are built with Game.from_layout from card names (tests/helpers.py): stockpiles
are five strings per player, bottom card first; piles likewise.
"""
import pytest

from shared_rules.arbiter import BEATEN, Arbiter
from shared_rules.cards import RANKS, adjacent, card, name, rank
from shared_rules.game import (FACE_DOWN, NO_FIT, NOT_EMPTY, NOT_NOW, OVER, PLAY,
                               READY, SLAP, TOO_FEW, Game, Rules, deal)
from tests.helpers import all_cards, cards, layout

E = ""  # an empty stockpile slot


def spit_both(g):
    assert g.apply(("spit", 0)) is None
    assert g.apply(("spit", 1)) is None


def held(g, p):
    return g.cards_held(p)


# ---- Cards -----------------------------------------------------------------------

def test_r1_one_deck_of_52_and_suits_never_matter():
    g = Game(seed=5)
    assert sorted(all_cards(g)) == list(range(52))
    for r in RANKS:
        same_rank = [card(r + s) for s in "CDHS"]
        for other in range(52):
            verdicts = {adjacent(c, other) for c in same_rank}
            assert len(verdicts) == 1, "suit changed adjacency"


def test_r2_ace_high_two_low_and_the_order_wraps():
    assert [rank(card(r + "S")) for r in RANKS] == list(range(2, 15))
    assert rank(card("AH")) == 14 and rank(card("2C")) == 2
    assert adjacent(card("AS"), card("KD")) and adjacent(card("AS"), card("2D"))


@pytest.mark.parametrize("a,b", [("7C", "8D"), ("8D", "7C"), ("KS", "AH"), ("AH", "KS"),
                                 ("AD", "2C"), ("2C", "AD"), ("10H", "JS"), ("9C", "10D")])
def test_r3_adjacent_pairs(a, b):
    assert adjacent(card(a), card(b))


@pytest.mark.parametrize("a,b", [("7C", "7D"), ("7C", "9D"), ("KS", "2H"), ("QS", "AH"),
                                 ("2C", "3C" if False else "4C"), ("10H", "10S")])
def test_r3_not_adjacent(a, b):
    assert not adjacent(card(a), card(b))


def test_r3_never_adjacent_to_same_rank_and_exactly_two_neighbour_ranks():
    for a in range(52):
        neighbours = {rank(b) for b in range(52) if adjacent(a, b)}
        assert rank(a) not in neighbours
        assert len(neighbours) == 2


def test_r3_card_names_round_trip_and_reject_garbage():
    for c in range(52):
        assert card(name(c)) == c
    assert name(card("10H")) == "10H"
    for bad in ["", "1H", "10X", "H", "11S", None, 5]:
        with pytest.raises(ValueError):
            card(bad)


# ---- Layout ----------------------------------------------------------------------

def test_r4_deck_split_evenly_26_each():
    g = Game(seed=11)
    assert held(g, 0) == 26 and held(g, 1) == 26


def test_r5_five_stockpiles_of_one_to_five_with_tops_face_up():
    g = Game(seed=2)
    for p in (0, 1):
        assert [len(s) for s in g.stock[p]] == [1, 2, 3, 4, 5]
        assert all(g.face_up(p, i) for i in range(5))


def test_r6_eleven_spit_cards_face_down_and_unplayable():
    g = Game(seed=3)
    spit_both(g)
    assert len(g.hand[0]) == 10 and len(g.hand[1]) == 10   # one each went to the centre
    g2 = Game(seed=3)
    assert len(g2.hand[0]) == 11
    # No action ever plays from the spit stack directly.
    for p in (0, 1):
        for a in g.legal_actions(p):
            assert a[0] in ("play", "fill", "flip", "spit", "slap")


def test_r7_dealing_order_with_a_given_deck():
    deck = list(range(52))
    g = Game(deck=deck)
    # Pass k puts one card on stockpiles k..4, left to right; first card is the bottom.
    assert g.stock[0] == [[0], [1, 5], [2, 6, 9], [3, 7, 10, 12], [4, 8, 11, 13, 14]]
    assert g.hand[0] == list(range(15, 26))       # last placed (25) is the top
    assert g.stock[1][4] == [30, 34, 37, 39, 40]
    assert g.hand[1][-1] == 51
    spit_both(g)
    assert g.piles == [[25], [51]]


def test_r8_fewer_than_fifteen_cards_deals_the_same_passes():
    stock, spit = deal(list(range(7)))
    assert [len(s) for s in stock] == [1, 2, 2, 1, 1] and spit == []
    stock, spit = deal(list(range(15)))
    assert [len(s) for s in stock] == [1, 2, 3, 4, 5] and spit == []
    stock, spit = deal(list(range(3)))
    assert [len(s) for s in stock] == [1, 1, 1, 0, 0]
    stock, spit = deal(list(range(16)))
    assert spit == [15]


# ---- Starting play ----------------------------------------------------------------

def test_r9_spit_turns_each_top_spit_card_into_the_middle():
    g = Game(seed=9)
    tops = [g.hand[0][-1], g.hand[1][-1]]
    spit_both(g)
    assert g.phase == PLAY
    assert [p[-1] for p in g.piles] == tops


def test_r10_two_piles_when_both_have_spit_cards_one_when_only_one_does():
    g = layout(["5H", E, E, E, E], ["9C", E, E, E, E], [], hands=("2C 3C", "7D"))
    spit_both(g)
    assert g.piles == [cards("3C"), cards("7D")]
    g = layout(["5H", E, E, E, E], ["9C", E, E, E, E], [], hands=("", "7D 8D"))
    spit_both(g)
    assert g.piles == [cards("8D")] and g.single_pile()


def test_r11_cards_turn_only_when_both_have_pressed():
    g = Game(seed=4)
    before = g.snapshot()
    assert g.apply(("spit", 1)) is None
    assert g.phase == READY and g.piles == []
    assert g.apply(("spit", 1)) == "already said spit"
    assert g.hand == before["hand"]
    assert g.apply(("spit", 0)) is None
    assert g.phase == PLAY


# ---- Play --------------------------------------------------------------------------

def test_r12_one_action_moves_exactly_one_card():
    g = layout(["4C 5H", "9D", E, E, E], ["KD", E, E, E, E], ["4H", "8S"], hands=("2C", "3D"))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.piles[0] == cards("4H 5H") and g.stock[0][0] == cards("4C")
    assert g.stock[0][1] == cards("9D")


def test_r13_play_adjacent_onto_either_pile_by_either_player():
    g = layout(["5H", "7C", E, E, E], ["3D", "6S", E, E, E], ["4H", "8S"], hands=("2C", "QD"))
    assert g.apply(("play", 0, 1, 1)) is None      # 7C on 8S: player 0 on "player 1's" pile
    assert g.apply(("play", 1, 0, 0)) is None      # 3D on 4H
    assert g.apply(("play", 0, 0, 0)) == NO_FIT    # 5H on 3D: not adjacent
    assert g.piles == [cards("4H 3D"), cards("8S 7C")]


def test_r14_next_card_turns_up_automatically():
    g = layout(["QC 5H", E, E, E, E], ["9S", E, E, E, E], ["4H", "AS"], hands=("2C", "3D"))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.face_up(0, 0) and g.stock[0][0] == cards("QC")
    assert ("flip", 0, 0) not in g.legal_actions(0)
    assert g.apply(("flip", 0, 0)) == "flip is automatic"


def test_r14_manual_flip_is_a_separate_action_and_blocks_the_stockpile():
    g = layout(["KC 5H", "3S", E, E, E], ["9S", E, E, E, E], ["4H", "AD"], hands=("2C", "3D"),
               rules=Rules(manual_flip=True))
    assert g.apply(("play", 0, 0, 0)) is None
    assert not g.face_up(0, 0)
    assert g.apply(("play", 0, 0, 1)) == FACE_DOWN            # KC would fit AD, but face down
    assert g.apply(("fill", 0, 0, 2)) == FACE_DOWN
    assert ("flip", 0, 0) in g.legal_actions(0)
    assert g.apply(("flip", 0, 0)) is None
    assert g.face_up(0, 0)
    assert g.apply(("flip", 0, 0)) == "already face up"
    assert g.apply(("play", 0, 0, 1)) is None


def test_r15_fill_an_empty_slot_and_turn_up_the_card_beneath():
    g = layout(["9D", "JC QC", E, E, E], ["KH", E, E, E, E], ["4H", "6S"], hands=("2C", "3D"))
    assert g.apply(("fill", 0, 1, 2)) is None
    assert g.stock[0][1] == cards("JC") and g.stock[0][2] == cards("QC")
    assert g.face_up(0, 1) and g.face_up(0, 2)


def test_r15_fill_only_from_two_or_more():
    g = layout(["9D", "QC", E, E, E], ["KH", E, E, E, E], ["4H", "6S"], hands=("2C", "3D"))
    before = g.snapshot()
    assert g.apply(("fill", 0, 1, 2)) == TOO_FEW
    assert g.snapshot() == before
    assert not [a for a in g.legal_actions(0) if a[0] == "fill"]


def test_r16_never_onto_a_non_empty_stockpile_never_a_sixth_never_back_from_a_pile():
    g = layout(["9D", "JC QC", E, E, E], ["KH", E, E, E, E], ["4H", "6S"], hands=("2C", "3D"))
    assert g.apply(("fill", 0, 1, 0)) == NOT_EMPTY
    assert g.apply(("fill", 0, 1, 5)) == "no such stockpile"
    assert g.apply(("fill", 0, 1, 1)) == "same stockpile"
    assert g.apply(("take", 0, 0, 0)) == "bad action"
    for p in (0, 1):
        for a in g.legal_actions(p):
            assert a[0] in ("play", "fill")
            assert a[-1] < 5


def test_r17_a_played_card_stays_played():
    g = layout(["5H", "KD", E, E, E], ["9S", E, E, E, E], ["4H", "AS"], hands=("2C", "3D"))
    assert g.apply(("play", 0, 0, 0)) is None
    five = card("5H")
    assert g.piles[0][-1] == five
    for p in (0, 1):
        for a in g.legal_actions(p):
            g2 = g.copy()
            g2.apply(a)
            assert five in [c for pile in g2.piles for c in pile], a


# ---- First touch -----------------------------------------------------------------

def race_layout():
    # Both players can play onto pile 0 (top 8S): player 0 a 9, player 1 a 7; player 0's
    # 4C keeps the game from stalling after either.
    return layout(["9D", "KC", "4C", E, E], ["7C", "2H", E, E, E], ["8S", "5D"],
                  hands=("3C", "4S"))


def test_r18_first_touch_plays_the_other_card_returns():
    g = race_layout()
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 1, 0, 0), 1000)
    arb.press(("play", 0, 0, 0), 1040)
    res = arb.settle(5000)
    assert [(a[1], r) for a, t, r in res] == [(1, None), (0, BEATEN)]
    assert g.piles[0] == cards("8S 7C")
    assert g.stock[0][0] == cards("9D")       # the slower card is back on its stockpile


def test_r19_decided_by_touch_time_not_arrival_order():
    g = race_layout()
    arb = Arbiter(g, window_us=2000)
    arb.press(("play", 0, 0, 0), 1500)        # noticed first ...
    arb.press(("play", 1, 0, 0), 1400)        # ... but touched 100 µs later than this one
    res = arb.settle(4000)
    assert res[0] == (("play", 1, 0, 0), 1400, None)
    assert res[1] == (("play", 0, 0, 0), 1500, BEATEN)
    assert arb.beaten_by_us[0] == 100


def test_r20_lost_race_is_beaten_not_illegal():
    g = race_layout()
    arb = Arbiter(g)
    arb.press(("play", 1, 0, 0), 100)
    assert arb.settle(10_000)[0][2] is None
    # Player 0 touched 3 ms after player 1's card landed: too fast to have seen it.
    arb.press(("play", 0, 0, 0), 3100)
    assert arb.settle(20_000) == [(("play", 0, 0, 0), 3100, BEATEN)]
    assert arb.beaten_by_us[0] == 3000
    # A plain misplay (never fitted) is refused with the game's reason.
    arb.press(("play", 0, 1, 0), 30_000)
    assert arb.settle(40_000)[0][2] == NO_FIT


def test_r20_a_late_press_long_after_the_change_is_just_illegal():
    g = race_layout()
    arb = Arbiter(g, race_us=250_000)
    arb.press(("play", 1, 0, 0), 100)
    arb.settle(10_000)
    arb.press(("play", 0, 0, 0), 900_000)     # almost a second later: the player could see
    assert arb.settle(1_000_000)[0][2] == NO_FIT


def seed_with_tie_priority(p):
    for s in range(100):
        if Game(seed=s).tie_priority == p:
            return s
    raise AssertionError


def test_r21_first_tie_is_decided_by_the_seed():
    assert {Game(seed=s).tie_priority for s in range(20)} == {0, 1}
    s = seed_with_tie_priority(1)
    g = Game(seed=s)
    assert g.tie_priority == Game(seed=s).tie_priority == 1


def test_r21_ties_alternate_priority():
    g = race_layout()
    first = g.tie_priority
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 500)
    arb.press(("play", 1, 0, 0), 500)
    res = arb.settle(5000)
    reasons = {a[1]: r for a, t, r in res}
    assert reasons[first] is None and reasons[1 - first] == BEATEN
    assert arb.ties == 1 and g.tie_priority == 1 - first
    # The next tie goes to the player who lost this one.
    g2 = layout(["9D", "KC", E, E, E], ["7C", "2H", E, E, E], ["8S", "5D"],
                hands=("3C", "4S"))
    g2.tie_priority = 1 - first
    arb2 = Arbiter(g2)
    arb2.press(("play", 1, 0, 0), 7)
    arb2.press(("play", 0, 0, 0), 7)
    reasons = {a[1]: r for a, t, r in arb2.settle(9000)}
    assert reasons[1 - first] is None and reasons[first] == BEATEN


def test_r21_non_conflicting_simultaneous_actions_all_apply():
    g = layout(["9D", "KC", E, E, E], ["6C", "2H", E, E, E], ["8S", "5D"], hands=("3C", "4S"))
    prio = g.tie_priority
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 500)         # 9D on 8S
    arb.press(("play", 1, 0, 1), 500)         # 6C on 5D: another pile, no conflict
    res = arb.settle(5000)
    assert all(r is None for a, t, r in res)
    assert arb.ties == 0 and g.tie_priority == prio


def test_r21_a_tie_where_one_order_works_applies_both():
    # Player 1's play would end the round (last card) and so refuse player 0's play;
    # the other order lets both apply, so they do not conflict.
    g = layout(["9D", "KC", E, E, E], ["6C", E, E, E, E], ["8S", "5D"], hands=("3C", "4S"))
    g.tie_priority = 1
    arb = Arbiter(g)
    arb.press(("play", 0, 0, 0), 500)
    arb.press(("play", 1, 0, 1), 500)
    res = arb.settle(5000)
    assert [r for a, t, r in res] == [None, None]
    assert g.phase == SLAP and g.piles[0][-1] == card("9D")


# ---- Stalls ------------------------------------------------------------------------

def stall_layout(**kw):
    # After player 0 plays 5H, nobody can play: a stall.
    return layout(["5H", "KC", E, E, E], ["2D", E, E, E, E], ["4H", "9S"],
                  hands=("7C", "JD"), **kw)


def test_r22_stall_when_nobody_can_play_or_turn_up_a_card():
    g = stall_layout()
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == READY and not g.can_progress()
    assert g.legal_actions(0) == [("spit", 0)]


def test_r22_a_fill_that_turns_up_a_card_is_not_a_stall():
    g = layout(["5H", "KC QC", E, E, E], ["2D", E, E, E, E], ["4H", "9S"], hands=("7C", "JD"))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == PLAY
    assert g.legal_actions(0) == [("fill", 0, 1, 0), ("fill", 0, 1, 2), ("fill", 0, 1, 3),
                                  ("fill", 0, 1, 4)]


def test_r22_a_face_down_card_to_flip_is_not_a_stall():
    g = layout(["5H", "QC KC", E, E, E], ["2D", E, E, E, E], ["4H", "9S"], hands=("7C", "JD"),
               rules=Rules(manual_flip=True))
    g.apply(("fill", 0, 1, 2))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == PLAY and g.legal_actions(0) == [("flip", 0, 1)]


def test_r23_each_spits_onto_the_pile_they_started():
    g = stall_layout()
    g.apply(("play", 0, 0, 0))
    spit_both(g)
    assert g.piles[0][-1] == card("7C") and g.piles[1][-1] == card("JD")


def test_r23_single_pile_round_spits_onto_the_single_pile():
    g = layout(["5H", "KC", E, E, E], ["2D", "9D", E, E, E], ["4H"], hands=("7C 8C", ""))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == READY
    spit_both(g)
    assert g.piles == [cards("4H 5H 8C")] and g.phase == PLAY


# ---- End of a round ------------------------------------------------------------------

def test_r24_round_ends_when_a_player_plays_all_stockpile_cards():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"], hands=("2C 3C", "4D"))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == SLAP and g.ending == {"end": "out", "out": 0}


def test_r24_round_ends_on_a_stall_with_no_spit_cards():
    g = stall_layout()
    g.apply(("play", 0, 0, 0))
    spit_both(g)                              # 7C and JD turned: still stalled, none left
    assert g.phase == SLAP and g.ending == {"end": "stalled", "out": None}


def test_r25_slapping_different_piles_each_takes_their_own():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"], hands=("2C 3C", "4D"))
    g.apply(("play", 0, 0, 0))
    arb = Arbiter(g)
    arb.press(("slap", 1, 1), 1000)           # player 1 slaps the smaller pile first
    arb.press(("slap", 0, 0), 1200)
    arb.settle(10_000)
    lr = g.last_round
    assert lr["slap"] == [1, 1] and lr["took"] == [2, 2]
    # Player 0: pile 0 (4H 5H) + 2 spit cards; player 1: pile 1 + 4D + 3 stock cards.
    assert lr["cards"] == [4, 6]
    assert held(g, 0) == 4 and held(g, 1) == 6


def test_r26_first_slap_decides_the_whole_outcome():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S 6S"],
               hands=("2C 3C", "4D"))
    g.apply(("play", 0, 0, 0))
    arb = Arbiter(g)
    arb.press(("slap", 0, 0), 2000)           # both go for the smaller pile 0 (2 cards)
    arb.press(("slap", 1, 0), 1990)           # player 1 touched 10 µs earlier
    res = arb.settle(10_000)
    assert res == [(("slap", 1, 0), 1990, None), (("slap", 0, 0), 2000, BEATEN)]
    assert g.last_round["took"] == [3, 2]     # player 0 takes the other pile
    assert g.last_round["cards"] == [3 + 2, 2 + 1 + 3]


def test_r26_a_slap_is_only_possible_at_the_end_of_a_round():
    g = race_layout()
    assert g.apply(("slap", 0, 0)) == NOT_NOW


def test_r27_collected_cards_are_shuffled_and_dealt_again():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C JH QH KH AH 2H 3H 4C 5C 6C 7C 8C 9H 10H 10C",
                      "4D 5D 6D 7D 8D 9D 10D JD AD 2D 3D"))
    g.apply(("play", 0, 0, 0))
    before = sorted(all_cards(g))
    g.apply(("slap", 0, 0))
    assert sorted(all_cards(g)) == before
    n0, n1 = held(g, 0), held(g, 1)
    assert (n0, n1) == (2 + 16, 2 + 11 + 3)
    stock0, spit0 = deal(list(range(n0)))
    assert [len(s) for s in g.stock[0]] == [len(s) for s in stock0]
    assert len(g.hand[0]) == len(spit0) == 3
    assert [len(s) for s in g.stock[1]] == [1, 2, 3, 4, 5] and len(g.hand[1]) == 1


def test_r28_the_next_round_restarts_with_spit():
    from shared_rules.rng import Rng
    g = Game(seed=6)
    pick = Rng(6)
    while g.round == 1:
        acts = g.legal_actions(0) + g.legal_actions(1)
        g.apply(acts[pick.below(len(acts))])
    assert g.phase == READY and g.round == 2 and g.piles == []
    assert g.legal_actions(0) == [("spit", 0)] and g.legal_actions(1) == [("spit", 1)]
    tops = [h[-1] for h in g.hand if h]
    spit_both(g)
    assert [p[0] for p in g.piles] == tops


def test_r29_no_card_is_created_lost_or_duplicated_over_whole_games():
    from shared_rules.rng import Rng
    for seed in range(12):
        g = Game(seed=seed, rules=Rules(manual_flip=seed % 2 == 1))
        pick = Rng(seed + 100)
        steps = 0
        while g.phase != OVER and steps < 50_000:
            acts = g.legal_actions(0) + g.legal_actions(1)
            assert g.apply(acts[pick.below(len(acts))]) is None
            assert sorted(all_cards(g)) == list(range(52))
            steps += 1
        assert g.phase == OVER


# ---- Single-pile rounds and winning ---------------------------------------------------

def single_pile_layout(hands, **kw):
    return layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["3S 4H"], hands=hands, **kw)


def test_r30_first_out_in_a_single_pile_round_takes_nothing_from_the_centre():
    g = layout(["KC", "QC", E, E, E], ["5H", E, E, E, E], ["3S 4H"], hands=("", "7C 8C"))
    assert g.apply(("play", 1, 0, 0)) is None          # player 1 goes out first
    lr = g.last_round
    assert lr["out"] == 1 and lr["took"] == [3, 0]
    assert lr["cards"] == [3 + 2, 2]                   # player 1 keeps only spit cards
    assert g.winner is None and g.phase == READY


def test_r31_out_first_without_spit_cards_wins():
    g = single_pile_layout(("", "7C 8C"))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == OVER and g.winner == 0
    assert held(g, 0) == 0 and sorted(all_cards(g)) == sorted(cards("5H 9C KD QD 4H 3S 7C 8C"))


def test_r32_when_the_opponent_went_out_first_the_game_goes_on():
    g = layout(["KC", "QC", E, E, E], ["5H", E, E, E, E], ["3S 4H"], hands=("", "7C 8C"))
    g.apply(("play", 1, 0, 0))
    assert g.phase == READY and g.round == 2 and g.winner is None


def test_r33_stalled_single_pile_round_fewer_stockpile_cards_counts_as_out_first():
    g = layout(["10C", "KC", E, E, E], ["2D", "5D", E, E, E], ["9H"], hands=("", ""))
    assert g.apply(("play", 0, 0, 0)) is None
    lr = g.last_round
    assert lr["end"] == "stalled" and lr["out"] == 0
    assert lr["took"] == [0, 2] and lr["cards"] == [1, 4]


def test_r33_equal_counts_slap_and_the_first_slapper_counts_as_out_first():
    g = layout(["10C", "KC", E, E, E], ["2D", E, E, E, E], ["9H"], hands=("", ""))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == SLAP and g.legal_actions(1) == [("slap", 1, 0)]
    g.apply(("slap", 1, 0))
    assert g.last_round["out"] == 1 and g.last_round["took"] == [2, 0]


def test_r34_a_player_with_no_cards_has_won_and_the_game_is_over():
    g = single_pile_layout(("", "7C 8C"))
    g.apply(("play", 0, 0, 0))
    assert g.phase == OVER and g.winner == 0
    before = g.snapshot()
    for p in (0, 1):
        assert g.legal_actions(p) == []
        assert g.apply(("spit", p)) == NOT_NOW
    assert g.snapshot() == before


# ---- Points variant -------------------------------------------------------------------

def test_r35_points_game_is_a_series_of_rounds():
    g = Game(seed=1, rules=Rules(points=True))
    from shared_rules.rng import Rng
    pick = Rng(7)
    rounds_seen = set()
    while g.phase != OVER:
        rounds_seen.add(g.round)
        acts = g.legal_actions(0) + g.legal_actions(1)
        g.apply(acts[pick.below(len(acts))])
    assert len(rounds_seen) > 1 and max(g.scores) >= 100


def test_r36_each_card_left_on_stockpiles_and_spit_stack_scores_a_point():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True))
    g.apply(("play", 0, 0, 0))
    g.apply(("slap", 1, 1))
    assert g.last_round["points"] == [2, 4] and g.scores == [2, 4]


def test_r37_reaching_the_target_ends_the_game_lower_score_wins():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True, target=4))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == OVER and g.winner == 0 and g.scores == [2, 4]


def test_r37_equal_scores_are_a_draw():
    g = layout(["5H", E, E, E, E], ["9C", "KD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", ""), rules=Rules(points=True, target=2))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == OVER and g.scores == [2, 2] and g.winner is None


def test_r38_in_points_nobody_wins_by_running_out_the_deck_is_dealt_afresh():
    rest = [c for c in range(52) if c not in cards("5H 9C KD QD 4H")]
    g = Game.from_layout([[cards("5H"), [], [], [], []], [cards("9C"), cards("KD QD"), [], [], []]],
                         [[], rest], [cards("4H")], Rules(points=True))
    assert g.apply(("play", 0, 0, 0)) is None          # out first, holding nothing
    assert g.phase == READY and g.winner is None
    assert g.last_round["redeal"] is True
    assert held(g, 0) == 26 and held(g, 1) == 26
    assert g.scores == [0, 3 + len(rest)]


def test_r42_a_round_that_reaches_the_target_ends_the_game_with_no_slap():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True, target=10))
    g.scores = [0, 6]                                  # player 1 reaches 6 + 4 = 10
    assert g.apply(("play", 0, 0, 0)) is None          # player 0 goes out: round over
    assert g.phase == OVER and g.winner == 0 and g.scores == [2, 10]
    assert g.last_round["slap"] is None
    # each player keeps the pile they started (R26 ruling), so all cards stay (R29)
    assert g.last_round["took"] == [2, 2]
    assert sorted(g.hand[0]) == sorted(cards("4H 5H 2C 3C"))
    assert sorted(g.hand[1]) == sorted(cards("7S 8S 9C KD QD 4D"))
    assert g.apply(("slap", 0, 0)) == NOT_NOW


def test_r42_below_the_target_the_round_still_ends_with_a_slap():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True, target=11))
    g.scores = [0, 6]                                  # 6 + 4 = 10 < 11
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == SLAP
    assert g.apply(("slap", 1, 1)) is None
    assert g.phase == READY and g.scores == [2, 10] and g.round == 2


def test_r42_a_stalled_single_pile_tie_reaching_the_target_needs_no_slap():
    # R33 would ask for a slap (equal stockpile counts); R42 ends the game first.
    g = layout(["3C", "9C", E, E, E], ["9D", E, E, E, E], ["2S"], hands=("", ""),
               rules=Rules(points=True, target=3))
    g.scores = [1, 2]
    assert g.apply(("play", 0, 0, 0)) is None          # now nobody can play: stalled
    assert g.phase == OVER and g.scores == [2, 3] and g.winner == 0
    assert sorted(all_cards(g)) == sorted(cards("3C 9C 9D 2S"))


def test_r42_the_standard_game_is_unchanged():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"))
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == SLAP


# ---- Conduct of the device ------------------------------------------------------------

@pytest.mark.parametrize("action", [
    ("play", 0, 0, 1), ("play", 0, 4, 0), ("play", 2, 0, 0), ("play", 0, 9, 0),
    ("play", 0, 0, 5), ("play", 0, -1, 0), ("play", 0, "0", 0), ("play", 0, 0),
    ("fill", 0, 0, 0), ("fill", 0, 1, 0), ("flip", 0, 0), ("slap", 0, 0), ("spit", 0),
    ("dance", 0), (), "play", None, ("play", True, 0, 0), ("play", 0, 0.0, 0),
])
def test_r39_refused_actions_give_a_reason_and_change_nothing(action):
    g = race_layout()
    before = g.snapshot()
    reason = g.apply(action)
    assert isinstance(reason, str) and reason
    assert g.snapshot() == before


def test_r39_every_legal_action_applies():
    g = race_layout()
    for p in (0, 1):
        for a in g.legal_actions(p):
            assert g.copy().apply(a) is None


def test_r40_a_seed_reproduces_the_deal_and_the_whole_game():
    assert Game(seed=42).snapshot() == Game(seed=42).snapshot()
    assert Game(seed=42).stock != Game(seed=43).stock

    def play(seed):
        from shared_rules.rng import Rng
        g = Game(seed=seed)
        pick = Rng(1)
        while g.phase != OVER:
            acts = g.legal_actions(0) + g.legal_actions(1)
            g.apply(acts[pick.below(len(acts))])
        return g.snapshot()
    assert play(8) == play(8)


def test_r40_known_deal_for_seed_zero():
    # Pinned: if this changes, every recorded replay breaks.
    g = Game(seed=0)
    assert [[name(c) for c in s] for s in g.stock[0]] == [
        ["KH"], ["3H", "5D"], ["JC", "8H", "10D"], ["7D", "6H", "8S", "QS"],
        ["9H", "QD", "3S", "7S", "5S"]]
    assert name(g.hand[1][-1]) == "AC"
    from shared_rules.rng import Rng
    r = Rng(0)
    assert [r.next32() for _ in range(3)] == [1596678748, 1602193004, 1509451541]


# ---- R39 in detail: the exact reason for every refusal ---------------------------------
# A refusal's reason is what the screen tells the player, so each one is pinned: a check
# that answers with the wrong reason (or lets a bool pass as an index) is a bug a player
# sees. Layouts: player 0 has a lone 9D, a lone KC, QC on 4C and two empty slots.

def reasons_layout(**kw):
    return layout(["9D", "KC", "4C QC", E, E], ["7C", "2H", E, E, E], ["8S", "5D"],
                  hands=("3C", "4S"), **kw)


PLAY_REFUSALS = [
    # what the player pressed           the reason shown
    (("play", 0, 1, 0), NO_FIT),                 # KC on 8S
    (("play", 0, 3, 0), "stockpile empty"),
    (("play", 0, 5, 0), "no such stockpile"),
    (("play", 0, -1, 0), "no such stockpile"),
    (("play", 0, True, 0), "no such stockpile"),
    (("play", 0, 0.0, 0), "no such stockpile"),
    (("play", 0, 0, 2), "no such pile"),
    (("play", 0, 0, -1), "no such pile"),
    (("play", 0, 0, False), "no such pile"),
    (("play", 2, 0, 0), "no such player"),
    (("play", -1, 0, 0), "no such player"),
    (("play", True, 0, 0), "no such player"),
    (("play", False, 0, 0), "no such player"),
    (("play", 1.0, 0, 0), "no such player"),
    (("play", "0", 0, 0), "no such player"),
    (("play", 0, 0), "bad action"),
    (("play", 0, 0, 0, 0), "bad action"),
    (("fill", 0, 2, 2), "same stockpile"),
    (("fill", 0, 2, 0), NOT_EMPTY),
    (("fill", 0, 0, 3), TOO_FEW),                # a lone card: moving it changes nothing
    (("fill", 0, 4, 3), "stockpile empty"),      # from an empty slot: not "lone card"
    (("fill", 0, 5, 3), "no such stockpile"),
    (("fill", 0, 2, 5), "no such stockpile"),
    (("fill", 0, 2, -1), "no such stockpile"),
    (("fill", 0, True, 3), "no such stockpile"),
    (("fill", 0, 2), "bad action"),
    (("fill", 2, 2, 3), "no such player"),
    (("flip", 0, 0), "flip is automatic"),
    (("flip", 0), "bad action"),
    (("spit", 0), NOT_NOW),
    (("spit", 0, 0), "bad action"),
    (("slap", 0, 0), NOT_NOW),
    (("slap", 0), "bad action"),
    (("dance", 0), "bad action"),
    (("play",), "bad action"),
    ((), "bad action"),
    (None, "bad action"),
    ("play", "bad action"),
    ({"play": 0}, "bad action"),
]


@pytest.mark.parametrize("action,reason", PLAY_REFUSALS, ids=[repr(a) for a, r in PLAY_REFUSALS])
def test_r39_each_refusal_during_play_gives_its_own_reason(action, reason):
    g = reasons_layout()
    before = g.snapshot()
    assert g.apply(action) == reason
    assert g.why_not(action) == reason
    assert g.snapshot() == before


def test_r39_the_same_actions_as_lists_are_accepted():
    g = reasons_layout()
    assert g.apply(["fill", 0, 2, 3]) is None
    assert g.apply(["play", 0, 0, 0]) is None
    assert g.stock[0][3] == cards("QC") and g.piles[0] == cards("8S 9D")


def test_r39_manual_flip_refusals():
    g = layout(["KC 5H", "3S", E, E, E], ["9S", E, E, E, E], ["4H", "AD"], hands=("2C", "3D"),
               rules=Rules(manual_flip=True))
    assert g.apply(("play", 0, 0, 0)) is None          # KC is left face down
    before = g.snapshot()
    for action, reason in [(("play", 0, 0, 1), FACE_DOWN), (("fill", 0, 0, 2), FACE_DOWN),
                           (("flip", 0, 1), "already face up"), (("flip", 0, 2), "stockpile empty"),
                           (("flip", 0, 5), "no such stockpile"), (("flip", 0, -1), "no such stockpile"),
                           (("flip", 0, 0, 0), "bad action"), (("flip", 3, 0), "no such player")]:
        assert g.apply(action) == reason, action
    assert g.snapshot() == before
    assert g.apply(("flip", 0, 0)) is None and g.face_up(0, 0)


def test_r39_refusals_while_ready_slapping_and_over():
    g = stall_layout(rules=Rules(manual_flip=True))
    assert g.apply(("play", 0, 0, 0)) is None and g.phase == READY
    before = g.snapshot()
    for action, reason in [(("play", 0, 1, 0), NOT_NOW), (("fill", 0, 1, 0), NOT_NOW),
                           (("flip", 0, 1), NOT_NOW), (("slap", 0, 0), NOT_NOW)]:
        assert g.apply(action) == reason, action
    assert g.snapshot() == before
    assert g.apply(("spit", 1)) is None
    assert g.apply(("spit", 1)) == "already said spit"
    spit_slap = stall_layout()
    spit_slap.apply(("play", 0, 0, 0))
    spit_both(spit_slap)
    assert spit_slap.phase == SLAP
    before = spit_slap.snapshot()
    for action, reason in [(("slap", 0, 2), "no such pile"), (("slap", 0, -1), "no such pile"),
                           (("slap", 1, True), "no such pile"), (("slap", 2, 0), "no such player"),
                           (("play", 1, 0, 0), NOT_NOW), (("spit", 0), NOT_NOW),
                           (("slap", 0, 0, 0), "bad action")]:
        assert spit_slap.apply(action) == reason, action
    assert spit_slap.snapshot() == before
    over = single_pile_layout(("", "7C 8C"))
    over.apply(("play", 0, 0, 0))
    assert over.phase == OVER
    before = over.snapshot()
    for action in [("play", 1, 0, 0), ("fill", 1, 1, 2), ("slap", 1, 0), ("spit", 1)]:
        assert over.apply(action) == NOT_NOW, action
    assert over.snapshot() == before


def test_r39_spit_with_no_spit_cards_anywhere_is_refused_with_its_reason():
    g = layout(["5H", E, E, E, E], ["9C", E, E, E, E], [])
    assert g.phase == READY
    assert g.apply(("spit", 0)) == "no spit cards"
    assert g.legal_actions(0) == [] and g.legal_actions(1) == []


def test_r39_no_legal_actions_for_a_player_that_does_not_exist():
    g = reasons_layout()
    for p in (2, -1, True, False, 0.0, None, "0"):
        assert g.legal_actions(p) == [], p
    assert g.legal_actions(0) and g.legal_actions(1)


# ---- R37: the target ---------------------------------------------------------------------

def test_r37_the_points_target_is_100_by_default():
    assert Rules().target == 100
    assert Rules(points=True).target == 100
    assert Rules.from_dict({"points": True}).target == 100
    assert Rules.from_dict({}).to_dict() == {"points": False, "manual_flip": False, "target": 100}


@pytest.mark.parametrize("before,over", [(97, True), (96, False)])
def test_r37_a_game_restored_near_the_default_target_ends_at_exactly_100(before, over):
    # A single-pile round: player 0 goes out; player 1 is left with 3 stockpile cards.
    g = layout(["KC", E, E, E, E], ["5H", "9D 10D", E, E, E], ["QS"], rules=Rules(points=True))
    d = g.snapshot()
    d["scores"] = [0, before]
    g = Game.restore(d)
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.scores == [0, before + 3]
    assert (g.phase == OVER) == over
    assert g.winner == (0 if over else None)


def test_r1_only_the_ints_0_to_51_are_cards():
    from shared_rules.cards import is_card
    assert all(is_card(c) for c in range(52))
    for bad in (-1, 52, 53, 99, True, False, 1.0, "1", None):
        assert not is_card(bad), bad


def test_r40_below_is_uniform_by_rejection_exactly_as_specified():
    # A replay made on one machine must deal the same anywhere: below(n) draws next32()
    # and rejects draws at or above the largest multiple of n under 2**32.
    from shared_rules.rng import Rng

    def reference(seed, n, count):
        r = Rng(seed)
        out = []
        for _ in range(count):
            limit = (1 << 32) // n * n
            x = r.next32()
            while x >= limit:
                x = r.next32()
            out.append(x % n)
        return out

    for n in (1, 2, 52, 250000, 3000017, (1 << 22) - 1):   # the large n reject more often
        r = Rng(9)
        assert [r.below(n) for _ in range(200)] == reference(9, n, 200), n
    for bad in (0, -3, 1 << 22, 3 << 30):            # beyond what stays in small ints
        with pytest.raises(ValueError):
            Rng(1).below(bad)


def test_r40_the_games_digest_is_pinned_for_every_part_of_the_state():
    # A recording keeps Game.digest() at every round's end and a replay compares it
    # (R40): pinned, so that a change to what it covers or how it mixes shows here.
    g = Game(3)
    assert g.digest() == 9446320
    g.apply(("spit", 0))
    assert g.digest() == 14791473                     # said
    g.apply(("spit", 1))
    assert g.digest() == 3058073                      # piles, hands, phase
    h = Game(11, Rules(points=True))
    h.scores = [7, 300]
    assert h.digest() == 15789932                     # scores
    s = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"))
    s.down[1][1] = True
    assert s.digest() == 10553557                     # a face-down stockpile
    s.apply(("play", 0, 0, 0))
    assert (s.phase, s.ending) == (SLAP, {"end": "out", "out": 0}) and s.digest() == 1155200
    o = Game(5)
    o.winner = 1
    o.phase = OVER
    assert o.digest() == 9333535                      # the winner
    st = layout(["9C", "3H", E, E, E], ["2D", E, E, E, E], ["8C", "KD"], hands=("", ""))
    st.apply(("play", 0, 0, 0))                       # then nothing fits, no hand: stalled
    assert st.ending == {"end": "stalled", "out": None} and st.digest() == 2148723


def test_r42_player_0_reaching_exactly_the_target_ends_the_game_too():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True, target=10))
    g.scores = [8, 0]                                  # player 0 reaches 8 + 2 = 10 exactly
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == OVER and g.scores == [10, 4] and g.winner == 1


def test_r42_a_player_one_card_short_of_the_target_plays_on():
    # Player 0 would reach 7 + 2 = 9 of 10, player 1 0 + 4: nobody reaches the target,
    # so the round ends in the slap as usual (R25), whatever the other player holds.
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True, target=10))
    g.scores = [7, 0]
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == SLAP and g.winner is None


def test_r40_the_digest_tells_every_kind_of_round_ending_apart():
    digests = set()
    for ending in (None, {"end": "out", "out": 0}, {"end": "out", "out": 1},
                   {"end": "stalled", "out": None}, {"end": "stalled", "out": 0},
                   {"end": "stalled", "out": 1}):
        g = Game(9)
        g.ending = ending
        digests.add(g.digest())
    assert len(digests) == 6


@pytest.mark.parametrize("verb", ["spot", "tap", "zap", "sp", "spits"])
def test_r39_a_verb_that_is_not_the_games_is_refused_as_a_bad_action(verb):
    g = Game(4)
    assert g.why_not((verb, 0)) == "bad action" and g.apply((verb, 0)) == "bad action"
    assert g.said == [False, False]


def test_r42_player_1_going_past_the_target_ends_the_game():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"), rules=Rules(points=True, target=10))
    g.scores = [0, 8]                                  # player 1: 8 + 4 = 12, past 10
    assert g.apply(("play", 0, 0, 0)) is None
    assert g.phase == OVER and g.scores[1] == 12 and g.winner is not None


def test_r36_a_standard_game_scores_no_points():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"))
    g.apply(("play", 0, 0, 0))
    g.apply(("slap", 1, 1))
    assert g.last_round["points"] == [0, 0] and g.scores == [0, 0]


def test_r39_bad_layouts_and_decks_are_refused_with_their_reason():
    with pytest.raises(ValueError) as e:
        Game.from_layout([[[99], [], [], [], []], [[], [], [], [], []]], [[], []], [])
    assert "not a card: 99" in str(e.value)
    for deck in (list(range(51)), list(range(53)), tuple(range(51))):
        with pytest.raises(ValueError) as e:
            Game(deck=deck)
        assert "52 cards" in str(e.value)
    assert Rules(target=1).target == 1                 # the smallest target there is
    with pytest.raises(ValueError):
        Rules(target=0)


def test_r40_a_seed_may_be_any_small_int_of_the_device_0_to_2_to_the_30_minus_1():
    from shared_rules.game import MAX_SEED
    assert MAX_SEED == (1 << 30) - 1
    a, b = Game(MAX_SEED), Game(MAX_SEED)
    assert a.snapshot() == b.snapshot() and Game(MAX_SEED - 1).snapshot() != a.snapshot()


def test_rules_print_as_their_options():
    assert repr(Rules()) == "Rules(points=False, manual_flip=False, target=100)"
    assert repr(Rules(True, True, 7)) == "Rules(points=True, manual_flip=True, target=7)"


def test_r39_actions_read_from_text_apply_like_the_same_actions_written_out():
    # A replay's actions are strings split from its lines: equal to the literals the
    # pads write, but other objects. The game goes by what they say.
    def text(word):
        return "".join(list(word))                 # the same word, a new string
    for verb, action in (("play", ("play", 0, 0, 0)), ("fill", ("fill", 0, 2, 3))):
        g = layout(["9D", "KC", "4C QC", E, E], ["7C", "6C", "2H", E, E], ["8S", "5D"],
                   hands=("3C", "4S"))
        h = layout(["9D", "KC", "4C QC", E, E], ["7C", "6C", "2H", E, E], ["8S", "5D"],
                   hands=("3C", "4S"))
        read = (text(verb),) + action[1:]
        assert read == action and read[0] is not action[0]
        assert g.apply(read) is None and h.apply(action) is None
        assert g.snapshot() == h.snapshot()
    g = Game(8)
    assert g.apply((text("spit"), 0)) is None and g.said[0]


def test_r25_when_the_other_player_slaps_first_the_round_still_names_who_went_out():
    # Player 0 plays their last stockpile card (R24); player 1 slaps first (R25, R26).
    # The round's record says player 0 went out and player 1 slapped, with two piles
    # (only with a single pile does the first slapper count as out first, R33).
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"))
    assert g.apply(("play", 0, 0, 0)) is None and g.ending == {"end": "out", "out": 0}
    assert g.apply(("slap", 1, 0)) is None
    assert g.last_round["out"] == 0 and g.last_round["slap"] == [1, 0]


def test_r41_no_flip_once_the_game_is_over():
    # A face-down top under manual flip may be turned up only in play: not after the
    # game has ended.
    g = layout(["5H", "KD QD", E, E, E], ["9C", E, E, E, E], ["4H", "7S 8S"],
               rules=Rules(manual_flip=True))
    g.down[0][1] = True
    assert g.why_not(("flip", 0, 1)) is None
    g.phase = OVER
    assert g.why_not(("flip", 0, 1)) == NOT_NOW
