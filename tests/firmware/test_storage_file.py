"""The device's storage port (firmware/hw/storage.py) and what the app accepts from it
(firmware/savegame.py): atomic writes with a checksum; a missing, cut-short or corrupt
file gives defaults and a message, never a crash; power cut at any point of a save
leaves the old or the new data, never a mix."""
import json
import os

import pytest

from desktop_emulator import framebuf
from firmware import savegame
from firmware.app import TITLE
from host.rig import Rig, MemoryStorage
from firmware.hw import storage as S
from shared_rules.game import Game, Rules


class PowerCut(BaseException):
    """Not an Exception: like a real power cut, nothing in the app can catch it."""


class FakeFlash:
    """Files in a dict. Every step of a write (open/truncate, each 64-byte block, the
    rename, a remove) spends one unit of `budget`; at zero the power goes. fat=True:
    rename refuses to replace an existing file (FAT), as littlefs does not."""

    def __init__(self, files=None, budget=None, fat=False):
        self.files = dict(files or {})
        self.budget = budget
        self.fat = fat
        self.ops = 0

    def _step(self):
        if self.budget is not None:
            if self.budget <= 0:
                raise PowerCut()
            self.budget -= 1
        self.ops += 1

    def read(self, name):
        return self.files.get(name)

    def write(self, name, data):
        self._step()
        self.files[name] = b""
        for k in range(0, len(data), 64):
            self._step()
            self.files[name] = bytes(data[:k + 64])

    def rename(self, a, b):
        self._step()
        if self.fat and b in self.files:
            raise OSError(17, "exists")
        self.files[b] = self.files.pop(a)

    def remove(self, name):
        self._step()
        self.files.pop(name, None)


def saved(settings=None, game=None):
    return savegame.pack(settings or savegame.default_settings(), game, [None, None], [0] * 8)


def test_round_trip_on_a_real_directory(tmp_path):
    st = S.FileStorage(str(tmp_path / "spit.json"))
    assert st.load() is None and st.message is None           # fresh: no message
    d = saved(game=Game(3))
    st.save(d)
    assert S.FileStorage(str(tmp_path / "spit.json")).load() == json.loads(json.dumps(d))
    st.save(saved({"mode": 1, "points": 1, "flip": 0, "sound": 0}))
    assert st.load()["settings"]["mode"] == 1
    assert not (tmp_path / "spit.json.tmp").exists()


def test_crc32_fallback_matches_binascii():
    import binascii
    from firmware import crc
    for data in (b"", b"a", b"spit" * 100, bytes(range(256))):
        fallback = crc._crc32
        try:
            crc._crc32 = None
            pure = S.crc32(data)
        finally:
            crc._crc32 = fallback
        assert pure == binascii.crc32(data) & 0xFFFFFFFF == S.crc32(data)


def good_file():
    return S.encode(saved(game=Game(5)))


