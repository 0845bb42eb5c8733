"""The window, opened with SDL's dummy video driver and stepped on a simulated clock
with synthetic key events posted to pygame's queue (no sleeps, no real time):
scaling, the skin and its lights, the keys reaching the app, Esc/F11/F12, and a
windowed session recorded and replayed headless to the same state."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pygame
import pytest

from desktop_emulator import cli, display, session
from desktop_emulator import replays
from desktop_emulator.clock import SimClock

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path, monkeypatch):
    # The window keeps settings in the user's data dir: never the real one in tests.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    yield
    pygame.display.quit()


def key(k, down=True):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=k,
                                         mod=0, unicode="", scancode=0))


def tap(k):
    key(k, True)
    key(k, False)


class Script:
    """on_frame callback: {frame: [actions]}; records what the test wants to see."""

    def __init__(self, actions=None, watch=None):
        self.actions = actions if actions is not None else {}
        self.watch = watch
        self.seen = {}
        self.win = None

    def __call__(self, win, n):
        self.win = win
        for a in self.actions.get(n, ()):
            a()
        if self.watch is not None:
            self.watch(self, win, n)


def run_window(argv, script=None, clock=None):
    out = io.StringIO()
    rc = cli.main(argv, clock=clock or SimClock(), on_frame=script, stdout=out)
    return rc, out.getvalue()


def oled_from_window(win):
    """The OLED pixels as the window shows them, sampled at each pixel's centre."""
    disp = win.display
    k, ox, oy = disp.placement()
    if disp.skin is not None:
        sx, sy = disp.skin.screen_origin(k, ox, oy)
    else:
        sx, sy = ox, oy
    sx, sy = round(sx), round(sy)
    out = bytearray(128 * 64)
    surf = disp.surface
    for y in range(64):
        for x in range(128):
            c = surf.get_at((sx + int(x * k + k / 2), sy + int(y * k + k / 2)))
            out[y * 128 + x] = 1 if tuple(c)[:3] == display.ON else 0
    return bytes(out)


# ---------------------------------------------------------------- (e) the window


def test_window_opens_at_scale_6_with_skin_and_keys_drive_the_menu():
    frames = {}

    def watch(s, win, n):
        frames[n] = bytes(win.display.buf)
        s.seen["size"] = win.display.surface.get_size()
        s.seen["screen"] = win.m.app.screen_name()
    script = Script({5: [lambda: key(pygame.K_z)], 6: [lambda: key(pygame.K_z, False)]},
                    watch)
    rc, _ = run_window(["--frames", "12"], script)
    assert rc == 0
    uw, uh = display.layout_size(True)
    assert script.seen["size"] == (uw * 6, uh * 6)
    assert script.seen["screen"] == "title"
    assert frames[4] == frames[5]                  # the frame before the press is drawn
    assert frames[7] != frames[5]                  # Z = player 0's A: next menu item
    assert frames[11] == frames[7]


def test_no_skin_and_scale_option():
    script = Script(watch=lambda s, w, n: s.seen.update(size=w.display.surface.get_size()))
    rc, _ = run_window(["--no-skin", "--scale", "3", "--frames", "2"], script)
    assert rc == 0 and script.seen["size"] == (384, 192)


def test_the_window_shows_exactly_the_framebuffer():
    got = []

    def watch(s, win, n):
        # watch(n) runs before frame n: the window shows what frame n-1 drew.
        if n in (2, 30, 31, 90):
            got.append((oled_from_window(win), display.pixel_rows(win.display.buf)))
    rc, _ = run_window(["--p0", "hard", "--p1", "normal", "--seed", "2", "--frames", "91"],
                       Script(watch=watch))
    assert rc == 0 and len(got) == 4
    for shown, fb in got:
        assert shown == fb
    assert len({fb for _s, fb in got}) > 1


def test_window_pixels_match_the_framebuffer_after_resize_letterboxed():
    got = {}

    def watch(s, win, n):
        if n == 3:
            pygame.display.set_mode((1000, 300), pygame.RESIZABLE)   # the user resizes
        if n == 6:
            got["k"] = win.display.placement()
            got["shown"] = oled_from_window(win)
            got["fb"] = display.pixel_rows(win.display.buf)
    rc, _ = run_window(["--no-skin", "--p0", "hard", "--p1", "easy", "--frames", "8"],
                       Script(watch=watch))
    assert rc == 0
    k, ox, oy = got["k"]
    # 300 / 64 = 4.7: whole 4 x 4 pixels, centred, bars left and right
    assert k == 4 and ox == (1000 - 512) / 2 and oy == (300 - 256) / 2
    assert got["shown"] == got["fb"]


