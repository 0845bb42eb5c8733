"""Both engines agree: the same recorded presses give the same ``--print-state`` line
(the game's state and the picture) on the app engine (the firmware's app in CPython)
and on the emulated Pico (the firmware in MicroPython on the RP2040, its buttons
stamped by the real hard IRQ, its picture decoded from the real driver's I2C)."""
import io

import pytest

from desktop_emulator import cli
from tests.pico.engines import run_cli, state_of

pytestmark = pytest.mark.pico


@pytest.fixture(autouse=True)
def _needs_pico(pico_firmware):
    return pico_firmware


def test_a_round_played_on_the_pico_replays_identically_on_the_app_engine(tmp_path):
    rec = tmp_path / "pico.txt"
    code, pico = run_cli("--engine", "pico", "--headless", "--p0", "hard", "--p1", "easy",
                         "--seed", "5", "--until", "round", "--record", str(rec),
                         "--print-state")
    assert code == 0, pico
    assert pico[0].startswith("screen=summary phase=ready round=2")
    text = rec.read_text()
    assert "engine=pico" in text and text.count("\nbutton ") > 40
    # What the board played under (the fumble, the slap signal): without it the app
    # engine would replay the round with neither.
    assert "\nconduct fumble=500 " in text and " signal=1 " in text
    code, app = run_cli("--replay", str(rec), "--headless", "--until", "round", "--print-state")
    assert code == 0
    assert state_of(app) == state_of(pico)


def test_a_round_recorded_on_the_app_engine_plays_the_same_on_the_pico(tmp_path):
    rec = tmp_path / "app.txt"
    code, app = run_cli("--headless", "--p0", "normal", "--p1", "hard", "--seed", "8",
                        "--until", "round", "--record", str(rec), "--print-state")
    assert code == 0
    code, pico = run_cli("--engine", "pico", "--replay", str(rec), "--headless",
                         "--until", "round", "--print-state")
    assert code == 0, pico
    assert state_of(pico) == state_of(app)




def test_pico_engine_errors_are_one_line(tmp_path, capsys):
    code, _ = run_cli("--engine", "pico", "--firmware", str(tmp_path / "none.uf2"),
                      "--headless", "--p0", "hard", "--p1", "hard")
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert "micropython.org/download/RPI_PICO" in err
    code, _ = run_cli("--engine", "pico", "--terminal", "--p0", "hard", "--p1", "hard")
    assert code == 2
    assert "not --terminal" in capsys.readouterr().err


def test_the_window_plays_the_board_and_keys_press_its_buttons(tmp_path, monkeypatch):
    import pygame
    from desktop_emulator.clock import SimClock
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    seen = {}

    def on_frame(win, n):
        if n == 5:
            seen["before"] = bytes(win.display.panel)
        if n in (5, 10, 15):
            # Z (player 0's A) twice: from START past LINK PLAY (the board has a link
            # port) to the mode; then X (B): change the mode.
            key = pygame.K_z if n < 15 else pygame.K_x
            for t in (pygame.KEYDOWN, pygame.KEYUP):
                pygame.event.post(pygame.event.Event(t, key=key, mod=0, unicode="",
                                                     scancode=0))
        if n == 39:
            seen["after"] = bytes(win.display.panel)
            seen["settings"] = win.m.pico.files_on_flash().get("spit.json", b"")
            seen["screen"] = win.m.app.screen_name()
    try:
        code = cli.main(["--engine", "pico", "--frames", "40"], clock=SimClock(),
                        on_frame=on_frame, stdout=io.StringIO())
    finally:
        pygame.display.quit()
    assert code == 0
    assert seen["screen"] == "title"
    assert seen["before"] != seen["after"]                   # the menu item changed
    assert b'"mode": 1' in seen["settings"]                  # the board saved it


def test_an_exception_in_the_firmware_is_one_line_with_the_boards_traceback(pico_firmware,
                                                                            pico_files):
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.pico.device import DeviceError
    from desktop_emulator.pico.engine import PicoMachine
    m = PicoMachine(pico_firmware, wall_limit_s=120)
    m.pico.files = pico_files
    m.pico.extra = {"firmware/view.py": b"raise RuntimeError('broken view module')\n"}
    try:
        with pytest.raises(DeviceError) as e:
            m.attach(FrameDisplay()).boot()
    finally:
        m.close()
    assert str(e.value) == "exception on the device: RuntimeError: broken view module"
    assert 'File "firmware/view.py", line 1' in e.value.traceback


def test_a_screenshot_of_the_board(tmp_path):
    from desktop_emulator.display import load_png_pixels
    shot = tmp_path / "board.png"
    code, lines = run_cli("--engine", "pico", "--headless", "--p0", "hard", "--p1", "hard",
                          "--seed", "3", "--frames", "60", "--screenshot", str(shot),
                          "--scale", "1", "--no-skin", "--print-state")
    assert code == 0, lines
    assert lines[0].startswith("screen=game")
    pixels = load_png_pixels(shot)
    assert len(pixels) == 128 * 64
    assert sum(pixels) > 200                                 # the table, not a blank