@pytest.mark.parametrize("name,mangle", [
    ("empty", lambda b: b""),
    ("cut short", lambda b: b[:len(b) // 2]),
    ("header only", lambda b: b[:b.index(b"\n") + 1]),
    ("one bit flipped", lambda b: b[:-10] + bytes([b[-10] ^ 4]) + b[-9:]),
    ("wrong magic", lambda b: b"SPIT9" + b[5:]),
    ("bad length", lambda b: b.replace(b" ", b" 1", 2) if False else b.split(b"\n", 1)[0][:-1] + b"9\n" + b.split(b"\n", 1)[1]),
    ("no newline", lambda b: b.replace(b"\n", b" ")),
    ("garbage", lambda b: bytes(range(256)) * 3),
    ("not hex", lambda b: b"SPIT1 zzzzzzzz 5\nabcde"),
    ("json not a dict", lambda b: S.encode([1, 2, 3]) if False else _encode_raw(b"[1, 2, 3]")),
    ("json broken", lambda b: _encode_raw(b"{\"v\": 1,")),
])
def test_corrupt_file_gives_none_and_a_message(name, mangle):
    fs = FakeFlash({"spit.json": mangle(good_file())})
    st = S.FileStorage("spit.json", fs)
    assert st.load() is None
    assert st.message == "SAVED DATA CORRUPT"


def _encode_raw(body):
    return ("SPIT1 %08x %d\n" % (S.crc32(body), len(body))).encode() + body


def test_a_complete_tmp_file_is_used_when_the_main_one_is_gone():
    # FAT: the old file was removed and the power went before the rename.
    fs = FakeFlash({"spit.json.tmp": good_file()})
    assert S.FileStorage("spit.json", fs).load()["v"] == savegame.VERSION


def test_a_broken_tmp_file_is_ignored():
    fs = FakeFlash({"spit.json": good_file(), "spit.json.tmp": b"SPIT1 0000"})
    assert S.FileStorage("spit.json", fs).load() is not None


@pytest.mark.parametrize("fat", [False, True])
def test_power_cut_at_every_step_of_a_save_leaves_old_or_new(fat):
    old = saved(game=Game(1))
    new = saved({"mode": 3, "points": 1, "flip": 1, "sound": 0}, Game(2, Rules(points=True)))
    old_j = json.loads(json.dumps(old))
    new_j = json.loads(json.dumps(new))
    base = FakeFlash(fat=fat)
    S.FileStorage("spit.json", base).save(old)
    n_ops = None
    k = 0
    outcomes = set()
    while True:
        fs = FakeFlash(base.files, budget=k, fat=fat)
        try:
            S.FileStorage("spit.json", fs).save(new)
            n_ops = k
        except PowerCut:
            pass
        got = S.FileStorage("spit.json", FakeFlash(fs.files, fat=fat)).load()
        assert got in (old_j, new_j), "cut at step %d left %r" % (k, got)
        outcomes.add("old" if got == old_j else "new")
        if n_ops is not None:
            break
        k += 1
    assert outcomes == {"old", "new"} and n_ops > 5


# ---- what the app accepts (savegame) -------------------------------------------------
def test_unpack_rejects_what_it_cannot_trust():
    ok = json.loads(json.dumps(saved(game=Game(4))))
    s, g, msg = savegame.unpack(ok)
    assert g["game"].snapshot() == Game(4).snapshot() and msg is None
    assert savegame.unpack(None) == (savegame.default_settings(), None, None)
    assert savegame.unpack({"v": 99})[2] == "SAVED DATA UNREADABLE"
    assert savegame.unpack([1])[2] == "SAVED DATA UNREADABLE"
    bad = dict(ok, settings={"mode": 7, "points": 0, "flip": 0, "sound": 1})
    assert savegame.unpack(bad)[2] == "SETTINGS RESET"
    bad = dict(ok, settings={"mode": True, "points": 0, "flip": 0, "sound": 1})
    assert savegame.unpack(bad)[2] == "SETTINGS RESET"
    for mangle in (
        lambda g: g["snap"].update(stock="nonsense"),
        lambda g: g["snap"].pop("rng"),
        lambda g: g.update(cpu=[None]),
        lambda g: g.update(cpu=[None, 9]),
        lambda g: g.pop("snap"),
        lambda g: g["snap"].update(said=[True, False]),      # not a round boundary
    ):
        d = json.loads(json.dumps(ok))
        mangle(d["game"])
        s, g, msg = savegame.unpack(d)
        assert g is None and msg == "SAVED GAME LOST" and s == ok["settings"]
    d = json.loads(json.dumps(ok))
    d["game"] = "x"
    assert savegame.unpack(d)[1] is None


def test_the_app_starts_with_defaults_and_a_message_on_a_bad_file():
    for text in ("{", "[]", '{"v": 1}', json.dumps({"v": 1, "settings": {}, "game": None})):
        st = MemoryStorage(text if text != "{" else None)
        if text == "{":
            st.load = lambda: (_ for _ in ()).throw(ValueError("unreadable"))
        r = Rig(framebuf, storage=st)
        r.frames(2)
        assert r.app.screen == TITLE
        assert r.app.settings == savegame.default_settings()
        assert r.app.saved is None
        assert r.app.note in ("SAVED DATA UNREADABLE", "SETTINGS RESET")


def test_the_app_shows_the_storage_message_and_plays_on_when_saving_fails():
    fs = FakeFlash({"spit.json": b"SPIT1 00000000 3\nabc"})
    st = S.FileStorage("spit.json", fs)
    r = Rig(framebuf, storage=st)
    r.frames(1)
    assert r.app.note == "SAVED DATA CORRUPT"

    def broken(d):
        raise OSError(28, "no space")
    st.save = broken
    r.menu(["B"])                            # START: the save fails, the game goes on
    assert r.app.screen == 1 and r.app.save_errors == 1


# ---- a saved game is the player's ------------------------------------------------------

def test_a_saved_game_is_kept_when_a_host_starts_another_without_the_menu():
    from firmware import savegame
    r = Rig(framebuf)
    r.frames(1)
    r.app.start_game(8, Rules(), (None, 3), r.clock.now)
    r.frames(2)
    saved = json.loads(r.storage.text)["game"]
    assert saved is not None
    r2 = Rig(framebuf, storage=MemoryStorage(r.storage.text))
    r2.frames(1)
    assert r2.app.saved is not None
    r2.app.start_game(99, Rules(), (None, 1), r2.clock.now, keep_saved=True)
    r2.add_bots(("hard", "hard"), seed=4, players=(0,))
    r2.until(lambda a: a.screen_name() in ("summary", "over"))
    r2.frames(30)                                  # past the save delay
    assert json.loads(r2.storage.text)["game"] == saved       # untouched
    r3 = Rig(framebuf, storage=MemoryStorage(r2.storage.text))
    r3.frames(1)
    assert r3.app.menu_items()[0] == 0 and r3.app.saved["game"].seed == 8   # CONTINUE
    # Chosen from the menu (START), the new game replaces it.
    r3.menu(["A", "B"])
    assert r3.app.game.seed != 8
    assert json.loads(r3.storage.text)["game"]["snap"]["seed"] == r3.app.game.seed
    assert savegame.unpack(json.loads(r3.storage.text))[1] is not None


def test_the_window_keeps_the_saved_game_unless_told_to_replace_it(tmp_path, monkeypatch,
                                                                     capsys):
    import io
    from desktop_emulator import cli, storage as dst
    from desktop_emulator.clock import SimClock
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    r = Rig(framebuf)
    r.frames(1)
    r.app.start_game(8, Rules(), (None, 3), r.clock.now)
    r.frames(2)
    path = dst.default_path()
    dst.FileStorage(path).save(json.loads(r.storage.text))
    before = open(path, "rb").read()
    for flags, kept in (([], True), (["--replace-save"], False)):
        capsys.readouterr()
        assert cli.main(["--p1", "hard", "--frames", "40"] + flags, clock=SimClock(),
                        stdout=io.StringIO()) == 0
        assert (open(path, "rb").read() == before) == kept, flags
        assert ("a saved game is kept" in capsys.readouterr().err) == kept
    pygame_quit()


def pygame_quit():
    import pygame
    pygame.display.quit()


def test_bad_content_and_a_directory_are_one_line_each_and_a_failed_save_is_said(tmp_path,
                                                                                   capsys):
    import io
    from desktop_emulator import session, storage as dst
    from desktop_emulator.clock import SimClock
    from desktop_emulator.display import FrameDisplay
    # A file that passes its checksum but comes from a future version.
    path = str(tmp_path / "spit.json")
    dst.FileStorage(path).save({"v": 99, "settings": {}, "game": None})
    capsys.readouterr()
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay(), None,
                        dst.FileStorage(path))
    err = capsys.readouterr().err.strip().split("\n")
    assert err == ["storage: %s: saved data unreadable; using what could be used" % path]
    assert m.app.note == "SAVED DATA UNREADABLE"
    # A directory where the file should be: said when read, and every failed save too.
    d = str(tmp_path / "dir.json")
    os.mkdir(d)
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay(), None,
                        dst.FileStorage(d))
    err = capsys.readouterr().err.strip().split("\n")
    assert err == ["storage: %s: saved data unreadable; using defaults" % d]
    m.app.start_game(3, Rules(), (None, None), m.clock.ticks_us())
    err = capsys.readouterr().err.strip().split("\n")
    assert len(err) == 1 and err[0].startswith("storage: %s: cannot save: " % d)
    assert m.app.save_errors == 1 and m.app.note == "COULD NOT SAVE"


