"""A power cut at any frame of a game, and at any step of any save: on restart the app
offers to continue from the last round boundary it saved completely, or starts clean;
never a corrupt game, never a crash."""

import pytest

from desktop_emulator import framebuf
from firmware import app as A
from host.rig import Rig
from firmware.hw.storage import FileStorage
from tests.firmware.test_storage_file import FakeFlash, PowerCut

SEED = 21


def play(fs, stop_frame=None):
    """Play the same game (menu, then two scripted players) on flash `fs`; stop after
    stop_frame frames or at a power cut. Returns (rig, boundaries, frames, cut)."""
    r = Rig(framebuf, storage=FileStorage("spit.json", fs), start=777)
    boundaries = []                   # (ops after the save, snapshot saved)
    real_save = r.app._save

    def save():
        real_save()
        g = r.app.game
        if g is not None and g.phase != "over":
            boundaries.append((fs.ops, g.snapshot()))
    r.app._save = save
    frames = 0
    try:
        r.frames(2)
        r.menu(["A", "A", "B", "U", "U", "B"])     # points game, START
        r.add_bots(("hard", "normal"), seed=SEED)
        while r.app.screen != A.OVER_SCREEN:
            if stop_frame is not None and frames >= stop_frame:
                break
            r.frames(1)
            frames += 1
        return r, boundaries, frames, False
    except PowerCut:
        return r, boundaries, frames, True


def restart(files):
    r = Rig(framebuf, storage=FileStorage("spit.json", FakeFlash(files)), start=999)
    r.frames(2)
    return r


def check_restart(files, boundaries):
    r = restart(files)
    app = r.app
    assert app.screen == A.TITLE
    if app.saved is None:
        assert not boundaries or app.note == ""
        return None
    snap = app.saved["game"].snapshot()
    assert snap in [b[1] for b in boundaries], "resumed a state that was never a boundary"
    # and the game goes on from there
    r.menu(["B"])
    assert app.screen == A.GAME and app.game.snapshot() == snap
    r.add_bots(("hard", "hard"), seed=3)
    r.frames(300)
    return snap


@pytest.mark.slow
def test_power_cut_at_many_frames_resumes_the_last_round_boundary():
    fs = FakeFlash()
    r, boundaries, total, cut = play(fs)
    assert not cut and len(boundaries) >= 3
    checked = 0
    for stop in range(0, total, max(1, total // 25)):
        fs2 = FakeFlash()
        r2, b2, n, _ = play(fs2, stop)
        snap = check_restart(fs2.files, b2)
        # the last boundary saved before the cut is the one offered; after the last
        # round of the game there is nothing to continue
        if r2.app.game.phase == "over":
            assert snap is None
        else:
            assert snap == b2[-1][1]
        checked += 1
    assert checked >= 20


@pytest.mark.slow
def test_power_cut_inside_every_save_never_corrupts():
    fs = FakeFlash()
    _, boundaries, _, _ = play(fs)
    save_ends = [b[0] for b in boundaries][:4]
    outcomes = set()
    for end in save_ends:
        # the save that ended at `end` took a few dozen steps: cut at each of them
        for k in range(end - 40, end + 1):
            if k < 0:
                continue
            fs2 = FakeFlash(budget=k)
            _, b2, _, cut = play(fs2)
            assert cut or k >= fs.ops
            snap = check_restart(fs2.files, b2 + ([(0, boundaries[len(b2)][1])] if len(b2) < len(boundaries) else []))
            outcomes.add(snap is None)
    assert False in outcomes


def test_game_over_clears_the_saved_game():
    fs = FakeFlash()
    r, _, _, _ = play(fs)
    assert r.app.screen == A.OVER_SCREEN
    r.frames(15)                              # the save waits a moment (no race open)
    d = FileStorage("spit.json", FakeFlash(fs.files)).load()
    assert d["game"] is None and d["settings"]["points"] == 1
