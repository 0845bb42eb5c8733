"""The flash (firmware/hw/storage.py Flash) asks the filesystem to sync after every
write and append, so a power cut right after keeps what was written; a port without
os.sync writes all the same. On the host's filesystem, with os.sync watched."""
from firmware.hw import storage as S


def _watch_sync(monkeypatch):
    calls = []
    monkeypatch.setattr(S.os, "sync", lambda: calls.append(1), raising=False)
    return calls


def test_append_adds_the_chunks_then_syncs_once(tmp_path, monkeypatch):
    calls = _watch_sync(monkeypatch)
    path = str(tmp_path / "game.rec")
    S.Flash().append(path, [b"ab", b"cd"])
    S.Flash().append(path, [b"e"])
    assert open(path, "rb").read() == b"abcde" and calls == [1, 1]


def test_write_syncs_once(tmp_path, monkeypatch):
    calls = _watch_sync(monkeypatch)
    path = str(tmp_path / "spit.json")
    S.Flash().write(path, b"{}")
    assert open(path, "rb").read() == b"{}" and calls == [1]


def test_a_port_without_os_sync_writes_and_appends_all_the_same(tmp_path, monkeypatch):
    monkeypatch.delattr(S.os, "sync", raising=False)
    path = str(tmp_path / "game.rec")
    S.Flash().write(path, b"x")
    S.Flash().append(path, [b"y"])
    assert open(path, "rb").read() == b"xy"
