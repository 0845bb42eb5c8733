# One game on the table, as the players see and hear it: the press pipeline of the
# rules core (shared_rules.match: dead buttons, pad, slap signal, arbiter, game), the
# players' seats, and what each player's message corner says. The game screen owns one
# for a real game and the attract mode one for its demo; the table knows no screens. It
# raises `ended` when the round (or the game) is over, and plays sounds and counts
# through the `want` and `stats` it is given (the attract mode gives silent ones).

from shared_rules.game import PLAY, SLAP
from shared_rules.arbiter import ticks_diff, ticks_add
from shared_rules.bot import bot_seed
from shared_rules import match as M
from firmware import sound, texts
from firmware.view import Message, BAR_MAX
from firmware.seats import HumanSeat, CpuSeat, level_name

from shared_rules.compat import const

MSG_US = const(1500000)            # a feedback message stays this long

# What a message corner shows (Table._on).
_STANDING = const(0)
_FLASH = const(1)
_FUMBLE = const(2)


class Table(M.Match):
    def __init__(self, game, cpu, scheme, window_us, conduct, stats, want, now):
        """cpu[p]: None for a person, or the menu's CPU level 1-3 (or a bot level
        name). conduct: the device's conduct (shared_rules.conduct.Conduct). want(tune):
        play a sound. stats: a firmware.stats.Stats."""
        M.Match.__init__(self, game, conduct, window_us, scheme)
        self.cpu = cpu
        self.seats = [HumanSeat(0), HumanSeat(1)]
        self.stats = stats
        self.want = want
        self.msgs = [Message(), Message()]
        self._until = [0, 0]
        self._on = [_STANDING, _STANDING]
        self.slap_bar = -1
        self.slap_t = None            # the decisive slap: stamp and player
        self.slap_p = -1
        self.nobody = False           # nobody slapped in time: the table's own slap decided
        self.false_p = -1             # the false start that decided the round (R44)
        self.changed = False
        self._look = False            # the CPU seats are owed a look at the table
        self._look_t = 0              # (as of this time: the tick that changed it)
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
                seed = bot_seed(g.seed + g.round * 1009 + (now & 0xFFFF), p)
                seat = CpuSeat(p, level_name(c) if isinstance(c, int) else c, seed)
                seat.bot.awaits_signal = self.conduct.signal
                self.seats[p] = seat
            else:
                self.seats[p] = HumanSeat(p)

    def poll(self, now, evs, hook=None):
        """Append the CPU seats' button events due by now to evs; hook(t, p, button)
        hears of each CPU press (a host lights the pad)."""
        self._looked()
        for seat in self.seats:
            if not seat.human:
                n = len(evs)
                seat.poll(now, evs)
                if hook is not None:
                    for k in range(n, len(evs)):
                        e = evs[k]
                        if e[3]:
                            hook(e[0], e[1], e[2])

    def prepare(self):
        """Between frames: the CPU seats weigh their next look's moves ahead (the
        device's loop calls it when the chip is idle; see shared_rules.bot)."""
        self._looked()
        for seat in self.seats:
            if not seat.human:
                seat.prepare()

    def enter(self, now):
        """Play (re)starts on screen: a new round, or after a pause."""
        M.Match.enter(self)
        self.slap_t = None
        self.nobody = False
        self.false_p = -1
        self.slap_bar = -1
        self._look = False
        self.stats.new_stretch()
        for p in (0, 1):
            self._on[p] = _STANDING
            self.stand(p)
            self.seats[p].observe(self.game, now, self.pads[p].cursor)

    def observe(self, now):
        self._look = False
        for p in (0, 1):
            if not self.seats[p].human:
                self.seats[p].observe(self.game, now, self.pads[p].cursor)

    # ---- presses ----------------------------------------------------------------------
    def press(self, t, p, code):
        """A button of player p went down at t. False if the round ended before this
        press was touched (the owner passes it on to the next screen)."""
        what = M.Match.press(self, t, p, code)
        if what == M.MOVED:
            self.changed = True           # the cursor moved
        return what != M.ENDED

    def on_outcome(self, kind, p, action, t, reason, now):
        self.changed = True
        verb = action[0]
        if kind == M.APPLIED:
            if verb == "play":
                self.stats.play(p, t)
                self.want(sound.PLAY)
            elif verb == "spit":
                self.want(sound.SAID)
            elif verb == "slap":
                if action is self.auto:
                    self.nobody = True    # R26: nobody slapped in time
                else:
                    self.slap_t = t
                    self.slap_p = p
                self.want(sound.SLAP)
            else:
                self.want(sound.MOVE)
        elif kind == M.FALSE_START:
            # R44: a slap before the signal; shown on that player's side (the summary
            # says it too when it decided the round).
            self.stats.false_start(p)
            if reason is None:
                self.false_p = p
            self.flash(p, texts.FALSE_START, True, t)
            self.want(sound.FUMBLE)
        elif kind == M.TOO_LATE:
            self.flash(p, texts.TOO_LATE, False, t)      # R26: past the time limit
            self.want(sound.ILLEGAL)
        elif kind == M.BEATEN_TO_IT:
            # R20: legal when pressed, but the other player touched first.
            self.stats.won_race(1 - p)
            self.flash(p, texts.beaten(self.arbiter.beaten_by_us[p]), True, t)
            self.want(sound.LOST)
        elif kind == M.FUMBLE:
            # R41: dead buttons from the touch, for as long as this fumble lasts.
            until = ticks_add(t, self.fumbles.length[p])
            self.stats.fumble(p)
            self.msgs[p].set(texts.FUMBLE, "", True, BAR_MAX)
            self._on[p] = _FUMBLE
            self._until[p] = until
            self.seats[p].fumbled(until, now)
            self.want(sound.FUMBLE)
        elif kind == M.REFUSED:
            self.flash(p, texts.REASONS.get(reason, texts.NOT_ALLOWED), False, t)
            self.want(sound.ILLEGAL)

    def on_phase(self, phase, t):
        self.stats.new_stretch()
        if phase == PLAY:
            self.want(sound.SPIT)                        # R9, R23: the cards turn
        elif phase == SLAP and self.signalled:
            self.want(sound.SLAP_NOW)                    # no signal to wait for
        for p in (0, 1):
            if self._on[p] == _FLASH:
                self._on[p] = _STANDING

    def on_settled(self, t):
        for p in (0, 1):
            if self._on[p] == _STANDING:
                self.stand(p)

    def on_signal(self, now):
        # R44: "SLAP!" shows and sounds; the CPU players see it as a person does.
        self.want(sound.SLAP_NOW)
        for seat in self.seats:
            if not seat.human:
                seat.signal(now)

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
        state = M.Match.tick(self, now)
        if self.ended:
            return True
        left = self.slap_left_us(now)
        self.slap_bar = left * BAR_MAX // self.conduct.limit_us if left >= 0 else -1
        for p in (0, 1):
            on = self._on[p]
            if on != _STANDING and ticks_diff(now, self._until[p]) >= 0:
                self._on[p] = _STANDING
                self.stand(p)
            elif on == _FUMBLE:
                left = self.fumbles.left_us(p, now)
                n = self.fumbles.length[p]
                self.msgs[p].set_bar((left * BAR_MAX + n - 1) // n)
        if self.changed:
            # The CPU seats look at the table as of now, but off this frame: between
            # frames (prepare) or at their next poll, whichever comes first. Nothing
            # changes the table before either, so they see what they would see now.
            self.changed = False
            self._look = True
            self._look_t = now
        return state

    def _looked(self):
        if self._look:
            self.observe(self._look_t)

    # ---- drawing ----------------------------------------------------------------------
    def draw(self, view, info=None):
        c = self._cursors
        c[0] = self.pads[0].cursor
        c[1] = self.pads[1].cursor
        return view.game(self.game, c, self.msgs, self.slap_bar, info, not self.signalled)
