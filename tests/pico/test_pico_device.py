"""The emulated Pico itself: the real MicroPython rp2 image boots, runs the rules core
exactly as the unix port does, and every way it can go wrong ends in one clear line
and never a hang (every wait has a guest-time and a wall-time limit)."""
import struct
from pathlib import Path

import pytest

from desktop_emulator import devicefiles
from desktop_emulator.pico import image as img
from desktop_emulator.pico.device import Pico, DeviceError, DeviceTimeout, MS
from tests.helpers import ROOT, MICROPYTHON, run_micropython

pytestmark = pytest.mark.pico

BUTTONS = (2, 3, 14, 15)


@pytest.fixture(scope="module")
def repl_pico(pico_firmware, pico_files_no_main):
    extra = {"shared_rules/transcript.py": (ROOT / "shared_rules/transcript.py").read_bytes(),
             "core_games.py": (ROOT / "tests/mp/core_games.py").read_bytes()}
    pico = Pico(pico_firmware, files=pico_files_no_main, extra=extra, buttons=BUTTONS)
    pico.boot_to_raw()
    yield pico
    pico.close()


def test_boots_micropython_rp2_and_runs_code(repl_pico):
    out = repl_pico.exec("import sys, machine, os\n"
                         "print(sys.implementation._machine, machine.freq())\n"
                         "print(sorted(os.listdir('/')))")
    first, files = out.strip().splitlines()
    assert first == "Raspberry Pi Pico with RP2040 125000000"
    assert files == "['core_games.py', 'firmware', 'lib', 'shared_rules']"


def test_an_exception_on_the_device_gives_one_line_and_its_traceback(repl_pico):
    with pytest.raises(DeviceError) as e:
        repl_pico.exec("def f():\n    return {}['missing']\nf()")
    assert str(e.value) == "exception on the device: KeyError: missing"
    assert "Traceback (most recent call last)" in e.value.traceback
    assert 'line 2, in f' in e.value.traceback
    assert repl_pico.exec("print(6 * 7)").strip() == "42"       # the REPL carries on


def test_the_rules_core_prints_the_same_games_as_the_unix_port(repl_pico):
    if not MICROPYTHON.exists():
        pytest.skip("no micropython binary")
    seeds = (3, 4)
    unix = run_micropython(ROOT / "tests/mp/core_games.py", *map(str, seeds), heap="150K")
    assert unix.returncode == 0, unix.stderr
    board = repl_pico.exec("import core_games\ncore_games.main(%r)" % (list(seeds),),
                           guest_ms=60_000, wall_s=600)
    board_lines = board.replace("\r", "").strip().split("\n")
    unix_lines = unix.stdout.strip().split("\n")
    assert len(unix_lines) > 300
    assert board_lines == unix_lines


def test_guest_time_is_exact(repl_pico):
    # time.ticks_us() on the board against the harness's own clock, around a sleep
    out = repl_pico.exec("import time\nt = time.ticks_us()\ntime.sleep_ms(250)\n"
                         "print(t, time.ticks_diff(time.ticks_us(), t))")
    t, dt = map(int, out.split())
    # sleep_ms counts whole ms of ticks_ms: it may end up to 1 ms short of 250,000 µs.
    assert 249_000 < dt < 251_000
    assert 0 < repl_pico.ticks_us() - t < 1_000_000


def test_a_wall_time_limit_ends_a_run_with_one_line(repl_pico):
    repl_pico.exec_start("while True:\n    pass")
    with pytest.raises(DeviceTimeout) as e:
        repl_pico.run_for(60_000_000, wall_s=0.5)       # a minute of guest time: too long
    assert "within 0 s of wall time" in str(e.value) or "within 1 s of wall time" in str(e.value)
    repl_pico.write(b"\x03")                            # Ctrl-C: the loop stops
    with pytest.raises(DeviceError, match="KeyboardInterrupt"):
        repl_pico.exec_finish(guest_ms=2000)


def test_a_board_that_never_answers_times_out_in_guest_time(pico_firmware, pico_files_no_main):
    # main.py switches interrupts off and spins: USB is never served again.
    hang = b"import machine\nmachine.disable_irq()\nwhile True:\n    pass\n"
    with Pico(pico_firmware, files=pico_files_no_main, extra={"main.py": hang},
              buttons=BUTTONS) as pico:
        pico.boot()
        with pytest.raises(DeviceTimeout) as e:
            pico.interrupt(guest_ms=300)
        assert "within 300 ms of guest time" in str(e.value)
        assert pico.t_ns < 2_000 * MS


