"""The pads (shared_rules/pad.py, DESIGN.md "Controls"): what each button of the two-
and the six-button pad does in every phase, as a player pressing them meets it, and
whole games played through the six-button pad alone."""
import pytest

from shared_rules.cards import card
from shared_rules.game import NO_FIT, OVER, PLAY, READY, SAME_SLOT, SLAP, Game, Rules
from shared_rules.conduct import Fumbles
from shared_rules.pad import (A, B, DOWN, LEFT, RIGHT, SIX_BUTTON, TWO_BUTTON, UP,
                              Pad, best_play, first_empty, follow_ups, main_action,
                              next_stockpile, pile_on_left)
from shared_rules.rng import Rng
from tests.helpers import all_cards, layout

E = ""
BUTTONS = (A, B, LEFT, RIGHT, UP, DOWN)


def play_layout(**kw):
    # Player 0: 9D (fits 8S), KC (fits nothing), QC on 4C, two empty slots.
    # Player 1: 7C (fits 8S), 6C (fits 5D), 2H, two empty slots.
    return layout(["9D", "KC", "4C QC", E, E], ["7C", "6C", "2H", E, E], ["8S", "5D"],
                  hands=("3C", "4S"), **kw)


def slap_layout():
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["4H", "7S 8S"],
               hands=("2C 3C", "4D"))
    assert g.apply(("play", 0, 0, 0)) is None and g.phase == SLAP
    return g


def single_pile_layout():
    return layout(["5H", "KC", "9D 3C", E, E], ["JC", "2D", E, E, E], ["4H"], hands=("", "7C 8C"))


# ---- the six-button pad, button by button ------------------------------------------------

def test_six_right_and_left_move_the_cursor_over_empty_slots_and_wrap():
    g = play_layout()
    pad = Pad(0, SIX_BUTTON)
    seen = []
    for _ in range(4):
        assert pad.press(g, RIGHT) is None
        seen.append(pad.cursor)
    assert seen == [1, 2, 0, 1]                  # slots 3 and 4 are empty: skipped
    seen = []
    for _ in range(4):
        assert pad.press(g, LEFT) is None
        seen.append(pad.cursor)
    assert seen == [0, 2, 1, 0]


def test_six_a_plays_onto_the_left_pile_and_b_onto_the_right_one():
    g = play_layout()
    p0, p1 = Pad(0, SIX_BUTTON), Pad(1, SIX_BUTTON)
    assert p0.press(g, A) == ("play", 0, 0, 0)   # player 0's left is pile 0
    assert p0.press(g, B) == ("play", 0, 0, 1)
    p1.cursor = 1
    assert p1.press(g, A) == ("play", 1, 1, 1)   # face to face: player 1's left is pile 1
    assert p1.press(g, B) == ("play", 1, 1, 0)
    assert g.apply(p1.press(g, A)) is None       # 6C onto 5D
    assert g.apply(p0.press(g, A)) is None       # 9D onto 8S
    assert g.piles[0][-1] == card("9D") and g.piles[1][-1] == card("6C")


def test_six_a_and_b_both_play_onto_the_single_pile():
    g = single_pile_layout()
    for p in (0, 1):
        pad = Pad(p, SIX_BUTTON)
        assert pad.press(g, A) == ("play", p, 0, 0)
        assert pad.press(g, B) == ("play", p, 0, 0)


def test_six_a_play_that_does_not_fit_is_left_to_the_game_to_refuse():
    g = play_layout()
    pad = Pad(0, SIX_BUTTON)
    pad.press(g, RIGHT)
    assert pad.press(g, A) == ("play", 0, 1, 0)
    assert g.apply(pad.press(g, A)) == NO_FIT


def test_six_up_fills_the_first_empty_slot_with_the_card_under_the_cursor():
    g = play_layout()
    pad = Pad(0, SIX_BUTTON)
    pad.press(g, RIGHT)
    pad.press(g, RIGHT)
    assert pad.cursor == 2
    assert pad.press(g, UP) == ("fill", 0, 2, 3)
    assert g.apply(pad.press(g, UP)) is None
    assert g.stock[0][3] == [card("QC")] and g.stock[0][2] == [card("4C")]


def test_six_up_with_no_empty_slot_is_refused_not_a_fill_elsewhere():
    g = layout(["9D", "KC", "4C QC", "2S", "3S"], ["7C", E, E, E, E], ["8S", "5D"],
               hands=("3C", "4S"))
    pad = Pad(0, SIX_BUTTON)
    pad.cursor = 2
    assert first_empty(g, 0) is None
    assert pad.press(g, UP) == ("fill", 0, 2, 2)
    assert g.apply(pad.press(g, UP)) == SAME_SLOT


