# Reading a packed recording back (firmware/records.py): its records as the tuples
# shared_rules.replay knows, the spilled chunks read from the store first. Hosts ask for
# it (a replay file, the board's recording printed over serial) after a game; the device
# loads this module only then, so its code is not on the heap while a game is played.

from shared_rules.arbiter import ticks_add

from shared_rules.compat import const

# The chunk size, the head byte's kinds (an "other" with more bits set is a bound) and
# its tap bit, as firmware/records.py writes them (not imported from there: that module
# loads this one).
CHUNK = const(256)
_FRAME = const(0)
_OTHER = const(2)
_DIGEST = const(3)
_TAP = const(0x80)


class _Reader:
    """The stream's bytes in order: the spilled chunks from the store (read one at a
    time into one buffer), then the heap's."""

    def __init__(self, recs):
        self.recs = recs
        self.i = 0
        self.c = -1
        self.cur = None
        self.buf = bytearray(CHUNK) if recs._gone else None

    def byte(self):
        i = self.i
        c = i // CHUNK
        if c != self.c:
            r = self.recs
            self.c = c
            if c >= r._gone:
                self.cur = r._chunks[c - r._gone]
            else:
                r.store.rec_read(c * CHUNK, self.buf)
                self.cur = self.buf
        self.i = i + 1
        return self.cur[i % CHUNK]

    def uint(self):
        z = 0
        shift = 0
        while True:
            b = self.byte()
            z |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return z


def records(recs):
    """The records of a PackedRecords, in order, as tuples."""
    rd = _Reader(recs)
    k = 0
    t = 0
    while rd.i < recs._n:
        h = rd.byte()
        kind = h & 3
        if h == _OTHER:
            yield recs._other[k]
            k += 1
            continue
        z = rd.uint()
        t = ticks_add(t, (z >> 1) if not z & 1 else -((z + 1) >> 1))
        if kind == _FRAME:
            yield ("frame", t)
        elif kind == _DIGEST:
            rnd = rd.uint()
            yield ("digest", t, rnd, rd.uint())
        elif kind == _OTHER:
            yield ("bound", t, (h >> 3) & 1, rd.uint())
        else:
            yield ("button", t, (h >> 2) & 1, (h >> 3) & 7, (h >> 6) & 1)
            if h & _TAP:
                yield ("button", t, (h >> 2) & 1, (h >> 3) & 7, 0)


def same(recs, other):
    """Has `other` (a list, or anything with len() and iteration) the same records?"""
    try:
        if len(other) != recs._count:
            return False
    except TypeError:
        return False
    items = other if isinstance(other, list) else list(other)
    i = 0
    for rec in recs:
        if tuple(items[i]) != rec:
            return False
        i += 1
    return True


def as_replay(rec):
    """A firmware.records.Recording as a shared_rules.replay.Replay (same records)."""
    from shared_rules.replay import Replay
    r = Replay(rec.seed, rec.rules, rec.records)
    r.conduct = rec.conduct
    return r
