# One game at the table as the device conducts it: the press pipeline, written once for
# the firmware's table and the self-play simulation, so that what the simulation
# measures is what the handheld plays.
#
#   stamped press -> dead buttons? (R41) -> Pad (what the press means) -> the slap
#   signal's gate (R44) -> Arbiter (first touch, R18-R21) -> settle -> Game
#
# What each settled press came to is handed to on_outcome() with one of the kinds
# below; an owner (firmware.table.Table, selfplay) subclasses Match and reacts there
# (messages, sounds, statistics, telling a CPU player), in on_slap_phase() and in
# on_signal(). The match keeps the timers of the slap: the signal (R44) and the time
# limit with the table's own slap when nobody slapped (R26).

from shared_rules.game import (SLAP, OVER, NOT_NOW, ALREADY_SAID, EMPTY, BAD_ACTION,
                               BAD_PLAYER, BAD_STOCK)
from shared_rules.arbiter import Arbiter, BEATEN, ticks_diff, ticks_add
from shared_rules.pad import Pad, TWO_BUTTON
from shared_rules.conduct import Conduct, Fumbles, signal_delay_us

# What a settled press came to (on_outcome's kind).
APPLIED = 0       # the game took it
BEATEN_TO_IT = 1  # legal when pressed, but the other player touched first (R20)
FUMBLE = 2        # refused during play: dead buttons (R41)
FALSE_START = 3   # a slap before the signal (R44); reason None if it decided the round
TOO_LATE = 4      # a slap after the table's own slap at the time limit (R26)
REFUSED = 5       # refused by the rules (R39), shown with its reason
QUIET = 6         # refused, nothing to tell: the phase moved on, Spit! said twice,
                  # or the table's own slap when a real one got there first

# What press() did with a press.
ENDED = 0         # the round ended before it was touched: it belongs to what comes next
DEAD = 1          # dead buttons (R41): ignored
MOVED = 2         # the cursor moved
QUEUED = 3        # an action went to the arbiter
IGNORED = 4       # a slap too soon after the round's last touch (R44)


