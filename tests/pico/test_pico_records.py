"""A game's recording on the emulated Pico's flash (firmware/records.py spill(), the
storage port's recording file on littlefs): what went to flash between rounds reads back
whole, record by record, as the hosts read a board's recording (R40)."""
import pytest

pytestmark = pytest.mark.pico

CODE = """
from firmware.records import PackedRecords
from firmware.hw.storage import FileStorage
import os, gc

def wanted(n):
    t = (1 << 30) - 50000
    for k in range(n):
        t = (t + (k * 7919 + 7) %% 70000 - 2000) %% (1 << 30)
        if k %% 97 == 5:
            yield ('digest', t, k // 97, (k * 2654435761) & 0xFFFFFF)
        elif k %% 3 == 0:
            yield ('frame', t)
        else:
            yield ('button', t, k & 1, k %% 6, (k >> 1) & 1)

st = FileStorage('/spit.json')
recs = PackedRecords(4096, st)
k = 0
for rec in wanted(%(n)d):
    recs.append(rec)
    k += 1
    if k %% 400 == 0:
        recs.spill()
gc.collect()
same = len(recs) == %(n)d
for a, b in zip(recs, wanted(%(n)d)):
    same = same and a == b
print(recs.lost, recs.spilled(), recs.nbytes(), os.stat('/spit.rec')[6], same)
"""


def test_r40_a_recording_spilled_to_flash_reads_back_whole_on_the_board(board_repl):
    pico = board_repl
    pico.enter_raw(soft_reset=True)
    erases = len(pico.flash_ops)
    out = pico.exec(CODE % {"n": 3000}, guest_ms=60000, wall_s=600)
    lost, spilled, held, size, same = out.split()
    assert (lost, same) == ("0", "True")
    # More than the heap's limit went to the file; the heap holds what came since.
    assert int(spilled) == int(size) > 4096 and 0 < int(held) <= 4096
    assert len(pico.flash_ops) > erases          # it was written to flash
