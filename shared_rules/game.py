# The game of Spit as a state machine (RULES.md R1-R42). Actions are tuples; apply()
# either changes the state and returns None, or refuses with a reason and changes
# nothing (R39). After every applied action the game moves on by itself: stall ->
# "ready" (R22-R23), end of round -> "slap" or the next deal (R24-R34), "over".

from shared_rules.cards import adjacent, is_card
from shared_rules.rng import Rng

READY = "ready"
PLAY = "play"
SLAP = "slap"
OVER = "over"
PHASES = (READY, PLAY, SLAP, OVER)

SNAPSHOT_VERSION = 1

# Refusal reasons (short, for a 128-pixel screen; the app maps them to messages).
BAD_ACTION = "bad action"
BAD_PLAYER = "no such player"
BAD_STOCK = "no such stockpile"
BAD_PILE = "no such pile"
NOT_NOW = "not now"
EMPTY = "stockpile empty"
FACE_DOWN = "face down"
NO_FIT = "doesn't fit"
NOT_EMPTY = "slot not empty"
TOO_FEW = "lone card"
SAME_SLOT = "same stockpile"
ALREADY_SAID = "already said spit"
NO_SPIT_CARDS = "no spit cards"
ALREADY_UP = "already face up"
NO_MANUAL_FLIP = "flip is automatic"

STOCKPILES = 5
MAX_SEED = (1 << 30) - 1     # a game's seed is a small int on the device


class Rules:
    def __init__(self, points=False, manual_flip=False, target=100):
        self.points = bool(points)
        self.manual_flip = bool(manual_flip)
        if not isinstance(target, int) or isinstance(target, bool) or target < 1:
            raise ValueError("target must be a positive int")
        self.target = target

    def to_dict(self):
        return {"points": self.points, "manual_flip": self.manual_flip, "target": self.target}

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict):
            raise ValueError("rules must be a dict")
        for key in d:
            if key not in ("points", "manual_flip", "target"):
                raise ValueError("unknown rule option: %r" % (key,))
        return cls(d.get("points", False), d.get("manual_flip", False), d.get("target", 100))

    def __eq__(self, other):
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return "Rules(points=%r, manual_flip=%r, target=%r)" % (
            self.points, self.manual_flip, self.target)


def _is_index(x, n):
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n


def deal(cards):
    """R5-R8: passes k = 0..4 put one card on stockpiles k..4; the rest is the spit
    stack, last card placed on top. Returns (stockpiles, spit_stack), bottom -> top."""
    stock = [[], [], [], [], []]
    n = len(cards)
    used = 0
    for k in range(STOCKPILES):
        for i in range(k, STOCKPILES):
            if used == n:
                break
            stock[i].append(cards[used])
            used += 1
    return stock, list(cards[used:])


