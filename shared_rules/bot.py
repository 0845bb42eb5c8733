# The CPU opponent. It plays through the same two-button pad as a person:
# it decides WHAT to do from what it can see, and WHEN to press from a model of human
# reaction time, cursor speed and mistakes. Pure and deterministic from a seed; integer
# microseconds only; runs unchanged on CPython and MicroPython.
"""CPU player for Spit.

Interface (all times are MicroPython ticks in us, wrapping at 2**30; compare them
with shared_rules.arbiter.ticks_diff):

    bot = Bot(player, level, seed)      # level: "easy", "normal", "hard" or "masher"
    bot.observe(game, now_us, cursor=None)
        Tell the bot the state may have changed: call it once at the start and after
        every Arbiter.settle() that returned results, and after anything else that
        changes the game (calling it more often is harmless: it only reacts to what
        it can see change). `cursor` is the cursor of the Pad that interprets the
        bot's presses (pad.cursor), read after every press the bot returned has
        been fed to that Pad; pass it so the bot's idea of its cursor stays exact.
        Observing a different Game object starts afresh (a new game).
    bot.next_press(now_us) -> (t_us, button) or None
        The next press due at or before now_us: button A (0) or B (1) of
        shared_rules.pad, touched at t_us (t_us <= now_us). Call it repeatedly until
        it returns None; feed every press, in order, exactly like a human's stamped
        button-down event: action = pad.press(game, button); if action is not None:
        arbiter.press(action, t_us). Stamps never decrease.
    bot.due_us() -> t_us or None
        When the bot next wants to act (a look at the table or a press), so a
        simulated clock can jump there; None while it waits for a change.
    bot.fumbled(until_us, now_us)
        One of its presses was a fumble (RULES.md R41): its buttons are dead until
        until_us. It drops its plan, looks again a reaction later and presses nothing
        before until_us.
    bot.prepare()
        Optional, between frames: weighs now the moves its next look will weigh, if
        that look is due (see "Looking ahead" below); it changes nothing the bot does.
    bot.awaits_signal = True
        The device shows a slap signal (R44): in the slap phase it waits for it, as a
        person does, instead of slapping on sight.
    bot.signal(now_us)
        The slap signal shows from now_us: it slaps a reaction later.

In the app, one frame (the bot's presses join the human's drained button events, and
everything is fed before the arbiter settles):

    while True:
        press = bot.next_press(now)
        if press is None: break
        action = pad.press(game, press[1])        # the CPU seat's Pad
        if action is not None: arbiter.press(action, press[0])
    ...the human's events through their Pad to arbiter.press, likewise...
    results = arbiter.settle(now)
    if results: bot.observe(game, now, pad.cursor)

A press may be up to one frame old when it is returned (its stamp is when the "finger"
closed the contact, like a human's IRQ stamp). Fed in this order, every press reaches
the arbiter before anything touched later is settled, whatever the frame rate; and the
stamps come from the bot's own schedule, so a slow frame rate does not change them.
Counters for tests and statistics: presses, looks, dropped, misses, wrong,
looked_ahead.

Looking ahead. Weighing the moves is most of a look's time (~4 ms on the RP2040, inside
the frame that makes the look). prepare() weighs them between frames, from the table
as it is then, and keeps them with what they were weighed from: the bot's signature of
the table (every card and count that moves() reads: the phase, the piles' tops and
sizes, its own stockpiles' tops, sizes and face-down flags) and its cursor. A look
uses them only if both are still the same, so it finds exactly the moves it would
have weighed itself (moves() is a pure function of those and the game's rules); any
other look weighs them afresh. Nothing else moves earlier: the random draws, the
plan and the press times are made at the look, as without prepare().
shared_rules/selfplay.py runs two bots against each other on a simulated clock.

How it plays. Every change it can see (the spit piles, its own stockpiles, the phase)
makes it look again one *reaction time* later; the reaction time is drawn from an
ex-Gaussian (a normal part, the sum of 12 uniforms, plus an exponential tail by an
integer inverse of the CDF), the shape of human simple reaction time. At a look it
chooses a move and starts pressing: A once per cursor step until the cursor is on the
chosen stockpile (each step takes its own drawn time), then B, which the Pad turns into
the play (onto the pile with the better follow-up), the fill or the flip. If at a look
it sees that the pile or stockpile of its planned move changed, it drops the plan and
plans again; a press that lands before it has seen the change goes ahead and may lose
the race (the arbiter says "beaten"), as a person's would. In "ready" it says Spit
(either button); in "slap" it slaps the smaller pile (A = its left pile, B = its right),
a reaction after the slap signal when the device shows one (R44).
Easy (and rarely normal) players miss plays (look again later) and press the wrong
button; a wrong B that fits nowhere is a fumble they pay for. A bot that plays its last
stockpile card slaps a reaction later without waiting to see the slap phase (it knows
the round ends with its card), unless it waits for a signal. The "masher" level reads nothing: it presses B, then A,
each four times a second, whatever is on the table (the simulation's measure of whether
looking beats pressing blindly).
"""

