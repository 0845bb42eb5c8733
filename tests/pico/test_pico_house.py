"""House rules on the real firmware on the emulated Pico: a house.txt in the board's
root sets the settings and the points target at power-up and the title says so; a bad
one changes nothing and the title names its line."""
import pytest

from desktop_emulator.pico.device import Pico
from firmware.boards import pico as board

pytestmark = pytest.mark.pico

BUTTONS = [g for g, _p, _n in board.BUTTONS]


def boot_with_house(pico_firmware, pico_files, tmp_path, text):
    house = tmp_path / "house.txt"
    house.write_text(text)
    pico = Pico(pico_firmware, files=dict(pico_files, **{"house.txt": house}), buttons=BUTTONS)
    pico.boot()
    pico.read_until(b"spit: screen=title", guest_ms=3000, what="the title screen")
    pico.run_for(50_000)
    pico.interrupt()
    pico.enter_raw(soft_reset=False)
    return pico


def test_a_house_file_on_the_board_sets_the_game_at_power_up(pico_firmware, pico_files,
                                                             tmp_path):
    with boot_with_house(pico_firmware, pico_files, tmp_path,
                         "rules = points\ntarget = 40\nfumble = 1000\n") as pico:
        s = pico.eval_json("firmware.main.app.settings")
        assert s["points"] == 1 and s["fumble"] == 1000
        assert pico.eval_json("firmware.main.app.target") == 40
        assert pico.eval_json("firmware.main.app.note") == "HOUSE RULES ON"


def test_a_bad_house_file_on_the_board_changes_nothing(pico_firmware, pico_files, tmp_path):
    with boot_with_house(pico_firmware, pico_files, tmp_path, "target = forty\n") as pico:
        s = pico.eval_json("firmware.main.app.settings")
        assert s["points"] == 0 and s["fumble"] == 500
        assert pico.eval_json("firmware.main.app.target") == 100
        assert pico.eval_json("firmware.main.app.note") == "HOUSE.TXT LINE 1 BAD"
