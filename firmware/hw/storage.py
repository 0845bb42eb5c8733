# The storage port on the device: one small file on flash holding the settings and,
# between rounds only, a resumable game (flash writes stall interrupts, so never
# during play; the app decides when). Plain Python (os, json): no `machine`, so the
# emulator and the tests use it too.
#
# File format: one header line "SPIT1 <crc32 hex> <length>\n", then the JSON body.
# Writing is atomic: the whole file goes to "<path>.tmp", which is then renamed over
# the old one (littlefs renames atomically; on FAT, where rename refuses to replace,
# the old file is removed first and a load then finds the complete .tmp). A file that
# is missing, cut short, or fails its checksum is never trusted: load() returns None
# (the app then uses defaults) and `message` says why. Nothing here raises on bad data.
#
# Beside it, the current game's recording (firmware/records.py): a second file of raw
# chunks the app appends between rounds (R40: a whole game is kept, however long, and
# the heap holds only the round in play) and reads back when a host asks for the game;
# in a linked game a third, the game's stream as link play keeps it for a peer that
# rejoins (firmware/link/stream.py), appended at the same moments.

import json

from firmware.crc import crc32

_ENOENT = 2          # errno: no such file (MicroPython's OSError carries the errno)

try:
    import os
except ImportError:  # very old MicroPython
    import uos as os

MAGIC = "SPIT1"


def encode(d):
    body = json.dumps(d).encode()
    return ("%s %08x %d\n" % (MAGIC, crc32(body), len(body))).encode() + body


def decode(data):
    """File bytes -> dict, or None if they are not a whole, valid file."""
    if not data:
        return None
    try:
        nl = data.index(b"\n")
    except ValueError:
        return None
    head = data[:nl].split()
    body = data[nl + 1:]
    if len(head) != 3 or head[0] != MAGIC.encode():
        return None
    try:
        crc = int(head[1], 16)
        n = int(head[2])
    except ValueError:
        return None
    if n != len(body) or crc32(body) != crc:
        return None
    try:
        d = json.loads(body)
    except ValueError:
        return None
    return d if isinstance(d, dict) else None


class Flash:
    """The file operations storage needs, on the real filesystem."""

    def read(self, name):
        """The file's bytes; None if there is no such file (any other failure raises:
        the caller says the data is unreadable)."""
        try:
            with open(name, "rb") as f:
                return f.read()
        except OSError as e:
            if e.args and e.args[0] == _ENOENT:
                return None
            raise

    def write(self, name, data):
        with open(name, "wb") as f:
            f.write(data)
            if hasattr(f, "flush"):
                f.flush()
        sync = getattr(os, "sync", None)
        if sync is not None:
            sync()

    def append(self, name, chunks):
        """Add the chunks (bytes-like) at the end of the file, in one opening."""
        with open(name, "ab") as f:
            for c in chunks:
                f.write(c)
        sync = getattr(os, "sync", None)
        if sync is not None:
            sync()

    def read_into(self, name, offset, buf):
        """Fill buf from the file's bytes at offset; -> how many were read."""
        with open(name, "rb") as f:
            f.seek(offset)
            return f.readinto(buf)

    def rename(self, a, b):
        os.rename(a, b)

    def remove(self, name):
        try:
            os.remove(name)
        except OSError:
            pass


class FileStorage:
    def __init__(self, path="spit.json", fs=None):
        self.path = path
        self.tmp = path + ".tmp"
        self.rec_path = (path[:-5] if path.endswith(".json") else path) + ".rec"
        self.link_path = self.rec_path[:-4] + ".lnk"
        self.fs = fs if fs is not None else Flash()
        self.message = None
        # Recordings go to flash only where files can be appended to (not the
        # browser's localStorage, whose hosts keep whole games in memory anyway).
        self.recording = hasattr(self.fs, "append") and hasattr(self.fs, "read_into")

    def load(self):
        fs = self.fs
        self.message = None
        unreadable = False
        try:
            data = fs.read(self.path)
        except Exception as e:
            data = None
            # No file is a first start; anything else (a directory of that name, a
            # failing flash) is data the player had and cannot have now: say so.
            unreadable = not (isinstance(e, OSError) and e.args and e.args[0] == _ENOENT)
        d = decode(data)
        if d is not None:
            return d
        try:
            d = decode(fs.read(self.tmp))   # a save cut between remove and rename
        except Exception:
            d = None
        if d is not None:
            return d
        if data is not None:
            self.message = "SAVED DATA CORRUPT"
        elif unreadable:
            self.message = "SAVED DATA UNREADABLE"
        return None

    def save(self, d):
        fs = self.fs
        fs.write(self.tmp, encode(d))
        try:
            fs.rename(self.tmp, self.path)
        except OSError:
            fs.remove(self.path)            # FAT: rename does not replace
            fs.rename(self.tmp, self.path)

    # ---- files appended to between rounds: the game's recording (firmware/records.py
    # PackedRecords.spill) and a linked game's kept stream (firmware/link/stream.py
    # StreamLog.spill) --------------------------------------------------------------
    def rec_new(self):
        """Start an empty recording (the last game's is replaced)."""
        self._new(self.rec_path)

    def rec_add(self, chunks):
        self.fs.append(self.rec_path, chunks)

    def rec_read(self, offset, buf):
        """The recording's bytes at offset into buf; OSError if they are not all there."""
        self._read(self.rec_path, offset, buf)

    def link_new(self):
        """Start an empty stream file (the last linked game's is replaced)."""
        self._new(self.link_path)

    def link_add(self, blocks):
        self.fs.append(self.link_path, blocks)

    def link_read(self, offset, buf):
        """The stream file's bytes at offset into buf; OSError if not all there."""
        self._read(self.link_path, offset, buf)

    def _new(self, path):
        self.fs.remove(path)
        self.fs.append(path, ())

    def _read(self, path, offset, buf):
        n = self.fs.read_into(path, offset, buf)
        if n != len(buf):
            raise OSError(5)        # EIO: the file lost what was written to it