def test_skin_lights_a_button_while_its_key_is_held():
    colours = {}

    def watch(s, win, n):
        disp = win.display
        k, ox, oy = disp.placement()
        x, y, r = disp.skin.button_centres(k, ox, oy)[(0, "B")]
        colours[n] = tuple(disp.surface.get_at((round(x + 0.7 * r), round(y))))[:3]
    script = Script({3: [lambda: key(pygame.K_x)], 6: [lambda: key(pygame.K_x, False)]},
                    watch)
    rc, _ = run_window(["--p1", "normal", "--seed", "1", "--frames", "9"], script)
    assert rc == 0
    # watch(n) sees the window drawn by frame n-1; X went down in frame 3, up in 6.
    assert colours[3] == display.BUTTON_IDLE
    assert colours[4] == colours[6] == display.BUTTON_LIT
    assert colours[8] == display.BUTTON_IDLE


def test_skin_flashes_the_cpus_presses():
    lit = []

    def watch(s, win, n):
        now = win.m.clock.ticks_us()
        lit.extend(win.lights.lit(now, ()))
    rc, _ = run_window(["--p0", "hard", "--p1", "hard", "--seed", "1", "--frames", "240"],
                       Script(watch=watch))
    assert rc == 0
    assert {p for p, _b in lit} == {0, 1}


def test_remapped_keys_drive_the_app_and_the_old_ones_do_not():
    frames = {}

    def watch(s, win, n):
        frames[n] = bytes(win.display.buf)
    script = Script({3: [lambda: tap(pygame.K_z)], 6: [lambda: tap(pygame.K_a)]}, watch)
    rc, _ = run_window(["--keys", "p0=a,s", "--frames", "10"], script)
    assert rc == 0
    assert frames[5] == frames[3]                  # Z means nothing now
    assert frames[8] != frames[6]                  # A is player 0's A


def test_closing_the_window_ends_the_session():
    script = Script({4: [lambda: pygame.event.post(pygame.event.Event(pygame.QUIT))]})
    rc, out = run_window(["--frames", "1000", "--print-state"], script)
    assert rc == 0 and "(closed)" in out and out.strip().split("\n")[-1].startswith("state ")


def test_f12_saves_a_screenshot_and_f11_toggles_fullscreen(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    flags = []

    def watch(s, win, n):
        flags.append(win.display.fullscreen)
    script = Script({2: [lambda: tap(pygame.K_F12)], 4: [lambda: tap(pygame.K_F11)],
                     6: [lambda: tap(pygame.K_F11)], 8: [lambda: tap(pygame.K_F12)]}, watch)
    rc, out = run_window(["--frames", "10"], script)
    assert rc == 0
    # Not in the current directory (often the repository): in the user's data folder.
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".png")]
    where = tmp_path / "xdg" / "spit-handheld" / "screenshots"
    shots = sorted(os.listdir(where))
    assert shots == ["spit-screenshot-001.png", "spit-screenshot-002.png"]
    uw, uh = display.layout_size(True)
    assert pygame.image.load(str(where / shots[0])).get_size() == (uw * 6, uh * 6)
    assert "screenshot saved: %s" % (where / shots[0]) in out
    assert "screenshot saved: %s" % (where / shots[1]) in out
    assert flags[5] is True and flags[9] is False


def test_esc_pauses():
    seen = {}

    def watch(s, win, n):
        seen[n] = (win.m.app.frames, win.m.clock.ticks_us(), win.m.app.screen_name(),
                   win.frozen)
    script = Script({10: [lambda: tap(pygame.K_ESCAPE)], 20: [lambda: tap(pygame.K_ESCAPE)]},
                    watch)
    rc, _ = run_window(["--p1", "normal", "--seed", "1", "--frames", "30"], script)
    assert rc == 0
    # Esc sends the app's PAUSE button: the pause screen, then back to the game.
    assert seen[12][2] == "pause" and seen[22][2] == "game"
    assert not seen[12][3] and not seen[22][3]


# ---------------------------------------------------------------- (b) record -> replay


def human_script():
    """Player 0 plays by keyboard against the CPU: says Spit, then presses around."""
    acts = {5: [lambda: key(pygame.K_x)], 8: [lambda: key(pygame.K_x, False)],
            12: [lambda: key(pygame.K_m)], 14: [lambda: key(pygame.K_m, False)]}
    f = 40
    for i, k in enumerate([pygame.K_x, pygame.K_z, pygame.K_x, pygame.K_z, pygame.K_z,
                           pygame.K_x, pygame.K_x, pygame.K_z, pygame.K_x] * 6):
        acts.setdefault(f, []).append(lambda k=k: key(k))
        acts.setdefault(f + 3 + i % 3, []).append(lambda k=k: key(k, False))
        f += 13 + (i * 7) % 11
    acts.setdefault(300, []).append(lambda: tap(pygame.K_ESCAPE))    # pause ...
    acts.setdefault(340, []).append(lambda: tap(pygame.K_ESCAPE))    # ... and resume
    return acts


