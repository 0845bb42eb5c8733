# Compact storage for a Replay's records (shared_rules.replay): a whole game of button
# events and frame times has to be kept by the device next to the game (DESIGN.md
# "Replays", R40). A list of tuples costs ~40 bytes a record and one ever-growing block;
# here a record is a byte stream of about 4 bytes: one head byte, then the time since
# the previous record as a zigzag varint (ticks_diff, so the 2**30 wrap and a stamp a
# little older than the previous record both cost little). The stream lives in small
# fixed chunks, so nothing big has to be found or copied in a fragmented heap.
#
# A game is longer than the heap can hold: between rounds the app hands the full
# chunks to the storage port (spill()), which appends them to a file on flash, and the
# heap keeps only the round in play. Reading the records back (iteration, format();
# firmware/records_read.py, loaded only then) reads the spilled chunks from the file
# first, so every host still gets the whole game.
#
# Replay(seed, rules, PackedRecords()) works unchanged: Replay.button()/frame() append
# tuples, which are packed at once (the tuple is short-lived garbage); iterating gives
# the tuples back, so Replay.format() and == work. The app records into a Recording
# (below), which is the same without importing the replay text format. Digest records
# are packed too; other record kinds (press, settle) are kept as they are in a side
# list, in order. When `limit` bytes are held in the heap, further records are dropped
# and counted in `lost` (the app reports it); nothing fails.
#
# Head byte: bits 0-1 kind (0 frame, 1 button, 2 other, 3 digest); for a button, bit 2
# the player, bits 3-5 the button code, bit 6 down, bit 7 "and released at the same
# stamp" (a CPU seat's tap: two records for the price of one). A digest's time is
# followed by its round and its value as plain varints. An "other" with bit 2 set is a
# linked game's bound (R43), bit 3 its player: its time, then the bound as a varint.

from shared_rules.arbiter import ticks_diff, ticks_add

from shared_rules.compat import const

CHUNK = const(256)
_FRAME = const(0)
_BUTTON = const(1)
_OTHER = const(2)
_DIGEST = const(3)
_TAP = const(0x80)
_BOUND = const(_OTHER | 4)


