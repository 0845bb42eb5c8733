"""The deployed firmware on the emulated Pico, met the way a board meets the world: a
button held at power-up, settings that must outlive the power, and the power cut in
the middle of a save."""
import pytest

from desktop_emulator import framebuf
from desktop_emulator.pico.device import Pico, S
from firmware.boards import pico as board
from firmware.hw.storage import FileStorage
from firmware.selftest import SelfTest
from firmware.view import View, text_width

pytestmark = pytest.mark.pico

BUTTONS = [g for g, _p, _n in board.BUTTONS]
P0_A, P0_B = board.P0_A, board.P0_B


def boot_to_title(pico, flash=None):
    pico.boot(flash)
    pico.read_until(b"spit: screen=title", guest_ms=3000, what="the title screen")
    pico.run_for(50_000)


def settings_on_flash(pico):
    """What a board's storage would load from the flash as it is now."""
    files = pico.files_on_flash()

    class Fs:
        def read(self, name):
            return files.get(name.lstrip("/"))

    st = FileStorage("/spit.json", fs=Fs())
    return st.load(), st.message


def menu_press(pico, gpio, settle_ms=300):
    pico.press(gpio, hold_us=60_000)
    pico.run_for(settle_ms * 1000)


class FakeCapture:
    """What SelfTest reads of the capture, in a given state (for the expected picture)."""

    def __init__(self, down, presses):
        self.n = len(board.BUTTONS)
        self.players = tuple(p for _g, p, _n in board.BUTTONS)
        self.names = tuple(n for _g, _p, n in board.BUTTONS)
        self.gpios = tuple(g for g, _p, _n in board.BUTTONS)
        self._down = down
        self.presses = presses
        self.bounces = [0] * self.n
        self.dropped = 0
        self.kind = "pio"

    def is_down(self, i):
        return self._down[i]

    def drain(self, out=None):
        return out if out is not None else []


class FakeDisplay:
    def __init__(self):
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)

    def show(self):
        pass


def test_a_button_held_at_power_up_enters_the_self_test(pico_firmware, pico_files):
    with Pico(pico_firmware, files=pico_files, buttons=BUTTONS) as pico:
        pico.levels[P0_A] = 0                           # held as the board powers up
        pico.boot()
        pico.run_for(1_000_000)
        expected = FakeDisplay()
        t = SelfTest(expected, FakeCapture([False] * 4, [0] * 4), None, 0)
        t.step(0)                                       # the test pattern
        assert bytes(pico.oled.ram) == bytes(expected.buf)
        assert b"spit: screen" not in pico.transcript   # no game started
        pico.run_for(1_500_000)                         # then the live button table
        t.step(2_000_000)
        t2 = SelfTest(expected, FakeCapture([True, False, False, False], [1, 0, 0, 0]), None, 0)
        t2.step(2_000_000)
        # The table (pages 0-6) and the bottom line's left end, "PIO DROP 0": the board
        # runs the PIO capture. (Its right end shows the jumper check, timed by the board.)
        got = bytes(pico.oled.ram)
        assert got[:896] == bytes(expected.buf)[:896]
        assert got[896:896 + 40] == bytes(expected.buf)[896:896 + 40]
        pico.run_for(3_500_000)                         # the check's pulses are over
        bottom = FakeDisplay()
        View(bottom.fb).text("NO JUMPER", 127 - text_width("NO JUMPER"), 58, 1, 0)
        right = 128 - text_width("NO JUMPER") - 1
        assert bytes(pico.oled.ram)[896 + right:1024] == bytes(bottom.buf)[896 + right:1024]