@pytest.mark.slow
def test_a_windowed_session_recorded_replays_headless_to_the_same_state(tmp_path):
    rec = tmp_path / "window.txt"
    rc, out = run_window(["--p1", "normal", "--seed", "5", "--frames", "900", "--record",
                          str(rec), "--print-state"], Script(human_script()))
    assert rc == 0
    live = out.strip().split("\n")[-1]
    text = rec.read_text()
    assert "# desktop_emulator p0=human p1=normal" in text
    assert sum(1 for line in text.split("\n") if line.startswith("button ") and
               line.split()[2] == "0") >= 40          # player 0's key presses are in it
    p = subprocess.run([sys.executable, "-m", "desktop_emulator", "--headless", "--replay",
                        str(rec), "--print-state"], capture_output=True, text=True,
                       cwd=str(ROOT), timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().split("\n")[-1] == live
    # ... and in the window again.
    rc, out = run_window(["--replay", str(rec), "--frames", "1000", "--print-state"])
    assert rc == 0 and out.strip().split("\n")[-1] == live


def test_a_windowed_session_started_from_the_menu_records_and_replays(tmp_path):
    rec = tmp_path / "menu.txt"
    acts = {}

    def plan(s, win, n):
        # At frame 3, press A round the menu back to START (its first item), then B;
        # both players then say Spit.
        if n != 3:
            return
        app = win.m.app
        assert app.screen_name() == "title"
        items = app.menu_items()
        assert app.menu_text(items[0]) == "START"
        f = 5
        for k in [pygame.K_z] * len(items) + [pygame.K_x]:
            acts.setdefault(f, []).append(lambda k=k: key(k))
            acts.setdefault(f + 2, []).append(lambda k=k: key(k, False))
            f += 6
        for k in (pygame.K_x, pygame.K_m):
            acts.setdefault(f + 10, []).append(lambda k=k: key(k))
            acts.setdefault(f + 12, []).append(lambda k=k: key(k, False))
    rc, out = run_window(["--frames", "200", "--record", str(rec), "--print-state"],
                         Script(acts, plan))
    assert rc == 0
    text = rec.read_text()
    # The desktop's first start offers a game against the normal CPU (player 1).
    assert "# desktop_emulator p0=human p1=normal" in text
    loaded = replays.parse_replay(text)
    assert loaded.seed == loaded.start_t & 0x3FFFFFFF      # the menu's seed: the press
    assert "phase=play" in out                             # both said Spit
    rc2, out2 = run_window(["--replay", str(rec), "--frames", "300", "--print-state"])
    assert out2.strip().split("\n")[-1] == out.strip().split("\n")[-1]


def test_a_headless_recording_across_the_wrap_replays_in_the_window(tmp_path):
    rec = tmp_path / "wrap.txt"
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--seed", "9",
                     "--start-near-wrap", "--frames", "400", "--record", str(rec),
                     "--print-state"], stdout=out) == 0
    rc, win_out = run_window(["--replay", str(rec), "--frames", "900", "--print-state"])
    assert rc == 0
    assert win_out.strip().split("\n")[-1] == out.getvalue().strip().split("\n")[-1]


def test_a_display_sdl_cannot_reach_is_one_line_not_an_invisible_game(monkeypatch, capsys):
    # DISPLAY points at nothing (a stale SSH forwarding): SDL falls back to a driver
    # that shows nothing. Simulated: SDL is given its offscreen driver although the
    # user asked for none.
    monkeypatch.delenv("SDL_VIDEODRIVER")
    monkeypatch.setenv("DISPLAY", "localhost:10.0")
    real_init = pygame.display.init

    def init():
        os.environ["SDL_VIDEODRIVER"] = "offscreen"
        try:
            real_init()
        finally:
            del os.environ["SDL_VIDEODRIVER"]
    monkeypatch.setattr(pygame.display, "init", init)
    frames = []
    rc = cli.main(["--p1", "normal"], clock=SimClock(),
                  on_frame=lambda win, n: frames.append(n), stdout=io.StringIO())
    assert rc == 2 and frames == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("desktop_emulator: error: ")
    assert "DISPLAY=localhost:10.0" in err and "'offscreen'" in err and "make demo" in err
    assert not pygame.display.get_init()


def test_a_driver_the_user_asked_for_is_not_a_fall_back():
    assert cli.display_fell_back("dummy", {"SDL_VIDEODRIVER": "dummy"}) is None
    assert cli.display_fell_back("offscreen", {"SDL_VIDEODRIVER": "x11,offscreen"}) is None
    assert cli.display_fell_back("x11", {"DISPLAY": ":0"}) is None
    assert "'dummy'" in cli.display_fell_back("dummy", {"DISPLAY": ":0"})