def test_the_emulator_process_dying_is_reported(pico_firmware, pico_files_no_main):
    pico = Pico(pico_firmware, files=pico_files_no_main, buttons=BUTTONS)
    try:
        pico.boot()
        pico.proc.kill()
        pico.proc.wait()
        with pytest.raises(DeviceError, match="emulator process"):
            pico.run_for(1000)
    finally:
        pico.close()


# ---- bad images: one line each, before anything runs ---------------------------------

def test_no_firmware_anywhere_says_where_to_get_one(tmp_path):
    with pytest.raises(img.ImageError) as e:
        img.find_firmware(None, shared=tmp_path / "nothing")
    assert "https://micropython.org/download/RPI_PICO/" in str(e.value)
    assert "\n" not in str(e.value)
    with pytest.raises(img.ImageError, match="no such file or folder"):
        img.find_firmware(tmp_path / "missing.uf2", shared=tmp_path / "nothing")


def test_a_uf2_without_a_boot_rom_is_refused(tmp_path, pico_firmware):
    uf2 = tmp_path / "fw.uf2"
    uf2.write_bytes(pico_firmware.uf2.read_bytes())
    with pytest.raises(img.ImageError, match="boot ROM"):
        img.find_firmware(uf2, shared=tmp_path / "nothing")


def _fw(tmp_path, pico_firmware, uf2_bytes=None, rom_bytes=None):
    d = tmp_path / "fw"
    d.mkdir(exist_ok=True)
    (d / "x-RPI_PICO.uf2").write_bytes(uf2_bytes if uf2_bytes is not None
                                       else pico_firmware.uf2.read_bytes())
    (d / "rp2040-bootrom-b1.bin").write_bytes(rom_bytes if rom_bytes is not None
                                              else pico_firmware.bootrom.read_bytes())
    return img.find_firmware(d, shared=tmp_path / "nothing")


def test_corrupt_images_are_refused_with_one_line(tmp_path, pico_firmware):
    good = pico_firmware.uf2.read_bytes()
    cases = [
        (good[:1000], "not a UF2 file"),                              # cut short
        (b"\x00" * 1024, "bad magic"),                                # not a UF2
        (good[:12] + struct.pack("<I", 0x20000000) + good[16:], "outside the Pico's flash"),
        (good[:28] + struct.pack("<I", 0xE48BFF59) + good[32:], "not an RP2040 image"),
    ]
    for data, why in cases:
        fw = _fw(tmp_path, pico_firmware, uf2_bytes=data)
        with pytest.raises(img.ImageError, match=why) as e:
            img.flash_image(fw)
        assert "\n" not in str(e.value)
    fw = _fw(tmp_path, pico_firmware, rom_bytes=b"\x00" * 100)
    with pytest.raises(img.ImageError, match="not the RP2040's 16 KB boot ROM"):
        img.read_bootrom(fw)
    fw = _fw(tmp_path, pico_firmware, rom_bytes=b"\x00" * 16384)
    with pytest.raises(img.ImageError, match="not an RP2040 boot ROM"):
        img.read_bootrom(fw)


def test_a_file_that_does_not_fit_the_filesystem_is_refused(tmp_path):
    big = tmp_path / "big.bin"
    big.write_bytes(b"\x5a" * (1500 * 1024))            # the filesystem holds 1408 KB
    with pytest.raises(devicefiles.BuildError, match="does not fit the Pico's 1408 KB"):
        devicefiles.littlefs_image({"big.bin": big})


def test_a_device_file_that_does_not_compile_names_it(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    with pytest.raises(devicefiles.BuildError, match="bad.py"):
        devicefiles.compile_file(bad, tmp_path / "bad.mpy")


def test_the_device_build_is_what_deploy_sends(pico_files):
    names = set(pico_files)
    assert "main.py" in names and "lib/ssd1306.mpy" in names
    assert "firmware/app.mpy" in names and "shared_rules/game.mpy" in names
    assert not any(n.endswith(".py") and n != "main.py" for n in names)
    for host_only in devicefiles.HOST_ONLY:
        assert host_only[:-3] + ".mpy" not in names
    assert Path(pico_files["main.py"]).read_text() == devicefiles.MAIN_PY


def test_the_filesystem_image_round_trips(pico_files):
    image = devicefiles.littlefs_image(pico_files)
    assert len(image) == devicefiles.LFS_BLOCK_SIZE * devicefiles.LFS_BLOCK_COUNT
    back = devicefiles.read_littlefs(image)
    assert back == {k: Path(v).read_bytes() for k, v in pico_files.items()}



