"""`python -m desktop_emulator` from the outside: whole headless games, replays, the
state line, screenshots, the terminal demo, bad arguments and a missing display."""

import io
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pygame
import pytest

from desktop_emulator import cli, session
from desktop_emulator import loops, replays, window
from desktop_emulator.clock import TICKS_PERIOD, ticks_diff

ROOT = Path(__file__).resolve().parents[2]
STATE = re.compile(r"^state [0-9a-f]{40} frame [0-9a-f]{40}$")


def emu(*args, env=None, timeout=120):
    e = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    if env is not None:
        e = env
    return subprocess.run([sys.executable, "-m", "desktop_emulator"] + list(args),
                          capture_output=True, text=True, cwd=str(ROOT), env=e,
                          timeout=timeout)


def last_line(p):
    return p.stdout.strip().split("\n")[-1]


# ---------------------------------------------------------------- (d) whole games


def test_a_whole_cpu_game_headless_from_the_command_line_in_seconds():
    t0 = time.perf_counter()
    p = emu("--headless", "--p0", "hard", "--p1", "easy", "--seed", "3", "--until", "over",
            "--print-state")
    took = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    lines = p.stdout.strip().split("\n")
    assert STATE.match(lines[-1])
    assert "screen=over phase=over" in lines[-2]
    assert took < 30                             # "in seconds" (about 0.3 s here)
    again = emu("--headless", "--p0", "hard", "--p1", "easy", "--seed", "3", "--until",
                "over", "--print-state")
    assert last_line(again) == lines[-1]         # deterministic


def test_the_state_line_example_in_the_docs_is_what_the_command_prints():
    # docs/EMULATOR.md shows a command and its output; run it and compare exactly (it
    # is deterministic). A change to the rules, the CPU or the view that changes the
    # hashes must update the page (and docs/WEB.md, checked in test_web_ports.py).
    text = (ROOT / "docs" / "EMULATOR.md").read_text(encoding="utf-8")
    m = re.search(r"```sh\n\$ python -m desktop_emulator ([^\n]*)\n((?:[^`\n][^\n]*\n)+)```",
                  text)
    assert m, "docs/EMULATOR.md lost its state-line example"
    args, shown = m.group(1).split(), m.group(2).splitlines()
    assert "--print-state" in args and len(shown) == 2 and STATE.match(shown[1])
    p = emu(*args)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == shown, (
        "docs/EMULATOR.md's example is stale; the command now prints:\n" + p.stdout)


def test_state_line_is_the_sha1_of_snapshot_and_framebuffer():
    import hashlib
    import json
    from desktop_emulator.clock import SimClock
    from desktop_emulator.display import FrameDisplay
    from shared_rules.game import Rules
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay())
    m.start_game(("hard", "easy"), 3, Rules())
    loops.run_headless(m, session.device_frame_us(), until="over")
    snap = json.dumps(m.app.game.snapshot(), sort_keys=True).encode()
    want = "state %s frame %s" % (hashlib.sha1(snap).hexdigest(),
                                  hashlib.sha1(bytes(m.display.buf)).hexdigest())
    assert m.state_line() == want
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--seed", "3",
                     "--print-state"], stdout=out) == 0
    assert out.getvalue().strip().split("\n")[-1] == want


def test_until_round_stops_at_the_first_round_summary_and_frames_count():
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "normal", "--p1", "normal", "--seed", "1",
                     "--until", "round"], stdout=out) == 0
    # the summary of round 1; the game has already dealt round 2 (R27)
    assert "screen=summary phase=ready round=2 " in out.getvalue()
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "hard", "--frames", "77"],
                    stdout=out) == 0
    assert "frames=77 (frames)" in out.getvalue()


def test_points_variant_and_manual_flip_from_the_command_line(tmp_path):
    rec = tmp_path / "p.txt"
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "normal", "--rules", "points",
                     "--manual-flip", "--seed", "4", "--until", "round", "--record",
                     str(rec)], stdout=out) == 0
    assert "rules points=1 manual_flip=1" in rec.read_text()


# ---------------------------------------------------------------- replays


