#!/usr/bin/env python3
"""Does a changed game still keep all 52 cards and refuse illegal plays?

    python tools/check_variant.py                          # the core (shared_rules/game.py)
    python tools/check_variant.py --variant my_variant.py  # a variant file (class Variant)
    python tools/check_variant.py --games 500 --seed 7     # more games, other seeds
    python tools/check_variant.py --house house.txt        # under a house-rules file
    make check-variant [VARIANT=my_variant.py] [HOUSE=house.txt] [GAMES=200]

For pupils changing the game (docs/teachers/CHANGING_THE_GAME.md). It plays many
seeded games -- the standard game, the points game and manual flip in turn, or the
rules a house-rules file sets (firmware/house.py) -- choosing
each action with the rules core's own PRNG: mostly a legal one, often an illegal or
nonsense one (a card that does not fit, an empty or face-down stockpile, a pile that
is not there, the wrong moment, junk). After every action it checks, with rules
written here apart from the game's own code:

  * all 52 cards are still in the game, each exactly once (R29);
  * an illegal action was refused (R39), and a legal one accepted;
  * a refused action changed nothing (R39);
  * legal_actions() lists exactly the legal actions (the CPU player plans with it);
  * the game is never stuck: in play somebody can move, and a stall is called only
    when nobody can (R22);
  * every game ends (within --max-actions).

"Legal" is the rules of RULES.md with one part the variant may change: which card
fits on which pile (R3). A variant that defines `fits(card, top)` (tools/variants/
hook.py) is checked against its own fit; any other game against R3's. A variant file
defines `class Variant`, a subclass of shared_rules.game.Game, made as
Variant(seed, rules).

Prints a verdict line, PASS (exit 0) or FAIL with the first problem, the game's seed
and the action that showed it (exit 1). A file that cannot be used: one line, exit 2.
"""

import argparse
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from shared_rules.cards import adjacent, name  # noqa: E402
from shared_rules.game import Game, Rules, PLAY, READY, SLAP, OVER, STOCKPILES  # noqa: E402
from shared_rules.rng import Rng  # noqa: E402

VERBS = ("play", "spit", "fill", "flip", "slap")
# The rule sets the games take in turn: the game of seed s plays RULE_SETS[s % 3].
RULE_SETS = (("standard", Rules()), ("points", Rules(points=True)),
             ("manual flip", Rules(manual_flip=True)))


class VariantError(Exception):
    """A variant file that cannot be checked: its one-line reason."""


class Problem(Exception):
    """What a check found: .what (one line) and .hint (what to look at)."""

    def __init__(self, what, hint):
        Exception.__init__(self, what)
        self.what = what
        self.hint = hint