def test_the_flash_reads_a_missing_file_as_none_and_raises_for_any_other_failure(tmp_path):
    from firmware.hw.storage import Flash
    f = Flash()
    assert f.read(str(tmp_path / "spit.json")) is None
    (tmp_path / "saved").write_bytes(b"{}")
    assert f.read(str(tmp_path / "saved")) == b"{}"
    with pytest.raises(OSError):
        f.read(str(tmp_path))                        # a folder in the file's place


@pytest.mark.parametrize("errno", [1, 13, 5])
def test_the_flash_raises_when_a_file_cannot_be_read_for_any_reason_but_its_absence(monkeypatch, errno):
    from firmware.hw.storage import Flash

    def refuse(name, mode="r"):
        raise OSError(errno, "refused")
    monkeypatch.setattr(S, "open", refuse, raising=False)
    with pytest.raises(OSError):
        Flash().read("spit.json")


def test_a_file_whose_checksum_is_off_either_way_is_not_read():
    good = S.encode({"v": 1})
    head, body = good.split(b"\n", 1)
    magic, crc, n = head.split()
    for delta in (1, -1):
        other = (int(crc, 16) + delta) & 0xFFFFFFFF
        bad = b"%s %08x %s\n" % (magic, other, n) + body
        assert S.decode(bad) is None
    assert S.decode(good) == {"v": 1}
