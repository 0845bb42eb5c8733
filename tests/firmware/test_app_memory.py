"""The device's heap (issue: memory with room to spare): a game's recording goes to
flash between rounds, so a game of any length is recorded whole (R40) while the heap
holds only the round in play; and running out of heap degrades (collect, retry, a
message) instead of raising out of the loop, which on the board resets it."""
import builtins

import pytest

from desktop_emulator import framebuf
from firmware import app as A
from firmware.hw.storage import FileStorage
from firmware.records import PackedRecords, CHUNK
from host.rig import Rig
from shared_rules.game import Rules
from tests.firmware.test_app_replay import replay_into


class WatchedStorage(FileStorage):
    """The device's storage port on real files, noting the screen at every write of
    the recording (a flash write stalls interrupts: never during play)."""

    def __init__(self, path, app_of):
        FileStorage.__init__(self, path)
        self.app_of = app_of
        self.writes = []

    def rec_add(self, chunks):
        a = self.app_of()
        self.writes.append((a.screen, a.game.phase, len(chunks)))
        FileStorage.rec_add(self, chunks)


def long_game(tmp_path, seed=3):
    holder = []
    st = WatchedStorage(str(tmp_path / "spit.json"), lambda: holder[0])
    r = Rig(framebuf, storage=st)          # the device's RECORD_LIMIT
    holder.append(r.app)
    r.app.start_game(seed, Rules(), (3, 3), r.clock.now)
    peak = [0]

    def over(app):
        peak[0] = max(peak[0], app.replay.records.nbytes())
        return app.screen == A.OVER_SCREEN
    r.until(over, limit=30 * 60 * 60)
    return r, st, peak[0]


def test_r40_a_long_game_is_recorded_whole_and_replays_to_the_same_game(tmp_path):
    r, st, peak = long_game(tmp_path)
    app = r.app
    recs = app.replay.records
    assert app.game.round >= 27
    assert recs.lost == 0
    # More than the heap's limit was recorded; the heap never held more than a round or so.
    assert recs.spilled() + recs.nbytes() > A.RECORD_LIMIT
    assert peak <= 8 * CHUNK
    assert (tmp_path / "spit.rec").stat().st_size == recs.spilled()
    r2, _ = replay_into(app.replay)
    assert r2.app.screen == A.OVER_SCREEN
    assert r2.app.game.snapshot() == app.game.snapshot()
    digests = [x for x in recs if x[0] == "digest"]
    assert [d[2] for d in digests] == list(range(1, app.game.round + 1))


def test_the_recording_goes_to_flash_only_between_rounds(tmp_path):
    r, st, _ = long_game(tmp_path)
    assert len(st.writes) >= 20
    for screen, phase, n in st.writes:
        assert screen != A.GAME and n > 0
        assert phase in ("ready", "over")


