# First touch (R18-R21): actions are applied in the order their buttons closed, never
# in the order the software noticed them. Touch times are MicroPython ticks in µs,
# which wrap at 2**30, so every comparison goes through ticks_diff.

from shared_rules.cards import adjacent

from shared_rules.compat import const

TICKS_PERIOD = 1 << 30
# Every intermediate below stays within +-2**30, a small int on a 32-bit port: a sum
# like a - b + 2**29, or the constant 2**30 itself, would be a heap-allocated long int
# on the rp2 port, in functions the loop calls many times a frame.
_TICKS_MASK = const(0x3FFFFFFF)
_TICKS_HALF = const(0x20000000)

BEATEN = "beaten"


def ticks_diff(a, b):
    """a - b on the wrapping tick counter, in [-2**29, 2**29), as time.ticks_diff."""
    d = (a - b) & _TICKS_MASK
    if d >= _TICKS_HALF:
        d = d - _TICKS_MASK - 1
    return d


def ticks_add(t, delta):
    """t + delta wrapped to a tick, as time.ticks_add; |delta| < 2**29."""
    if delta >= 0:
        x = t - (_TICKS_MASK - delta) - 1      # t + delta - 2**30
        return x if x >= 0 else x + _TICKS_MASK + 1
    x = t + delta
    return x + _TICKS_MASK + 1 if x < 0 else x