class PackedRecords:
    def __init__(self, limit=32768, store=None):
        """store: where spill() puts full chunks (a storage port with rec_new(),
        rec_add([chunks]) and rec_read(offset, buf)); None keeps everything in the heap."""
        self.limit = limit
        self.lost = 0
        self.store = store
        self.spill_errors = 0
        self._chunks = []     # the chunks still in the heap: the first is chunk _gone
        self._gone = 0        # chunks spilled to the store
        self._n = 0           # bytes used, spilled ones included
        self._last = 0        # stamp of the previous packed record
        self._other = []
        self._count = 0
        self._head = -1       # where the last button press's head byte is, while a tap may follow
        self._head_t = 0

    def _byte(self, b):
        k = self._n % CHUNK
        if k == 0:
            self._chunks.append(bytearray(CHUNK))
        self._chunks[-1][k] = b
        self._n += 1

    def _room(self):
        # A new chunk is needed soon: get it now, or stop recording if the heap has
        # no room left (the game matters more than its recording).
        if self._n % CHUNK <= CHUNK - 16:
            return True
        try:
            self._spare = bytearray(CHUNK)
            self._spare = None
            return True
        except MemoryError:
            self.limit = self._n - self._gone * CHUNK
            return False

    def _uint(self, z):
        while z >= 0x80:
            self._byte((z & 0x7F) | 0x80)
            z >>= 7
        self._byte(z)

    def _time(self, t):
        d = ticks_diff(t, self._last)
        self._last = t
        self._uint((d << 1) if d >= 0 else ((-d << 1) - 1))     # zigzag: small either side

    def append(self, rec):
        if self._n - self._gone * CHUNK + 16 > self.limit or not self._room():
            self.lost += 1
            return
        kind = rec[0]
        if kind == "frame":
            self._head = -1
            self._byte(_FRAME)
            self._time(rec[1])
        elif kind == "button" and rec[2] in (0, 1) and 0 <= rec[3] < 8 and rec[4] in (0, 1):
            h = _BUTTON | (rec[2] << 2) | (rec[3] << 3) | (rec[4] << 6)
            k = self._head
            if (k >= 0 and not rec[4] and rec[1] == self._head_t and
                    self._at(k) == h | 0x40):
                self._chunks[k // CHUNK - self._gone][k % CHUNK] = h | 0x40 | _TAP
                self._head = -1
            else:
                self._head = self._n if rec[4] else -1
                self._head_t = rec[1]
                self._byte(h)
                self._time(rec[1])
        elif kind == "digest" and 0 <= rec[2] < 0x40000000 and 0 <= rec[3] < 0x40000000:
            self._head = -1
            self._byte(_DIGEST)
            self._time(rec[1])
            self._uint(rec[2])
            self._uint(rec[3])
        elif kind == "bound" and rec[2] in (0, 1) and 0 <= rec[3] < 0x40000000:
            self._head = -1
            self._byte(_BOUND | (rec[2] << 3))
            self._time(rec[1])
            self._uint(rec[3])
        else:
            self._head = -1
            self._other.append(rec)
            self._byte(_OTHER)
        self._count += 1

    def spill(self):
        """Hand every full chunk to the store and drop it from the heap. Only between
        rounds: the store writes flash, and a flash erase stalls the interrupts that
        stamp presses. -> bytes written. A store that fails is not used again: what it
        did not take stays in the heap."""
        st = self.store
        full = len(self._chunks) - (1 if self._n % CHUNK else 0)
        if st is None or self.spill_errors or full <= 0:
            return 0
        try:
            if self._gone == 0:
                st.rec_new()
            st.rec_add(self._chunks[:full])
        except Exception:
            self.spill_errors += 1
            return 0
        del self._chunks[:full]
        self._gone += full
        self._head = -1       # its byte may be on flash now: a tap is two records
        return full * CHUNK

    def __len__(self):
        return self._count

    def _at(self, i):
        return self._chunks[i // CHUNK - self._gone][i % CHUNK]

    def __iter__(self):
        # Reading is for hosts (a replay file, the board's recording over serial): its
        # code is loaded only then, not kept on the heap during a game.
        from firmware.records_read import records
        return records(self)

    def __eq__(self, other):
        from firmware.records_read import same
        return same(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def nbytes(self):
        """Bytes of memory held by the stream (what is on flash is not)."""
        return len(self._chunks) * CHUNK

    def spilled(self):
        """Bytes of the stream handed to the store."""
        return self._gone * CHUNK


class Recording:
    """A game's recording on the device: what shared_rules.replay.Replay records (the
    seed, the rules, the conduct, the button events and frames, a linked game's
    bounds), packed, without
    the text format, which the device never needs: format() and replay() load it
    when a host asks, so its code is not on the device's heap during a game."""

    def __init__(self, seed, rules, limit=32768, store=None):
        self.seed = seed
        self.rules = rules
        self.conduct = None
        self.records = PackedRecords(limit, store)

    def button(self, t_us, player, button, down):
        self.records.append(("button", t_us, player, button, 1 if down else 0))

    def frame(self, t_us):
        self.records.append(("frame", t_us))

    def digest(self, t_us, rnd, value):
        self.records.append(("digest", t_us, rnd, value))

    def bound(self, t_us, player, us):
        self.records.append(("bound", t_us, player, us))

    def replay(self):
        """The same recording as a shared_rules.replay.Replay."""
        from firmware.records_read import as_replay
        return as_replay(self)

    def format(self):
        return self.replay().format()

    def __eq__(self, other):
        if isinstance(other, Recording):
            other = other.replay()
        return self.replay() == other

    def __ne__(self, other):
        return not self.__eq__(other)
