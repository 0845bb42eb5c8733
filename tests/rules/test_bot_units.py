"""Pieces of the CPU player (shared_rules/bot.py) on their own: the pile it slaps, the
cost of its moves, its -ln table's exact numbers, its press counter and the masher's
timing. (Whole games and the timing model are in test_bot.py.)"""
from shared_rules.bot import (Bot, MASHER, moves, neg_ln_q16, smaller_pile, _KIND_COST,
                              _STEP_COST)
from shared_rules.pad import A, B
from tests.helpers import layout

E = ""
IDLE_P1 = ["5C", "5D", "2D", "4S", "3C"]


def test_r25_the_pile_to_slap_is_the_smaller_and_pile_0_on_a_tie_or_alone():
    for piles, want in ((["8C 9C", "KD"], 1), (["8C", "KD QD"], 0), (["8C 9C", "KD QD"], 0),
                        (["8C"], 0)):
        g = layout(["2C", E, E, E, E], IDLE_P1, piles)
        assert smaller_pile(g) == want, piles


def test_a_moves_cost_counts_follow_ups_only_when_asked_and_at_most_two():
    # 9D fits the 8C; after it, the 10H, 10S and 8D on the player's other stockpiles all
    # fit a top (three follow-ups). Cost: cursor steps, less `follow` per follow-up,
    # counted up to two.
    g = layout(["9D", "10H", "10S", "8D", E], IDLE_P1, ["8C", "KD"])
    base = _KIND_COST["play"] + 0 * _STEP_COST
    plays = {m[1]: m[0] for m in moves(g, 0, 0) if m[2] == ("play", 0, 0, 0)}
    assert plays == {0: base}
    assert moves(g, 0, 0) == moves(g, 0, 0, 0)
    for follow in (1, 3):
        costs = {m[1]: m[0] for m in moves(g, 0, 0, follow) if m[2] == ("play", 0, 0, 0)}
        assert costs == {0: base - follow * 2}, follow


def test_r40_the_cpus_minus_ln_draws_are_pinned_to_the_unit():
    # The CPU's reaction times come from neg_ln_q16; a seed must replay the same game
    # (R40), so its numbers are pinned exactly, also where the interpolation rounds.
    want = {8388609: 45426, 8388867: 45424, 8389125: 45422, 8389383: 45420,
            8400953: 45331, 3: 1018226, 5000001: 79339, 16777215: 1, 77777: 352186,
            16777216: 0}   # the largest draw, next24() + 1: -ln(1)
    assert {x: neg_ln_q16(x) for x in want} == want


def test_a_bot_counts_its_presses_from_zero():
    g = layout(["2C", "4D", "2H", "4H", "5S"], IDLE_P1, ["8C", "KD"])
    bot = Bot(0, MASHER, 3)
    assert bot.presses == 0
    bot.observe(g, 0, 0)
    got = 0
    t = 0
    while got < 5:
        t = bot.due_us()
        if bot.next_press(t) is not None:
            got += 1
    assert bot.presses == 5


def test_the_masher_presses_at_its_due_time_not_a_us_before():
    g = layout(["2C", "4D", "2H", "4H", "5S"], IDLE_P1, ["8C", "KD"])
    bot = Bot(0, MASHER, 3)
    bot.observe(g, 0, 0)
    for _ in range(4):
        t = bot.due_us()
        assert bot.next_press(t - 1) is None
        press = bot.next_press(t)
        assert press is not None and press[0] == t and press[1] in (A, B)


def test_a_bot_counts_its_looks_and_presses_from_zero():
    # Only 9S (stockpile 2) fits 8C. The bot looks once a reaction after it first sees
    # the table (and plans A, A, B), once more a reaction after its B to check what came
    # of it; after that nothing of its own fits and nothing changes (player 1 keeps QC
    # for KD, so the game does not stall), so it looks no more.
    g = layout(["2C", "4D", "9S", "4H", "5S"], ["QC", "5D", "2D", "4S", "3C"], ["8C", "KD"])
    bot = Bot(0, "hard", 1)
    assert bot.looks == 0 and bot.presses == 0
    bot.observe(g, 0, 0)
    assert bot.looks == 0 and bot.presses == 0
    t = bot.due_us()
    buttons = []
    while t is not None and len(buttons) < 10:
        press = bot.next_press(t)
        if press is not None:
            buttons.append(press[1])
            if press[1] == B:
                assert g.apply(("play", 0, 2, 0)) is None
                bot.observe(g, t, 2)
        t = bot.due_us()
    assert buttons == [A, A, B]
    assert bot.looks == 2 and bot.presses == 3