def test_six_down_flips_the_card_under_the_cursor():
    g = play_layout(rules=Rules(manual_flip=True))
    pad = Pad(0, SIX_BUTTON)
    pad.cursor = 2
    assert g.apply(pad.press(g, UP)) is None     # QC moves to slot 3; 4C lies face down
    assert not g.face_up(0, 2)
    assert pad.press(g, DOWN) == ("flip", 0, 2)
    assert g.apply(pad.press(g, DOWN)) is None and g.face_up(0, 2)


@pytest.mark.parametrize("scheme", [SIX_BUTTON, TWO_BUTTON])
def test_every_button_says_spit_when_ready(scheme):
    g = Game(seed=1)
    assert g.phase == READY
    for p in (0, 1):
        pad = Pad(p, scheme)
        for b in BUTTONS:
            assert pad.press(g, b) == ("spit", p)


def test_six_slap_left_and_right_per_player():
    g = slap_layout()
    expected = {0: {A: 0, LEFT: 0, B: 1, RIGHT: 1}, 1: {A: 1, LEFT: 1, B: 0, RIGHT: 0}}
    for p in (0, 1):
        pad = Pad(p, SIX_BUTTON)
        for b, pile in expected[p].items():
            assert pad.press(g, b) == ("slap", p, pile), (p, b)
        assert pad.press(g, UP) is None and pad.press(g, DOWN) is None


def test_right_slaps_the_right_pile_and_a_slap_on_the_right_takes_it():
    g = slap_layout()
    pad = Pad(0, SIX_BUTTON)
    assert g.apply(pad.press(g, RIGHT)) is None
    assert g.last_round["slap"] == [0, 1] and g.last_round["took"] == [2, 2]


def test_every_slap_button_slaps_the_single_pile():
    g = layout(["10C", "KC", E, E, E], ["2D", E, E, E, E], ["9H"])
    assert g.apply(("play", 0, 0, 0)) is None and g.phase == SLAP and len(g.piles) == 1
    for p in (0, 1):
        for scheme in (SIX_BUTTON, TWO_BUTTON):
            pad = Pad(p, scheme)
            for b in (A, B, LEFT, RIGHT):
                assert pad.press(g, b) == ("slap", p, 0)


@pytest.mark.parametrize("scheme", [SIX_BUTTON, TWO_BUTTON])
def test_no_button_does_anything_once_the_game_is_over(scheme):
    g = layout(["5H", E, E, E, E], ["9C", "KD QD", E, E, E], ["3S 4H"], hands=("", "7C 8C"))
    g.apply(("play", 0, 0, 0))
    assert g.phase == OVER
    pad = Pad(0, scheme)
    for b in BUTTONS:
        assert pad.press(g, b) is None
    assert pad.cursor == 0


@pytest.mark.parametrize("scheme", [SIX_BUTTON, TWO_BUTTON])
def test_buttons_a_pad_does_not_have_do_nothing(scheme):
    for g in (play_layout(), slap_layout()):
        pad = Pad(0, scheme)
        for b in (-1, 6, 99, None):
            assert pad.press(g, b) is None
        assert pad.cursor == 0


# ---- the two-button pad ---------------------------------------------------------------

def test_two_a_moves_the_cursor_and_b_plays_where_it_fits():
    g = play_layout()
    pad = Pad(1, TWO_BUTTON)
    assert pad.press(g, B) == ("play", 1, 0, 0)  # 7C fits only 8S (pile 0)
    assert pad.press(g, A) is None and pad.cursor == 1
    assert pad.press(g, B) == ("play", 1, 1, 1)  # 6C fits only 5D (pile 1)
    for b in (LEFT, RIGHT, UP, DOWN):            # the six-button pad's extra buttons
        assert pad.press(g, b) is None and pad.cursor == 1
    assert pad.press(g, A) is None and pad.cursor == 2
    assert pad.press(g, A) is None and pad.cursor == 0


