# The project's own PRNG (R40): xorshift32, so a seed gives the same numbers on CPython
# and MicroPython. Only 32-bit masking and shifts, no floats.

_MASK = 0xFFFFFFFF


def mix_seed(seed):
    # Spread small seeds (0, 1, 2 ...) over the state space; xorshift's state must not be 0.
    x = (seed * 0x9E3779B1 + 0x7F4A7C15) & _MASK
    x ^= x >> 16
    x = (x * 0x45D9F3B) & _MASK
    x ^= x >> 16
    return x or 0x6D2B79F5


class Rng:
    def __init__(self, seed=0):
        self.state = mix_seed(seed)

    def next32(self):
        x = self.state
        x ^= (x << 13) & _MASK
        x ^= x >> 17
        x ^= (x << 5) & _MASK
        self.state = x
        return x

    def below(self, n):
        """Uniform int in [0, n) by rejection, so there is no modulo bias."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = (0x100000000 // n) * n
        x = self.next32()
        while x >= limit:
            x = self.next32()
        return x % n

    def shuffle(self, items):
        """Fisher-Yates in place."""
        i = len(items) - 1
        while i > 0:
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
            i -= 1
        return items
