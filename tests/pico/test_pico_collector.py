"""The loop's collections on the chip mark the heap once (firmware/collector.py), where a
plain gc.collect() of the same heap overflows MicroPython's mark stack and marks it again.
The emulator watches the image's collector run (Pico.watch_gc: where the core enters
gc_collect_start, gc_collect_end and gc_mark_subtree)."""
import pytest

from desktop_emulator.pico.device import Pico, S, DeviceError

pytestmark = pytest.mark.pico

BUTTONS = (2, 3, 14, 15)


def test_the_loops_collections_mark_the_game_heap_once(pico_firmware, pico_files_no_main):
    with Pico(pico_firmware, files=pico_files_no_main, buttons=BUTTONS) as pico:
        pico.boot_to_raw()
        try:
            pico.watch_gc()
        except DeviceError as e:
            pytest.skip(str(e))
        pico.exec_start("import firmware.main as m\n"
                        "m.run(start={'seed': 5, 'cpu': [3, 3]})\n")
        pico.run_to(pico.t_ns + 5 * S, wall_s=600)
        played = pico.gc_stats()
        pico.write(b"\x03")
        pico.read_until(b"KeyboardInterrupt", guest_ms=2000, wall_s=300)
        pico.read_until(b"\x04>", guest_ms=2000, wall_s=300)
        runs = int(pico.exec("print(m.gc_runs)", wall_s=300))
        # The same heap, collected from the REPL with a plain gc.collect().
        before = pico.gc_stats()
        took_us = int(pico.exec("import gc, time\nt = time.ticks_us()\ngc.collect()\n"
                                "print(time.ticks_diff(time.ticks_us(), t))", wall_s=300))
        plain = pico.gc_stats()
        # Garbage until MicroPython collects by itself: a 3,000-byte block found no room.
        pico.exec("for i in range(300):\n    b = bytearray(3000)\n", wall_s=300)
        own = pico.gc_stats()["spans"][len(plain["spans"]):]
    assert runs >= 10 and played["collections"] >= runs
    # Any collection that marked the heap twice was one of MicroPython's own (an
    # allocation that found no room), not the loop's.
    assert played["rescanned"] <= played["collections"] - runs, played
    assert plain["collections"] == before["collections"] + 1
    assert plain["rescanned"] == before["rescanned"] + 1          # the watch sees it
    assert plain["rescan_marks"] - before["rescan_marks"] > 1000   # the heap again
    # Each collection's span: the plain one's is the REPL's own measure of it, less the
    # clock reads around it (the watch sees its start and its return, not the call).
    assert len(plain["spans"]) == len(before["spans"]) + 1
    start, end, again, _asked = plain["spans"][-1]
    assert again == plain["rescan_marks"] - before["rescan_marks"]
    assert took_us - 150 <= (end - start) / 1000 <= took_us, (took_us, end - start)
    assert len(played["spans"]) == played["collections"]
    assert all(e is not None and e > s for s, e, *_ in played["spans"])
    assert own and all(asked == 3000 for _s, _e, _m, asked in own), own