def test_headless_record_then_replay_reaches_the_same_state(tmp_path):
    rec = tmp_path / "game.txt"
    a = emu("--headless", "--p0", "hard", "--p1", "normal", "--seed", "11", "--until",
            "over", "--record", str(rec), "--print-state")
    assert a.returncode == 0, a.stderr
    text = rec.read_text()
    assert text.startswith("spit-replay 1\n# desktop_emulator p0=hard p1=normal")
    assert "\nseed 11\n" in text and "\nbutton " in text
    b = emu("--headless", "--replay", str(rec), "--print-state")
    assert b.returncode == 0, b.stderr
    assert last_line(b) == last_line(a)


def test_clock_wrap_start_near_wrap_plays_through_the_wrap_and_replays(tmp_path):
    rec = tmp_path / "wrap.txt"
    a = emu("--headless", "--p0", "hard", "--p1", "hard", "--seed", "2", "--until", "over",
            "--start-near-wrap", "--record", str(rec), "--print-state")
    assert a.returncode == 0, a.stderr
    frames = [int(line.split()[1]) for line in rec.read_text().split("\n")
              if line.startswith("frame ")]
    buttons = [int(line.split()[1]) for line in rec.read_text().split("\n")
               if line.startswith("button ")]
    assert frames[0] > TICKS_PERIOD - 3_000_000          # started just before the wrap
    assert any(t < 1_000_000 for t in frames)            # and went through it
    assert any(t > TICKS_PERIOD - 3_000_000 for t in buttons) and \
        any(t < 3_000_000 for t in buttons)              # presses on both sides of it
    assert all(ticks_diff(b, a) >= 0 for a, b in zip(frames, frames[1:]))
    assert "screen=over phase=over" in a.stdout
    b = emu("--headless", "--replay", str(rec), "--print-state")
    assert last_line(b) == last_line(a)


def test_a_replay_with_a_resume_snapshot_resumes_that_game(tmp_path):
    from desktop_emulator.clock import SimClock
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.storage import MemoryStorage
    from shared_rules.game import Rules
    st = MemoryStorage()
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay(), None, st)
    m.start_game(("hard", "normal"), 8, Rules())
    loops.run_headless(m, session.device_frame_us(), until="round")
    saved = st.load()["game"]                     # the app saved the round boundary
    assert saved is not None
    # A new session continues it from the menu, records, and the replay must resume it.
    clock = SimClock(500_000)
    m2 = session.AppEngine(clock, session.QueueInput(), FrameDisplay(), None,
                         MemoryStorage(st.load()))
    m2.app.start_game(0, Rules(), saved["cpu"], clock.ticks_us(), snapshot=saved["snap"],
                      stats=saved["stats"])
    loops.run_headless(m2, session.device_frame_us(), frames=400)
    text = replays.replay_text(m2.app)
    assert replays.SNAPSHOT_PREFIX in text
    loaded = replays.parse_replay(text)
    m3 = session.AppEngine(SimClock(loaded.start_t), session.QueueInput(), FrameDisplay())
    m3.start_replay(loaded)
    loops.run_headless(m3, session.device_frame_us())
    assert m3.state_line().split()[1] == m2.state_line().split()[1]


# ---------------------------------------------------------------- output files


def test_screenshot_writes_a_png_of_the_last_frame(tmp_path):
    shot = tmp_path / "s.png"
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--frames", "200",
                     "--scale", "3", "--screenshot", str(shot), "--print-state"],
                    stdout=out) == 0
    surf = pygame.image.load(str(shot))
    assert surf.get_size() == (384, 192)
    from desktop_emulator.display import ON
    lit = sum(1 for y in range(1, 192, 3) for x in range(1, 384, 3)
              if tuple(surf.get_at((x, y)))[:3] == ON)
    assert lit > 300                          # the table is drawn
    skinned = tmp_path / "k.png"
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--frames", "10",
                     "--skin", "--screenshot", str(skinned)], stdout=io.StringIO()) == 0
    from desktop_emulator.display import layout_size
    w, h = layout_size(True)
    assert pygame.image.load(str(skinned)).get_size() == (w * 6, h * 6)


# ---------------------------------------------------------------- terminal demo


def test_terminal_demo_draws_half_blocks(tmp_path):
    p = emu("--terminal", "--p0", "hard", "--p1", "easy", "--speed", "0", "--frames", "120")
    assert p.returncode == 0, p.stderr
    assert "\u2588" in p.stdout and "\u2580" in p.stdout and "\u2584" in p.stdout
    assert p.stdout.rstrip().endswith("\x1b[?25h")       # the cursor is given back