class Game:
    def __init__(self, seed=0, rules=None, deck=None):
        if rules is None:
            rules = Rules()
        if deck is not None:
            _check_deck(deck)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError("seed must be an int")
        self._blank(rules, seed)
        if deck is None:
            deck = self.rng.shuffle(list(range(52)))
        self._deal_both(list(deck[:26]), list(deck[26:]))

    def _blank(self, rules, seed):
        self.rules = rules
        self.seed = seed
        self.rng = Rng(seed)
        # R21: the first tie of a game goes to the player the seed picks.
        self.tie_priority = self.rng.next_bit()
        self.stock = [[[], [], [], [], []], [[], [], [], [], []]]
        self.down = [[False] * STOCKPILES, [False] * STOCKPILES]
        self.hand = [[], []]
        self.piles = []
        self.phase = READY
        self.round = 1
        self.scores = [0, 0]
        self.winner = None
        self.said = [False, False]
        self.ending = None       # while "slap": {"end": "out"|"stalled", "out": p|None}
        self.last_round = None   # what happened at the end of the previous round

    def _deal_both(self, cards0, cards1):
        for p, cards in ((0, cards0), (1, cards1)):
            self.stock[p], self.hand[p] = deal(cards)
            self.down[p] = [False] * STOCKPILES
        self.piles = []
        self.said = [False, False]
        self.phase = READY

    # ---- construction for tests and puzzles -------------------------------------
    @classmethod
    def from_layout(cls, stock, hands, piles, rules=None):
        if rules is None:
            rules = Rules()
        if not isinstance(stock, (list, tuple)) or len(stock) != 2:
            raise ValueError("stock must be two lists of five stockpiles")
        for side in stock:
            if not isinstance(side, (list, tuple)) or len(side) != STOCKPILES:
                raise ValueError("each player has exactly five stockpiles")
        if not isinstance(hands, (list, tuple)) or len(hands) != 2:
            raise ValueError("hands must be two lists")
        if not isinstance(piles, (list, tuple)) or len(piles) > 2:
            raise ValueError("piles must be a list of at most two spit piles")
        groups = [s for side in stock for s in side] + list(hands) + list(piles)
        for group in groups:
            if not isinstance(group, (list, tuple)):
                raise ValueError("every stockpile, hand and pile is a list")
        nonempty = [list(p) for p in piles if p]
        if nonempty and len(nonempty) != len(piles):
            raise ValueError("a spit pile is never empty once started")
        seen = []
        for group in groups:
            for c in group:
                if not is_card(c):
                    raise ValueError("not a card: %r" % (c,))
                seen.append(c)
        if len(set(seen)) != len(seen):
            raise ValueError("a card appears twice")
        g = object.__new__(cls)
        g._blank(rules, 0)
        g.stock = [[list(s) for s in side] for side in stock]
        g.hand = [list(hands[0]), list(hands[1])]
        g.piles = nonempty
        g.phase = PLAY if nonempty else READY
        return g

    # ---- reading the state ------------------------------------------------------
    def face_up(self, p, i):
        return bool(self.stock[p][i]) and not self.down[p][i]

    def stock_count(self, p):
        n = 0
        for s in self.stock[p]:
            n += len(s)
        return n

    def cards_held(self, p):
        return self.stock_count(p) + len(self.hand[p])

    def single_pile(self):
        return len(self.piles) == 1

    # ---- checking actions -------------------------------------------------------
    def why_not(self, action):
        """The reason `action` would be refused now, or None if it is legal."""
        kind = type(action)     # not isinstance(x, (tuple, list)): that builds a tuple
        if (kind is not tuple and kind is not list) or len(action) < 2:
            return BAD_ACTION
        verb = action[0]
        p = action[1]
        n = len(action)
        if not _is_index(p, 2):
            return BAD_PLAYER
        if verb == "play":
            if n != 4:
                return BAD_ACTION
            if self.phase != PLAY:
                return NOT_NOW
            i = action[2]
            j = action[3]
            if not _is_index(i, STOCKPILES):
                return BAD_STOCK
            if not _is_index(j, len(self.piles)):
                return BAD_PILE
            s = self.stock[p][i]
            if not s:
                return EMPTY
            if self.down[p][i]:
                return FACE_DOWN
            if not adjacent(s[-1], self.piles[j][-1]):
                return NO_FIT
            return None
        if verb == "spit":
            if n != 2:
                return BAD_ACTION
            if self.phase != READY:
                return NOT_NOW
            if self.said[p]:
                return ALREADY_SAID
            if not self.piles and not self.hand[0] and not self.hand[1]:
                # Only a partial layout can get here: 52 cards always leave someone
                # more than the 15 that the stockpiles hold.
                return NO_SPIT_CARDS
            return None
        if verb == "fill":
            if n != 4:
                return BAD_ACTION
            if self.phase != PLAY:
                return NOT_NOW
            i = action[2]
            k = action[3]
            if not _is_index(i, STOCKPILES) or not _is_index(k, STOCKPILES):
                return BAD_STOCK
            if i == k:
                return SAME_SLOT
            if self.stock[p][k]:
                return NOT_EMPTY
            s = self.stock[p][i]
            if not s:
                return EMPTY
            if self.down[p][i]:
                return FACE_DOWN
            if len(s) < 2:
                return TOO_FEW    # R15 ruling: moving a lone card changes nothing
            return None
        if verb == "flip":
            if n != 3:
                return BAD_ACTION
            if not self.rules.manual_flip:
                return NO_MANUAL_FLIP
            if self.phase != PLAY:
                return NOT_NOW
            i = action[2]
            if not _is_index(i, STOCKPILES):
                return BAD_STOCK
            if not self.stock[p][i]:
                return EMPTY
            if not self.down[p][i]:
                return ALREADY_UP
            return None
        if verb == "slap":
            if n != 3:
                return BAD_ACTION
            if self.phase != SLAP:
                return NOT_NOW
            if not _is_index(action[2], len(self.piles)):
                return BAD_PILE
            return None
        return BAD_ACTION

    def legal_actions(self, p):
        out = []
        if not _is_index(p, 2):
            return out
        phase = self.phase
        if phase == PLAY:
            stock = self.stock[p]
            down = self.down[p]
            piles = self.piles
            empty = []
            for k in range(STOCKPILES):
                if not stock[k]:
                    empty.append(k)
            for i in range(STOCKPILES):
                s = stock[i]
                if not s:
                    continue
                if down[i]:
                    out.append(("flip", p, i))
                    continue
                top = s[-1]
                for j in range(len(piles)):
                    if adjacent(top, piles[j][-1]):
                        out.append(("play", p, i, j))
                if len(s) > 1:
                    for k in empty:
                        out.append(("fill", p, i, k))
        elif phase == READY:
            if self.why_not(("spit", p)) is None:
                out.append(("spit", p))
        elif phase == SLAP:
            for j in range(len(self.piles)):
                out.append(("slap", p, j))
        return out

    # ---- applying actions -------------------------------------------------------
    def apply(self, action):
        reason = self.why_not(action)
        if reason is not None:
            return reason
        verb = action[0]
        p = action[1]
        if verb == "play":
            i = action[2]
            s = self.stock[p][i]
            self.piles[action[3]].append(s.pop())
            if s:
                if self.rules.manual_flip:
                    self.down[p][i] = True       # R14: turning it up is an action
            elif self._out_of_stock(p):
                self._round_over("out", p)       # R24 (a)
                return None
            if not self.can_progress():
                self._stalled()
        elif verb == "spit":
            self.said[p] = True
            if self.said[1 - p]:
                self._spit()
        elif verb == "fill":
            i = action[2]
            self.stock[p][action[3]].append(self.stock[p][i].pop())
            if self.rules.manual_flip:
                self.down[p][i] = True           # R14; a fill leaves two or more behind
            if not self.can_progress():
                self._stalled()
        elif verb == "flip":
            self.down[p][action[2]] = False
            if not self.can_progress():
                self._stalled()
        else:
            self._slap(p, action[2])
        return None

    def _out_of_stock(self, p):
        stock = self.stock[p]
        for i in range(STOCKPILES):       # index loops: no iterator to allocate on the device
            if stock[i]:
                return False
        return True

    def can_progress(self):
        """R22: is any play, revealing fill (R15) or flip (R14) possible for anyone?"""
        piles = self.piles
        np = len(piles)
        t0 = piles[0][-1] >> 2 if np else -99
        t1 = piles[1][-1] >> 2 if np > 1 else -99
        for p in range(2):
            stock = self.stock[p]
            down = self.down[p]
            has_empty = False
            has_two = False
            for i in range(STOCKPILES):
                s = stock[i]
                if not s:
                    has_empty = True
                    continue
                if down[i]:
                    return True
                r = s[-1] >> 2
                d = r - t0
                if d == 1 or d == -1 or d == 12 or d == -12:
                    return True
                d = r - t1
                if d == 1 or d == -1 or d == 12 or d == -12:
                    return True
                if len(s) > 1:
                    has_two = True
            if has_empty and has_two:
                return True
        return False

    def _stalled(self):
        if self.hand[0] or self.hand[1]:
            self.phase = READY           # R23: both say "Spit!" again
            self.said = [False, False]
        else:
            self._round_over("stalled", None)   # R24 (b)

    def _spit(self):
        # R9-R10 at the start of a round, R23 in a stall.
        self.said = [False, False]
        hand = self.hand
        if not self.piles:
            if hand[0] and hand[1]:
                self.piles = [[hand[0].pop()], [hand[1].pop()]]
            else:
                self.piles = [[hand[0].pop() if hand[0] else hand[1].pop()]]
        elif len(self.piles) == 2:
            for p in (0, 1):
                if hand[p]:
                    self.piles[p].append(hand[p].pop())
        else:
            for p in (0, 1):
                if hand[p]:
                    self.piles[0].append(hand[p].pop())
        self.phase = PLAY
        if not self.can_progress():
            self._stalled()

    def _round_over(self, end, out):
        if self._points_finish():
            # R42: this round's scores reach the target, so the game ends now (R37):
            # no slap, the spit piles no longer matter. Each player keeps the pile
            # they would have taken had nobody slapped (R26 ruling: the pile they
            # started; one pile: the R21 priority player counts as out first), so all
            # 52 cards stay accounted for (R29).
            if len(self.piles) == 2:
                self._collect(end, out, None, None)
            else:
                first = out if out is not None else self.tie_priority
                self._collect(end, out, None, first)
            return
        if len(self.piles) == 2:
            self.phase = SLAP            # R25
            self.ending = {"end": end, "out": out}
            return
        if out is None:
            # R33: a stalled single-pile round; fewer stockpile cards counts as out first.
            n0 = self.stock_count(0)
            n1 = self.stock_count(1)
            if n0 == n1:
                self.phase = SLAP
                self.ending = {"end": end, "out": None}
                return
            out = 0 if n0 < n1 else 1
        self._collect(end, out, None, out)

    def _points_finish(self):
        """R42: would the points this round scores bring a player to the target?"""
        if not self.rules.points:
            return False
        t = self.rules.target
        return (self.scores[0] + self.cards_held(0) >= t or
                self.scores[1] + self.cards_held(1) >= t)

    def _slap(self, p, j):
        # R26: the first slap decides everything.
        end = self.ending["end"]
        out = self.ending["out"]
        self.ending = None
        if len(self.piles) == 2:
            self._collect(end, out, (p, j), None)
        else:
            self._collect(end, p, (p, j), p)    # R33: first to slap counts as out first

    def _collect(self, end, out, slap, keeps_nothing_from_centre):
        """End the round: score (R36), hand out the centre (R25-R26, R30, R33), then
        finish the game (R31, R34, R37) or deal again (R27, R38)."""
        left = [self.cards_held(0), self.cards_held(1)]
        taken = [[], []]
        if slap is not None and len(self.piles) == 2:
            p, j = slap
            taken[p] = self.piles[j]
            taken[1 - p] = self.piles[1 - j]
        elif len(self.piles) == 2:
            taken[0] = self.piles[0]          # R42: no slap; each keeps the pile they started
            taken[1] = self.piles[1]
        else:
            taken[1 - keeps_nothing_from_centre] = self.piles[0]
        cards = [[], []]
        for p in (0, 1):
            cards[p] = taken[p] + self.hand[p]
            for s in self.stock[p]:
                cards[p] += s
        points = [0, 0]
        if self.rules.points:
            points = left
            self.scores[0] += left[0]
            self.scores[1] += left[1]
        self.last_round = {
            "round": self.round, "end": end, "out": out,
            "slap": list(slap) if slap is not None else None,
            "took": [len(taken[0]), len(taken[1])], "left": left, "points": points,
            "cards": [len(cards[0]), len(cards[1])], "redeal": False,
        }
        self.stock = [[[], [], [], [], []], [[], [], [], [], []]]
        self.down = [[False] * STOCKPILES, [False] * STOCKPILES]
        self.piles = []
        self.said = [False, False]
        if self.rules.points:
            if self.scores[0] >= self.rules.target or self.scores[1] >= self.rules.target:
                # R37: lower score wins; equal is a draw.
                s0, s1 = self.scores
                self.winner = None if s0 == s1 else (0 if s0 < s1 else 1)
                self._finish(cards)
                return
            if not cards[0] or not cards[1]:
                # R38: nobody wins by running out; deal the whole deck afresh.
                deck = cards[0] + cards[1]
                deck.sort()
                self.rng.shuffle(deck)
                half = len(deck) // 2
                cards = [deck[:half], deck[half:]]
                self.last_round["redeal"] = True
        else:
            for p in (0, 1):
                if not cards[p]:        # R31, R34: holding no cards wins
                    self.winner = p
                    self._finish(cards)
                    return
        self.rng.shuffle(cards[0])
        self.rng.shuffle(cards[1])
        self.round += 1
        self._deal_both(cards[0], cards[1])    # R27-R28

    def _finish(self, cards):
        # Game over: each player's cards are kept face down, so all 52 stay accounted (R29).
        self.hand = cards
        self.phase = OVER

    def digest(self):
        """A 24-bit digest of the whole state: a recording keeps one at every round's
        end, so a replay that reaches another state says so (R40). Small ints only:
        the device computes it without allocating."""
        h = 0x5A17
        h = (h * 31 + PHASES.index(self.phase)) & 0xFFFFFF
        h = (h * 31 + self.round) & 0xFFFFFF
        h = (h * 31 + (self.winner if self.winner is not None else 2)) & 0xFFFFFF
        h = (h * 31 + self.tie_priority) & 0xFFFFFF
        h = (h * 31 + (1 if self.said[0] else 0) + (2 if self.said[1] else 0)) & 0xFFFFFF
        en = self.ending
        if en is not None:
            h = (h * 31 + (4 if en["end"] == "out" else 5) + 8 * (
                en["out"] + 1 if en["out"] is not None else 0)) & 0xFFFFFF
        h = (h * 31 + self.rng._hi) & 0xFFFFFF
        h = (h * 31 + self.rng._lo) & 0xFFFFFF
        for p in (0, 1):
            h = (h * 31 + (self.scores[p] & 0xFFFF)) & 0xFFFFFF
            for i in range(STOCKPILES):
                s = self.stock[p][i]
                h = (h * 31 + 64 + len(s) + (128 if self.down[p][i] else 0)) & 0xFFFFFF
                for c in s:
                    h = (h * 31 + c) & 0xFFFFFF
            h = (h * 31 + 200 + len(self.hand[p])) & 0xFFFFFF
            for c in self.hand[p]:
                h = (h * 31 + c) & 0xFFFFFF
        for pile in self.piles:
            h = (h * 31 + 300 + len(pile)) & 0xFFFFFF
            for c in pile:
                h = (h * 31 + c) & 0xFFFFFF
        return h

    # ---- copies and snapshots ---------------------------------------------------
    def copy(self):
        g = object.__new__(Game)
        g._blank(self.rules, self.seed)
        g.rng.state = self.rng.state
        g.tie_priority = self.tie_priority
        g.stock = [[list(s) for s in side] for side in self.stock]
        g.down = [list(self.down[0]), list(self.down[1])]
        g.hand = [list(self.hand[0]), list(self.hand[1])]
        g.piles = [list(p) for p in self.piles]
        g.phase = self.phase
        g.round = self.round
        g.scores = list(self.scores)
        g.winner = self.winner
        g.said = list(self.said)
        g.ending = dict(self.ending) if self.ending else None
        g.last_round = _copy_json(self.last_round)
        return g

    def snapshot(self):
        return {
            "v": SNAPSHOT_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "rng": self.rng.state,
            "tie": self.tie_priority,
            "phase": self.phase,
            "round": self.round,
            "scores": list(self.scores),
            "winner": self.winner,
            "stock": [[list(s) for s in side] for side in self.stock],
            "down": [list(self.down[0]), list(self.down[1])],
            "hand": [list(self.hand[0]), list(self.hand[1])],
            "piles": [list(p) for p in self.piles],
            "said": list(self.said),
            "ending": _copy_json(self.ending),
            "last_round": _copy_json(self.last_round),
        }

    @classmethod
    def restore(cls, d):
        """Rebuild a game from snapshot(); ValueError (and nothing built) if corrupt."""
        _check_snapshot(d)
        g = object.__new__(cls)
        g._blank(Rules.from_dict(d["rules"]), d["seed"])
        g.rng.state = d["rng"]
        g.tie_priority = d["tie"]
        g.phase = d["phase"]
        g.round = d["round"]
        g.scores = list(d["scores"])
        g.winner = d["winner"]
        g.stock = [[list(s) for s in side] for side in d["stock"]]
        g.down = [[bool(x) for x in side] for side in d["down"]]
        g.hand = [list(d["hand"][0]), list(d["hand"][1])]
        g.piles = [list(p) for p in d["piles"]]
        g.said = [bool(d["said"][0]), bool(d["said"][1])]
        g.ending = _copy_json(d["ending"])
        g.last_round = _copy_json(d["last_round"])
        return g


