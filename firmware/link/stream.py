# The stream of a linked game as this device keeps it (R43): every message of the
# game's stream, in order, so that a peer that restarted is brought to the same place
# by stepping it all again (firmware/link/play.py), and so that the election can tell
# which device holds more of the game (its count).
#
# Why not a list of bytes: on the chip each small bytes object costs two heap blocks
# (32 bytes or more for a 7-byte message) and a list slot, and the list asks for an
# ever larger contiguous block as it grows, until one allocation fails in the middle of
# a game. Here the messages sit end to end in blocks of one size, each behind a length
# byte: one byte of overhead a message, and the only allocation is a new block when the
# last one is full. A length byte of 0 ends a block (a new block is all zeros).
#
# A game is longer than the heap can hold: between rounds (when the app spills its own
# recording, firmware/records.py; a flash erase stalls the interrupts that stamp
# presses, so never in play) the full blocks go to the storage port's stream file and
# the heap keeps only the round in play. A rejoin reads them back, a block at a time.

from shared_rules.compat import const

BLOCK = const(1024)
_LONGEST = const(255)            # a message's length fits its length byte (frames: 200)


class StreamLog:
    def __init__(self, block=BLOCK, store=None):
        """store: where spill() puts full blocks (a storage port with link_new(),
        link_add([blocks]) and link_read(offset, buf)); None keeps all in the heap."""
        self.block = block
        self.store = store
        self.spill_errors = 0        # the store failed a write: it is not used again
        self.read_errors = 0         # a spilled block could not be read back
        self._blocks = []            # the blocks in the heap: the first is block _gone
        self._gone = 0               # blocks in the store
        self._end = block            # where the last block is filled to (none yet: full)
        self._back = None            # a spilled block read back, and which (a rejoin)
        self._back_k = -1
        self.count = 0               # messages kept
        self.nbytes = 0              # their bytes

    def __len__(self):
        return self.count

    def clear(self):
        self._blocks = []
        self._gone = 0               # the store's file is replaced at the next spill
        self._back_k = -1
        self._end = self.block
        self.count = 0
        self.nbytes = 0

    def append(self, m):
        """Keep a message (bytes-like, 1 to 255 bytes; an empty one says nothing and
        is not kept)."""
        n = len(m)
        if n == 0:
            return
        if n > _LONGEST or n + 1 > self.block:
            raise ValueError("stream message of %d bytes" % n)
        end = self._end
        if end + 1 + n > self.block:
            self._blocks.append(bytearray(self.block))
            end = 0
        b = self._blocks[-1]
        b[end] = n
        b[end + 1:end + 1 + n] = m
        self._end = end + 1 + n
        self.count += 1
        self.nbytes += n

    def read(self, pos):
        """The message at `pos` (0: the first) and the position of the next, or
        (None, pos) past the last."""
        size = self.block
        k = pos // size
        off = pos - k * size
        blocks = self._blocks
        gone = self._gone
        while k < gone + len(blocks):
            if k >= gone:
                b = blocks[k - gone]
            else:
                b = self._spilled(k)
                if b is None:
                    return None, pos
            if off < size:
                n = b[off]
                if n:
                    return bytes(b[off + 1:off + 1 + n]), k * size + off + 1 + n
            k += 1
            off = 0
        return None, pos

    def _spilled(self, k):
        if self._back_k != k:
            if self._back is None:
                self._back = bytearray(self.block)
            self._back_k = -1
            try:
                self.store.link_read(k * self.block, self._back)
            except OSError:
                self.read_errors += 1
                return None
            self._back_k = k
        return self._back

    def spill(self):
        """Hand every full block to the store and drop it from the heap (only between
        rounds: the store writes flash). -> bytes written. A store that fails is not
        used again: what it did not take stays in the heap."""
        st = self.store
        full = len(self._blocks) - 1         # the last one is still being filled
        if st is None or self.spill_errors or full <= 0:
            return 0
        try:
            if self._gone == 0:
                st.link_new()
            st.link_add(self._blocks[:full])
        except Exception:
            self.spill_errors += 1
            return 0
        del self._blocks[:full]
        self._gone += full
        return full * self.block

    def __iter__(self):
        pos = 0
        while True:
            m, pos = self.read(pos)
            if m is None:
                return
            yield m
