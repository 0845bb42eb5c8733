# A game is its seed, its rules and its timestamped inputs (DESIGN.md "Replays").
# Text, one record a line, so replays diff well and survive any transport:
#
#   spit-replay 1
#   seed 42
#   rules points=0 manual_flip=0 target=100
#   conduct fumble=500 repeat=3000 cap=4 signal=1 signal_min=600 signal_max=1500
#           ignore=400 limit=3000 empty=1   the device's conduct (R41, R44, R26; one line,
#                                 shared_rules.conduct), every parameter in ms
#   fumble 500                    instead of a conduct line, in a replay recorded
#                                 before R41's escalation and R44: a flat fumble of
#                                 that many ms, no signal; with neither line: no fumble
#   press 1200345 play 0 2 1      an action touched at t_us (rules-level replays)
#   settle 1202345                the arbiter settled at now_us
#   button 1200345 0 1 1          a button event: t_us player button down(0/1)
#   frame 1216000                 the app stepped at now_us
#   digest 1216000 2 a1b2c3       at a round's end (the app at now_us): the round that
#                                 ended and Game.digest() after it in hex, so a replay
#                                 that reaches another state can say so
#   bound 1216000 1 412           a linked game (R43): from the frame at now_us on, the
#                                 presses of that player carry stamps converted from
#                                 the other handheld's clock, good to +-412 us, so two
#                                 conflicting presses that close are a tie (R21); the
#                                 other player's carry none. Without: bound 0
#
# Blank lines and lines starting with '#' are ignored.

from shared_rules.game import Rules, MAX_SEED
from shared_rules.conduct import Conduct

MAGIC = "spit-replay"
VERSION = 1
MAX_BOUND = 0xFFFF      # the link's bound field (firmware/link/play.py): 16 bits
VERBS = {"spit": 0, "play": 2, "fill": 2, "flip": 1, "slap": 1}


def format_action(action):
    return " ".join([str(x) for x in action])


def parse_action(text):
    """"play 0 2 1" -> ("play", 0, 2, 1); ValueError if it is not an action."""
    parts = text.split()
    if not parts or parts[0] not in VERBS:
        raise ValueError("not an action: %r" % (text,))
    if len(parts) != 2 + VERBS[parts[0]]:
        raise ValueError("wrong number of numbers in action: %r" % (text,))
    nums = []
    for x in parts[1:]:
        nums.append(_int(x, "action"))
    return tuple([parts[0]] + nums)


def _int(x, what):
    try:
        return int(x)
    except ValueError:
        raise ValueError("%s: not an integer: %r" % (what, x))


class Replay:
    def __init__(self, seed=0, rules=None, records=None):
        self.seed = seed
        self.rules = rules if rules is not None else Rules()
        self.conduct = None       # the device's conduct (R41, R44), if it recorded one
        # Each record is a tuple: ("press", t, action), ("settle", t),
        # ("button", t, player, button, down), ("frame", t), ("digest", t, round,
        # value), ("bound", t, player, us).
        self.records = records if records is not None else []

    def played_conduct(self):
        """The conduct this game was played under (R40: a replay plays under it): its
        conduct line; with none, a recording from before any of it: no fumble, no
        signal."""
        return self.conduct if self.conduct is not None else Conduct.legacy(0)

    def press(self, t_us, action):
        self.records.append(("press", t_us, tuple(action)))

    def settle(self, t_us):
        self.records.append(("settle", t_us))

    def button(self, t_us, player, button, down):
        self.records.append(("button", t_us, player, button, 1 if down else 0))

    def frame(self, t_us):
        self.records.append(("frame", t_us))

    def digest(self, t_us, rnd, value):
        self.records.append(("digest", t_us, rnd, value))

    def bound(self, t_us, player, us):
        self.records.append(("bound", t_us, player, us))

    def __eq__(self, other):
        return (isinstance(other, Replay) and self.seed == other.seed and
                self.rules == other.rules and self.conduct == other.conduct and
                self.records == other.records)

    def format(self):
        r = self.rules
        lines = [
            "%s %d" % (MAGIC, VERSION),
            "seed %d" % self.seed,
            "rules points=%d manual_flip=%d target=%d" % (r.points, r.manual_flip, r.target),
        ]
        if self.conduct is not None:
            lines.append(self.conduct.format())
        for rec in self.records:
            kind = rec[0]
            if kind == "press":
                lines.append("press %d %s" % (rec[1], format_action(rec[2])))
            elif kind == "digest":
                lines.append("digest %d %d %06x" % (rec[1], rec[2], rec[3]))
            else:
                lines.append(" ".join([str(x) for x in rec]))
        return "\n".join(lines) + "\n"