def _copy_json(x):
    if isinstance(x, dict):
        return {k: _copy_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_copy_json(v) for v in x]
    return x


def _check_deck(deck):
    if not isinstance(deck, (list, tuple)) or len(deck) != 52:
        raise ValueError("deck must be a list of the 52 cards")
    for c in deck:
        if not is_card(c):
            raise ValueError("deck has a non-card: %r" % (c,))
    if len(set(deck)) != 52:
        raise ValueError("deck has a card twice")


def _need(cond, what):
    if not cond:
        raise ValueError("corrupt snapshot: " + what)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _check_snapshot(d):
    _need(isinstance(d, dict), "not a dict")
    _need(d.get("v") == SNAPSHOT_VERSION,
          "version %r, this program reads version %d" % (d.get("v"), SNAPSHOT_VERSION))
    keys = ("rules", "seed", "rng", "tie", "phase", "round", "scores", "winner", "stock",
            "down", "hand", "piles", "said", "ending", "last_round")
    for k in keys:
        _need(k in d, "missing " + k)
    try:
        Rules.from_dict(d["rules"])
    except (ValueError, TypeError) as e:
        raise ValueError("corrupt snapshot: rules: %s" % e)
    _need(_is_int(d["seed"]), "seed")
    _need(_is_int(d["rng"]) and 0 < d["rng"] <= 0xFFFFFFFF, "rng state")
    _need(d["tie"] in (0, 1) and _is_int(d["tie"]), "tie priority")
    _need(d["phase"] in PHASES, "phase")
    _need(_is_int(d["round"]) and d["round"] >= 1, "round")
    sc = d["scores"]
    _need(isinstance(sc, list) and len(sc) == 2 and _is_int(sc[0]) and _is_int(sc[1]), "scores")
    _need(d["winner"] is None or (d["winner"] in (0, 1) and _is_int(d["winner"])), "winner")
    st = d["stock"]
    _need(isinstance(st, list) and len(st) == 2, "stock")
    for side in st:
        _need(isinstance(side, list) and len(side) == STOCKPILES, "stock")
    dn = d["down"]
    _need(isinstance(dn, list) and len(dn) == 2, "down")
    for side in dn:
        _need(isinstance(side, list) and len(side) == STOCKPILES, "down")
        for x in side:
            _need(isinstance(x, bool), "down")
    hd = d["hand"]
    _need(isinstance(hd, list) and len(hd) == 2, "hand")
    pl = d["piles"]
    _need(isinstance(pl, list) and len(pl) <= 2, "piles")
    seen = []
    for group in st[0] + st[1] + hd + pl:
        _need(isinstance(group, list), "card lists")
        for c in group:
            _need(is_card(c), "not a card: %r" % (c,))
            seen.append(c)
    for p in pl:
        _need(len(p) > 0, "empty spit pile")
    _need(len(set(seen)) == len(seen), "a card appears twice")
    sd = d["said"]
    _need(isinstance(sd, list) and len(sd) == 2 and isinstance(sd[0], bool) and
          isinstance(sd[1], bool), "said")
    en = d["ending"]
    _need(en is None or (isinstance(en, dict) and en.get("end") in ("out", "stalled") and
                         (en.get("out") is None or
                          (en.get("out") in (0, 1) and _is_int(en.get("out"))))), "ending")
    _need(d["phase"] != SLAP or (d["ending"] is not None and len(pl) > 0), "slap without an ending")
    _need(d["last_round"] is None or isinstance(d["last_round"], dict), "last_round")
