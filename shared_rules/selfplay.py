# CPU-vs-CPU self-play on a simulated clock: two Bots press their pads, the presses go
# through the very pipeline the handheld's table uses (shared_rules.match: dead buttons,
# Pad, the slap signal's gate, Arbiter, Game), and the clock jumps from one due event to
# the next. Pure (no I/O, no floats) so the same loop runs under CPython
# (tools/simulate.py, tests) and MicroPython (tests/mp/bot_game.py).
#
# The device's conduct is played as the app plays it: the fumble (RULES.md R41) leaves
# that player's buttons dead and the bot is told, as a person would hear the buzz; the
# slap waits for the signal (R44), which the bots are shown, and a slap before it is a
# false start. The masher sees nothing and keeps pressing.
#
# Every step it checks the invariants of the CPU player: all 52 cards present and distinct
# (R29); no action that legal_actions offered when pressed was refused unless the
# arbiter called it "beaten" (or it was a false start that came second); legal_actions
# and why_not agree; presses are A/B with non-decreasing stamps; the game ends within a
# simulated-time and action cap.

from shared_rules.game import Game, PLAY, READY, OVER
from shared_rules.arbiter import ticks_diff, ticks_add, BEATEN, TICKS_PERIOD
from shared_rules.pad import A, B
from shared_rules.bot import Bot, bot_seed
from shared_rules.conduct import Conduct
from shared_rules import match as M

MAX_US = 4 * 60 * 60 * 1000000   # a game longer than four simulated hours never ends
MAX_ACTIONS = 200000             # nor one with this many applied actions
_MASK = TICKS_PERIOD - 1


def all_cards_ok(game):
    """R29: the 52 cards are all there, each once."""
    cards = []
    for side in game.stock:
        for s in side:
            cards.extend(s)
    for h in game.hand:
        cards.extend(h)
    for pile in game.piles:
        cards.extend(pile)
    if len(cards) != 52:
        return False
    cards.sort()
    for i in range(52):
        if cards[i] != i:
            return False
    return True


class _Table(M.Match):
    """The match of a simulated game: what each settled press came to goes into the
    statistics and to the bots, as the handheld's table tells its players."""

    def __init__(self, game, conduct, window_us, bots, st, bad):
        M.Match.__init__(self, game, conduct, window_us)
        self.bots = bots
        self.st = st
        self.bad = bad
        self.inflight = []             # [t_us, action, offered] of queued presses
        self.changed = False           # something was settled since the bots last looked

    def on_outcome(self, kind, p, action, t, reason, now):
        self.changed = True
        st = self.st
        offered = False
        fl = self.inflight
        for k in range(len(fl)):
            e = fl[k]
            if e[1] is action:          # each press queues an action object of its own
                offered = e[2]
                fl.pop(k)
                break
        if kind == M.FALSE_START:
            st["false%d" % p] += 1
        if reason is None:
            st["actions"] += 1
            if action[0] == "play":
                st["plays"] += 1
                st["plays%d" % p] += 1
            elif action[0] == "slap" and kind != M.FALSE_START:
                st["slaps%d" % p] += 1
            return
        st["refused"] += 1
        if offered and reason != BEATEN and kind != M.FALSE_START:
            self.bad.append("refused an offered action %r at %d: %s" % (action, t, reason))
        if kind == M.FUMBLE:
            st["fumbles"] += 1
            st["fumbles%d" % p] += 1
            st["dead_us%d" % p] += self.fumbles.length[p]
            self.bots[p].fumbled(ticks_add(t, self.fumbles.length[p]), now)

    def on_signal(self, now):
        for b in self.bots:
            b.signal(now)


