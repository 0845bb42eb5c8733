"""The device's storage port (firmware/hw/storage.py) and what the app accepts from it
(firmware/savegame.py): atomic writes with a checksum; a missing, cut-short or corrupt
file gives defaults and a message, never a crash; power cut at any point of a save
leaves the old or the new data, never a mix."""
import json

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
    for data in (b"", b"a", b"spit" * 100, bytes(range(256))):
        fallback = S._crc32
        try:
            S._crc32 = None
            pure = S.crc32(data)
        finally:
            S._crc32 = fallback
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
