# CPU-vs-CPU self-play on a simulated clock: two Bots press their pads, the presses go
# through Pad -> Arbiter -> Game exactly as a person's would, and the clock jumps from
# one due event to the next. Pure (no I/O, no floats) so the same loop runs under
# CPython (tools/simulate.py, tests) and MicroPython (tests/mp/bot_game.py).
#
# The device's fumble (RULES.md R41) is played as the app plays it: a refused play, fill
# or flip leaves that player's buttons dead for the fumble time (presses touched then
# never reach the pad), and the bot is told, as a person would hear the buzz.
#
# Every step it checks the invariants of the CPU player: all 52 cards present and distinct
# (R29); no action that legal_actions offered when pressed was refused unless the
# arbiter called it "beaten"; legal_actions and why_not agree; presses are A/B with
# non-decreasing stamps; the game ends within a simulated-time and action cap.

from shared_rules.game import Game, PLAY, READY, OVER
from shared_rules.arbiter import Arbiter, ticks_diff, ticks_add, BEATEN, TICKS_PERIOD
from shared_rules.pad import Pad, A, B, Fumbles, FUMBLE_US
from shared_rules.bot import Bot

MAX_US = 4 * 60 * 60 * 1000000   # a game longer than four simulated hours never ends
MAX_ACTIONS = 200000             # nor one with this many applied actions
_MASK = TICKS_PERIOD - 1


def bot_seed(seed, seat):
    """The seed of the bot in `seat` for game `seed` (deterministic, distinct)."""
    return (seed * 2 + seat) * 7919 + 104729


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


def play(seed, levels, rules=None, start_us=0, window_us=2000, max_us=MAX_US,
         max_actions=MAX_ACTIONS, record=None, fumble_us=FUMBLE_US):
    """Play one game: levels[seat] is the level of the bot in that seat. Returns a
    dict of ints and a list "violations" (strings). `start_us` is the tick count at
    the start (to test the wrap at 2**30). If `record` is a list, every press is
    appended to it as (seat, t_us, button, action or None, or "dead" for a press
    during a fumble). fumble_us: the device's fumble time (R41; 0 = off)."""
    game = Game(seed, rules)
    arb = Arbiter(game, window_us)
    pads = [Pad(0), Pad(1)]
    bots = [Bot(0, levels[0], bot_seed(seed, 0)), Bot(1, levels[1], bot_seed(seed, 1))]
    st = {"seed": seed, "winner": -1, "rounds": 0, "us": 0, "races": 0, "ties": 0,
          "stalls": 0, "plays": 0, "actions": 0, "presses": 0, "refused": 0,
          "dropped": 0, "misses": 0, "wrong": 0, "fumbles": 0, "dead": 0, "hash": 0,
          # per seat: plays made, fumbles, slaps that decided a round (the first, R26)
          "plays0": 0, "plays1": 0, "fumbles0": 0, "fumbles1": 0, "slaps0": 0, "slaps1": 0}
    fumbles = Fumbles(fumble_us)
    bad = []
    T = 0                          # simulated us since the start (not wrapped)
    now = start_us & _MASK
    for b in bots:
        b.observe(game, now, pads[b.player].cursor)
    pending = []                   # absolute touch times of queued presses
    inflight = []                  # [t_us, action, offered] of queued presses
    last_t = [None, None]
    h = 0
    while game.phase != OVER:
        nxt = -1
        for b in bots:
            d = b.due_us()
            if d is not None:
                dt = ticks_diff(d, now)
                c = T + (dt if dt > 0 else 0)
                if nxt < 0 or c < nxt:
                    nxt = c
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
        if pending and min(pending) + window_us <= T:
            phase0 = game.phase
            round0 = game.round
            results = arb.settle(now)
            keep = []
            for x in pending:
                if x + window_us > T:
                    keep.append(x)
            pending = keep
            for action, t, reason in results:
                offered = False
                for k in range(len(inflight)):
                    e = inflight[k]
                    if e[0] == t and e[1] == action:
                        offered = e[2]
                        inflight.pop(k)
                        break
                if reason is None:
                    st["actions"] += 1
                    if action[0] == "play":
                        st["plays"] += 1
                        st["plays%d" % action[1]] += 1
                    elif action[0] == "slap":
                        st["slaps%d" % action[1]] += 1
                else:
                    st["refused"] += 1
                    if offered and reason != BEATEN:
                        bad.append("refused an offered action %r at %d: %s" % (action, t, reason))
                    if fumbles.settled(action, t, reason):
                        st["fumbles"] += 1
                        st["fumbles%d" % action[1]] += 1
                        bots[action[1]].fumbled(ticks_add(t, fumble_us), now)
            if results:
                if phase0 == PLAY and game.phase == READY and game.round == round0:
                    st["stalls"] += 1
                if not all_cards_ok(game):
                    bad.append("cards not conserved (R29) after settle at %d" % now)
                for b in bots:
                    b.observe(game, now, pads[b.player].cursor)
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
                if fumbles.dead(p, t):
                    st["dead"] += 1            # R41: a dead button does nothing
                    if record is not None:
                        record.append((p, t, button, "dead"))
                    continue
                action = pads[p].press(game, button)
                if record is not None:
                    record.append((p, t, button, action))
                if action is None:
                    continue
                offered = action in game.legal_actions(p)
                if offered != (game.why_not(action) is None):
                    bad.append("legal_actions and why_not disagree on %r" % (action,))
                inflight.append([t, action, offered])
                arb.press(action, t)
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


def summary(st):
    """One line of ints, identical on CPython and MicroPython for the same game."""
    return ("seed=%d winner=%d rounds=%d us=%d plays=%d actions=%d presses=%d races=%d "
            "ties=%d stalls=%d refused=%d dropped=%d misses=%d wrong=%d fumbles=%d dead=%d "
            "hash=%08x final=%08x violations=%d" % (
                st["seed"], st["winner"], st["rounds"], st["us"], st["plays"], st["actions"],
                st["presses"], st["races"], st["ties"], st["stalls"], st["refused"],
                st["dropped"], st["misses"], st["wrong"], st["fumbles"], st["dead"],
                st["hash"], st["final"],
                len(st["violations"])))
