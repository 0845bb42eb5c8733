# The device's conduct (RULES.md "Conduct of the device"): not rules of the cards but
# how a handheld keeps the race one of seeing and reacting, not of pressing blindly.
#
# - R41, the fumble: a press the rules refuse during play leaves that player's buttons
#   dead from its touch stamp; a repeated fumble (within 3 s of the buttons coming back,
#   no play applied since) lasts twice the previous one, at most four times the fumble
#   time.
# - R44, the slap signal: "SLAP!" comes 0.6-1.5 s after the touch that ended the round,
#   a slap within 0.4 s of that touch is ignored, a slap before the signal is a false
#   start, and R26's time limit counts from the signal.
#
# Every parameter lives in one Conduct, which a recording keeps with the game (its
# "conduct" line), so a replay plays under the conduct it was recorded with (R40): a
# recording made before these rulings existed replays with a flat fumble and no signal.
# Everything here is pure and integer; shared_rules.match applies it.

from shared_rules.arbiter import BEATEN, ticks_diff, ticks_add
from shared_rules.game import NOT_NOW
from shared_rules.rng import Rng

FUMBLE_US = 500000            # R41: the fumble time, 0.5 s
FUMBLE_REPEAT_US = 3000000    # R41: a fumble within 3 s of live buttons repeats the run
FUMBLE_CAP = 4                # R41: a repeated fumble lasts at most 4 fumble times
SIGNAL_MIN_US = 600000        # R44: the signal comes 0.6 ...
SIGNAL_MAX_US = 1500000       # ... to 1.5 s after the round's last touch
SLAP_IGNORE_US = 400000       # R44: a slap this soon after that touch was meant for the play
SLAP_LIMIT_US = 3000000       # R26: the slap time limit

_FUMBLE_VERBS = ("play", "fill", "flip")

# The conduct line's fields, in ms: (name, attribute, lowest, highest).
_FIELDS = (
    ("fumble", "fumble_us", 0, 60000),
    ("repeat", "repeat_us", 0, 60000),
    ("cap", "cap", 1, 64),
    ("signal", "signal", 0, 1),
    ("signal_min", "signal_min_us", 0, 60000),
    ("signal_max", "signal_max_us", 0, 60000),
    ("ignore", "ignore_us", 0, 60000),
    ("limit", "limit_us", 1, 600000),
    ("empty", "empty", 0, 1),
)


