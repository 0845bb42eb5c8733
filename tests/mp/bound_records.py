# Runs unchanged under CPython and MicroPython: a linked game's bound records (R43) in
# the device's packed recording (spilled to a store and read back) and in the replay
# text (formatted, parsed, a bad value refused); a rules-level replay that ties two
# presses within the bound. The two interpreters must print the same lines
# (tests/mp/test_bound_records_mp.py).
from firmware.records import Recording
from shared_rules.game import Game, Rules
from shared_rules.replay import Replay, parse, run


class Store:
    # The storage port's recording half, in memory.
    def __init__(self):
        self.data = bytearray()

    def rec_new(self):
        self.data = bytearray()

    def rec_add(self, chunks):
        for c in chunks:
            self.data.extend(c)

    def rec_read(self, offset, buf):
        buf[:] = self.data[offset:offset + len(buf)]


def main():
    rec = Recording(7, Rules(), 4096, Store())
    want = []
    for k in range(400):
        want.append(("bound", (k * 997) & 0x3FFFFFFF, k & 1, (k * 331) & 0xFFFF))
        want.append(("frame", k * 997 + 5))
    for r in want:
        rec.records.append(r)
    spilled = rec.records.spill()
    got = list(rec.records)
    print("packed", spilled, len(rec.records._other), got == want)
    text = rec.format()
    print("text", len(text), parse(text).records == want)
    for line in ("bound 5 1 65536", "bound 5 2 1", "bound 5 1 x"):
        try:
            parse("spit-replay 1\nseed 1\n" + line + "\n")
            print("accepted", line)
        except ValueError as e:
            print("refused", e)
    g = Game(3)
    g.apply(("spit", 0))
    g.apply(("spit", 1))
    found = None
    for j in range(2):
        for i0 in range(5):
            for i1 in range(5):
                a = ("play", 0, i0, j)
                b = ("play", 1, i1, j)
                if g.why_not(a) is None and g.why_not(b) is None:
                    t = g.copy()
                    t.apply(a)
                    if t.why_not(b) is not None:
                        found = (a, b)
    first = 1 - g.tie_priority
    for bound in (0, 2000):
        rp = Replay(3)
        rp.press(1000, ("spit", 0))
        rp.press(1000, ("spit", 1))
        rp.settle(5000)
        rp.bound(5000, 1 - first, bound)
        rp.press(10000, found[first])
        rp.press(11500, found[1 - first])
        rp.settle(20000)
        game, results = run(parse(rp.format()))
        print("bound", bound, results[-2:], "%06x" % game.digest())


main()