def test_settings_saved_on_one_boot_are_there_on_the_next(pico_firmware, pico_files):
    with Pico(pico_firmware, files=pico_files, buttons=BUTTONS) as pico:
        boot_to_title(pico)
        assert b"spit: input pio\r\n" in pico.transcript     # touches stamped by the PIO
        before = len(pico.flash_ops)
        menu_press(pico, P0_A)                           # from START past LINK PLAY
        menu_press(pico, P0_A)                           # to MODE
        menu_press(pico, P0_B)                           # MODE: two players -> vs CPU easy
        assert len(pico.flash_ops) > before              # written to flash, not just RAM
        saved, msg = settings_on_flash(pico)
        assert saved["settings"]["mode"] == 1 and msg is None
        pico.power_cycle()
        pico.read_until(b"spit: screen=title", guest_ms=3000, what="the title after reboot")
        pico.run_for(50_000)
        pico.interrupt()
        pico.enter_raw(soft_reset=False)
        got = pico.eval_json("firmware.main.app.settings")
        assert got["mode"] == 1
        assert pico.eval_json("firmware.main.app.note") == ""


def test_a_power_cut_during_a_save_leaves_a_loadable_file(pico_firmware, pico_files, tmp_path):
    # Count the flash operations of one settings save, then cut the power after the
    # first, a middle and the last-but-one of them: every cut leaves a file that loads,
    # holding either the old settings or the new.
    with Pico(pico_firmware, files=pico_files, buttons=BUTTONS) as pico:
        boot_to_title(pico)
        menu_press(pico, P0_A)                           # from START past LINK PLAY
        menu_press(pico, P0_A)                           # to MODE
        menu_press(pico, P0_B)                           # a first save: the file exists
        image = tmp_path / "before.bin"
        image.write_bytes(pico.read_flash(0, 2 * 1024 * 1024))
        n0 = len(pico.flash_ops)
        menu_press(pico, P0_B)                           # mode 1 -> 2
        ops = len(pico.flash_ops) - n0
        assert ops >= 3
        assert settings_on_flash(pico)[0]["settings"]["mode"] == 2
    modes = set()
    for cut in sorted({1, ops // 2, ops - 1}):
        with Pico(pico_firmware, files=pico_files, buttons=BUTTONS) as pico:
            boot_to_title(pico, flash=image)
            menu_press(pico, P0_A)                       # from START past LINK PLAY
            menu_press(pico, P0_A)                       # to MODE
            pico.press(P0_B, hold_us=60_000)
            assert pico.run_to(pico.t_ns + 2 * S, stop_after_flash_ops=cut) == "stop"
            pico.power_cycle("cut")
            saved, msg = settings_on_flash(pico)
            assert saved is not None, "cut after flash op %d of %d: nothing loads" % (cut, ops)
            assert msg is None
            modes.add(saved["settings"]["mode"])
            pico.read_until(b"spit: screen=title", guest_ms=3000, what="the title after the cut")
    assert modes <= {1, 2}


def test_no_flash_write_happens_during_play(pico_firmware, pico_files):
    """Flash erases stall interrupts (RULES.md R19): a CPU game's rounds must write only
    between rounds. Every flash operation must fall outside the play phase."""
    from desktop_emulator.pico.engine import PicoMachine
    from desktop_emulator.display import FrameDisplay
    from shared_rules.game import Rules
    m = PicoMachine(pico_firmware)
    m.pico.files = pico_files
    try:
        m.attach(FrameDisplay()).boot()
        phases = []
        m.on_status = lambda t, line: phases.append(
            (t, m.app.screen, m.app.game.phase if m.app.game else None))
        m.start_game(("hard", "hard"), 11, Rules())
        n0 = len(m.pico.flash_ops)
        m.run_headless(until="round")
        writes = m.pico.flash_ops[n0:]
    finally:
        m.close()
    play_spans = []
    start = None
    for t, screen, phase in phases:
        if screen == "game" and phase == "play" and start is None:
            start = t
        elif start is not None and not (screen == "game" and phase == "play"):
            play_spans.append((start, t))
            start = None
    assert play_spans
    for t, kind, _a, _n in writes:
        for a, b in play_spans:
            assert not a < t < b, "flash %s during play at %.3f s" % (kind, t / 1e9)

