# A readable one-line picture of a game, for golden playthrough transcripts and for
# comparing CPython with MicroPython line for line.

from shared_rules.cards import name


def _stock(g, p):
    out = []
    for i in range(5):
        s = g.stock[p][i]
        if not s:
            out.append("--")
        elif g.face_up(p, i):
            out.append("%s/%d" % (name(s[-1]), len(s) - 1))
        else:
            out.append("##/%d" % (len(s) - 1))
    return " ".join(out)


def describe(g):
    piles = " ".join(["%s(%d)" % (name(p[-1]), len(p)) for p in g.piles]) or "none"
    text = "%s r%d | P0 %s spit%d | P1 %s spit%d | piles %s | score %d-%d" % (
        g.phase, g.round, _stock(g, 0), len(g.hand[0]), _stock(g, 1), len(g.hand[1]),
        piles, g.scores[0], g.scores[1])
    if g.phase == "over":
        text += " | winner %s" % ("draw" if g.winner is None else g.winner)
    return text


def playthrough(seed, rules, chooser_seed, max_steps, out):
    """Play a seeded game, choosing among both players' legal actions with its own
    Rng; call out(line) for the start and after every action."""
    from shared_rules.game import Game
    from shared_rules.rng import Rng
    from shared_rules.replay import format_action
    g = Game(seed, rules)
    pick = Rng(chooser_seed)
    out("start seed=%d %s" % (seed, describe(g)))
    step = 0
    while g.phase != "over" and step < max_steps:
        acts = g.legal_actions(0) + g.legal_actions(1)
        a = acts[pick.below(len(acts))]
        reason = g.apply(a)
        step += 1
        out("%d %s -> %s | %s" % (step, format_action(a), reason or "ok", describe(g)))
    return g
