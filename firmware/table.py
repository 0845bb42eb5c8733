# One game on the table: the cards (shared_rules Game), the first-touch arbiter, both
# players' pads and seats, the fumble (RULES.md R41), the slap's time limit (R26) and
# what each player's message corner says. The game screen owns one for a real game
# and the attract mode one for its demo; the table knows no screens. It raises
# `ended` when the round (or the game) is over, and plays sounds and counts through
# the `want` and `stats` it is given (the attract mode gives silent ones).

from shared_rules.game import PLAY, SLAP, OVER
from shared_rules.arbiter import Arbiter, BEATEN, ticks_diff, ticks_add
from shared_rules.pad import Pad, Fumbles
from firmware import sound, texts
from firmware.view import Message, BAR_MAX
from firmware.seats import HumanSeat, CpuSeat, level_name, cpu_seed

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

MSG_US = const(1500000)            # a feedback message stays this long

# What a message corner shows (Table._on).
_STANDING = const(0)
_FLASH = const(1)
_FUMBLE = const(2)


class Table:
    def __init__(self, game, cpu, scheme, window_us, slap_limit_us, fumble_us, stats,
                 want, now):
        """cpu[p]: None for a person, or the menu's CPU level 1-3 (or a bot level
        name). want(tune): play a sound. stats: a firmware.stats.Stats."""
        self.game = game
        self.arbiter = Arbiter(game, window_us)
        self.pads = [Pad(0, scheme), Pad(1, scheme)]
        self.cpu = cpu
        self.seats = [HumanSeat(0), HumanSeat(1)]
        self.stats = stats
        self.want = want
        self.slap_limit_us = slap_limit_us
        self.fumbles = Fumbles(fumble_us)
        self.msgs = [Message(), Message()]
        self._until = [0, 0]
        self._on = [_STANDING, _STANDING]
        self.slap_bar = -1
        self.slap_deadline = 0
        self.auto_t = None            # stamp of the table's own slap when nobody slapped
        self.auto = None              # that slap (the action tuple)
        self.slap_t = None            # the decisive slap: stamp and player
        self.slap_p = -1
        self.seen_round = game.round
        self.seen_phase = game.phase
        self.changed = False
        self.ended = False            # the round or the game is over: the owner moves on
        self._cursors = [0, 0]
        self.make_seats(now)

    # ---- seats ------------------------------------------------------------------------
    def make_seats(self, now):
        """New seats (a new round, a resume): a CPU starts afresh, nothing it stamped
        before carries over."""
        g = self.game
        for p in (0, 1):
            c = self.cpu[p]
            if c:
                seed = cpu_seed(g.seed + g.round * 1009 + (now & 0xFFFF), p)
                self.seats[p] = CpuSeat(p, level_name(c) if isinstance(c, int) else c, seed)
            else:
                self.seats[p] = HumanSeat(p)

    def poll(self, now, evs):
        """Append the CPU seats' button events due by now to evs."""
        for seat in self.seats:
            if not seat.human:
                seat.poll(now, evs)

    def enter(self, now):
        """Play (re)starts on screen: a new round, or after a pause."""
        self.ended = False
        self.auto_t = None
        self.auto = None
        self.slap_t = None
        self.slap_bar = -1
        self.seen_round = self.game.round
        self.seen_phase = self.game.phase
        self.stats.new_stretch()
        for p in (0, 1):
            self._on[p] = _STANDING
            self.stand(p)
            self.seats[p].observe(self.game, now, self.pads[p].cursor)

    def observe(self, now):
        for p in (0, 1):
            if not self.seats[p].human:
                self.seats[p].observe(self.game, now, self.pads[p].cursor)

    # ---- presses ----------------------------------------------------------------------
    def press(self, t, p, code):
        """A button of player p went down at t. False if the round ended before this
        press was touched (the owner passes it on to the next screen)."""
        if self.arbiter.pending():
            # Decide everything touched well before this press first, so the Pad reads
            # the table as it was when this button closed (and a fumble touched just
            # before it has started).
            self.settle(t)
            if self.ended:
                return False
        if self.fumbles.dead(p, t):
            return True                   # R41: dead buttons; the app recorded the press
        action = self.pads[p].press(self.game, code)
        if action is None:
            self.changed = True           # the cursor moved
            return True
        self.arbiter.press(action, t)
        return True

    def settle(self, now):
        """Settle the arbiter and react; True if anything was decided."""
        results = self.arbiter.settle(now)
        if not results:
            return False
        self.changed = True
        for action, t, reason in results:
            verb = action[0]
            p = action[1]
            if reason is None:
                if verb == "play":
                    self.stats.play(p, t)
                    self.want(sound.PLAY)
                elif verb == "spit":
                    self.want(sound.SAID)
                elif verb == "slap":
                    self.slap_t = t
                    self.slap_p = p
                    self.want(sound.SLAP)
                else:
                    self.want(sound.MOVE)
            elif action is self.auto:
                pass                      # the table's own slap came too late: a real one won
            elif verb == "slap" and self.auto_t is not None and ticks_diff(t, self.auto_t) >= 0:
                self.flash(p, texts.TOO_LATE, False, t)      # R26: past the time limit
                self.want(sound.ILLEGAL)
            elif reason == BEATEN:
                # R20: legal when pressed, but the other player touched first.
                self.stats.won_race(1 - p)
                self.flash(p, texts.beaten(self.arbiter.beaten_by_us[p]), True, t)
                self.want(sound.LOST)
            elif reason in texts.QUIET:
                pass
            elif self.fumbles.settled(action, t, reason):
                # R41: a press the rules refused during play; dead buttons from its touch.
                until = ticks_add(t, self.fumbles.us)
                self.stats.fumble(p)
                self.msgs[p].set(texts.FUMBLE, "", True, BAR_MAX)
                self._on[p] = _FUMBLE
                self._until[p] = until
                self.seats[p].fumbled(until, now)
                self.want(sound.FUMBLE)
            else:
                self.flash(p, texts.REASONS.get(reason, texts.NOT_ALLOWED), False, t)
                self.want(sound.ILLEGAL)
            self._watch(t)
        return True

    def _watch(self, t):
        """React to what the game did by itself: spit, stall, slap, end of round."""
        g = self.game
        if self.ended:
            return
        if g.round != self.seen_round or g.phase == OVER:
            self.ended = True
            return
        ph = g.phase
        if ph != self.seen_phase:
            self.seen_phase = ph
            self.stats.new_stretch()
            if ph == PLAY:
                self.want(sound.SPIT)                        # R9, R23: the cards turn
            elif ph == SLAP:
                self.slap_deadline = ticks_add(t, self.slap_limit_us)   # R26
                self.auto_t = None
                self.auto = None
                self.want(sound.SLAP_NOW)
            for p in (0, 1):
                if self._on[p] == _FLASH:
                    self._on[p] = _STANDING
        for p in (0, 1):
            if self._on[p] == _STANDING:
                self.stand(p)

    def stand(self, p):
        m = texts.standing(self.game, p)
        self.msgs[p].set(m[0], m[1], False)

    def flash(self, p, text, inv, t):
        if self._on[p] == _FUMBLE and self.fumbles.dead(p, t):
            return                        # the fumble stays on show while it lasts
        self.msgs[p].set(text[0], text[1], inv)
        self._on[p] = _FLASH
        self._until[p] = ticks_add(t, MSG_US)

    # ---- timers -----------------------------------------------------------------------
    def tick(self, now):
        """Timers of the table; True if the game's state changed."""
        state = False
        if self.arbiter.pending():
            state = self.settle(now)
            if self.ended:
                return True
        g = self.game
        if g.phase == SLAP:
            left = ticks_diff(self.slap_deadline, now)
            if left <= 0 and self.auto_t is None:
                # R26 ruling: nobody slapped in time. Two piles: each player takes the
                # pile they started (as if player 0 slapped pile 0). One pile (R33, equal
                # counts): the player who would win the next tie (R21) counts as out first.
                # Pressed through the arbiter at the deadline, so a slap touched before
                # it still wins by first touch.
                who = 0 if len(g.piles) == 2 else g.tie_priority
                self.auto_t = self.slap_deadline
                self.auto = ("slap", who, 0)
                self.arbiter.press(self.auto, self.slap_deadline)
                self.settle(now)
                state = True
                if self.ended:
                    return True
            self.slap_bar = left * BAR_MAX // self.slap_limit_us if left > 0 else 0
        else:
            self.slap_bar = -1
        us = self.fumbles.us
        for p in (0, 1):
            on = self._on[p]
            if on != _STANDING and ticks_diff(now, self._until[p]) >= 0:
                self._on[p] = _STANDING
                self.stand(p)
            elif on == _FUMBLE:
                left = self.fumbles.left_us(p, now)
                self.msgs[p].set_bar((left * BAR_MAX + us - 1) // us)
        if self.changed:
            self.changed = False
            self.observe(now)
        return state

    # ---- drawing ----------------------------------------------------------------------
    def draw(self, view, info=None):
        c = self._cursors
        c[0] = self.pads[0].cursor
        c[1] = self.pads[1].cursor
        return view.game(self.game, c, self.msgs, self.slap_bar, info)