def test_two_b_fills_when_nothing_fits_and_otherwise_refuses_on_the_left_pile():
    g = play_layout()
    pad = Pad(0, TWO_BUTTON)
    pad.cursor = 2                               # QC fits neither pile; two cards: fill
    assert pad.press(g, B) == ("fill", 0, 2, 3)
    pad.cursor = 1                               # lone KC fits nothing: refused on the left
    assert pad.press(g, B) == ("play", 0, 1, 0)
    assert g.apply(pad.press(g, B)) == NO_FIT
    assert Pad(1, TWO_BUTTON).press(g, B) == ("play", 1, 0, 0)
    p1 = Pad(1, TWO_BUTTON)
    p1.cursor = 2                                # 2H fits nothing, alone: player 1's left
    assert p1.press(g, B) == ("play", 1, 2, 1)


def test_two_b_on_an_empty_slot_is_refused_with_the_empty_reason():
    g = play_layout()
    pad = Pad(0, TWO_BUTTON)
    pad.cursor = 3
    assert pad.press(g, B) == ("play", 0, 3, 0)
    assert g.apply(pad.press(g, B)) == "stockpile empty"


def test_two_b_flips_a_face_down_card():
    g = play_layout(rules=Rules(manual_flip=True))
    assert g.apply(("fill", 0, 2, 3)) is None
    pad = Pad(0, TWO_BUTTON)
    pad.cursor = 2
    assert pad.press(g, B) == ("flip", 0, 2)


# ---- where B plays a card that fits both piles -------------------------------------------

def both_fit(p0_other, p1_other=("2H",), **kw):
    # 9D fits 8S (pile 0) and 10H (pile 1).
    return layout(["9D"] + list(p0_other) + [E] * (4 - len(p0_other)),
                  list(p1_other) + [E] * (5 - len(p1_other)), ["8S", "10H"],
                  hands=("3C", "4S"), **kw)


def test_b_plays_onto_the_pile_that_leaves_a_follow_up():
    # With 7C left, 9D belongs on 10H (pile 1): the 8S stays for the 7C.
    g = both_fit(["7C"])
    assert follow_ups(g, 0, 0, 0) == 0 and follow_ups(g, 0, 0, 1) == 1
    assert best_play(g, 0, 0) == 1 == main_action(g, 0, 0)[3]
    # With JC left, 9D belongs on 8S (pile 0): the 10H stays for the JC.
    g = both_fit(["JC"])
    assert follow_ups(g, 0, 0, 0) == 1 and follow_ups(g, 0, 0, 1) == 0
    assert best_play(g, 0, 0) == 0


def test_b_weighs_both_piles_for_player_1_too():
    # Player 1's left pile is pile 1. 6H fits 5D (pile 0) and 7C (pile 1); 7S would
    # follow it either way, 8S only if the 7C stays uncovered: onto pile 0 it goes.
    g = layout(["KC", "QD", E, E, E], ["6H", "8S", "7S", E, E], ["5D", "7C"],
               hands=("3C", "4S"))
    assert pile_on_left(g, 1) == 1
    assert follow_ups(g, 1, 0, 1) == 1 and follow_ups(g, 1, 0, 0) == 2
    assert best_play(g, 1, 0) == 0 and Pad(1).press(g, B) == ("play", 1, 0, 0)


def test_b_counts_every_follow_up_once():
    # 7C and 7H would fit the 8S left by playing on pile 1; JC the 10H left by pile 0.
    g = both_fit(["7C", "7H", "JC"])
    assert follow_ups(g, 0, 0, 1) == 2 and follow_ups(g, 0, 0, 0) == 1
    assert best_play(g, 0, 0) == 1


def test_b_counts_a_follow_up_that_fits_both_piles_once():
    # 7D onto 8S leaves 7D and 9H on top: 8C fits both but is one follow-up; 10C fits
    # the 9H. (The bot weighs its plays by this count.)
    g = layout(["7D", "8C", "10C", E, E], ["2H", E, E, E, E], ["8S", "9H"], hands=("3C", "4S"))
    assert follow_ups(g, 0, 0, 0) == 2
    assert follow_ups(g, 0, 1, 1) == 1             # 8C onto 9H: 7D fits 8S and 8C, 10C neither


def test_b_ignores_empty_face_down_and_the_played_stockpile_when_counting():
    g = both_fit(["KC 7C"], rules=Rules(manual_flip=True))
    assert g.apply(("fill", 0, 1, 2)) is None    # 7C to slot 2, KC left face down
    assert not g.face_up(0, 1)
    # 7C counts; the face-down KC and the empty slots do not; nor does 9D itself.
    assert follow_ups(g, 0, 0, 1) == 1 and follow_ups(g, 0, 0, 0) == 0


