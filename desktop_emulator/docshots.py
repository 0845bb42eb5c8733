"""Regenerate the pictures of docs/EMULATOR.md (deterministic: simulated clock, fixed
seeds, so they change only when the view, the app or the skin does):

    .venv/bin/python -m desktop_emulator.docshots [OUTDIR]      (default docs/images)

- ``emulator.png``: the window with its skin, a CPU game in play;
- ``screens.png``: the key screens (desktop_emulator/screens.py) on one sheet;
- ``terminal.txt``: the play screen as ``make demo`` draws it.
"""

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def emulator_png(path, seed=3, plays=14):
    import pygame
    from desktop_emulator import session, window
    from desktop_emulator.clock import SimClock
    from desktop_emulator.display import FrameDisplay, Skin, render_offscreen
    from desktop_emulator.keyboard import default_keymap, keys_of
    from shared_rules.game import Rules
    m = session.AppEngine(SimClock(), session.QueueInput(), FrameDisplay())
    m.start_game(("hard", "normal"), seed, Rules())
    app = m.app
    while not (app.screen_name() == "game" and app.game.phase == "play" and
               app.stats.plays[0] + app.stats.plays[1] >= plays):
        m.clock.advance(session.device_frame_us())
        m.step()
    km = default_keymap()
    labels = {p: keys_of(km, p) for p in (0, 1)}
    skin = Skin(labels, window.seat_names(m, labels))
    pygame.image.save(render_offscreen(m.display.panel, 6, skin, pressed={(0, "B")}), path)


def screens_png(path, scale=3, gap=12):
    import pygame
    from desktop_emulator import framebuf, screens
    from desktop_emulator.display import LETTERBOX, LABEL, screen_surface
    shots = screens.key_screens(framebuf)
    cols = 2
    rows = (len(shots) + cols - 1) // cols
    label_h = 10 * scale
    cw, ch = 128 * scale, 64 * scale + label_h
    sheet = pygame.Surface((cols * cw + (cols + 1) * gap, rows * ch + (rows + 1) * gap))
    sheet.fill(LETTERBOX)
    pygame.font.init()
    font = pygame.font.Font(None, 8 * scale)
    for i, (name, data) in enumerate(shots):
        x = gap + (i % cols) * (cw + gap)
        y = gap + (i // cols) * (ch + gap)
        sheet.blit(font.render(name, True, LABEL), (x, y))
        sheet.blit(pygame.transform.scale(screen_surface(data), (128 * scale, 64 * scale)),
                   (x, y + label_h))
    pygame.image.save(sheet, path)


def terminal_txt(path):
    from desktop_emulator import framebuf, screens
    from desktop_emulator.terminal import render_text
    data = dict(screens.key_screens(framebuf))["play"]
    with open(path, "w", encoding="utf-8") as f:
        f.write(render_text(data) + "\n")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    out = argv[0] if argv else os.path.join("docs", "images")
    os.makedirs(out, exist_ok=True)
    emulator_png(os.path.join(out, "emulator.png"))
    screens_png(os.path.join(out, "screens.png"))
    terminal_txt(os.path.join(out, "terminal.txt"))
    print("wrote emulator.png, screens.png, terminal.txt to %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