def test_terminal_demo_ctrl_c_exits_cleanly(monkeypatch):
    calls = []

    def sleep(s):
        calls.append(s)
        if len(calls) > 5:
            raise KeyboardInterrupt
    out = io.StringIO()
    orig = loops.run_terminal
    monkeypatch.setattr(loops, "run_terminal",
                        lambda *a, **k: orig(*a, **dict(k, sleep=sleep)))
    assert cli.main(["--terminal", "--p0", "hard", "--p1", "easy"], stdout=out) == 0
    text = out.getvalue()
    assert "\x1b[?25h" in text and text.rstrip().endswith("stopped.")


def test_terminal_demo_is_paced_to_real_time():
    from desktop_emulator.clock import SimClock
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.terminal import TerminalScreen
    from shared_rules.game import Rules
    fake = [0.0]
    slept = []

    def sleep(s):
        slept.append(s)
        fake[0] += s
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay())
    m.start_game(("hard", "easy"), 3, Rules())
    scr = TerminalScreen(io.StringIO(), columns=128)
    loops.run_terminal(m, scr, 33333, frames=90, speed=1.0, sleep=sleep,
                         now=lambda: fake[0])
    assert abs(fake[0] - 90 * 0.033333) < 0.01          # 3 s of game took 3 s


# ---------------------------------------------------------------- (f) bad arguments

BAD = [
    ["--p0", "wizard"],
    ["--p1"],
    ["--seed", "x"],
    ["--seed", "-1"],
    ["--seed", str(2 ** 30)],
    ["--frames", "0"],
    ["--scale", "0"],
    ["--scale", "99"],
    ["--until", "never"],
    ["--rules", "chess"],
    ["--speed", "-1"],
    ["--keys", "p0=z"],
    ["--keys", "p0=z,z"],
    ["--keys", "p2=a,b"],
    ["--keys", "p0=escape,x"],
    ["--headless", "--p0", "human"],
    ["--headless", "--terminal"],
    ["--headless", "--keys", "p0=a,s"],
    ["--replay", "no/such/replay.txt"],
    ["--replay", "x.txt", "--seed", "3"],
    ["--record", "/no/such/dir/r.txt", "--headless"],
    ["--screenshot", "/no/such/dir/s.png", "--headless"],
    ["--bogus"],
    ["positional"],
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_arguments_exit_2_with_one_line(argv, capsys):
    assert cli.main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.count("\n") == 1 and cap.err.startswith("desktop_emulator: error: ")
    assert "Traceback" not in cap.err


def test_bad_arguments_in_a_real_process_one_line_no_traceback():
    p = emu("--p0", "wizard", "--headless")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert "wizard" in p.stderr


@pytest.mark.parametrize("content", [b"", b"hello\n", b"spit-replay 9\n",
                                     b"spit-replay 1\nseed 1\nbutton 5 0 0\n",
                                     b"spit-replay 1\nseed 1\nframe 10\nbutton 20 0 9 1\n",
                                     b"spit-replay 1\nseed 1\n",
                                     b"spit-replay 1\nframe 10\nframe 5\n",
                                     b"spit-replay 1\nframe 1\npress 5 spit 0\n",
                                     b"spit-replay 1\n# resume-snapshot {bad\nframe 1\n",
                                     b"\xff\xfe\x00\x01binary"])
def test_corrupt_replays_exit_2_with_one_line(tmp_path, content):
    f = tmp_path / "bad.txt"
    f.write_bytes(content)
    p = emu("--headless", "--replay", str(f))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert str(f) in p.stderr


def test_unreadable_replay(tmp_path):
    d = tmp_path / "dir.txt"
    d.mkdir()
    p = emu("--headless", "--replay", str(d))
    assert p.returncode == 2 and p.stderr.count("\n") == 1


def test_help_lists_the_options():
    p = emu("--help")
    assert p.returncode == 0
    for opt in ("--p0", "--p1", "--seed", "--rules", "--headless", "--until", "--frames",
                "--record", "--replay", "--screenshot", "--print-state", "--scale",
                "--skin", "--no-skin", "--keys", "--start-near-wrap", "--terminal",
                "--dump-frames"):
        assert opt in p.stdout


def test_no_display_says_how_to_play_headless():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    p = emu(env=env)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert "make demo" in p.stderr and "--headless" in p.stderr
    assert cli.display_missing({"DISPLAY": ":0"}) is None
    assert cli.display_missing({"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert cli.display_missing({"SDL_VIDEODRIVER": "offscreen"}) is None
    # headless needs no display at all
    p = emu("--headless", "--p0", "easy", "--p1", "easy", "--frames", "5", env=env)
    assert p.returncode == 0, p.stderr


def test_dump_frames_writes_every_shown_frame_with_times(tmp_path):
    d = tmp_path / "frames"
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--frames", "60",
                     "--dump-frames", str(d), "--scale", "2"], stdout=out) == 0
    index = (d / "frames.txt").read_text().split("\n")[:-1]
    pngs = sorted(p.name for p in d.glob("*.png"))
    assert len(pngs) == len(index) > 3
    times = [int(line.split()[1]) for line in index]
    assert times == sorted(times) and times[-1] <= 60 * 34
    assert pygame.image.load(str(d / pngs[0])).get_size() == (256, 128)
    assert cli.main(["--headless", "--dump-frames", str(d / "frames.txt")]) == 2


@pytest.mark.slow
def test_a_long_game_records_whole_beyond_the_devices_limit(tmp_path):
    # The device caps a game's recording at 16 KB (firmware/app.py RECORD_LIMIT); the
    # emulator lifts the cap, so a long easy-vs-easy game still replays to its end.
    rec = tmp_path / "long.txt"
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "easy", "--p1", "easy", "--seed", "19",
                     "--record", str(rec), "--print-state"], stdout=out) == 0
    text = rec.read_text()
    from firmware.app import RECORD_LIMIT
    from firmware.records import PackedRecords
    packed = PackedRecords(1 << 30)
    for rec_ in replays.parse_replay(text).replay.records:
        packed.append(rec_)
    assert RECORD_LIMIT == 16384
    assert packed.nbytes() > RECORD_LIMIT and "lost=" not in text
    again = io.StringIO()
    assert cli.main(["--headless", "--replay", str(rec), "--print-state"], stdout=again) == 0
    assert again.getvalue().split("\n")[-2] == out.getvalue().split("\n")[-2]