def test_b_counts_follow_ups_on_either_side_of_the_card_and_by_their_top_card():
    g = layout(["7C", "9D", E, E, E], ["2H", E, E, E, E], ["8S", "10H"], hands=("3C", "4S"))
    assert follow_ups(g, 0, 1, 1) == 1 and best_play(g, 0, 1) == 1   # 7C left of the 9D
    g = both_fit(["7C JC"])                       # JC on top counts, the 7C beneath not
    assert follow_ups(g, 0, 0, 0) == 1 and follow_ups(g, 0, 0, 1) == 0
    assert best_play(g, 0, 0) == 0


def test_b_with_equal_follow_ups_plays_onto_the_players_left_pile():
    g = both_fit(["KC"], p1_other=["9C", "2H"])
    assert best_play(g, 0, 0) == 0               # player 0's left
    assert best_play(g, 1, 0) == 1               # player 1's left (9C fits 8S and 10H)
    assert pile_on_left(g, 0) == 0 and pile_on_left(g, 1) == 1


def test_best_play_is_none_for_empty_face_down_or_unfitting_cards():
    g = both_fit(["KC 5C"], rules=Rules(manual_flip=True))
    assert best_play(g, 0, 2) is None            # empty
    assert best_play(g, 0, 1) is None            # 5C fits nothing
    g.apply(("fill", 0, 1, 2))
    assert best_play(g, 0, 1) is None            # face-down KC


def test_next_stockpile_wraps_both_ways_and_stays_when_all_are_empty():
    g = play_layout()
    assert [next_stockpile(g, 0, c) for c in range(5)] == [1, 2, 0, 0, 0]
    assert [next_stockpile(g, 0, c, -1) for c in range(5)] == [2, 0, 1, 2, 2]
    empty = layout([E, E, E, E, E], ["7C", E, E, E, E], ["8S"])
    assert next_stockpile(empty, 0, 3) == 3 and next_stockpile(empty, 0, 3, -1) == 3
    assert first_empty(g, 0) == 3 and first_empty(g, 1) == 3


def test_pile_on_left_in_a_single_pile_round_is_the_pile():
    g = single_pile_layout()
    assert pile_on_left(g, 0) == 0 and pile_on_left(g, 1) == 0


# ---- whole games through the six-button pad ----------------------------------------------

def presses_for(game, pad, action, rng):
    """The buttons a player presses on the six-button pad to make `action`: walk the
    cursor there (left or right, whichever way the player likes), then act."""
    p = pad.player
    kind = action[0]
    if kind == "spit":
        return [BUTTONS[rng.below(6)]]
    if kind == "slap":
        left = pile_on_left(game, p)
        return [(A, LEFT)[rng.below(2)] if action[2] == left else (B, RIGHT)[rng.below(2)]]
    i = action[2]
    step = RIGHT if rng.below(2) else LEFT
    walk = []
    cursor = pad.cursor
    while cursor != i:
        cursor = next_stockpile(game, p, cursor, 1 if step == RIGHT else -1)
        walk.append(step)
        assert len(walk) <= 5, "the cursor never reaches stockpile %d" % i
    if kind == "play":
        left = pile_on_left(game, p)
        return walk + [A if action[3] == left else B]
    if kind == "fill":
        return walk + [UP]
    return walk + [DOWN]


def wanted(game, p):
    """The actions a six-button player can make in one button after moving the cursor:
    every legal one, except fills into another slot than the first empty one."""
    out = []
    for a in game.legal_actions(p):
        if a[0] == "fill" and a[3] != first_empty(game, p):
            continue
        out.append(a)
    return out


