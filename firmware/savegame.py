# What the app keeps in storage (the storage port's load()/save(dict)): the settings
# and, between rounds only, a resumable game. The port makes writes atomic and
# checksummed; this module decides what a valid saved dict is, so a file that passed
# its checksum but came from another version, or was edited, still cannot crash the
# app: anything doubtful is dropped with a message and defaults are used.

from shared_rules.game import Game, READY, OVER
from shared_rules.conduct import FUMBLE_US

VERSION = 1
MODES = 4            # 0: two players; 1-3: against the CPU, easy / normal / hard


FUMBLE_MS = FUMBLE_US // 1000    # the default fumble time (R41: 0.5 s)
FUMBLE_MAX_MS = 5000
FUMBLE_CHOICES = (500, 1000, 1250, 1500, 0)     # the menu's steps from the default (0: off)
# Settings every saved file has had; a later setting missing from an older file takes
# its default (the file still loads).
_FIRST = ("mode", "points", "flip", "sound")


def default_settings():
    return {"mode": 0, "points": 0, "flip": 0, "sound": 1, "fumble": FUMBLE_MS, "signal": 1}


def _flag(x):
    return x in (0, 1) and not isinstance(x, bool)


def _int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def settings_from(d):
    """A settings dict from stored data, or None if it is not valid."""
    if not isinstance(d, dict):
        return None
    s = default_settings()
    for k in s:
        if k in d:
            s[k] = d[k]
        elif k in _FIRST:
            return None
    m = s["mode"]
    if not _int(m) or not 0 <= m < MODES:
        return None
    if not (_flag(s["points"]) and _flag(s["flip"]) and _flag(s["sound"]) and
            _flag(s["signal"])):
        return None
    f = s["fumble"]
    if not _int(f) or not 0 <= f <= FUMBLE_MAX_MS:
        return None
    return s


def next_fumble(ms):
    """The menu's next fumble time after ms (any saved value finds its place)."""
    for k in range(len(FUMBLE_CHOICES)):
        if FUMBLE_CHOICES[k] == ms:
            return FUMBLE_CHOICES[(k + 1) % len(FUMBLE_CHOICES)]
    for c in FUMBLE_CHOICES:
        if c > ms:
            return c
    return 0


def pack(settings, game=None, cpu=None, stats=None):
    d = {"v": VERSION, "settings": dict(settings), "game": None}
    if game is not None and game.phase != OVER:
        d["game"] = {"snap": game.snapshot(), "cpu": list(cpu),
                     "stats": list(stats) if stats is not None else None}
    return d


def unpack(d, defaults=None):
    """-> (settings, saved_game or None, message or None). saved_game is a dict with
    "game" (a restored Game), "cpu" ([level or None] * 2) and "stats" (a list).
    `defaults` (a valid settings dict) replaces default_settings() for a first start
    or when the stored settings are unusable."""
    fresh = defaults if defaults is not None else default_settings()
    if d is None:
        return dict(fresh), None, None
    if not isinstance(d, dict) or d.get("v") != VERSION:
        return dict(fresh), None, "SAVED DATA UNREADABLE"
    s = settings_from(d.get("settings"))
    if s is None:
        return dict(fresh), None, "SETTINGS RESET"
    g = d.get("game")
    if g is None:
        return s, None, None
    try:
        cpu = g["cpu"]
        if not (isinstance(cpu, list) and len(cpu) == 2):
            raise ValueError("cpu")
        for c in cpu:
            if c is not None and (not isinstance(c, int) or isinstance(c, bool) or not 1 <= c <= 3):
                raise ValueError("cpu")
        game = Game.restore(g["snap"])
        # Saved only between rounds: a new deal, nobody has said Spit yet.
        if game.phase != READY or game.piles or game.said[0] or game.said[1]:
            raise ValueError("not a round boundary")
        return s, {"game": game, "cpu": cpu, "stats": g.get("stats")}, None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return s, None, "SAVED GAME LOST"