def play(seed, levels, rules=None, start_us=0, window_us=2000, max_us=MAX_US,
         max_actions=MAX_ACTIONS, record=None, conduct=None):
    """Play one game: levels[seat] is the level of the bot in that seat. Returns a
    dict of ints and a list "violations" (strings). `start_us` is the tick count at
    the start (to test the wrap at 2**30). If `record` is a list, every press is
    appended to it as (seat, t_us, button, action or None, or "dead" for a press
    during a fumble, or "ignored" for a slap too soon after the round's end).
    conduct: the device's conduct (shared_rules.conduct.Conduct; None: the default)."""
    if conduct is None:
        conduct = Conduct()
    game = Game(seed, rules)
    bots = [Bot(0, levels[0], bot_seed(seed, 0)), Bot(1, levels[1], bot_seed(seed, 1))]
    for b in bots:
        b.awaits_signal = conduct.signal
    st = {"seed": seed, "winner": -1, "rounds": 0, "us": 0, "races": 0, "ties": 0,
          "stalls": 0, "plays": 0, "actions": 0, "presses": 0, "refused": 0,
          "dropped": 0, "misses": 0, "wrong": 0, "fumbles": 0, "dead": 0, "hash": 0,
          # per seat: plays made, fumbles, slaps that decided a round (the first, R26),
          # false starts (R44)
          "plays0": 0, "plays1": 0, "fumbles0": 0, "fumbles1": 0, "slaps0": 0, "slaps1": 0,
          "false0": 0, "false1": 0, "dead_us0": 0, "dead_us1": 0}
    bad = []
    table = _Table(game, conduct, window_us, bots, st, bad)
    pads = table.pads
    arb = table.arbiter
    T = 0                          # simulated us since the start (not wrapped)
    now = start_us & _MASK
    for b in bots:
        b.observe(game, now, pads[b.player].cursor)
    pending = []                   # absolute touch times of queued presses
    last_t = [None, None]
    h = 0
    while game.phase != OVER:
        nxt = -1
        for b in bots:
            nxt = _sooner(nxt, b.due_us(), now, T)
        nxt = _sooner(nxt, table.due_us(), now, T)
        if pending:
            c = min(pending) + window_us
            if nxt < 0 or c < nxt:
                nxt = c
        if nxt < 0:
            bad.append("stuck: nothing to do in phase %s, round %d" % (game.phase, game.round))
            break
        if nxt > max_us or st["actions"] > max_actions:
            bad.append("never ends: %d us, %d actions, round %d" % (nxt, st["actions"], game.round))
            break
        T = nxt
        now = (start_us + T) & _MASK
        phase0 = game.phase
        round0 = game.round
        if table.tick(now) or table.changed:
            _after_settle(table, phase0, round0, now, st, bad)
        keep = []
        for x in pending:
            if x + window_us > T:
                keep.append(x)
        pending = keep
        for b in bots:
            p = b.player
            while True:
                press = b.next_press(now)
                if press is None:
                    break
                t, button = press
                if button != A and button != B:
                    bad.append("bot %d pressed button %r" % (p, button))
                if ticks_diff(t, now) > 0 or (last_t[p] is not None and ticks_diff(t, last_t[p]) < 0):
                    bad.append("bot %d stamp %d out of order (now %d)" % (p, t, now))
                last_t[p] = t
                st["presses"] += 1
                h = ((h ^ t) * 16777619 + p * 2 + button) & 0xFFFFFFFF
                phase0 = game.phase
                round0 = game.round
                what = table.press(t, p, button)
                if table.changed:
                    _after_settle(table, phase0, round0, now, st, bad)
                if what == M.DEAD:
                    st["dead"] += 1            # R41: a dead button does nothing
                    action = "dead"
                elif what == M.IGNORED:
                    action = "ignored"
                elif what == M.QUEUED:
                    action = table.last_action
                else:
                    action = None
                if record is not None:
                    record.append((p, t, button, action))
                if what != M.QUEUED:
                    continue
                offered = action in game.legal_actions(action[1])
                if offered != (game.why_not(action) is None):
                    bad.append("legal_actions and why_not disagree on %r" % (action,))
                table.inflight.append([t, action, offered])
                pending.append(T + ticks_diff(t, now))
                if len(bad) > 20:
                    break
        if len(bad) > 20:
            break
    st["winner"] = game.winner if game.winner is not None else -1
    st["rounds"] = game.round
    st["us"] = T
    st["races"] = arb.races
    st["ties"] = arb.ties
    for b in bots:
        st["dropped"] += b.dropped
        st["misses"] += b.misses
        st["wrong"] += b.wrong
    st["hash"] = h
    f = 0
    for hand in game.hand:
        for c in hand:
            f = (f * 31 + c + 1) & 0xFFFFFFFF
        f = (f * 131) & 0xFFFFFFFF
    st["final"] = f
    st["over"] = game.phase == OVER
    st["violations"] = bad
    return st


def _sooner(nxt, due, now, T):
    """The earlier of nxt (simulated µs since the start, -1: none) and a due tick."""
    if due is None:
        return nxt
    dt = ticks_diff(due, now)
    c = T + (dt if dt > 0 else 0)
    return c if nxt < 0 or c < nxt else nxt


def _after_settle(table, phase0, round0, now, st, bad):
    """After presses were settled: count a stall, check the cards, let the bots look,
    and with no summary screen between rounds, go straight on to the next."""
    game = table.game
    table.changed = False
    if phase0 == PLAY and game.phase == READY and game.round == round0:
        st["stalls"] += 1
    if not all_cards_ok(game):
        bad.append("cards not conserved (R29) after settle at %d" % now)
    if table.ended:
        table.enter()
    for b in table.bots:
        b.observe(game, now, table.pads[b.player].cursor)


def summary(st):
    """One line of ints, identical on CPython and MicroPython for the same game."""
    return ("seed=%d winner=%d rounds=%d us=%d plays=%d actions=%d presses=%d races=%d "
            "ties=%d stalls=%d refused=%d dropped=%d misses=%d wrong=%d fumbles=%d dead=%d "
            "false=%d:%d hash=%08x final=%08x violations=%d" % (
                st["seed"], st["winner"], st["rounds"], st["us"], st["plays"], st["actions"],
                st["presses"], st["races"], st["ties"], st["stalls"], st["refused"],
                st["dropped"], st["misses"], st["wrong"], st["fumbles"], st["dead"],
                st["false0"], st["false1"], st["hash"], st["final"],
                len(st["violations"])))