# ---------------------------------------------------------------- outputs, speed, skin, demo

FILE_FLAGS = ["--record", "--screenshot", "--gif"]


def _one_line_exit_2(capsys, *words):
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.count("\n") == 1 and cap.err.startswith("desktop_emulator: error: ")
    assert "Traceback" not in cap.err
    for w in words:
        assert w in cap.err, cap.err
    return cap.err


@pytest.mark.parametrize("flag", FILE_FLAGS + ["--dump-frames"])
def test_an_output_that_cannot_be_written_exits_2_before_the_game(flag, tmp_path, capsys,
                                                                  monkeypatch):
    base = ["--headless", "--p0", "hard", "--p1", "easy", "--frames", "30"]
    # a directory where a file should go (or a file where the frames' folder should)
    target = tmp_path if flag != "--dump-frames" else tmp_path / "f.txt"
    (tmp_path / "f.txt").write_text("x")
    assert cli.main(base + [flag, str(target)]) == 2
    _one_line_exit_2(capsys, str(target))
    # a folder inside a file
    assert cli.main(base + [flag, str(tmp_path / "f.txt" / "out.png")]) == 2
    _one_line_exit_2(capsys)
    # a place that takes no new file, whoever runs the test (root included)
    if os.path.isdir("/proc"):
        out = "/proc/spit-no-such-output" + (".png" if flag == "--screenshot" else "")
        assert cli.main(base + [flag, out]) == 2
        err = _one_line_exit_2(capsys, out, "takes no new files", "'proc' file system")
        assert "No such file" not in err
    # and a folder that refuses a new file (permissions), simulated
    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(cli.tempfile, "mkstemp", refuse)
    assert cli.main(base + [flag, str(tmp_path / "new-out.png")]) == 2
    _one_line_exit_2(capsys, "Permission denied")
    assert not (tmp_path / "new-out.png").exists()