class Conduct:
    """The conduct parameters, in µs (cap: times the fumble time; signal: 0/1).
    repeat_us 0: every fumble lasts the fumble time (R41 before its escalation)."""

    def __init__(self, fumble_us=FUMBLE_US, repeat_us=FUMBLE_REPEAT_US, cap=FUMBLE_CAP,
                 signal=1, signal_min_us=SIGNAL_MIN_US, signal_max_us=SIGNAL_MAX_US,
                 ignore_us=SLAP_IGNORE_US, limit_us=SLAP_LIMIT_US, empty=1):
        self.fumble_us = fumble_us
        self.repeat_us = repeat_us
        self.cap = cap
        self.signal = int(signal) if isinstance(signal, bool) else signal
        self.signal_min_us = signal_min_us
        self.signal_max_us = signal_max_us
        self.ignore_us = ignore_us
        self.limit_us = limit_us
        # 1: a press on a slot the player's own play emptied is never a fumble (R41:
        # it puts no card down); recordings from before that was so say 0.
        self.empty = int(empty) if isinstance(empty, bool) else empty
        for name, attr, lo, hi in _FIELDS:
            v = getattr(self, attr)
            scale = 1000 if attr.endswith("_us") else 1
            if not isinstance(v, int) or isinstance(v, bool) or not lo * scale <= v <= hi * scale:
                raise ValueError("conduct %s %r is not %d .. %d" % (name, v, lo, hi))
            if scale == 1000 and v % 1000:
                raise ValueError("conduct %s must be whole ms" % name)
        if self.signal_max_us < self.signal_min_us:
            raise ValueError("conduct signal_max is below signal_min")

    @classmethod
    def legacy(cls, fumble_ms):
        """A recording from before R41's escalation and R44: a flat fumble, no signal,
        and a press on an empty slot was a fumble like any refused press."""
        return cls(fumble_ms * 1000, 0, FUMBLE_CAP, 0, empty=0)

    def format(self):
        """The recording's conduct line: every parameter, in ms."""
        out = ["conduct"]
        for name, attr, _, _ in _FIELDS:
            v = getattr(self, attr)
            out.append("%s=%d" % (name, v // 1000 if attr.endswith("_us") else v))
        return " ".join(out)

    @classmethod
    def parse(cls, items):
        """The fields of a conduct line (after the word) -> Conduct; ValueError names
        the bad field. Every field must be there, once."""
        kw = {}
        for item in items:
            key, eq, val = item.partition("=")
            attr = None
            for name, a, _, _ in _FIELDS:
                if name == key:
                    attr = a
            if not eq or attr is None or attr in kw:
                raise ValueError("bad conduct field %r" % (item,))
            try:
                v = int(val)
            except ValueError:
                raise ValueError("conduct %s: not an integer: %r" % (key, val))
            kw[attr] = v * 1000 if attr.endswith("_us") else v
        if len(kw) != len(_FIELDS):
            missing = [n for n, a, _, _ in _FIELDS if a not in kw]
            raise ValueError("conduct line lacks %s" % ", ".join(missing))
        return cls(**kw)

    def __eq__(self, other):
        return isinstance(other, Conduct) and self.format() == other.format()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "Conduct(%s)" % self.format()


def is_fumble(action, reason):
    """R41: was this settled action a fumble? A play, fill or flip the rules refused
    during play. Never a lost race ("beaten", R20: it fitted when pressed), never a
    press the phase had moved past ("not now"), never the cursor, Spit! or a slap.
    (A press on an empty slot is none either, under the conduct that says so:
    Match decides that before it asks here.)"""
    return (reason is not None and reason != BEATEN and reason != NOT_NOW and
            action[0] in _FUMBLE_VERBS)


class Fumbles:
    """Both players' fumbles (R41): a fumble touched at t leaves that player's buttons
    dead from t for length[p] µs. The first of a run lasts the fumble time; a repeated
    one (touched less than repeat_us after the buttons came back from the previous one,
    with no play of that player applied since) lasts twice the previous, at most cap
    fumble times. A played card (played(p)) ends the run. us 0: fumbles are off."""

    def __init__(self, us=FUMBLE_US, repeat_us=0, cap=FUMBLE_CAP):
        self.us = us
        self.repeat_us = repeat_us
        self.cap_us = us * cap
        self.start = [None, None]
        self.length = [0, 0]
        self.count = [0, 0]
        self._run = [False, False]      # a run of repeated fumbles is open

    def settled(self, action, t, reason):
        """Note a settled action; True if it was a fumble that starts a dead time."""
        if self.us <= 0 or not is_fumble(action, reason):
            return False
        p = action[1]
        n = self.us
        s = self.start[p]
        if self.repeat_us and self._run[p] and s is not None:
            back = ticks_add(s, self.length[p])          # the buttons came back then
            if ticks_diff(t, back) < self.repeat_us:
                n = self.length[p] * 2
                if n > self.cap_us:
                    n = self.cap_us
        self.start[p] = t
        self.length[p] = n
        self._run[p] = True
        self.count[p] += 1
        return True

    def played(self, p):
        """Player p's card went onto a spit pile: their run of fumbles is over (R41)."""
        self._run[p] = False

    def dead(self, p, t):
        """Are player p's buttons dead for a press touched at t?"""
        s = self.start[p]
        if s is None:
            return False
        d = ticks_diff(t, s)
        return 0 <= d < self.length[p]

    def left_us(self, p, now):
        """How long player p's buttons stay dead after now (0: live)."""
        s = self.start[p]
        if s is None:
            return 0
        d = ticks_diff(now, s)
        n = self.length[p]
        if d < 0 or d >= n:
            return 0
        return n - d


def signal_seed(seed, rnd):
    """The seed of round rnd's slap-signal draw (R44): its own generator, so the deals
    are the same with the signal on or off."""
    return (seed * 1009 + rnd * 7919 + 0x51A9) & 0x3FFFFFFF


def signal_delay_us(conduct, seed, rnd):
    """R44: how long after the round's last touch "SLAP!" comes: uniform from
    signal_min to signal_max in 1 ms steps, drawn from the game's seed and the round."""
    lo = conduct.signal_min_us // 1000
    n = conduct.signal_max_us // 1000 - lo + 1
    return (lo + Rng(signal_seed(seed, rnd)).below(n)) * 1000