@pytest.mark.parametrize("rules", [Rules(), Rules(manual_flip=True), Rules(points=True, target=60)],
                         ids=["standard", "manual_flip", "points"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_game_on_the_six_button_pad(rules, seed):
    g = Game(seed=seed, rules=rules)
    pads = [Pad(0, SIX_BUTTON), Pad(1, SIX_BUTTON)]
    rng = Rng(seed + 40)
    used = set()
    steps = 0
    while g.phase != OVER:
        steps += 1
        assert steps < 20_000, "the game never ended"
        movers = [p for p in (0, 1) if wanted(g, p)]
        assert movers, "nobody can press anything in phase %s" % g.phase
        p = movers[rng.below(len(movers))]
        acts = wanted(g, p)
        action = acts[rng.below(len(acts))]
        pad = pads[p]
        presses = presses_for(g, pad, action, rng)
        for b in presses[:-1]:
            assert pad.press(g, b) is None                     # cursor moves only
        made = pad.press(g, presses[-1])
        assert made == action, (presses, made, action)
        used.add(presses[-1])
        used.update(presses[:-1])
        assert g.apply(made) is None
        assert sorted(all_cards(g)) == list(range(52))
    assert g.phase == OVER
    assert {A, B, LEFT, RIGHT, UP} <= used
    if rules.manual_flip:
        assert DOWN in used


# ---- the fumble's dead time (R41) ---------------------------------------------------------

def test_r41_fumbles_are_counted_per_player_from_zero():
    f = Fumbles(500000)
    assert f.count == [0, 0] and f.start == [None, None]
    assert f.settled(("play", 1, 0, 0), 7000, NO_FIT)
    assert f.count == [0, 1] and f.start == [None, 7000]
    assert f.settled(("fill", 0, 2, 3), 9000, NO_FIT)
    assert f.settled(("play", 1, 4, 1), 600000, NO_FIT)
    assert f.count == [1, 2] and f.start == [9000, 600000]
    assert not f.settled(("play", 0, 1, 0), 700000, None)      # applied: no fumble
    assert f.count == [1, 2]


def test_r41_the_dead_time_left_runs_from_the_whole_time_down_to_zero():
    us = 500000
    f = Fumbles(us)
    assert f.left_us(0, 123) == 0                      # no fumble yet: live
    f.settled(("play", 0, 1, 0), 1000, NO_FIT)
    assert f.left_us(0, 1000) == us                    # at the fumble's own touch
    assert f.left_us(0, 1001) == us - 1
    assert f.left_us(0, 1000 + us - 1) == 1
    assert f.left_us(0, 1000 + us) == 0                # live again, exactly us later
    assert f.left_us(0, 1000 + us + 1) == 0
    assert f.left_us(0, 1000 + 3 * us) == 0
    assert f.left_us(0, 999) == 0                      # a moment before it: not dead
    assert f.left_us(1, 1000) == 0                     # the other player is live
    assert [f.dead(0, t) for t in (999, 1000, 1000 + us - 1, 1000 + us)] == [
        False, True, True, False]


def test_r41_the_dead_time_left_counts_across_the_tick_wrap():
    f = Fumbles(500000)
    start = (1 << 30) - 100
    f.settled(("flip", 1, 2), start, NO_FIT)
    assert f.left_us(1, 200) == 500000 - 300           # 300 us after, past the wrap
    assert f.dead(1, 200) and not f.dead(1, 500000)


# ---- B's choice counts the card it plays --------------------------------------------------

def test_b_counts_follow_ups_against_the_top_card_it_plays_not_the_one_beneath():
    # Stockpile 0 is KH under 9D: 9D fits 8S and 10H. Wherever it goes, 10C then fits
    # the 9D itself and QC fits nothing; the KH beneath the 9D (which QC would fit, and
    # 10C not) plays no part.
    g = layout(["KH 9D", "10C", E, E, E], ["2H", E, E, E, E], ["8S", "10H"],
               hands=("3C", "4S"))
    assert follow_ups(g, 0, 0, 1) == 1 and follow_ups(g, 0, 0, 0) == 1
    g = layout(["KH 9D", "QC", E, E, E], ["2H", E, E, E, E], ["8S", "10H"],
               hands=("3C", "4S"))
    assert follow_ups(g, 0, 0, 1) == 0 and follow_ups(g, 0, 0, 0) == 0


@pytest.mark.parametrize("scheme", [TWO_BUTTON, SIX_BUTTON])
def test_a_pad_plays_and_slaps_on_a_game_restored_from_its_saved_text(scheme):
    # A saved game comes back from JSON text: its phase is a string read from the file,
    # equal to the game's own but not the same object. The pad goes by what it says.
    import json
    g = Game.restore(json.loads(json.dumps(play_layout().snapshot())))
    assert g.phase == PLAY
    assert Pad(0, scheme).press(g, B)[:3] == ("play", 0, 0)     # 9D, the card under the cursor
    s = Game.restore(json.loads(json.dumps(slap_layout().snapshot())))
    assert s.phase == SLAP
    assert Pad(1, scheme).press(s, B)[0] == "slap"
    r = Game.restore(json.loads(json.dumps(Game(seed=4).snapshot())))   # a new deal
    assert r.phase == READY
    assert Pad(0, scheme).press(r, A) == ("spit", 0)                     # R11