def parse(text):
    """Text -> Replay. ValueError naming the line for anything malformed."""
    lines = text.split("\n")
    rp = Replay()
    seen_magic = False
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line[0] == "#":
            continue
        try:
            _parse_line(rp, line, seen_magic)
        except ValueError as e:
            raise ValueError("replay line %d: %s" % (n, e))
        seen_magic = True
    if not seen_magic:
        raise ValueError("empty replay")
    return rp


def _parse_line(rp, line, seen_magic):
    parts = line.split()
    head = parts[0]
    if not seen_magic:
        if head != MAGIC or len(parts) != 2:
            raise ValueError("not a spit replay (expected '%s %d')" % (MAGIC, VERSION))
        if _int(parts[1], "version") != VERSION:
            raise ValueError("replay version %s, this program reads %d" % (parts[1], VERSION))
        return
    if head == "seed" and len(parts) == 2:
        seed = _int(parts[1], "seed")
        if not 0 <= seed <= MAX_SEED:
            raise ValueError("seed %d is not 0 .. 2**30-1" % seed)
        rp.seed = seed
    elif head == "rules":
        opts = {}
        for item in parts[1:]:
            key, eq, val = item.partition("=")
            if not eq or key not in ("points", "manual_flip", "target") or key in opts:
                raise ValueError("bad rule option %r" % (item,))
            v = _int(val, key)
            if key != "target" and v not in (0, 1):
                raise ValueError("rule option %s must be 0 or 1, not %d" % (key, v))
            opts[key] = v
        rp.rules = Rules.from_dict(opts)
    elif head == "fumble" and len(parts) == 2:
        ms = _int(parts[1], "fumble")
        if not 0 <= ms <= 60000:
            raise ValueError("fumble time %d ms is not 0 .. 60000" % ms)
        if rp.conduct is not None:
            raise ValueError("a second conduct line")
        rp.conduct = Conduct.legacy(ms)
    elif head == "conduct":
        if rp.conduct is not None:
            raise ValueError("a second conduct line")
        rp.conduct = Conduct.parse(parts[1:])
    elif head == "press" and len(parts) >= 3:
        rp.records.append(("press", _tick(parts[1]), parse_action(" ".join(parts[2:]))))
    elif head == "digest" and len(parts) == 4:
        rnd = _int(parts[2], "round")
        try:
            value = int(parts[3], 16)
        except ValueError:
            raise ValueError("digest: not a hex number: %r" % parts[3])
        if rnd < 1 or not 0 <= value <= 0xFFFFFF:
            raise ValueError("bad digest record %r" % (line,))
        rp.records.append(("digest", _tick(parts[1]), rnd, value))
    elif head == "bound" and len(parts) == 4:
        t = _tick(parts[1])
        player = _int(parts[2], "player")
        us = _int(parts[3], "bound")
        if player not in (0, 1):
            raise ValueError("bound: player %d is not 0 or 1" % player)
        if not 0 <= us <= MAX_BOUND:
            raise ValueError("bound %d us is not 0 .. %d" % (us, MAX_BOUND))
        rp.records.append(("bound", t, player, us))
    elif head in ("settle", "frame") and len(parts) == 2:
        rp.records.append((head, _tick(parts[1])))
    elif head == "button" and len(parts) == 5:
        t = _tick(parts[1])
        player = _int(parts[2], "player")
        button = _int(parts[3], "button")
        down = _int(parts[4], "down")
        if player not in (0, 1) or button < 0 or down not in (0, 1):
            raise ValueError("bad button event %r" % (line,))
        rp.records.append(("button", t, player, button, down))
    else:
        raise ValueError("unknown record %r" % (line,))


def _tick(x):
    t = _int(x, "time")
    if not 0 <= t < (1 << 30):
        raise ValueError("time %d is not a tick (0 <= t < 2**30)" % t)
    return t


def run(replay, window_us=2000):
    """Play a rules-level replay (press/settle records) and return (game, results)."""
    from shared_rules.game import Game
    from shared_rules.arbiter import Arbiter
    game = Game(replay.seed, replay.rules)
    arb = Arbiter(game, window_us)
    results = []
    remote = 0
    bound = 0
    for rec in replay.records:
        if rec[0] == "press":
            action = rec[2]
            mine = len(action) > 1 and action[1] == remote
            arb.press(action, rec[1], bound if mine else 0)
        elif rec[0] == "settle":
            results += arb.settle(rec[1])
        elif rec[0] == "bound":
            remote = rec[2]
            bound = rec[3]
    return game, results