@pytest.mark.parametrize("flag", FILE_FLAGS)
def test_an_output_onto_a_device_or_a_symlink_is_refused_and_left_alone(flag, tmp_path,
                                                                        capsys):
    base = ["--headless", "--p0", "hard", "--p1", "easy", "--frames", "30"]
    target = tmp_path / "mine.png"
    target.write_bytes(b"keep")
    link = tmp_path / "link.png"
    link.symlink_to(target)
    assert cli.main(base + [flag, str(link)]) == 2
    _one_line_exit_2(capsys, str(link), "symbolic link")
    assert link.is_symlink() and target.read_bytes() == b"keep"
    if os.path.exists("/dev/full"):
        assert cli.main(base + [flag, "/dev/full"]) == 2
        _one_line_exit_2(capsys, "/dev/full", "not a regular file")
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    # A regular file is replaced as before.
    assert cli.main(base + [flag, str(target)]) == 0
    capsys.readouterr()
    assert target.read_bytes() != b"keep"


def test_frames_onto_a_symlink_are_refused(tmp_path, capsys):
    d = tmp_path / "frames"
    d.mkdir()
    (d / "frames.txt").symlink_to(tmp_path / "elsewhere.txt")
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--frames", "5",
                     "--dump-frames", str(d)]) == 2
    _one_line_exit_2(capsys, "frames.txt", "symbolic link")
    assert not (tmp_path / "elsewhere.txt").exists()


def test_a_rematch_recording_onto_a_symlink_is_refused_when_written(tmp_path):
    # FILE-2 is known only when the rematch happens: checked again when written.
    target = tmp_path / "keep.txt"
    target.write_text("keep")
    link = tmp_path / "game-2.txt"
    link.symlink_to(target)
    with pytest.raises(OSError, match="symbolic link"):
        replays.write_replay(str(link), "spit-replay 1\n")
    assert link.is_symlink() and target.read_text() == "keep"
    replays.write_replay(str(tmp_path / "game.txt"), "spit-replay 1\n")
    assert (tmp_path / "game.txt").read_text() == "spit-replay 1\n"


@pytest.mark.parametrize("name", ["shot.txt", "shot", "shot.gif"])
def test_a_screenshot_suffix_it_will_not_write_is_refused(name, tmp_path, capsys):
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--frames", "5",
                     "--screenshot", str(tmp_path / name)]) == 2
    _one_line_exit_2(capsys, ".png", ".bmp", ".tga")
    assert not (tmp_path / name).exists()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--frames", "5",
                     "--screenshot", str(tmp_path / "shot.PNG")]) == 0
    assert (tmp_path / "shot.PNG").read_bytes()[:4] == b"\x89PNG"


def test_an_output_that_fails_while_the_game_runs_exits_2_with_one_line(tmp_path, capsys,
                                                                        monkeypatch):
    from desktop_emulator import display
    base = ["--headless", "--p0", "hard", "--p1", "easy", "--frames", "60"]

    def full(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(replays, "write_replay", full)
    assert cli.main(base + ["--record", str(tmp_path / "r.txt")]) == 2
    _one_line_exit_2(capsys, "No space left on device")
    monkeypatch.setattr(display, "save_png", full)
    assert cli.main(base + ["--dump-frames", str(tmp_path / "frames")]) == 2
    _one_line_exit_2(capsys, "--dump-frames", "No space left on device")


def test_speed_is_for_the_terminal_only(capsys):
    for argv in (["--headless", "--p0", "hard", "--p1", "easy", "--speed", "2"],
                 ["--speed", "0.5"]):
        assert cli.main(argv) == 2
        _one_line_exit_2(capsys, "--speed is for --terminal")
    p = emu("--help")
    assert "--terminal only" in p.stdout


def test_the_skin_names_the_cpu_level_the_menu_shows():
    from desktop_emulator.clock import SimClock
    from desktop_emulator.display import FrameDisplay
    from firmware.screens import title
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay())
    labels = {0: {"A": "Z", "B": "X"}, 1: {"A": "N", "B": "M"}}
    m.step()
    app = m.app
    menu = [app.menu_text(i) for i in app.menu_items()]
    assert "VS CPU NORMAL" in menu
    assert window.seat_names(m, labels)[1] == "CPU NORMAL"
    for mode, name in ((3, "CPU HARD"), (1, "CPU EASY"), (0, "P1  N/M")):
        app.settings["mode"] = mode
        assert title.MODE_NAMES[mode] in [app.menu_text(i) for i in app.menu_items()]
        assert window.seat_names(m, labels)[1] == name
    assert window.seat_names(m, labels)[0] == "P0  Z/X"
    # the attract mode's demo game names its CPUs
    while app.screen_name() != "attract":
        m.clock.advance(session.device_frame_us())
        m.step()
    assert window.seat_names(m, labels) == {0: "DEMO HARD", 1: "DEMO NORMAL"}


