# Replay files as the hosts write and read them: shared_rules.replay's text (the seed,
# the rules, the conduct, every button event with its touch stamp, the frames at which
# something happened) with the hosts' header comments after the magic line:
#
#   # desktop_emulator p0=human p1=normal [frame_us=33333] [lost=N] [engine=web]
#   # resume-snapshot {...}          a resumed game's starting snapshot (JSON)
#
# One implementation for the desktop emulator, the emulated Pico's engine and the
# browser, so a recording made by any of them plays on the others.

import json

from shared_rules.arbiter import ticks_diff
from shared_rules.game import Game
from shared_rules import replay as rp
from host.state import dumps_sorted

META_PREFIX = "# desktop_emulator"
SNAPSHOT_PREFIX = "# resume-snapshot "
MAX_BUTTON = 7          # firmware/records.py packs a button code in 3 bits


class ReplayError(ValueError):
    """A replay that cannot be read or played (one line, for the CLI and the page)."""


class LoadedReplay:
    def __init__(self, replay, start_t, frames, snapshot, meta):
        self.replay = replay
        self.start_t = start_t      # the tick count at which the game started
        self.frames = frames        # [(t, [(t, player, code, down), ...])], in order
        self.snapshot = snapshot    # a resumed game's starting snapshot, or None
        self.meta = meta            # {"p0": "hard", ...} from the header comment

    @property
    def seed(self):
        return self.replay.seed

    @property
    def rules(self):
        return self.replay.rules


def parse_replay(text, name="replay"):
    """Text -> LoadedReplay; ReplayError with a one-line reason that starts with name."""
    try:
        replay = rp.parse(text)
    except ValueError as e:
        raise ReplayError("%s: %s" % (name, e))
    meta = {}
    snapshot = None
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith(META_PREFIX):
            for item in line[len(META_PREFIX):].split():
                k, eq, v = item.partition("=")
                if eq:
                    meta[k] = v
        elif line.startswith(SNAPSHOT_PREFIX):
            try:
                snapshot = json.loads(line[len(SNAPSHOT_PREFIX):])
                Game.restore(snapshot)
            except (ValueError, TypeError, KeyError, IndexError, AttributeError):
                raise ReplayError("%s: the resume snapshot is corrupt" % name)
    records = list(replay.records)
    if not records or records[0][0] != "frame":
        raise ReplayError("%s: no game in it (it must start with the frame the game "
                          "started at)" % name)
    start_t = records[0][1]
    frames = []
    pending = []
    last = start_t
    for rec in records[1:]:
        kind = rec[0]
        if kind == "button":
            if rec[3] > MAX_BUTTON:
                raise ReplayError("%s: button code %d is not a pad button" % (name, rec[3]))
            pending.append((rec[1], rec[2], rec[3], bool(rec[4])))
        elif kind == "frame":
            if ticks_diff(rec[1], last) < 0:
                raise ReplayError("%s: frame time %d goes back in time" % (name, rec[1]))
            last = rec[1]
            frames.append((rec[1], pending))
            pending = []
        else:
            raise ReplayError("%s: %s records are rules-level; this plays button "
                              "replays" % (name, kind))
    if pending:
        frames.append((last, pending))     # events recorded after the last frame
    return LoadedReplay(replay, start_t, frames, snapshot, meta)


def header(seats, frame_us=None, lost=0, engine=None, snapshot=None):
    """The hosts' header comment lines."""
    meta = [META_PREFIX, "p0=%s p1=%s" % (seats[0], seats[1])]
    if frame_us:
        meta.append("frame_us=%d" % frame_us)
    if lost:
        meta.append("lost=%d" % lost)
    if engine:
        meta.append("engine=%s" % engine)
    out = [" ".join(meta)]
    if snapshot is not None:
        out.append(SNAPSHOT_PREFIX + dumps_sorted(snapshot))
    return out


def format_replay(replay, seats, snapshot=None, frame_us=None, engine=None):
    """A recording (a Replay or the app's Recording) as text, with the header comment
    right after the magic line, so `head` shows it."""
    lines = replay.format().split("\n")
    lost = getattr(replay.records, "lost", 0)
    extra = header(seats, frame_us, lost, engine, snapshot)
    return "\n".join(lines[:1] + extra + lines[1:])
