"""Golden screenshots of the key screens (tests/golden/screens/*.png), compared pixel
for pixel with what the emulator draws now. A change to the view or the app that
changes a screen fails here; if the change is intended, regenerate them with

    .venv/bin/python -m pytest tests/emulator/test_emulator_golden.py --regen-golden

and look at the new PNGs before committing them. Each OLED pixel is a 4x4 square in
the emulator's colours (display.ON / display.OFF)."""

from pathlib import Path

import pygame
import pytest

from desktop_emulator import display, framebuf, screens

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "screens"
SCALE = 4


@pytest.fixture(scope="module")
def current():
    return dict(screens.key_screens(framebuf))


def _rgb(surf):
    return pygame.image.tobytes(surf.convert(24) if surf.get_bitsize() != 24 else surf, "RGB")


def _render(buf):
    return pygame.transform.scale(display.screen_surface(buf), (128 * SCALE, 64 * SCALE))


@pytest.mark.parametrize("name", screens.NAMES)
def test_screen_matches_its_golden_png(name, current, regen_golden, tmp_path):
    path = GOLDEN / ("%s.png" % name)
    if regen_golden:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        display.save_png(current[name], path, SCALE)
    assert path.exists(), "no golden %s: run pytest --regen-golden" % path
    golden = pygame.image.load(str(path))
    assert golden.get_size() == (128 * SCALE, 64 * SCALE)
    want = _rgb(golden)
    got = _rgb(_render(current[name]))
    if got != want:
        bad = display.load_png_pixels(path)
        now = display.pixel_rows(current[name])
        n = sum(1 for a, b in zip(bad, now) if a != b)
        px = sum(1 for i in range(0, len(got), 3) if got[i:i + 3] != want[i:i + 3])
        display.save_png(current[name], tmp_path / path.name, SCALE)
        pytest.fail("%s: %d PNG pixels (%d OLED pixels) differ from %s (now: %s)" % (
            name, px, n, path, tmp_path / path.name))


def test_no_stale_goldens():
    names = sorted(p.stem for p in GOLDEN.glob("*.png"))
    assert names == sorted(screens.NAMES)