from shared_rules.rng import Rng
from shared_rules.arbiter import ticks_diff, ticks_add
from shared_rules.game import READY, PLAY, SLAP, STOCKPILES
from shared_rules.pad import A, B, main_action, next_stockpile, pile_on_left, follow_ups

# ---- the difficulty table ----------------------------------------------------------
# Times in us. Reaction time = mu + normal(0, sigma) + exponential(mean tau), at least
# rt_min, so its mean is about mu + tau: the delay from a change on the table to the
# first press that answers it. A cursor step (the gap between two presses of one move)
# = step + normal(0, step_sd), at least step_min. Per mille: miss = a look that fails
# to see the move (it looks again a reaction later), wrong = a press of the other
# button. follow = how much a play that leaves another play counts, in quarter cursor
# steps per follow-up, at most two (0: it simply takes the nearest move). mash = the
# period of a blind masher's presses of each button (0: the level looks at the table).
_FIELDS = ("mu", "sigma", "tau", "rt_min", "step", "step_sd", "step_min",
           "miss", "wrong", "follow", "mash")
_TABLE = (
    # level      mu   sigma     tau  rt_min    step step_sd step_min miss wrong follow   mash
    ("hard",   150000, 20000,  40000, 100000, 165000, 20000, 100000,    0,    0,    2,      0),
    ("normal", 190000, 35000,  60000, 130000, 185000, 35000, 110000,   10,    5,    1,      0),
    ("easy",   330000, 60000, 250000, 160000, 260000, 55000, 130000,  100,   50,    0,      0),
    # Reads nothing: B then A, each four times a second on average, whatever is on the
    # table (the strategy the fumble, R41, is there to beat). A finger keeps no perfect
    # time: each gap varies by step_sd (perfect time would lock to a fumble time that
    # is a multiple of its period). It looks at nothing, so mu..follow are never used.
    # The simulation's careful player: normal's speed and eyes, but one press in twenty
    # on the wrong button (what the fumble costs an honest player, R41). Not in the menu.
    ("careful", 190000, 35000,  60000, 130000, 185000, 35000, 110000,   10,   50,    1,      0),
    ("masher",      0,     0,      0,      0,      0, 15000,      0,    0,    0,    0, 250000),
)
LEVELS = {}
for _row in _TABLE:
    LEVELS[_row[0]] = dict(zip(_FIELDS, _row[1:]))
LEVEL_NAMES = ("easy", "normal", "hard")     # the menu's CPU levels 1-3
MASHER = "masher"
CAREFUL = "careful"
ALL_LEVELS = LEVEL_NAMES + (CAREFUL, MASHER)  # every level the simulation can seat



