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
#: Bytes of recording a game may use on a host (the device keeps 16 KB,
#: firmware/app.py RECORD_LIMIT): a host records whole games.
RECORD_LIMIT = 256 << 20


class ReplayError(ValueError):
    """A replay that cannot be read or played (one line, for the CLI and the page)."""


class LoadedReplay:
    def __init__(self, replay, start_t, frames, snapshot, meta, digests=(), bounds=None):
        self.replay = replay
        # A linked game's (R43): {k: (player, us)}, the bound in force for the presses
        # of frames[k] on; empty for a game of one handheld (every bound 0).
        self.bounds = bounds if bounds is not None else {}
        self.digests = list(digests)    # [(round, digest)] at each round's end, in order
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
    digests = []
    bounds = {}
    last = start_t
    for rec in records[1:]:
        kind = rec[0]
        if kind == "digest":
            digests.append((rec[2], rec[3]))
        elif kind == "bound":
            # Set before the frame it was recorded in: the app was given it then.
            bounds[len(frames)] = (rec[2], rec[3])
        elif kind == "button":
            if rec[3] > MAX_BUTTON:
                raise ReplayError("%s: button code %d is not a pad button" % (name, rec[3]))
            if pending and ticks_diff(rec[1], pending[-1][0]) < 0:
                # The app records each frame's events in stamp order (R19): one stamped
                # before the event above it was not recorded, it was edited.
                raise ReplayError("%s: a press at %d comes after one at %d" % (
                    name, rec[1], pending[-1][0]))
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
    return LoadedReplay(replay, start_t, frames, snapshot, meta, digests, bounds)


def start_loaded(app, loaded):
    """Start an app's game as a LoadedReplay recorded it (a linked game's with the
    arbiter that honours its bounds, R43)."""
    app.start_game(loaded.seed, loaded.rules, (None, None), loaded.start_t,
                   snapshot=loaded.snapshot, conduct=loaded.replay.played_conduct(),
                   linked=bool(loaded.bounds))


def step_loaded(app, inp, loaded, k):
    """Step an app through frames[k] of a LoadedReplay, its events given through
    inp (the app's host.ports.FrameInput); True if it drew."""
    t, events = loaded.frames[k]
    b = loaded.bounds.get(k)
    if b is not None:
        app.link_bound(b[0], b[1])
    inp.events = list(events)
    return app.step(t)


def digests_of(records):
    """[(round, digest)] of a recording's digest records."""
    out = []
    for rec in records:
        if rec[0] == "digest":
            out.append((rec[2], rec[3]))
    return out


def divergence(loaded, replayed, finished):
    """None if a replay reached every state its recording says it did; else one line.
    loaded: the LoadedReplay; replayed: [(round, digest)] the replaying app recorded;
    finished: the replay ran to its last frame (so it must have reached them all)."""
    want = loaded.digests
    for k in range(min(len(want), len(replayed))):
        if want[k] != replayed[k]:
            return ("the replay diverged from its recording at the end of round %d "
                    "(recorded %06x, replayed %06x): it is not the game it recorded" % (
                        want[k][0], want[k][1], replayed[k][1]))
    if finished and len(replayed) < len(want):
        return ("the replay diverged from its recording: it never reached the end of "
                "round %d, which the recording did" % want[len(replayed)][0])
    return None


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
