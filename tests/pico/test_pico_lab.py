"""The REACTION LAB on the emulated Pico: the real firmware's app on the board's real
ports (I2C display, the button capture the game runs, buzzer, flash) and main.py's
loop. The host presses a pin an exact number of microseconds after each signal's
onset; the reaction times the board records are exactly those (R19: the stamp is the
edge's), the run is saved in /lab.json on the flash beside /spit.json, and the
results screen's figures are the ones the same rows give on the host."""
import re

import pytest

from desktop_emulator.pico.device import Pico
from firmware import lab, lab_store
from firmware.hw.storage import decode
from tests.helpers import ROOT

pytestmark = pytest.mark.pico

P0_A = 2                      # the reference wiring: player 0's A on GP2
REACTIONS_US = (187654, 243210, 300001)


@pytest.fixture(scope="module")
def lab_pico(pico_firmware, pico_files_no_main):
    extra = {"lab_device.py": (ROOT / "tests/pico/lab_device.py").read_bytes()}
    pico = Pico(pico_firmware, files=pico_files_no_main, extra=extra, buttons=(2, 3, 14, 15))
    pico.boot_to_raw()
    yield pico
    pico.close()


def test_the_lab_on_the_board_records_each_reaction_to_the_microsecond(lab_pico):
    pico = lab_pico
    pico.exec_start("import lab_device\nlab_device.run(%d, 0)" % len(REACTIONS_US),
                    guest_ms=5000, wall_s=300)
    head = pico.read_until(b"LAB input=", guest_ms=10000, wall_s=300, what="the lab's start")
    assert head.endswith(b"LAB input=")
    for rt in REACTIONS_US:
        got = pico.read_until(re.compile(rb"SIGNAL (\d+)\r?\n"), guest_ms=6000, wall_s=600,
                              what="the signal")
        onset = int(re.search(rb"SIGNAL (\d+)", got).group(1))
        # 0.4 µs into its microsecond, as replays press (docs/EMULATOR.md): an edge on
        # the boundary itself is stamped a µs early or not by where the PIO's samples
        # fall, which moves with the firmware's own timing.
        pico.press(P0_A, at_ns=pico.guest_ns(onset) + rt * 1000 + 400, hold_us=80000)
    out = pico.exec_finish(guest_ms=15000, wall_s=600)
    lines = out.replace("\r", "").strip().splitlines()
    rows = [line.split()[1:] for line in lines if line.startswith("ROW ")]
    assert [int(r[3]) for r in rows] == list(REACTIONS_US)
    assert [int(r[1]) for r in rows] == [1, 2, 3] and {r[4] for r in rows} == {"0"}
    assert "RUN 1 simple-visual done" in lines
    # The saved file on the flash, read as the flash holds it.
    files = pico.files_on_flash()
    saved = decode(files["lab.json"])
    runs = lab_store.Store(type("P", (), {"load": lambda self: saved, "message": None})()).runs()
    assert [r[3] for r in runs[0][3]] == list(REACTIONS_US)
    # The board's figures are the host's for the same rows.
    n, med, mean, sd = lab.summary(list(REACTIONS_US))
    pages = [line[5:] for line in lines if line.startswith("PAGE ")]
    assert pages[1:3] == ["MEDIAN %s MS" % lab.ms(med), "MEAN %s SD %s" % (lab.ms(mean), lab.ms(sd))]
    heap = re.search(r"HEAP free=(\d+) alloc=(\d+)", out)
    assert heap and int(heap.group(1)) > 20000        # the lab leaves the heap room to spare