def bot_seed(seed, seat):
    """The seed of the CPU player in `seat` for seed `seed` (deterministic, distinct per
    seat; a small int on the device)."""
    return ((seed * 2 + seat) * 7919 + 104729) & 0x3FFFFFFF


# Cost of a move in quarter cursor steps, before its distance: plays first (they are
# races), then flips (manual_flip), then fills (they only turn a card up).
_KIND_COST = {"play": 0, "flip": 6, "fill": 10}
_STEP_COST = 4

# -ln(0.5 + i/128) in Q16 for i = 0..64 (tests check it against math.log).
_NEG_LN = (
    45426, 44410, 43409, 42424, 41453, 40496, 39553, 38624, 37707, 36803, 35911, 35032,
    34164, 33307, 32461, 31627, 30802, 29988, 29184, 28390, 27605, 26829, 26063, 25305,
    24556, 23815, 23083, 22359, 21643, 20934, 20233, 19540, 18854, 18174, 17502, 16837,
    16178, 15526, 14880, 14241, 13608, 12981, 12360, 11744, 11135, 10530, 9932, 9339,
    8751, 8169, 7591, 7019, 6451, 5889, 5331, 4778, 4230, 3686, 3146, 2611, 2081, 1554,
    1032, 514, 0)
_LN2_Q16 = 45426
_ONE24 = 1 << 24
_HALF24 = 1 << 23


def neg_ln_q16(x):
    """-ln(x / 2**24) in Q16 (x in 1..2**24), by normalising to [0.5, 1) and a
    64-segment table with linear interpolation (error < 1e-4)."""
    if x >= _ONE24:
        return 0
    k = 0
    while x < _HALF24:
        x <<= 1
        k += 1
    f = x - _HALF24                  # 0 .. 2**23 - 1
    i = f >> 17
    a = _NEG_LN[i]
    return k * _LN2_Q16 + a - (((a - _NEG_LN[i + 1]) * (f & 0x1FFFF)) >> 17)


def normal_q16(rng):
    """A standard normal in Q16 (std 65536): the sum of 12 uniforms (Irwin-Hall)."""
    return rng.sum16(12) - 393216   # 12 * 32768


def exp_q16(rng):
    """A standard exponential in Q16, by the inverse CDF -ln(U)."""
    return neg_ln_q16(rng.next24() + 1)


def reaction_us(rng, lv):
    """One reaction time (ex-Gaussian) for level parameters lv."""
    t = lv["mu"] + ((lv["sigma"] * normal_q16(rng)) >> 16) + ((lv["tau"] * exp_q16(rng)) >> 16)
    return t if t > lv["rt_min"] else lv["rt_min"]


def step_us(rng, lv):
    """The time from one press to the next within a move (one cursor step)."""
    t = lv["step"] + ((lv["step_sd"] * normal_q16(rng)) >> 16)
    return t if t > lv["step_min"] else lv["step_min"]


def cursor_steps(game, p, cursor, target):
    """How many A presses move the cursor from `cursor` to stockpile `target`
    (A skips empty stockpiles); None if it can't get there."""
    if not game.stock[p][target]:
        return None
    c = cursor
    for n in range(STOCKPILES + 1):
        if c == target:
            return n
        c = next_stockpile(game, p, c)
    return None


def moves(game, p, cursor, follow=0):
    """The useful moves B could make for player p: [(cost, i, action)], cheapest
    first (cost in quarter cursor steps; ties go to the lower stockpile)."""
    out = []
    if game.phase != PLAY:
        return out
    for i in range(STOCKPILES):
        s = game.stock[p][i]
        if not s:
            continue
        a = main_action(game, p, i)
        if game.why_not(a) is not None:
            continue
        n = cursor_steps(game, p, cursor, i)
        if n is None:
            continue
        cost = _KIND_COST[a[0]] + n * _STEP_COST
        if follow and a[0] == "play":
            f = follow_ups(game, p, i, a[3])
            cost -= follow * (f if f < 2 else 2)
        out.append((cost, i, a))
    out.sort()
    return out


