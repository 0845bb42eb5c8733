"""House rules (firmware/house.py): the text file beside the storage file that sets a
class's game. A good file sets the menu's settings and R37's points target at
power-up; a bad one -- an unknown name, a bad value, a line with no '=', a setting
twice, a file too long, not text or unreadable -- changes nothing, and the title says
which line in one short line (the host gets the whole line). Never a traceback."""
import os

import pytest

from desktop_emulator import framebuf
from desktop_emulator.storage import FileStorage as DesktopStorage
from firmware import house, savegame
from firmware.app import TITLE, GAME
from firmware.hw.storage import FileStorage
from host.rig import Rig, MemoryStorage

CLASS_FILE = """\
# Class 7B's house rules
rules = points      # the points game (R35-R37)
target = 50
flip = manual
fumble = 1000
slap_signal = off
sound = off
players = CPU   Hard
"""


def rig_with_house(tmp_path, text, storage_text=None):
    if text is not None:
        data = text.encode() if isinstance(text, str) else text
        (tmp_path / "house.txt").write_bytes(data)
    st = FileStorage(str(tmp_path / "spit.json"))
    if storage_text is not None:
        st.save(storage_text)
    r = Rig(framebuf, storage=st)
    r.frames(1)
    return r


def test_a_class_file_sets_every_setting_and_the_target():
    assert house.parse(CLASS_FILE) == {"points": 1, "target": 50, "flip": 1,
                                       "fumble": 1000, "signal": 0, "sound": 0, "mode": 3}


def test_an_empty_or_comment_only_file_sets_nothing():
    assert house.parse("") == {}
    assert house.parse("# nothing yet\n\n   \n") == {}


@pytest.mark.parametrize("text,line,words", [
    ("rules = speed\n", 1, "rules must be one of: standard, points (got 'speed')"),
    ("\n\ntarget = 0\n", 3, "target must be a whole number 1-999 (got '0')"),
    ("target = 1000\n", 1, "target must be a whole number 1-999"),
    ("fumble = lots\n", 1, "fumble must be a whole number 0-5000 ms (got 'lots')"),
    ("fumble = -1\n", 1, "fumble must be a whole number 0-5000 ms"),
    ("fumble = 5001\n", 1, "0-5000 ms (got '5001')"),
    ("rules points\n", 1, "expected 'name = value', got 'rules points'"),
    ("colour = red\n", 1, "unknown setting 'colour' (known: rules, target,"),
    ("sound = on\nsound = off\n", 2, "sound is set twice"),
    ("players = 3\n", 1, "players must be one of: 2, cpu easy, cpu normal, cpu hard"),
    ("flip = sometimes\n", 1, "flip must be one of: auto, manual"),
    ("slap_signal = maybe\n", 1, "slap_signal must be one of: on, off, yes, no"),
    ("link_player = cpu\n", 1,
     "link_player must be one of: person, cpu easy, cpu normal, cpu hard (got 'cpu')"),
])
def test_a_bad_line_is_named_in_one_line(text, line, words):
    with pytest.raises(house.HouseRulesError) as e:
        house.parse(text)
    msg = str(e.value)
    assert msg.startswith("house.txt: line %d: " % line)
    assert words in msg
    assert "\n" not in msg
    assert e.value.note == "HOUSE.TXT LINE %d BAD" % line


def test_a_file_from_a_windows_editor_reads_the_same():
    text = "\ufeff" + CLASS_FILE.replace("\n", "\r\n")
    assert house.parse(text) == house.parse(CLASS_FILE)


def test_a_storage_problem_keeps_its_note_over_house_rules_on():
    st = MemoryStorage('{"v": 99}')
    r = Rig(framebuf, storage=st, house="sound = off\n")
    assert r.app.note == "SAVED DATA UNREADABLE" and r.app.settings["sound"] == 0
    r = Rig(framebuf, storage=st, house="sound = maybe\n")
    assert r.app.note == "HOUSE.TXT LINE 1 BAD"


def test_the_limits_themselves_are_accepted():
    assert house.parse("target = 1\nfumble = 0") == {"target": 1, "fumble": 0}
    assert house.parse("target = 999\nfumble = 5000") == {"target": 999, "fumble": 5000}


def test_the_house_file_lies_beside_the_storage_file():
    assert house.path_beside("/spit.json") == "/house.txt"
    assert house.path_beside("spit.json") == "house.txt"
    assert house.path_beside("/home/a/.local/share/s/spit.json") == "/home/a/.local/share/s/house.txt"
    assert house.path_beside("C:\\Users\\a\\spit.json") == "C:\\Users\\a\\house.txt"


def test_the_app_plays_the_house_rules_and_the_points_game_keeps_the_target(tmp_path):
    r = rig_with_house(tmp_path, CLASS_FILE)
    app = r.app
    assert app.house_error is None
    assert app.note == "HOUSE RULES ON"
    want = dict(savegame.default_settings(), points=1, flip=1, fumble=1000, signal=0,
                sound=0, mode=3)
    assert app.settings == want
    r.menu(["B"])                                 # START
    assert app.screen == GAME
    assert app.game.rules.points and app.game.rules.manual_flip
    assert app.game.rules.target == 50            # R37: the class's target
    assert app.cpu == [None, 3]
    assert app.conduct.fumble_us == 1000000 and app.conduct.signal == 0


