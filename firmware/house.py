# House rules: a small text file a teacher (or a pupil) writes to set a class's game
# without touching the code -- the first step of docs/teachers/CHANGING_THE_GAME.md.
#
#     # our class plays to 50
#     rules = points
#     target = 50
#     fumble = 1000
#
# It lies beside the storage file ("house.txt" next to "spit.json": the board's root,
# the desktop's data folder). The app reads it once, at power-up. A file with any bad
# line is ignored as a whole (half a rule set is a different game than the one the
# teacher wrote) and the title screen says which line; the settings stay as they were.

from firmware import savegame

HOUSE_FILE = "house.txt"
MAX_BYTES = 2048        # a house file is a few lines; more is not one (and costs heap)
TARGET_MAX = 999        # R37's target as a points game can reach it in a lesson

# name -> (settings key, what the value may be). The words are the menu's own.
_ONOFF = (("on", 1), ("off", 0), ("yes", 1), ("no", 0))
_WORDS = {
    "rules": ("points", (("standard", 0), ("points", 1))),
    "flip": ("flip", (("auto", 0), ("manual", 1))),
    "slap_signal": ("signal", _ONOFF),
    "sound": ("sound", _ONOFF),
    "players": ("mode", (("2", 0), ("cpu easy", 1), ("cpu normal", 2), ("cpu hard", 3))),
    # Link play's cable test: this handheld's own player is the CPU (firmware/link/play.py).
    "link_player": ("link_cpu", (("person", 0), ("cpu easy", 1), ("cpu normal", 2),
                                 ("cpu hard", 3))),
}
_NUMBERS = {"fumble": ("fumble", 0, savegame.FUMBLE_MAX_MS, " ms"),
            "target": ("target", 1, TARGET_MAX, "")}
NAMES = ("rules", "target", "flip", "fumble", "slap_signal", "sound", "players",
         "link_player")


class HouseRulesError(ValueError):
    """A bad house file. .line: its line number (0: the file as a whole); str(): the
    one line a host prints; .note: the title screen's short version."""

    def __init__(self, line, what):
        super().__init__("%s: %s%s" % (
            HOUSE_FILE, "line %d: " % line if line else "", what))
        self.line = line
        self.note = ("HOUSE.TXT LINE %d BAD" % line) if line else "HOUSE.TXT IGNORED"


def _choices(table):
    out = []
    for word, _ in table:
        out.append(word)
    return ", ".join(out)


def parse(text):
    """House-file text -> {settings key: value} (a "target" key for R37's target, a
    "link_cpu" key for link play's cable test).
    Raises HouseRulesError naming the first bad line; an empty file is {}."""
    out = {}
    n = 0
    if text.startswith("\ufeff"):      # Windows editors may begin a file with a BOM
        text = text[1:]
    for raw in text.split("\n"):
        n += 1
        line = raw
        k = line.find("#")
        if k >= 0:
            line = line[:k]
        line = line.strip()
        if not line:
            continue
        if "=" not in line:
            raise HouseRulesError(n, "expected 'name = value', got %r" % raw.strip())
        parts = line.split("=", 1)
        name = parts[0].strip().lower()
        value = " ".join(parts[1].lower().split())     # "cpu   hard" is "cpu hard"
        if name in _WORDS:
            key, table = _WORDS[name]
            got = None
            for word, v in table:
                if word == value:
                    got = v
            if got is None:
                raise HouseRulesError(n, "%s must be one of: %s (got %r)" % (
                    name, _choices(table), value))
        elif name in _NUMBERS:
            key, lo, hi, unit = _NUMBERS[name]
            try:
                got = int(value)
            except ValueError:
                got = None
            if got is None or not lo <= got <= hi:
                raise HouseRulesError(n, "%s must be a whole number %d-%d%s (got %r)" % (
                    name, lo, hi, unit, value))
        else:
            raise HouseRulesError(n, "unknown setting %r (known: %s)" % (
                name, ", ".join(NAMES)))
        if key in out:
            raise HouseRulesError(n, "%s is set twice" % name)
        out[key] = got
    return out


def path_beside(storage_path):
    """The house file's path in the storage file's folder ("/" or "\\" separated)."""
    cut = max(storage_path.rfind("/"), storage_path.rfind("\\"))
    return storage_path[:cut + 1] + HOUSE_FILE


def read_text(storage):
    """The house file's text beside the storage port's file, or None: no file, or a
    storage with no file (tests, replays). Raises HouseRulesError if it is there but
    cannot be read or is no short text file."""
    path = getattr(storage, "path", None)
    if not isinstance(path, str):
        return None
    fs = getattr(storage, "fs", None)
    if fs is None:
        from firmware.hw.storage import Flash
        fs = Flash()
    try:
        data = fs.read(path_beside(path))
    except Exception:
        raise HouseRulesError(0, "cannot be read; settings kept")
    if data is None:
        return None
    if len(data) > MAX_BYTES:
        raise HouseRulesError(0, "longer than %d bytes; settings kept" % MAX_BYTES)
    try:
        return data.decode("utf-8") if isinstance(data, bytes) else str(data)
    except UnicodeError:
        raise HouseRulesError(0, "is not a text file; settings kept")


def load(storage, text=None):
    """-> (rules dict, None) or ({}, HouseRulesError): never raises. text: the file's
    text from a host that read it itself; None: look beside the storage file."""
    try:
        if text is None:
            text = read_text(storage)
        if text is None:
            return {}, None
        return parse(text), None
    except HouseRulesError as e:
        return {}, e