def smaller_pile(game):
    """R25: the pile to slap (the smaller; the first on a tie)."""
    piles = game.piles
    if len(piles) < 2 or len(piles[0]) <= len(piles[1]):
        return 0
    return 1


def slap_button(game, p, j):
    if len(game.piles) < 2:
        return B
    return A if j == pile_on_left(game, p) else B


# Plan fields (a list, to stay light on MicroPython).
_P_KIND = 0      # "spit", "slap" or "move"
_P_TARGET = 1    # stockpile (move) / pile (slap) / -1
_P_ACTION = 2    # the action B should make (move), else None
_P_TOP = 3       # the card on the target spit pile when planned (play), else -1
_P_CARD = 4      # the stockpile's top card when planned (move), else -1
_P_PHASE = 5
_P_ROUND = 6
_P_T = 7         # stamp of its next press


class Bot:
    def __init__(self, player, level="normal", seed=0):
        if player not in (0, 1):
            raise ValueError("player must be 0 or 1")
        if level not in LEVELS:
            raise ValueError("level must be one of %s" % (", ".join(ALL_LEVELS),))
        self.player = player
        self.level = level
        self.lv = LEVELS[level]
        self.rng = Rng(seed)
        self.cursor = 0
        self.game = None
        self._sig = None
        self._look = None        # ticks of the next look, or None
        self._plan = None
        self._last_t = None      # stamp of the last press
        self._dead = None        # its buttons are dead until this stamp (a fumble, R41)
        self._mash = self.lv["mash"]
        self._mash_t = None      # a masher's next press
        self._mash_b = B
        self.awaits_signal = False
        self._signal_round = None  # the round whose slap signal it has seen (R44)
        self._ahead = None       # prepare()'s moves: [signature, cursor, moves]
        # Counters, for tests and the simulation.
        self.presses = 0
        self.looks = 0
        self.dropped = 0         # planned moves abandoned because the table changed
        self.misses = 0          # looks that missed the move (easy/normal)
        self.wrong = 0           # wrong-button presses
        self.looked_ahead = 0    # looks that used prepare()'s moves

    # ---- what the app calls ---------------------------------------------------
    def observe(self, game, now_us, cursor=None):
        if game is not self.game:
            # A new game (or the first): forget any plan made for another one.
            self.game = game
            self._plan = None
            self._look = None
            self._sig = None
            self._ahead = None
            if self._mash:
                # A masher starts at a moment of its own (from its seed), then keeps time.
                self._mash_t = ticks_add(now_us, self.rng.below(self._mash))
        if self._mash:
            return               # it reads nothing
        if cursor is not None:
            self.cursor = cursor
        sig = self._signature(game)
        if sig != self._sig:
            self._sig = sig
            if self._look is None:
                self._look = ticks_add(now_us, self.reaction())

    def fumbled(self, until_us, now_us):
        """One of its presses was refused during play (a fumble, R41): its buttons are
        dead until until_us. Like a person who hears the buzz, it drops what it was
        doing, looks again a reaction later and presses nothing before until_us. (A
        masher reads nothing, so it simply keeps pressing.)"""
        if self._mash:
            return
        self._dead = until_us
        if self._plan is not None and self._plan[_P_KIND] == "move":
            self.dropped += 1
        self._plan = None
        self._look = ticks_add(now_us, self.reaction())

    def signal(self, now_us):
        """The slap signal (R44) shows from now_us: it slaps a reaction later (a masher
        sees nothing and keeps pressing)."""
        if self._mash or self.game is None:
            return
        self._signal_round = self.game.round
        if self._plan is not None and self._plan[_P_KIND] == "move":
            self.dropped += 1
        self._plan = None
        self._look = ticks_add(now_us, self.reaction())

    def prepare(self):
        """Between frames: if a look is due next (before any press), weigh now the moves
        it will weigh, kept with what they depend on (see "Looking ahead")."""
        g = self.game
        if self._mash or g is None or g.phase != PLAY or self._look is None:
            return
        plan = self._plan
        if plan is not None and ticks_diff(plan[_P_T], self._look) < 0:
            return                       # a press comes first, and changes the cursor
        sig = self._signature(g)
        ahead = self._ahead
        if ahead is not None and ahead[1] == self.cursor and ahead[0] == sig:
            return                       # weighed already
        self._ahead = [sig, self.cursor, moves(g, self.player, self.cursor, self.lv["follow"])]

    def _moves(self, g):
        """The moves a look weighs: prepare()'s, if what they depend on is unchanged."""
        ahead = self._ahead
        if ahead is not None:
            self._ahead = None
            if ahead[1] == self.cursor and ahead[0] == self._signature(g):
                self.looked_ahead += 1
                return ahead[2]
        return moves(g, self.player, self.cursor, self.lv["follow"])

    def due_us(self):
        if self._mash:
            return self._mash_t
        look = self._look
        plan = self._plan
        if plan is None:
            return look
        t = plan[_P_T]
        if look is None or ticks_diff(t, look) < 0:
            return t
        return look

    def next_press(self, now_us):
        if self._mash:
            return self._mash_press(now_us)
        while True:
            look = self._look
            plan = self._plan
            t = plan[_P_T] if plan is not None else None
            if look is not None and ticks_diff(look, now_us) <= 0 and (
                    t is None or ticks_diff(look, t) <= 0):
                self._look = None
                self._look_at(look)
                continue
            if t is not None and ticks_diff(t, now_us) <= 0:
                press = self._emit(plan, t)
                if press is not None:
                    return press
                continue
            return None

    def _mash_press(self, now_us):
        t = self._mash_t
        if t is None or ticks_diff(t, now_us) > 0:
            return None
        button = self._mash_b
        self._mash_b = A if button == B else B
        # B, A, B, ...: each button every mash us on average.
        gap = (self._mash >> 1) + ((self.lv["step_sd"] * normal_q16(self.rng)) >> 16)
        self._mash_t = ticks_add(t, gap if gap > 1000 else 1000)
        self._last_t = t
        self.presses += 1
        return (t, button)

    # ---- timing ---------------------------------------------------------------
    def reaction(self):
        return reaction_us(self.rng, self.lv)

    def step(self):
        return step_us(self.rng, self.lv)

    def _roll(self, per_mille):
        return per_mille > 0 and self.rng.below(1000) < per_mille

    # ---- seeing ---------------------------------------------------------------
    def _signature(self, g):
        p = self.player
        sig = [g.phase, g.round, g.said[p]]
        for pile in g.piles:
            sig.append(len(pile))
            sig.append(pile[-1])
        for i in range(STOCKPILES):
            s = g.stock[p][i]
            sig.append(len(s))
            if s:
                sig.append(s[-1])
                sig.append(g.down[p][i])
        return tuple(sig)

    def _still_valid(self, plan):
        g = self.game
        if g.phase != plan[_P_PHASE] or g.round != plan[_P_ROUND]:
            return False
        kind = plan[_P_KIND]
        if kind == "spit":
            return not g.said[self.player]
        if kind == "slap":
            return True
        i = plan[_P_TARGET]
        s = g.stock[self.player][i]
        if not s or s[-1] != plan[_P_CARD] or main_action(g, self.player, i) != plan[_P_ACTION]:
            return False
        a = plan[_P_ACTION]
        if a[0] == "play" and g.piles[a[3]][-1] != plan[_P_TOP]:
            return False
        return g.why_not(a) is None

    def _look_at(self, t):
        """The bot looks at the table at t: keep a plan that still holds, else plan."""
        self.looks += 1
        g = self.game
        if g is None:
            return
        plan = self._plan
        if plan is not None:
            if self._still_valid(plan):
                return
            if plan[_P_KIND] == "move":
                self.dropped += 1
            self._plan = None
        p = self.player
        phase = g.phase
        if phase == READY:
            if not g.said[p]:
                self._start(["spit", -1, None, -1, -1, phase, g.round, t])
        elif phase == SLAP:
            if self.awaits_signal and self._signal_round != g.round:
                return                      # R44: nothing before the signal
            j = smaller_pile(g)
            self._start(["slap", j, None, -1, -1, phase, g.round, t])
        elif phase == PLAY:
            options = self._moves(g)
            if not options:
                return                      # nothing to do until something changes
            if self._roll(self.lv["miss"]):
                self.misses += 1            # didn't see it; look again later
                self._look = ticks_add(t, self.reaction())
                return
            a = options[0][2]
            i = options[0][1]
            top = g.piles[a[3]][-1] if a[0] == "play" else -1
            self._start(["move", i, a, top, g.stock[p][i][-1], phase, g.round, t])

    def _start(self, plan):
        # A new move starts when the look ends, but no sooner than a step after the
        # previous press (a finger can only press so fast).
        gap = self.step()
        if self._last_t is not None:
            earliest = ticks_add(self._last_t, gap)
            if ticks_diff(earliest, plan[_P_T]) > 0:
                plan[_P_T] = earliest
        if self._dead is not None:
            # After a fumble (R41): nothing before the buttons are live again.
            if ticks_diff(self._dead, plan[_P_T]) > 0:
                plan[_P_T] = self._dead
            else:
                self._dead = None
        self._plan = plan

    # ---- pressing -------------------------------------------------------------
    def _emit(self, plan, t):
        g = self.game
        p = self.player
        kind = plan[_P_KIND]
        if g.phase != plan[_P_PHASE] or g.round != plan[_P_ROUND]:
            if kind == "move":
                self.dropped += 1
            self._plan = None               # the phase moved on: nothing to press
            self._ensure_look(t)
            return None
        done = True
        if kind == "spit":
            button = B
        elif kind == "slap":
            button = slap_button(g, p, plan[_P_TARGET])
            if self._roll(self.lv["wrong"]):
                button = A if button == B else B
                self.wrong += 1
        else:
            i = plan[_P_TARGET]
            if not g.stock[p][i]:
                self._plan = None           # its own stockpile emptied (cannot happen
                self._ensure_look(t)        # unless the round changed)
                return None
            want = B if self.cursor == i else A
            button = want
            if self._roll(self.lv["wrong"]):
                button = A if want == B else B
                self.wrong += 1
            done = want == B and button == B
            if button == A:
                self.cursor = next_stockpile(g, p, self.cursor)
        self._last_t = t
        self.presses += 1
        if done and kind == "move" and not self.awaits_signal and \
                self._last_card(plan[_P_ACTION]):
            # Its last stockpile card: it knows the round ends with it (R24) and the
            # slap comes (R25), so it slaps a reaction later without waiting to see
            # the slap phase and planning afresh, at the pile that will be smaller.
            j = plan[_P_ACTION][3]
            n0 = len(g.piles[0]) + (1 if j == 0 else 0)
            n1 = len(g.piles[1]) + (1 if j == 1 else 0)
            self._plan = ["slap", 0 if n0 <= n1 else 1, None, -1, -1, SLAP, g.round,
                          ticks_add(t, self.reaction())]
        elif done:
            self._plan = None
            self._ensure_look(t)            # check what came of it
        else:
            plan[_P_T] = ticks_add(t, self.step())
        return (t, button)

    def _last_card(self, action):
        g = self.game
        return (action[0] == "play" and len(g.piles) == 2 and
                g.stock_count(self.player) == 1)

    def _ensure_look(self, t):
        if self._look is None:
            self._look = ticks_add(t, self.reaction())
