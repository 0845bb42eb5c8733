"""Both halves upright (--upright, F9, the page's upright=1): for two players side by
side at one screen the hosts show player 1's parts turned back, while the firmware
keeps drawing the device's view (the golden screens stay as they are) and the state
line stays the device's."""

import io
import os

import pygame
import pytest

from desktop_emulator import cli, display, framebuf, screens
from desktop_emulator.clock import SimClock
from host import upright as turn

W, H = 128, 64
SCREEN_OF = {"play": "game", "fumble": "game", "stall": "game", "slap": "game"}


@pytest.fixture(scope="module")
def shots():
    return dict(screens.key_screens(framebuf))


def rows(buf):
    return display.pixel_rows(buf)


def px(r, x, y):
    return r[y * W + x]


def test_the_pause_screen_upright_shows_player_1_exactly_player_0s_half(shots):
    # Pause draws the same half for both players, the top one turned 180°: turned
    # back, the top half is the bottom half.
    r = rows(turn.upright(shots["pause"], turn.HALF))
    assert r[:32 * W] == r[32 * W:]
    assert rows(shots["pause"])[:32 * W] != r[:32 * W]


def test_the_slap_upright_gives_player_1_their_banner_and_corners_as_player_0s(shots):
    # Both players see the same banner and the same pile sizes, each beside its pile.
    r = rows(turn.upright(shots["slap"], turn.TABLE))
    assert r[:16 * W] == r[48 * W:]
    for y in range(16, 32):
        top, bottom = r[y * W:(y + 1) * W], r[(y + 16) * W:(y + 17) * W]
        assert top[:34] == bottom[:34] and top[94:] == bottom[94:]


@pytest.mark.parametrize("name", screens.NAMES)
def test_every_screen_is_turned_where_player_1s_parts_are(name, shots):
    src = shots[name]
    before = bytes(src)
    layout = turn.layout_of(SCREEN_OF.get(name, name))
    out = turn.upright(src, layout)
    assert bytes(src) == before                    # the panel itself is never touched
    a, b = rows(src), rows(out)
    for y in range(H):
        for x in range(W):
            if layout == turn.HALF and y < 32:
                sx, sy = W - 1 - x, 31 - y
            elif layout == turn.TABLE and y < 16:
                sx, sy = W - 1 - x, 15 - y
            elif layout == turn.TABLE and y < 32 and x < 34:
                sx, sy = 33 - x, 47 - y
            elif layout == turn.TABLE and y < 32 and x >= 94:
                sx, sy = 94 + 127 - x, 47 - y
            else:
                sx, sy = x, y
            assert px(b, x, y) == px(a, sx, sy), (name, x, y)
    assert bytes(turn.upright(out, layout)) == before     # turning back gives the device's
    if name in ("title", "howto"):
        assert layout == 0 and bytes(out) == before


def test_the_layouts_follow_the_views_constants():
    from firmware import view
    assert view.AREA_X == 34 and view.AREA_X + view.AREA_W == view.INFO_X == 94
    assert view.MSG_W == 34 and view.HALF_Y == 48 and view.HALF_H == 16


def test_the_device_never_gets_the_upright_module():
    from desktop_emulator import devicefiles
    # It lives in the host floor, which is never deployed.
    assert "host" not in devicefiles.DEVICE_PACKAGES
    assert not [s for s in devicefiles.device_sources() if "upright" in str(s)]


def test_the_presenter_is_the_device_view_unless_asked(shots):
    p = display.Presenter(screen=lambda: "pause")
    assert p(shots["pause"]) is shots["pause"]
    p.upright = True
    assert bytes(p(shots["pause"])) == bytes(turn.upright(shots["pause"], turn.HALF))
    p.screen = lambda: "title"
    assert p(shots["title"]) is shots["title"]


# ---------------------------------------------------------------- the command line

def run(argv):
    out = io.StringIO()
    rc = cli.main(argv, stdout=out)
    return rc, out.getvalue()


GAME = ["--headless", "--p0", "hard", "--p1", "easy", "--seed", "3", "--until", "round",
        "--print-state", "--scale", "1"]


def test_upright_outputs_show_what_the_window_shows_and_the_state_line_is_the_devices(
        tmp_path):
    rc, plain = run(GAME + ["--screenshot", str(tmp_path / "device.png"),
                            "--dump-frames", str(tmp_path / "d")])
    assert rc == 0
    rc, up = run(GAME + ["--upright", "--screenshot", str(tmp_path / "upright.png"),
                         "--dump-frames", str(tmp_path / "u"), "--gif",
                         str(tmp_path / "u.gif")])
    assert rc == 0
    assert up == plain                          # the same game, state and framebuffer
    device = display.load_png_pixels(tmp_path / "device.png")
    shown = display.load_png_pixels(tmp_path / "upright.png")
    assert device != shown
    # It stops on the round's summary: player 1's half turned back.
    assert shown[:32 * W] == bytes(
        rows(turn.upright(_vlsb(device), turn.HALF)))[:32 * W]
    assert shown[32 * W:] == device[32 * W:]
    last = sorted(os.listdir(tmp_path / "u"))[-2]          # frames.txt sorts last
    assert display.load_png_pixels(tmp_path / "u" / last) == shown
    assert display.load_png_pixels(tmp_path / "d" / last) == device
    assert (tmp_path / "u.gif").stat().st_size > 0


def _vlsb(pixels):
    """Row-major 0/1 pixels -> MONO_VLSB bytes (the inverse of display.pixel_rows)."""
    out = bytearray(W * H // 8)
    for y in range(H):
        for x in range(W):
            if pixels[y * W + x]:
                out[(y // 8) * W + x] |= 1 << (y % 8)
    return out


# ---------------------------------------------------------------- the window

@pytest.fixture
def dummy_window(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    yield
    pygame.display.quit()


def oled_from_window(win):
    disp = win.display
    k, ox, oy = disp.placement()
    sx, sy = disp.skin.screen_origin(k, ox, oy) if disp.skin is not None else (ox, oy)
    out = bytearray(W * H)
    for y in range(H):
        for x in range(W):
            c = disp.surface.get_at((round(sx) + int(x * k + k / 2),
                                     round(sy) + int(y * k + k / 2)))
            out[y * W + x] = 1 if tuple(c)[:3] == display.ON else 0
    return bytes(out)


def test_the_window_shows_player_1_upright_and_f9_turns_it_back(dummy_window):
    seen = {}

    def script(win, n):
        if n == 40:
            seen["up"] = (oled_from_window(win), bytes(win.display.panel),
                          win.m.app.screen_name(), pygame.display.get_caption()[0])
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F9, mod=0,
                                                 unicode="", scancode=0))
        if n == 42:
            seen["device"] = (oled_from_window(win), bytes(win.display.panel),
                              pygame.display.get_caption()[0])

    rc = cli.main(["--p0", "hard", "--p1", "normal", "--seed", "3", "--upright",
                   "--scale", "2", "--no-skin", "--frames", "43"],
                  clock=SimClock(), on_frame=script, stdout=io.StringIO())
    assert rc == 0
    shown, panel, screen, caption = seen["up"]
    assert screen == "game"
    assert shown == rows(turn.upright(panel, turn.TABLE)) != rows(panel)
    assert "F9 upright: on" in caption
    shown, panel, caption = seen["device"]
    assert shown == rows(panel)
    assert "F9 upright: off" in caption


def test_f9_cannot_be_remapped():
    from desktop_emulator.keyboard import KeySpecError, parse_keys
    with pytest.raises(KeySpecError, match="reserved"):
        parse_keys(["p0=f9,x"])