def load_variant(path):
    """The Game class a variant file defines (class Variant), or VariantError."""
    if not os.path.isfile(path):
        raise VariantError("%s: no such file" % path)
    if not path.endswith(".py"):
        raise VariantError("%s: a variant is a Python file (.py)" % path)
    spec = importlib.util.spec_from_file_location("pupil_variant", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise VariantError("%s: line %s: syntax error: %s" % (path, e.lineno, e.msg))
    except Exception as e:     # a pupil's file: any error is theirs, said in one line
        raise VariantError("%s: cannot be loaded: %s: %s" % (path, type(e).__name__, e))
    cls = getattr(module, "Variant", None)
    if cls is None:
        raise VariantError("%s: defines no class Variant (see tools/variants/same_rank.py)"
                           % path)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise VariantError("%s: Variant must be a class made from shared_rules.game.Game"
                           % path)
    return cls


# ---- the rules, written apart from the game's own code ---------------------------------

def _index(x, n):
    return type(x) is int and 0 <= x < n


def is_legal(g, action, fits):
    """Should the game accept `action` now? Written from RULES.md (R9-R26, R39), not
    from shared_rules/game.py, so the two can disagree when the game is changed."""
    if type(action) not in (tuple, list) or len(action) < 2 or action[0] not in VERBS:
        return False
    verb, p = action[0], action[1]
    if not _index(p, 2):
        return False
    stock, down = g.stock[p], g.down[p]
    if verb == "play":                      # R11-R12: a face-up top card that fits
        return (len(action) == 4 and g.phase == PLAY and _index(action[2], STOCKPILES)
                and _index(action[3], len(g.piles)) and bool(stock[action[2]])
                and not down[action[2]]
                and fits(stock[action[2]][-1], g.piles[action[3]][-1]))
    if verb == "spit":                      # R9, R23: once each, with cards to turn
        return (len(action) == 2 and g.phase == READY and not g.said[p]
                and bool(g.piles or g.hand[0] or g.hand[1]))
    if verb == "fill":                      # R15: a top card to an empty slot, revealing
        if len(action) != 4 or g.phase != PLAY:
            return False
        i, k = action[2], action[3]
        return (_index(i, STOCKPILES) and _index(k, STOCKPILES) and i != k
                and not stock[k] and len(stock[i]) >= 2 and not down[i])
    if verb == "flip":                      # R14: manual flip only
        return (len(action) == 3 and g.rules.manual_flip and g.phase == PLAY
                and _index(action[2], STOCKPILES) and bool(stock[action[2]])
                and down[action[2]])
    return len(action) == 3 and g.phase == SLAP and _index(action[2], len(g.piles))


def legal_set(g, p, fits):
    """Every legal action of player p, from is_legal over every well-formed action."""
    out = set()
    for a in candidates(g, p):
        if is_legal(g, a, fits):
            out.add(a)
    return out


def candidates(g, p):
    yield ("spit", p)
    for i in range(STOCKPILES):
        yield ("flip", p, i)
        for j in range(len(g.piles)):
            yield ("play", p, i, j)
        for k in range(STOCKPILES):
            yield ("fill", p, i, k)
    for j in range(len(g.piles)):
        yield ("slap", p, j)


def somebody_can_move(g, fits):
    """R22 read from the cards alone, whatever the phase: could anybody play, make a
    revealing fill (R15) or turn a card up (R14)?"""
    for p in (0, 1):
        stock = g.stock[p]
        empty = False
        two = False
        for i in range(STOCKPILES):
            s = stock[i]
            if not s:
                empty = True
                continue
            if g.down[p][i]:
                return True
            for pile in g.piles:
                if fits(s[-1], pile[-1]):
                    return True
            two = two or len(s) >= 2
        if empty and two:
            return True
    return False


def all_cards(g):
    cards = []
    for side in g.stock:
        for s in side:
            cards.extend(s)
    for h in g.hand:
        cards.extend(h)
    for pile in g.piles:
        cards.extend(pile)
    return cards


def junk(rng, g):
    """An action that is usually illegal: a random verb with random (often wrong)
    numbers, or something that is no action at all."""
    k = rng.below(10)
    if k == 0:
        return [("jump", 0), ("play",), (), ("play", 2, 0, 0), ("play", True, 0, 0),
                ("fill", 0, 1, 1), ("slap", 1, 9), "play", None][rng.below(9)]
    verb = VERBS[rng.below(len(VERBS))]
    p = rng.below(2)
    n = {"play": 2, "fill": 2, "flip": 1, "slap": 1, "spit": 0}[verb]
    return (verb, p) + tuple(rng.below(7) - 1 for _ in range(n))


def describe(g, action):
    """The action in words, with the cards it touches."""
    try:
        if action[0] == "play" and g.stock[action[1]][action[2]] and action[3] < len(g.piles):
            return "%r: %s onto %s" % (action, name(g.stock[action[1]][action[2]][-1]),
                                       name(g.piles[action[3]][-1]))
    except (TypeError, IndexError, KeyError):
        pass
    return repr(action)


# ---- one game ---------------------------------------------------------------------------

def check_game(cls, seed, rules, counts, max_actions):
    """Play one seeded game, checking after every action. Raises Problem."""
    try:
        g = cls(seed, rules)
    except Exception as e:
        raise Problem("Variant(%d, rules) failed: %s: %s" % (seed, type(e).__name__, e),
                      "the variant must be made as Variant(seed, rules)")
    # The variant's own fit rule (tools/variants/hook.py), or R3's.
    fits = g.fits if hasattr(g, "fits") else adjacent
    rng = Rng(seed * 7919 + 1)
    for n in range(1, max_actions + 1):
        if g.phase == OVER:
            counts["finished"] += 1
            counts["longest"] = max(counts["longest"], n - 1)
            return
        if sorted(all_cards(g)) != list(range(52)):
            raise Problem("action %d: the game holds %d cards, not the 52, each once"
                          % (n - 1, len(all_cards(g))),
                          "a card was lost, copied or left behind (R29)")
        legal = [legal_set(g, 0, fits), legal_set(g, 1, fits)]
        for p in (0, 1):
            try:
                listed = set(tuple(a) for a in g.legal_actions(p))
            except Exception as e:
                raise Problem("legal_actions(%d) failed: %s: %s" % (p, type(e).__name__, e),
                              "legal_actions must answer in every phase")
            if listed != legal[p]:
                extra = sorted(listed - legal[p])
                missing = sorted(legal[p] - listed)
                raise Problem("action %d: legal_actions(%d) lists %s%s" % (
                    n, p, "illegal %s" % describe(g, extra[0]) if extra else "",
                    "; misses legal %s" % describe(g, missing[0]) if missing else ""),
                    "legal_actions must use the same rules as why_not (the CPU player "
                    "plans with it)")
        if g.phase == PLAY and not somebody_can_move(g, fits):
            raise Problem("action %d: the game waits in play but nobody can move" % n,
                          "a stall must be called when nobody can move (R22): "
                          "can_progress must use the same fit as why_not")
        if g.phase == READY and g.piles and somebody_can_move(g, fits):
            raise Problem("action %d: a stall was called but somebody can still move" % n,
                          "can_progress must use the same fit as why_not (R22)")
        everything = sorted(legal[0] | legal[1])
        if everything and rng.below(4) != 0:
            action = everything[rng.below(len(everything))]
        else:
            action = junk(rng, g)
        should = is_legal(g, action, fits)
        before = g.snapshot()
        held = describe(g, action)
        try:
            reason = g.apply(action)
        except Exception as e:
            raise Problem("action %d: %s raised %s: %s (in %s)" % (
                n, held, type(e).__name__, e, _where(e)),
                          "bad input must be refused with a reason, never raise (R39)")
        counts["actions"] += 1
        if reason is None:
            if not should:
                raise Problem("action %d: accepted the illegal %s" % (n, held),
                              "why_not must refuse it (R39)")
            counts["legal"] += 1
        else:
            if should:
                raise Problem("action %d: refused the legal %s (%s)" % (n, held, reason),
                              "why_not refuses what the rules allow")
            if g.snapshot() != before:
                raise Problem("action %d: the refused %s changed the game" % (n, held),
                              "a refused action must change nothing (R39)")
            counts["refused"] += 1
    raise Problem("the game did not end within %d actions" % max_actions,
                  "a game must end (R24, R31): is a round's end or a win still reached?")


def house_rules(path):
    """The cards' rules a house-rules file sets, as check_game plays them; or
    VariantError with the file's own one-line reason."""
    from firmware import house
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise VariantError("%s: cannot be read (%s)" % (path, e.strerror or e))
    try:
        got = house.parse(data.decode("utf-8"))
    except UnicodeError:
        raise VariantError("%s: is not a text file" % path)
    except house.HouseRulesError as e:
        raise VariantError("%s: %s" % (path, str(e).split(": ", 1)[1]))
    return Rules(points=bool(got.get("points", 0)), manual_flip=bool(got.get("flip", 0)),
                 target=got.get("target", 100))


def _where(e):
    """The innermost frame of a traceback: file name and line, for one line of text."""
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return "%s line %d" % (os.path.basename(tb.tb_frame.f_code.co_filename), tb.tb_lineno)


def rules_words(rules):
    words = ("points game to %d" % rules.target) if rules.points else "standard game"
    return words + (", manual flip" if rules.manual_flip else "")


def run(cls, games, seed, max_actions, out, rules=None):
    """rules: every game under these (a house file's); None: RULE_SETS in turn."""
    counts = {"actions": 0, "legal": 0, "refused": 0, "finished": 0, "longest": 0}
    for k in range(games):
        s = seed + k
        # By the seed, so that `--seed S --games 1` plays exactly the game that failed.
        label, game_rules = RULE_SETS[s % len(RULE_SETS)]
        if rules is not None:
            label, game_rules = "house", rules
        try:
            try:
                check_game(cls, s, game_rules, counts, max_actions)
            except Problem:
                raise
            except Exception as e:     # the variant's code failed outside apply()
                raise Problem("the variant raised %s: %s (in %s)" % (
                    type(e).__name__, e, _where(e)),
                    "fix that line; the checker calls fits(), legal_actions(), "
                    "snapshot() and the phase like the game does")
        except Problem as e:
            out("FAIL: game %d (seed %d, %s rules): %s" % (k + 1, s, label, e.what))
            out("      look at: %s" % e.hint)
            out("      again:   python tools/check_variant.py%s --seed %d --games 1"
                % (VARIANT_ARG[0], s))
            return 1, counts
    out("  %d games (seeds %d-%d; %s), %d actions:" % (
        games, seed, seed + games - 1, "standard, points, manual flip in turn"
        if rules is None else "the house rules: " + rules_words(rules), counts["actions"]))
    out("  yes  all 52 cards, each once, after every action")
    out("  yes  every illegal action refused (%d tried)" % counts["refused"])
    out("  yes  every legal action accepted (%d)" % counts["legal"])
    out("  yes  a refused action changed nothing")
    out("  yes  legal_actions() lists exactly the legal actions")
    out("  yes  never stuck, and no stall called while someone could move (R22)")
    out("  yes  every game ended (the longest after %d actions)" % counts["longest"])
    out("PASS: it keeps all 52 cards and refuses illegal plays.")
    return 0, counts


VARIANT_ARG = [""]


def main(argv=None, out=print):
    ap = argparse.ArgumentParser(description="Check that a changed game keeps all 52 "
                                 "cards and refuses illegal plays.")
    ap.add_argument("--variant", help="a Python file defining class Variant "
                    "(default: the core, shared_rules/game.py)")
    ap.add_argument("--house", help="play every game under the rules of this house-rules "
                    "file (firmware/house.py)")
    ap.add_argument("--games", type=int, default=60, help="games to play (default 60)")
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--max-actions", type=int, default=20000,
                    help="a game longer than this fails (default 20000)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.max_actions < 1 or not 0 <= args.seed <= 10 ** 9:
        print("check_variant: error: --games and --max-actions must be at least 1, "
              "--seed 0 to 10**9", file=sys.stderr)
        return 2
    rules = None
    try:
        if args.house:
            rules = house_rules(args.house)
        if args.variant:
            cls = load_variant(args.variant)
    except VariantError as e:
        print("check_variant: error: %s" % e, file=sys.stderr)
        return 2
    VARIANT_ARG[0] = "".join(" --%s %s" % (k, v) for k, v in
                             (("variant", args.variant), ("house", args.house)) if v)
    if args.variant:
        out("check_variant: %s (class Variant%s)" % (
            args.variant, ", its own fits()" if hasattr(cls, "fits") else ""))
    else:
        cls = Game
        out("check_variant: the core game (shared_rules/game.py)")
    code, _ = run(cls, args.games, args.seed, args.max_actions, out, rules)
    return code


if __name__ == "__main__":
    sys.exit(main())
