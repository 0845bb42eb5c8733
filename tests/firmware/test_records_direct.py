"""The recording's two records of every step, frame() and button(), are written straight
into the chunk (firmware/records.py): byte for byte what append() writes for the same
tuples, across chunk ends, a CPU's taps, time running backwards and wrapping, junk
append() keeps aside, the heap limit and a store that takes the full chunks."""
import pytest

from firmware.records import PackedRecords, CHUNK
from shared_rules.rng import Rng


class Store:
    def __init__(self):
        self.chunks = []

    def rec_new(self):
        self.chunks = []

    def rec_add(self, chunks):
        self.chunks += [bytes(c) for c in chunks]


def _script(seed, n):
    rng = Rng(seed)
    t = (1 << 30) - 500000                   # wraps a little way in
    out = []
    for _ in range(n):
        r = rng.below(100)
        t = (t + rng.below(40000)) & ((1 << 30) - 1)
        if r < 35:
            out.append(("frame", t))
        elif r < 55:                         # a CPU's tap: down and up at one stamp
            p, b = rng.below(2), rng.below(6)
            out += [("button", t, p, b, 1), ("button", t, p, b, 0)]
        elif r < 85:
            out.append(("button", t, rng.below(2), rng.below(6), rng.below(2)))
        elif r < 90:                         # a stamp older than the last record
            out.append(("button", (t - 3000) & ((1 << 30) - 1), 1, 1, 1))
        elif r < 93:
            out.append(("frame", (t + (1 << 29) - 1) & ((1 << 30) - 1)))  # the largest step
        elif r < 96:
            out.append(("button", t, 2, 1, 1))          # not a player: kept aside
        elif r < 98:
            out.append(("button", t, 0, 9, 1))          # not a button code
        else:
            out.append(("digest", t, rng.below(40), rng.below(1 << 20)))
    return out


def _both(script, limit=1 << 20, spill_every=0):
    direct = PackedRecords(limit, Store() if spill_every else None)
    via = PackedRecords(limit, Store() if spill_every else None)
    for k, rec in enumerate(script):
        via.append(rec)
        if rec[0] == "frame":
            direct.frame(rec[1])
        elif rec[0] == "button":
            direct.button(rec[1], rec[2], rec[3], rec[4])
        else:
            direct.append(rec)
        if spill_every and k % spill_every == 0:
            assert direct.spill() == via.spill()
    return direct, via


def _state(r):
    return ([bytes(c) for c in r._chunks], r._n, r._gone, r._last, r._count, r.lost,
            r._head, r._head_t, r._other, r.limit)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_frame_and_button_write_what_append_writes(seed):
    script = _script(seed, 3000)
    direct, via = _both(script)
    assert _state(direct) == _state(via)
    assert direct._n > 20 * CHUNK                # many chunk ends crossed
    assert list(direct) == list(via)


def test_at_the_heap_limit_both_drop_the_same_records():
    direct, via = _both(_script(5, 2000), limit=3 * CHUNK + 40)
    assert via.lost > 100
    assert _state(direct) == _state(via)


def test_with_a_store_taking_the_full_chunks_both_write_the_same():
    direct, via = _both(_script(6, 3000), spill_every=97)
    assert via.spilled() > 0
    assert _state(direct) == _state(via)
    assert direct.store.chunks == via.store.chunks
