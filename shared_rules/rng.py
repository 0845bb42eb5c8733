# The project's own PRNG (R40): xorshift32, so a seed gives the same numbers on CPython
# and MicroPython. No floats.
#
# On the RP2040 a small int holds 31 bits: any value of 2**30 or more is a heap object.
# A 32-bit state in one int would allocate on every step (about 19 KB for one shuffle of
# the deck), so the state lives in two 16-bit halves and every intermediate of the hot
# calls (next16, next24, next_bit, below, shuffle) stays under 2**30. The numbers are
# exactly those of the one-int xorshift32: `state` and next32() still give the 32-bit
# value (for snapshots and tests, where allocating once is fine).

_MASK = 0xFFFFFFFF
_H = 0xFFFF
_BELOW_LIMIT = 1 << 22   # below(n) keeps every intermediate under 2**30 up to here


def mix_seed(seed):
    # Spread small seeds (0, 1, 2 ...) over the state space; xorshift's state must not be
    # 0. Runs once per game or CPU player, so its 32-bit products may allocate.
    x = (seed * 0x9E3779B1 + 0x7F4A7C15) & _MASK
    x ^= x >> 16
    x = (x * 0x45D9F3B) & _MASK
    x ^= x >> 16
    return x or 0x6D2B79F5


class Rng:
    def __init__(self, seed=0):
        self.state = mix_seed(seed)

    @property
    def state(self):
        return (self._hi << 16) | self._lo

    @state.setter
    def state(self, x):
        self._hi = (x >> 16) & _H
        self._lo = x & _H

    def _step(self):
        hi = self._hi
        lo = self._lo
        hi ^= ((hi << 13) | (lo >> 3)) & _H      # x ^= x << 13
        lo ^= (lo << 13) & _H
        lo ^= hi >> 1                            # x ^= x >> 17
        hi ^= ((hi << 5) | (lo >> 11)) & _H      # x ^= x << 5
        lo ^= (lo << 5) & _H
        self._hi = hi
        self._lo = lo

    def next32(self):
        self._step()
        return (self._hi << 16) | self._lo

    def next16(self):
        """next32() >> 16, without a 32-bit int."""
        self._step()
        return self._hi

    def sum16(self, n):
        """The sum of the next n next16() numbers. The CPU player's normal draw (12 of
        them, shared_rules.bot) is on the device's frame path: one call with the state
        in locals takes about a quarter of the time of 2n method calls."""
        hi = self._hi
        lo = self._lo
        s = 0
        while n > 0:
            hi ^= ((hi << 13) | (lo >> 3)) & _H
            lo ^= (lo << 13) & _H
            lo ^= hi >> 1
            hi ^= ((hi << 5) | (lo >> 11)) & _H
            lo ^= (lo << 5) & _H
            s += hi
            n -= 1
        self._hi = hi
        self._lo = lo
        return s

    def next24(self):
        """next32() >> 8, without a 32-bit int."""
        self._step()
        return (self._hi << 8) | (self._lo >> 8)

    def next_bit(self):
        """next32() & 1."""
        self._step()
        return self._lo & 1

    def below(self, n):
        """Uniform int in [0, n), n < 2**22, by rejection, so there is no modulo bias:
        the numbers of next32() % n, redrawn while next32() >= 2**32 - 2**32 % n."""
        if not 0 < n < _BELOW_LIMIT:
            raise ValueError("below() needs 0 < n < %d" % _BELOW_LIMIT)
        r = ((0x10000 % n) << 8) % n
        r = (r << 8) % n                         # 2**32 % n, every step under 2**30
        # Reject (hi, lo) at or above 2**32 - r, compared half by half.
        q = r >> 16
        m = r & _H
        if m:
            edge_hi = _H - q
            edge_lo = 0x10000 - m
        else:
            edge_hi = 0x10000 - q
            edge_lo = 0
        self._step()
        while r and (self._hi > edge_hi or (self._hi == edge_hi and self._lo >= edge_lo)):
            self._step()
        lo = self._lo
        return (((self._hi % n) << 8 | lo >> 8) % n << 8 | lo & 0xFF) % n

    def shuffle(self, items):
        """Fisher-Yates in place."""
        i = len(items) - 1
        while i > 0:
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
            i -= 1
        return items
