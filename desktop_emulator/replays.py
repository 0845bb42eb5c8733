"""Replays and recordings on disk: read a replay file (the format and its checks are the
host floor's, host/replays.py), write every game of a session (--record), and the
per-frame writers' one-line failures."""

import os

from host.replays import (ReplayError, LoadedReplay, parse_replay, format_replay,  # noqa: F401
                          META_PREFIX, SNAPSHOT_PREFIX)
from host.seats import names_of


class OutputError(Exception):
    """An output (frames, a GIF, a replay) that could not be written (one line)."""


def guarded(write, label):
    """Wrap a per-frame writer (--dump-frames) so that a failure while the game runs
    ends it with one line (OutputError), not a traceback."""
    def call(panel):
        try:
            write(panel)
        except Exception as e:                # OSError, pygame.error
            raise OutputError("%s: %s" % (label, getattr(e, "strerror", None) or e)) from None
    call.close = write.close
    return call


def numbered(path, k):
    """The file of the k-th game of a session: game.txt, game-2.txt, game-3.txt ..."""
    if k == 1:
        return path
    base, ext = os.path.splitext(path)
    return "%s-%d%s" % (base, k, ext)


# ---------------------------------------------------------------- replays on disk

def load_replay(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise ReplayError("cannot read replay %s: not a text file" % path) from None
    except OSError as e:
        raise ReplayError("cannot read replay %s: %s" % (path, e.strerror or e)) from None
    return parse_replay(text, "replay %s" % path)


def replay_text(app, seats=None, frame_us=None):
    """The app's recording of its current game, with the emulator's header comment."""
    rp = app.replay
    if rp is None:
        return None
    if seats is None:
        seats = names_of(app.cpu)
    return format_replay(rp, seats, app.replay_snapshot, frame_us)


class RecordedGame:
    """One game of a session, caught when it started (the app keeps only the last)."""

    def __init__(self, app):
        self.replay = app.replay
        self.seats = names_of(app.cpu)
        self.snapshot = app.replay_snapshot

    def text(self):
        return format_replay(self.replay, self.seats, self.snapshot)


def write_recordings(machine, path, warn=None):
    """Write every game of the session: the first to `path`, the next ones to
    numbered(path, k). Returns the paths; OSError if one cannot be written."""
    paths = []
    for k, g in enumerate(machine.games):
        out = numbered(path, k + 1)
        lost = getattr(g.replay.records, "lost", 0)
        if lost and warn is not None:
            warn("warning: the recording of %s is incomplete (%d records lost); it will "
                 "not replay to the same end" % (out, lost))
        write_replay(out, g.text())
        paths.append(out)
    return paths


def write_replay(path, text):
    """Write through a temporary file renamed over `path`, so a replay is never half
    written; only onto a regular file or a new name (the rename would replace a
    device node or a symbolic link)."""
    from desktop_emulator.outputs import refuse
    refuse(path)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