def _records(n, seed=7):
    out = []
    t = (1 << 30) - 50000
    for k in range(n):
        t = (t + (k * 7919 + seed) % 70000 - 2000) % (1 << 30)
        if k % 97 == 5:
            out.append(("digest", t, k // 97, (k * 2654435761) & 0xFFFFFF))
        elif k % 3 == 0:
            out.append(("frame", t))
        else:
            out.append(("button", t, k & 1, k % 6, (k >> 1) & 1))
    return out


def test_records_read_back_whole_across_spills(tmp_path):
    st = FileStorage(str(tmp_path / "s.json"))
    assert st.recording
    recs = PackedRecords(4096, st)
    want = _records(3000)
    for k, rec in enumerate(want):
        recs.append(rec)
        if k % 400 == 399:
            assert recs.spill() > 0
            assert recs.nbytes() == CHUNK          # only the chunk being filled
    assert recs.lost == 0 and recs.spilled() > 4096
    assert list(recs) == want
    assert recs == want


def test_a_tap_whose_press_went_to_flash_is_kept_as_two_records(tmp_path):
    st = FileStorage(str(tmp_path / "s.json"))
    recs = PackedRecords(4096, st)
    want = [("frame", k * 10) for k in range(CHUNK // 2 - 1)]   # two bytes each
    want.append(("button", 5000, 1, 1, 1))
    for rec in want:
        recs.append(rec)
    recs.spill()
    want.append(("button", 5000, 1, 1, 0))   # its release at the same stamp
    recs.append(want[-1])
    assert list(recs) == want


def test_a_new_recording_replaces_the_last_games_file(tmp_path):
    st = FileStorage(str(tmp_path / "s.json"))
    first = PackedRecords(4096, st)
    for rec in _records(600):
        first.append(rec)
    first.spill()
    second = PackedRecords(4096, st)
    want = _records(700, seed=3)
    for rec in want:
        second.append(rec)
    second.spill()
    assert list(second) == want
    assert (tmp_path / "s.rec").stat().st_size == second.spilled()


class FailingStore:
    recording = True

    def __init__(self):
        self.calls = 0

    def rec_new(self):
        pass

    def rec_add(self, chunks):
        self.calls += 1
        raise OSError(28)              # the flash is full


def test_a_store_that_fails_leaves_the_recording_in_the_heap():
    st = FailingStore()
    recs = PackedRecords(1 << 20, st)
    want = _records(1500)
    for rec in want[:1000]:
        recs.append(rec)
    assert recs.spill() == 0 and recs.spill_errors == 1
    for rec in want[1000:]:
        recs.append(rec)
    assert recs.spill() == 0 and st.calls == 1    # not tried again
    assert list(recs) == want


def test_storage_that_cannot_append_keeps_no_recordings():
    class NoAppend:          # like the browser's localStorage
        def read(self, name):
            return None

    class AppendOnly(NoAppend):  # appends, but cannot read a part of a file back
        def append(self, name, chunks):
            pass

    assert not FileStorage("spit.json", fs=NoAppend()).recording
    assert not FileStorage("spit.json", fs=AppendOnly()).recording
    assert FileStorage("spit.json").rec_path == "spit.rec"


def test_a_cut_recording_file_says_so(tmp_path):
    st = FileStorage(str(tmp_path / "s.json"))
    recs = PackedRecords(4096, st)
    for rec in _records(900):
        recs.append(rec)
    recs.spill()
    (tmp_path / "s.rec").write_bytes(b"\x00" * 10)
    with pytest.raises(OSError):
        list(recs)


# ---- out of heap ------------------------------------------------------------------------

def _pause_rig():
    r = Rig(framebuf)
    r.app.start_game(11, Rules(), (None, 3), r.clock.now)
    r.frames(40)
    assert r.app.screen == A.GAME
    return r


def _imports_fail(monkeypatch, times):
    real = builtins.__import__
    left = [times]

    def imp(name, *a, **kw):
        if name == "firmware.screens.pause" and left[0]:
            left[0] -= 1
            raise MemoryError("memory allocation failed, allocating 1104 bytes")
        return real(name, *a, **kw)
    monkeypatch.setattr(builtins, "__import__", imp)
    return left


def test_a_screen_import_that_runs_out_of_heap_is_retried_after_a_collection(monkeypatch):
    r = _pause_rig()
    import sys
    sys.modules.pop("firmware.screens.pause", None)
    _imports_fail(monkeypatch, 1)
    r.tap(0, "PAUSE")
    assert r.app.screen == A.PAUSE and r.app.screen_name() == "pause"
    assert type(r.app.cur).__name__ == "PauseScreen"
    assert r.app.mem_errors == 0


def test_a_screen_that_does_not_fit_waits_with_a_message_then_shows(monkeypatch):
    r = _pause_rig()
    import sys
    sys.modules.pop("firmware.screens.pause", None)
    left = _imports_fail(monkeypatch, 1000)
    r.tap(0, "PAUSE")
    app = r.app
    assert app.screen == A.PAUSE and app.mem_errors >= 1
    assert type(app.cur).__name__ == "_LowMemory"
    r.frames(3)                                   # still no room: no exception
    assert type(app.cur).__name__ == "_LowMemory"
    assert any(app.view.fb.pixel(x, y) for x in range(128) for y in range(64))
    left[0] = 0                                   # the heap has room again
    r.frames(1)
    assert type(app.cur).__name__ == "PauseScreen"
    r.tap(0, "B")                                 # RESUME
    r.frames(2)
    assert app.screen == A.GAME


def test_running_out_of_heap_in_a_frame_collects_and_says_so(monkeypatch):
    r = _pause_rig()
    app = r.app
    tb = app.table
    real = type(tb).tick
    fails = [1]

    def tick(self, now):
        if fails[0]:
            fails[0] -= 1
            raise MemoryError()
        return real(self, now)
    monkeypatch.setattr(type(tb), "tick", tick)
    collected = []
    monkeypatch.setattr(A.gc, "collect", lambda: collected.append(1))
    r.frames(1)
    assert app.mem_errors == 1 and collected and app.note == "LOW MEMORY"
    assert [(m.l1, m.l2) for m in app.msgs] == [A.LOW_MEMORY, A.LOW_MEMORY]
    r.frames(60)                                  # the game goes on
    assert app.screen == A.GAME and app.game.phase in ("ready", "play", "stall", "slap")


def test_a_frame_that_keeps_running_out_of_heap_never_raises(monkeypatch):
    r = _pause_rig()
    app = r.app
    monkeypatch.setattr(type(app.table), "tick", lambda self, now: (_ for _ in ()).throw(MemoryError()))
    for _ in range(5):
        assert app.step(r.clock.advance(A.FRAME_US)) is False
    assert app.mem_errors == 10


def test_the_reader_knows_the_writers_head_bytes():
    from firmware import records, records_read
    for name in ("CHUNK", "_FRAME", "_OTHER", "_DIGEST", "_TAP"):
        assert getattr(records_read, name) == getattr(records, name)


def test_a_press_drained_before_the_heap_ran_out_is_handled_when_the_frame_is_tried_again(
        monkeypatch):
    r = _pause_rig()
    app = r.app
    real = type(app.table).poll
    fails = [1]

    def poll(self, now, evs, hook):
        if fails[0]:
            fails[0] -= 1
            raise MemoryError()           # the CPU's planning found no block
        return real(self, now, evs, hook)
    monkeypatch.setattr(type(app.table), "poll", poll)
    before = [x for x in app.replay.records if x[0] == "button" and x[2] == 0]
    r.tap(0, "A", hold_us=100000)         # drained in the frame that runs out of heap
    after = [x for x in app.replay.records if x[0] == "button" and x[2] == 0]
    assert app.mem_errors == 1 and fails == [0]
    assert len(after) == len(before) + 1 and after[-1][3:] == (0, 1)   # A, down: handled



def test_a_game_started_from_the_title_leaves_the_menus_save_code_off_the_heap():
    """The save code (firmware/savegame.py) is loaded with the title's menu and for
    each save; a game played from the menu does not keep it on the heap until its
    first round ends (a one-round game: never)."""
    import sys
    r = Rig(framebuf)
    assert r.app.screen == A.TITLE and "firmware.savegame" in sys.modules
    r.app.start_game(5, Rules(), (3, 3), r.clock.now)
    r.frames(1)
    assert r.app.screen == A.GAME
    assert "firmware.screens.title" not in sys.modules
    assert "firmware.savegame" not in sys.modules
    r.app.to_title(r.clock.now)                           # the menu has it again
    r.frames(1)
    assert "firmware.savegame" in sys.modules


def test_the_start_line_names_the_recordings_first_frame_without_loading_its_reader(capsys):
    import sys
    from firmware import main
    r = Rig(framebuf)
    r.frames(15)
    r.app.start_game(7, Rules(), (3, 3), r.clock.now)
    r.frames(6)
    sys.modules.pop("firmware.records_read", None)
    main.report_start(r.app)
    assert "firmware.records_read" not in sys.modules
    first = next(iter(r.app.replay.records))
    assert capsys.readouterr().out == "spit: start seed=7 t=%d\n" % first[1]
    assert first[1] != 0
