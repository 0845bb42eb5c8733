"""Out of heap on the board: a MemoryError in the device loop outside the app's own
step (here from the loop's probe hook, where a report or a tool's measurement would
raise it) collects and goes on with the same game; before, it ended the loop and the
watchdog reset the board."""
import pytest

from desktop_emulator.pico.device import Pico, S

pytestmark = pytest.mark.pico

BUTTONS = (2, 3, 14, 15)
PROBE = """
calls = [0]
def probe(app):
    calls[0] += 1
    if calls[0] in (20, 45):
        raise MemoryError('memory allocation failed, allocating 1104 bytes')
"""


def test_a_memory_error_in_the_device_loop_does_not_reset_the_board(pico_firmware,
                                                                     pico_files_no_main):
    with Pico(pico_firmware, files=pico_files_no_main, buttons=BUTTONS) as pico:
        pico.boot_to_raw()
        pico.exec(PROBE)
        pico.exec_start("import firmware.main as m\n"
                        "m.run(start={'seed': 5, 'cpu': [3, 3]}, probe=probe)\n")
        # Second by second: a loop that died prints its traceback at once, and the
        # watchdog would reset the board 4 s later (a reset ends the run).
        for _ in range(8):
            pico.run_to(pico.t_ns + S, wall_s=300, stop_on_reset=True)
            out = pico.transcript.decode(errors="replace")
            assert "Traceback" not in out and "MemoryError" not in out
            assert [why for _t, why in pico.resets] == ["power"]
        pico.write(b"\x03")
        pico.read_until(b"KeyboardInterrupt", guest_ms=2000, wall_s=300)
        pico.read_until(b"\x04>", guest_ms=2000, wall_s=300)
        calls, frames = pico.exec("import firmware.main as m\nprint(calls[0], m.app.frames)",
                                  wall_s=300).split()
        # The loop went on past both errors: about 30 frames a second for 8 s.
        assert int(calls) > 100 and int(frames) > 100


HEAP_PROBE = """
import gc, sys
seen = []
def probe(app, n=[0]):
    n[0] += 1
    if n[0] == 40:
        gc.collect()
        seen.append(gc.mem_alloc())
        seen.append(sorted(k for k in sys.modules))
"""


def test_the_boot_code_leaves_the_heap_once_the_ports_are_built(pico_firmware,
                                                                pico_files_no_main):
    # Once the ports are built, the board's pin map and builders are off the heap, and so
    # is the GPIO capture's module when the PIO capture runs.
    with Pico(pico_firmware, files=pico_files_no_main, buttons=BUTTONS) as pico:
        pico.boot_to_raw()
        pico.exec(HEAP_PROBE)
        pico.exec_start("import firmware.main as m\n"
                        "m.run(start={'seed': 5, 'cpu': [0, 0]}, probe=probe)\n")
        pico.run_to(pico.t_ns + 3 * S, wall_s=600)       # 40 frames come in 1.4 s
        said = pico.transcript.decode(errors="replace")
        pico.write(b"\x03")
        pico.read_until(b"KeyboardInterrupt", guest_ms=2000, wall_s=300)
        pico.read_until(b"\x04>", guest_ms=2000, wall_s=300)
        out = pico.exec("print(len(seen), seen[0] if seen else 0)\n"
                        "for k in (seen[1] if seen else ()): print(k)\n", wall_s=300)
    assert "spit: input pio" in said
    lines = out.split()
    assert lines[0] == "2", out
    modules = set(lines[2:])
    assert "firmware.app" in modules and "shared_rules.game" in modules
    for gone in ("firmware.hw.board", "firmware.boards.pico", "firmware.hw.buttons"):
        assert gone not in modules