class Match:
    def __init__(self, game, conduct=None, window_us=2000, scheme=TWO_BUTTON):
        self.game = game
        self.conduct = conduct if conduct is not None else Conduct()
        c = self.conduct
        self.arbiter = Arbiter(game, window_us)
        self.pads = [Pad(0, scheme), Pad(1, scheme)]
        self.fumbles = Fumbles(c.fumble_us, c.repeat_us, c.cap)
        self.false_starts = [0, 0]
        self.last_action = None       # the action press() queued
        self.ended = False            # the round (or the game) is over
        self._seen_round = game.round
        self._seen_phase = game.phase
        self._reset_slap()

    def _reset_slap(self):
        self.end_t = None             # the touch that ended the round (R44), in the slap
        self.signal_t = None          # when the signal comes (None: no signal)
        self.signalled = False        # the signal is on show (or there is none)
        self.deadline = None          # R26: nobody slapped by then
        self.auto = None              # the table's own slap at the deadline
        self._false = []              # [converted action, false starter]

    def enter(self):
        """Play (re)starts on screen: a new round, or after a pause."""
        if self.ended or self.game.phase != SLAP:
            self._reset_slap()
        self.ended = False
        self._seen_round = self.game.round
        self._seen_phase = self.game.phase

    # ---- presses ----------------------------------------------------------------------
    def press(self, t, p, code):
        """A button of player p went down at t: one of ENDED, DEAD, MOVED, QUEUED,
        IGNORED (the queued action in last_action)."""
        if self.arbiter.pending():
            # Decide everything touched well before this press first, so the Pad reads
            # the table as it was when this button closed (and a fumble touched just
            # before it has started); but nothing this press may still tie with (R43:
            # within a linked press's bound, however far past the window).
            reach = self.arbiter.reach_us(p)
            self.settle(ticks_add(t, -reach) if reach else t)
            if self.ended:
                return ENDED
        if self.fumbles.dead(p, t):
            return DEAD                    # R41: dead buttons
        g = self.game
        action = self.pads[p].press(g, code)
        if action is None:
            return MOVED
        if action[0] == "slap" and self.end_t is not None and self.conduct.signal:
            if ticks_diff(t, self.end_t) < self.conduct.ignore_us:
                return IGNORED             # R44: meant for the play, not the slap
            if ticks_diff(t, self.signal_t) < 0:
                action = self._false_start(p, action[2])
        self.last_action = action
        self.arbiter.press(action, t)
        return QUEUED

    def _false_start(self, p, j):
        """R44: the slap of a false start, decided against its player: they take the
        larger pile (of two equal ones, the one they did not slap), the other player
        the other one; one pile (R33's tie): the other counts as out first. As the
        other player's slap, so that two false starts at one instant are a tie (R21)
        whose loser is the one penalised."""
        piles = self.game.piles
        q = 1 - p
        if len(piles) == 2:
            n = len(piles[j])
            m = len(piles[1 - j])
            if n != m:
                j = 0 if len(piles[0]) < len(piles[1]) else 1   # the other takes the smaller
            action = ("slap", q, j)
        else:
            action = ("slap", q, 0)
        self._false.append([action, p])
        return action

    def _false_starter(self, action):
        for f in self._false:
            if f[0] is action:
                return f[1]
        return -1

    # ---- settling ---------------------------------------------------------------------
    def settle(self, now):
        """Settle the arbiter and hand each result to on_outcome; True if anything was
        decided."""
        results = self.arbiter.settle(now)
        if not results:
            return False
        for action, t, reason in results:
            if reason == BAD_ACTION or reason == BAD_PLAYER or reason == BAD_STOCK:
                # R39: junk (no pad makes it: its cursor is always on a stockpile) is
                # refused, and is nobody's fumble, false start or lost race.
                self.on_outcome(REFUSED, -1, action, t, reason, now)
                continue
            p = action[1] if len(action) > 1 else -1
            f = self._false_starter(action) if action[0] == "slap" else -1
            if f >= 0:
                kind = FALSE_START
                p = f
                self.false_starts[f] += 1
            elif reason is None:
                kind = APPLIED
                if action[0] == "play":
                    self.fumbles.played(p)     # R41: a played card ends the run
            elif action is self.auto:
                kind = QUIET                   # a real slap got there first
            elif action[0] == "slap" and self.auto is not None and \
                    ticks_diff(t, self.deadline) >= 0:
                kind = TOO_LATE
            elif reason == BEATEN:
                kind = BEATEN_TO_IT
            elif reason == NOT_NOW or reason == ALREADY_SAID:
                kind = QUIET
            elif self.conduct.empty and self._no_card(action):
                # The cursor on a slot the player's own play emptied (the pad never
                # moves it by itself, so recorded presses replay exactly): the press
                # puts no card down, so it is never a fumble (R41), whichever reason
                # the rules give first (a six-button fill there is "same stockpile").
                kind = REFUSED
                reason = EMPTY
            elif self.fumbles.settled(action, t, reason):
                kind = FUMBLE
            else:
                kind = REFUSED
            self.on_outcome(kind, p, action, t, reason, now)
            self._watch(t)
        return True

    def _no_card(self, action):
        """Is a play, fill or flip from a stockpile slot that is empty now?"""
        if action[0] != "play" and action[0] != "fill" and action[0] != "flip":
            return False
        i = action[2]
        return isinstance(i, int) and 0 <= i < 5 and not self.game.stock[action[1]][i]

    def _watch(self, t):
        """What the game did by itself after a press touched at t: spit, stall, the end
        of the round (R44's clock starts), the end of the game."""
        g = self.game
        if self.ended:
            return
        if g.round != self._seen_round or g.phase == OVER:
            self.ended = True
            return
        ph = g.phase
        if ph != self._seen_phase:
            self._seen_phase = ph
            if ph == SLAP:
                self._reset_slap()
                self.end_t = t
                c = self.conduct
                if c.signal:
                    self.signal_t = ticks_add(t, signal_delay_us(c, g.seed, g.round))
                    self.deadline = ticks_add(self.signal_t, c.limit_us)
                else:
                    self.signalled = True
                    self.deadline = ticks_add(t, c.limit_us)
            self.on_phase(ph, t)
        self.on_settled(t)

    # ---- timers -----------------------------------------------------------------------
    def tick(self, now):
        """The timers: at the time limit the table's own slap, then settle what is due,
        and show the signal. True if the game's state changed."""
        g = self.game
        if g.phase == SLAP and self.deadline is not None and self.auto is None and \
                ticks_diff(now, self.deadline) >= 0:
            # R26 ruling: nobody slapped in time. Two piles: each player takes the pile
            # they started (as if player 0 slapped pile 0). One pile (R33, equal
            # counts): the player who would win the next tie (R21) counts as out first.
            # Pressed through the arbiter at the deadline, before anything is settled,
            # so a slap touched before it still wins by first touch and one touched
            # after it, in the same frame, is too late.
            who = 0 if len(g.piles) == 2 else g.tie_priority
            self.auto = ("slap", who, 0)
            self.arbiter.press(self.auto, self.deadline)
        state = False
        if self.arbiter.pending():
            state = self.settle(now)
            if self.ended:
                return True
        if g.phase == SLAP and not self.signalled and self.signal_t is not None and \
                ticks_diff(now, self.signal_t) >= 0:
            self.signalled = True
            self.on_signal(now)
            state = True
        return state

    def due_us(self):
        """The next time tick() has something to do in the slap (the signal or the
        time limit), or None: for a simulated clock that jumps."""
        if self.game.phase != SLAP or self.deadline is None:
            return None
        if not self.signalled:
            return self.signal_t
        if self.auto is None:
            return self.deadline
        return None

    def slap_left_us(self, now):
        """The slap time left after now (R26), counted from the signal (R44); -1 while
        the signal has not come or outside the slap."""
        if self.game.phase != SLAP or not self.signalled or self.deadline is None:
            return -1
        left = ticks_diff(self.deadline, now)
        return left if left > 0 else 0

    # ---- what an owner overrides ------------------------------------------------------
    def on_outcome(self, kind, p, action, t, reason, now):
        """A settled press of player p came to `kind`."""

    def on_phase(self, phase, t):
        """The game moved to `phase` by itself after a press touched at t."""

    def on_settled(self, t):
        """A press touched at t was settled and the round goes on."""

    def on_signal(self, now):
        """The slap signal (R44) shows from now."""