def test_record_keeps_every_game_of_a_session(tmp_path):
    from desktop_emulator.clock import SimClock
    from desktop_emulator.display import FrameDisplay
    from shared_rules.game import Rules
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay())
    m.start_game(("hard", "hard"), 5, Rules())
    finals = []
    for game in range(2):
        loops.run_headless(m, session.device_frame_us(), until="over")
        finals.append(json_snapshot(m.app.game))
        if game == 0:
            # REMATCH, once presses count again on the game-over screen
            for _ in range(50):
                m.clock.advance(session.device_frame_us())
                m.step()
            m.input.events = [(m.clock.ticks_us(), 0, "B", True)]
            m.clock.advance(session.device_frame_us())
            m.step()
            assert m.app.screen_name() == "rematch"
    paths = replays.write_recordings(m, str(tmp_path / "game.txt"))
    assert paths == [str(tmp_path / "game.txt"), str(tmp_path / "game-2.txt")]
    assert [os.path.exists(p) for p in paths] == [True, True]
    for path, final in zip(paths, finals):
        loaded = replays.load_replay(path)
        r = session.AppEngine(SimClock(loaded.start_t), session.QueueInput(), FrameDisplay())
        r.start_replay(loaded)
        loops.run_headless(r, session.device_frame_us())
        assert json_snapshot(r.app.game) == final, path
    assert replays.numbered("a/b.txt", 3) == "a/b-3.txt" and replays.numbered("x", 2) == "x-2"


def json_snapshot(game):
    import json
    return json.dumps(game.snapshot(), sort_keys=True)


def test_the_terminal_demo_says_how_big_the_terminal_must_be(monkeypatch, capsys):
    class Tty(io.StringIO):
        def fileno(self):
            return 1
    monkeypatch.setattr(cli.os, "get_terminal_size",
                        lambda fd=None: os.terminal_size((80, 24)))
    assert cli.main(["--terminal", "--p0", "hard", "--p1", "easy"], stdout=Tty()) == 2
    _one_line_exit_2(capsys, "80x24", "128 columns and 34 lines")
    monkeypatch.setattr(cli.os, "get_terminal_size",
                        lambda fd=None: os.terminal_size((130, 40)))
    out = Tty()
    assert cli.main(["--terminal", "--p0", "hard", "--p1", "easy", "--speed", "0",
                     "--frames", "5"], stdout=out) == 0
    assert "\u2588" in out.getvalue() or "\u2580" in out.getvalue()


# ---- a replay that leaves its recording says so (R40) --------------------------------------

def test_r40_a_replay_under_edited_rules_says_it_diverged_and_exits_3(tmp_path, capsys):
    rec = tmp_path / "g.txt"
    assert cli.main(["--headless", "--p0", "normal", "--p1", "hard", "--seed", "8",
                     "--until", "round", "--record", str(rec)], stdout=io.StringIO()) == 0
    text = rec.read_text()
    assert re.search(r"^digest \d+ 1 [0-9a-f]{6}$", text, re.M)     # round 1's end
    capsys.readouterr()
    assert cli.main(["--headless", "--replay", str(rec)], stdout=io.StringIO()) == 0
    assert capsys.readouterr().err == ""
    edited = tmp_path / "edited.txt"
    edited.write_text(text.replace("rules points=0", "rules points=1"))
    assert cli.main(["--headless", "--replay", str(edited)], stdout=io.StringIO()) == 3
    err = capsys.readouterr().err.strip().split("\n")
    assert len(err) == 1 and "diverged" in err[0] and "end of round 1" in err[0]


def test_r40_the_game_digest_follows_every_part_of_the_state():
    from shared_rules.game import Game
    g = Game(3)
    d0 = g.digest()
    assert Game(3).digest() == d0 and Game(4).digest() != d0
    g.apply(("spit", 0))
    assert g.digest() != d0 and 0 <= g.digest() <= 0xFFFFFF
    h = Game(3)
    h.scores[1] = 1
    assert h.digest() != d0