def test_the_menu_still_changes_a_setting_the_house_file_made(tmp_path):
    r = rig_with_house(tmp_path, "rules = points\n")
    assert r.app.settings["points"] == 1
    r.menu(["A", "A", "B"])                       # START, MODE, RULES: flipped back
    assert r.app.settings["points"] == 0


def test_the_house_file_wins_over_saved_settings_at_power_up(tmp_path):
    saved = savegame.pack(dict(savegame.default_settings(), fumble=1500, sound=1))
    r = rig_with_house(tmp_path, "sound = off\n", storage_text=saved)
    assert r.app.settings["sound"] == 0
    assert r.app.settings["fumble"] == 1500       # what the file does not name stays


@pytest.mark.parametrize("data,note,words", [
    (b"rules = points\ntarget = fifty\n", "HOUSE.TXT LINE 2 BAD", "line 2: target"),
    (b"x" * 3000, "HOUSE.TXT IGNORED", "longer than 2048 bytes; settings kept"),
    (b"rules = \xff\xfe points\n", "HOUSE.TXT IGNORED", "is not a text file"),
])
def test_a_bad_file_changes_nothing_and_the_title_says_so(tmp_path, data, note, words):
    saved = savegame.pack(dict(savegame.default_settings(), fumble=1500))
    r = rig_with_house(tmp_path, data, storage_text=saved)
    app = r.app
    assert app.screen == TITLE
    assert app.note == note
    assert words in app.house_error and "\n" not in app.house_error
    assert app.settings == dict(savegame.default_settings(), fumble=1500)
    assert app.target == 100
    r.menu(["B"])                                 # the game starts as if no file
    assert app.game.rules.points is False and app.game.rules.target == 100


def test_an_unreadable_house_file_is_ignored(tmp_path):
    os.mkdir(tmp_path / "house.txt")              # a folder of that name
    r = rig_with_house(tmp_path, None)
    assert r.app.note == "HOUSE.TXT IGNORED"
    assert r.app.house_error == "house.txt: cannot be read; settings kept"
    assert r.app.settings == savegame.default_settings()


def test_no_house_file_and_no_file_storage_change_nothing(tmp_path):
    r = rig_with_house(tmp_path, None)
    assert r.app.note == "" and r.app.house_error is None
    r = Rig(framebuf, storage=MemoryStorage())
    assert r.app.note == "" and r.app.settings == savegame.default_settings()


def test_a_host_may_hand_the_app_the_text_itself():
    r = Rig(framebuf, house="target = 7\nrules = points\n")
    assert r.app.target == 7 and r.app.settings["points"] == 1
    r = Rig(framebuf, house="target = seven\n")
    assert r.app.note == "HOUSE.TXT LINE 1 BAD" and r.app.target == 100


def test_the_cable_test_is_a_house_rule_of_link_play_not_a_setting():
    # link_player: who plays this handheld's player in link play (docs/LINK.md "The
    # cable test"); kept beside the target, not in the saved settings.
    assert house.parse("link_player = CPU  Hard\n") == {"link_cpu": 3}
    r = Rig(framebuf, house="link_player = cpu easy\n")
    assert r.app.link_cpu == 1 and "link_cpu" not in r.app.settings
    assert Rig(framebuf).app.link_cpu == 0
    assert Rig(framebuf, house="link_player = person\n").app.link_cpu == 0


def test_the_desktop_finds_the_house_file_beside_its_save_file(tmp_path):
    (tmp_path / "house.txt").write_text("target = 25\n")
    r = Rig(framebuf, storage=DesktopStorage(str(tmp_path / "spit.json")))
    assert r.app.target == 25 and r.app.house_error is None


def test_the_reader_is_dropped_from_memory_after_power_up():
    import sys
    Rig(framebuf, house="sound = off\n")
    assert "firmware.house" not in sys.modules


def desktop_engine(tmp_path, house_text):
    from desktop_emulator import session
    from desktop_emulator.display import FrameDisplay
    from host.clock import SimClock
    (tmp_path / "house.txt").write_text(house_text)
    err = []

    class Err:
        def write(self, s):
            err.append(s)

        def flush(self):
            pass
    st = DesktopStorage(str(tmp_path / "spit.json"), stderr=Err())
    import sys
    real, sys.stderr = sys.stderr, Err()
    try:
        m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay(), None, st)
    finally:
        sys.stderr = real
    return m, "".join(err)


def test_the_desktop_says_a_bad_house_file_in_one_line_and_a_good_one_not_at_all(tmp_path):
    m, err = desktop_engine(tmp_path, "target = lots\n")
    assert err == ("house rules ignored: house.txt: line 1: target must be a whole number "
                   "1-999 (got 'lots')\n")
    assert m.app.note == "HOUSE.TXT LINE 1 BAD"
    m, err = desktop_engine(tmp_path, "target = 40\n")
    assert err == "" and m.app.target == 40


@pytest.mark.mp
def test_the_house_rules_read_the_same_on_micropython():
    from tests.helpers import MICROPYTHON, ROOT, run_micropython
    import subprocess
    import sys
    if not MICROPYTHON.exists():
        pytest.fail("micropython binary missing (run `make setup`)")
    script = ROOT / "tests/mp/house_rules.py"
    mp = run_micropython(script, heap="1M")
    cp = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                        cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)),
                        timeout=120)
    assert mp.returncode == 0, mp.stderr + mp.stdout
    assert cp.returncode == 0, cp.stderr
    assert mp.stdout == cp.stdout
    assert mp.stdout.count("\nbad ") == 5 and "game True True 40" in mp.stdout