class Arbiter:
    """Queues touched actions and applies them in touch order once they are at least
    `window_us` old, so a touch that arrives a little late still counts first.

    An action refused because an opponent's action got there first has lost the race
    (R20): its reason is "beaten". `race_us` is how close that opponent's touch must
    be for a refusal to count as a race rather than a plain mistake: closer than a
    person can react to what the opponent did.
    """

    def __init__(self, game, window_us=2000, race_us=250000):
        self.game = game
        self.window_us = window_us
        self.race_us = race_us
        self._queue = []         # [t_us, seq, action, legal_when_pressed]
        self._seq = 0
        self.races = 0           # actions that lost a race
        self.ties = 0            # conflicting actions touched at the same instant
        self.beaten_by_us = [0, 0]
        # Per player: touch time and round of their last applied action, and of their
        # last play per pile with the card it covered (to tell a lost race, R20).
        self._applied_t = [None, None]
        self._covered = [None, None]     # per pile: [t, player, covered card, round]

    def pending(self):
        return len(self._queue)

    def press(self, action, t_us, bound_us=0):
        """Queue an action touched at t_us. bound_us: how far the stamp may be from the
        true touch (R43: a linked peer's stamp converted to this clock); presses of the
        two players whose stamps are no further apart than either's bound are a tie."""
        self._queue.append([t_us, self._seq, action, self.game.why_not(action) is None,
                            bound_us])
        self._seq += 1

    def reach_us(self, player):
        """How long before a press of `player` an earlier queued press may have been
        touched and still be at its instant (R43: within a bound): the owner settles
        no nearer than this before queuing the press, or a tie would be split."""
        reach = 0
        for e in self._queue:
            if e[4] > reach:
                reach = e[4]
        return reach

    def settle(self, now_us):
        """Apply every queued action touched at least window_us before now_us, in touch
        order; return [(action, t_us, reason)], reason None when applied. An instant
        (equal stamps, or stamps within a bound, R43) is settled whole or not at all:
        while one of its presses is younger than the window it waits, and so does
        everything touched after it."""
        q = self._queue
        w = self.window_us
        for e in q:
            if ticks_diff(now_us, e[0]) >= w:
                break
        else:
            return []
        q.sort(key=lambda e: (ticks_diff(e[0], now_us), e[1]))
        results = []
        n = len(q)
        i = 0
        while i < n:
            k = i + 1
            while k < n and _same_instant(q[k - 1], q[k]):
                k += 1
            if ticks_diff(now_us, q[k - 1][0]) < w:
                break           # sorted: the instant's last press is its youngest
            group = q[i:k]
            if k - i > 1 and _both_players(group):
                self._settle_tie(group, results)
            else:
                for e in group:
                    self._apply(e, results)
            i = k
        self._queue = q[i:]
        return results

    def _apply(self, e, results, tie_loser=False):
        t = e[0]
        action = e[2]
        was_legal = e[3]
        game = self.game
        legal = game.why_not(action) is None
        covered = None
        if legal and action[0] == "play":
            covered = game.piles[action[3]][-1]
        rnd = game.round
        reason = game.apply(action)
        p = _player(action)
        if reason is None:
            self._applied_t[p] = [t, rnd]
            if covered is not None:
                self._covered[action[3]] = [t, p, covered, rnd]
        elif p >= 0:
            margin = 0 if tie_loser else self._lost_race(action, t, was_legal)
            if margin >= 0:
                reason = BEATEN
                self.races += 1
                self.beaten_by_us[p] = margin
        results.append((action, t, reason))

    def _lost_race(self, action, t, was_legal):
        """By how many µs a refused action lost a race to the opponent (R20), or -1 if
        it was not a race: either it was legal when pressed and the opponent acted less
        than race_us before it, or it is a play whose card fitted a card the opponent
        covered less than race_us before it (on any pile: the pad aims by what fits when
        the press is read, so after losing the race it may aim elsewhere)."""
        p = action[1]
        opp = self._applied_t[1 - p]
        if opp is None:
            return -1
        d = ticks_diff(t, opp[0])
        if not 0 <= d < self.race_us:
            return -1
        if was_legal:
            return d
        if (action[0] != "play" or len(action) != 4 or not _index(action[2], 5)
                or not _index(action[3], len(self.game.piles))):
            return -1       # junk (no such stockpile or pile) never raced anyone
        s = self.game.stock[p][action[2]]
        if not s:
            return -1
        best = -1
        rnd = self.game.round
        for j in range(2):
            rec = self._covered[j]
            if rec is not None and rec[1] != p and rec[3] == rnd and adjacent(s[-1], rec[2]):
                d = ticks_diff(t, rec[0])
                if 0 <= d < self.race_us and (best < 0 or d < best):
                    best = d
        return best

    def _settle_tie(self, group, results):
        # R21: actions touched at the same instant. If some order lets them all apply,
        # they did not conflict. Otherwise the priority player's go first, and the other
        # player, having lost this tie, gets priority for the next one.
        game = self.game
        first = game.tie_priority
        mine = [e for e in group if _player(e[2]) == first]
        others = [e for e in group if _player(e[2]) != first]
        ordered = mine + others
        reverse = others + mine
        for order in (ordered, reverse):
            if _all_apply(game, order):
                for e in order:
                    self._apply(e, results)
                return
        self.ties += 1
        legal_now = [game.why_not(e[2]) is None for e in ordered]
        for e, was in zip(ordered, legal_now):
            loser = _player(e[2]) == 1 - first and was
            self._apply(e, results, tie_loser=loser)
        game.tie_priority = 1 - first


def _same_instant(a, b):
    """Queue entries a, b (b touched no earlier) at one instant: equal stamps (R21), or
    within the bound of a stamp converted from a linked peer's clock (R43)."""
    d = ticks_diff(b[0], a[0])          # >= 0: the queue is sorted by stamp
    return d <= a[4] or d <= b[4]


def _index(x, n):
    return type(x) is int and 0 <= x < n


def _player(action):
    """The player an action names, or -1 for junk (which the game refuses anyway)."""
    kind = type(action)
    if (kind is tuple or kind is list) and len(action) > 1 and _index(action[1], 2):
        return action[1]
    return -1


def _both_players(group):
    seen = 0
    for e in group:
        seen |= 1 << (_player(e[2]) + 1)
    return seen & 6 == 6


def _all_apply(game, order):
    """Would every action of `order` that is legal now also apply in this order?"""
    trial = game.copy()
    for e in order:
        if game.why_not(e[2]) is None and trial.apply(e[2]) is not None:
            return False
    return True
