"""The display port: ``fb`` (a framebuf-compatible 128x64 MONO_VLSB FrameBuffer) and
``show()``.

The app draws into ``fb`` (the pure-Python stand-in, byte-exact with MicroPython's
C framebuf) and calls ``show()`` when a frame is ready, exactly as on the device.

- :class:`FrameDisplay` keeps the bytes (headless runs, replays, tests; the terminal
  demo hangs a callback on ``show``);
- :class:`WindowDisplay` also owns the pygame window: the screen scaled with square
  pixels (default x6), letterboxed when the window is resized, F11 fullscreen, and an
  optional *skin* drawing the handheld's body and the two pads, whose buttons light
  while their keys are held.

Pixels of the OLED are drawn as a palettised 128x64 surface built from the MONO_VLSB
bytes with ``bytes.translate`` (64 C-speed calls a frame), then scaled by pygame.
PNG files are written with ``pygame.image.save`` (no Pillow).

:class:`Presenter` decides which picture the window and the picture outputs (F12,
--screenshot, --gif, --dump-frames) get: the panel as the device shows it, or with
player 1's half turned upright for two players side by side (--upright, F9;
``host/upright.py``). The panel itself, and so the state line, never changes.
"""

import hashlib

from desktop_emulator import framebuf
from host.ports import Panel, W, H, BUF_LEN
# The handheld's colours are the host floor's, shared with the browser.
from host.skin import (OFF, ON, BODY, BODY_EDGE, GLASS, LETTERBOX, BUTTON_IDLE,
                       BUTTON_LIT, BUTTON_RING, LABEL, LABEL_DIM)

# bit b of a byte -> 1 / 0: turns a 128-byte page into the 128 pixels of one row.
_BIT_ROWS = [bytes((v >> b) & 1 for v in range(256)) for b in range(8)]
# two rows (upper bit a, lower bit b) -> terminal half blocks are in terminal.py


def pixel_rows(buf):
    """MONO_VLSB bytes -> 64 rows of 128 bytes, each 0 or 1 (row-major, 8192 bytes)."""
    buf = bytes(buf)
    out = []
    for page in range(H // 8):
        chunk = buf[page * W:(page + 1) * W]
        for b in range(8):
            out.append(chunk.translate(_BIT_ROWS[b]))
    return b"".join(out)


class Presenter:
    """The picture to show for a panel: the device's own (player 1's half turned to
    face them across the handheld), or, when ``upright`` is on, with player 1's parts
    turned back for two players side by side (host/upright.py). ``screen`` is a
    callable giving the app's screen name, which says where player 1's parts are."""

    def __init__(self, upright=False, screen=None):
        self.upright = upright
        self.screen = screen

    def layout(self):
        """What would be turned now (0: nothing: the option is off, or the screen is
        upright for everyone)."""
        if not self.upright or self.screen is None:
            return 0
        from host.upright import layout_of
        return layout_of(self.screen())

    def __call__(self, panel, layout=None):
        layout = self.layout() if layout is None else layout
        if not layout:
            return panel
        from host.upright import upright
        return upright(panel, layout)


def frame_sha1(buf):
    return hashlib.sha1(bytes(buf)).hexdigest()


def screen_surface(buf, on=ON, off=OFF):
    """A 128x64 8-bit palettised pygame Surface of the frame (pixel value 0 or 1)."""
    import pygame
    surf = pygame.image.frombytes(pixel_rows(buf), (W, H), "P")
    surf.set_palette([off, on] + [off] * 254)
    return surf


def save_png(buf, path, scale=1, on=ON, off=OFF):
    """Write the frame as a PNG, each OLED pixel a scale x scale square."""
    import pygame
    surf = screen_surface(buf, on, off)
    if scale != 1:
        surf = pygame.transform.scale(surf, (W * scale, H * scale))
    pygame.image.save(surf, str(path))


def load_png_pixels(path, threshold=128):
    """A PNG written by save_png (any scale) -> the 8192 row-major 0/1 pixel bytes."""
    import pygame
    surf = pygame.image.load(str(path))
    w, h = surf.get_size()
    if w % W or h % H or w // W != h // H:
        raise ValueError("%s is %dx%d, not a multiple of 128x64" % (path, w, h))
    k = w // W
    out = bytearray(W * H)
    for y in range(H):
        for x in range(W):
            c = surf.get_at((x * k + k // 2, y * k + k // 2))
            out[y * W + x] = 1 if (c.r + c.g + c.b) // 3 >= threshold else 0
    return bytes(out)


class FrameDisplay(Panel):
    """The display port without a window: the host floor's Panel (host/ports.py) on
    the byte-exact framebuf stand-in. ``buf`` is what the app draws, ``panel`` what
    the OLED shows (only the spans the view reported are sent, as on the device); the
    window, the terminal and screenshots draw ``panel``."""

    def __init__(self, on_show=None):
        Panel.__init__(self, framebuf, on_show=on_show)

    def frame_bytes(self):
        return bytes(self.buf)

    def sha1(self):
        return frame_sha1(self.buf)


# ---------------------------------------------------------------- the window

# Layout in OLED pixels ("units"); the window is these times the scale.
BEZEL = 4                 # around the glass
PAD_H = 20                # each player's pad strip
SKIN_W = W + 2 * 14
SKIN_H = PAD_H + BEZEL + H + BEZEL + PAD_H


def layout_size(skin):
    return (SKIN_W, SKIN_H) if skin else (W, H)


def fit_scale(avail_w, avail_h, skin):
    """The largest scale at which the layout fits; whole numbers when >= 1, so every
    OLED pixel is the same square."""
    uw, uh = layout_size(skin)
    k = min(avail_w / uw, avail_h / uh)
    return max(1, int(k)) if k >= 1 else max(k, 0.1)


class Skin:
    """Draws the handheld around the screen: body, glass, and the two pads (player 1's
    at the top, turned to face them: their A is on our right)."""

    def __init__(self, labels=None, names=None):
        # labels[p][button] = key label ("Z"); names[p] = "YOU" / "CPU HARD" ...
        self.labels = labels or {0: {"A": "Z", "B": "X"}, 1: {"A": "N", "B": "M"}}
        self.names = names or {0: "PLAYER 0", 1: "PLAYER 1"}
        self._fonts = {}

    def _font(self, px):
        import pygame
        px = max(8, int(px))
        f = self._fonts.get(px)
        if f is None:
            if not pygame.font.get_init():
                pygame.font.init()
            f = pygame.font.Font(None, px)
            self._fonts[px] = f
        return f

    def button_centres(self, k, ox, oy):
        """{(player, button): (x, y, r)} in window pixels."""
        r = 6.5 * k
        cx = ox + SKIN_W * k / 2
        out = {}
        for p in (0, 1):
            y = oy + (SKIN_H - PAD_H / 2) * k if p == 0 else oy + (PAD_H / 2) * k
            left, right = cx - 16 * k, cx + 16 * k
            a, b = (left, right) if p == 0 else (right, left)
            out[(p, "A")] = (a, y, r)
            out[(p, "B")] = (b, y, r)
        return out

    def draw(self, surface, k, ox, oy, pressed):
        import pygame
        body = pygame.Rect(round(ox), round(oy), round(SKIN_W * k), round(SKIN_H * k))
        pygame.draw.rect(surface, BODY, body, border_radius=round(10 * k))
        pygame.draw.rect(surface, BODY_EDGE, body, width=max(1, round(k / 2)),
                         border_radius=round(10 * k))
        glass = pygame.Rect(round(ox + (SKIN_W - W) / 2 * k - 3 * k),
                            round(oy + (PAD_H + BEZEL) * k - 3 * k),
                            round((W + 6) * k), round((H + 6) * k))
        pygame.draw.rect(surface, GLASS, glass, border_radius=round(2 * k))
        font = self._font(7 * k)
        small = self._font(5.5 * k)
        for (p, button), (x, y, r) in self.button_centres(k, ox, oy).items():
            lit = (p, button) in pressed
            pygame.draw.circle(surface, BUTTON_RING, (round(x), round(y)), round(r + k))
            pygame.draw.circle(surface, BUTTON_LIT if lit else BUTTON_IDLE,
                               (round(x), round(y)), round(r))
            t = font.render(button, True, (30, 20, 0) if lit else (235, 200, 200))
            surface.blit(t, t.get_rect(center=(round(x), round(y))))
            key = self.labels.get(p, {}).get(button)
            if key:
                kt = small.render(key, True, LABEL)
                side = -1 if (p == 0) == (button == "A") else 1
                surface.blit(kt, kt.get_rect(center=(round(x + side * (r + 7 * k)), round(y))))
        for p in (0, 1):
            name = self.names.get(p, "")
            if not name:
                continue
            t = small.render(name, True, LABEL_DIM)
            y = oy + (SKIN_H - PAD_H / 2) * k if p == 0 else oy + (PAD_H / 2) * k
            surface.blit(t, t.get_rect(midleft=(round(ox + 6 * k), round(y))))

    def screen_origin(self, k, ox, oy):
        return ox + (SKIN_W - W) / 2 * k, oy + (PAD_H + BEZEL) * k


class WindowDisplay(FrameDisplay):
    """The display port in a pygame window. ``render(pressed)`` draws one window frame
    (the loop calls it 60 times a second); the OLED image is rebuilt only after the
    app's show()."""

    def __init__(self, scale=6, skin=True, skin_obj=None, title="Spit handheld",
                 on_show=None, fit_desktop=True, presenter=None):
        super().__init__(on_show)
        self.presenter = presenter if presenter is not None else Presenter()
        import pygame
        self.pygame = pygame
        if not pygame.display.get_init():
            pygame.display.init()
        self.skin = skin_obj or Skin() if skin else None
        uw, uh = layout_size(bool(self.skin))
        self.scale = scale
        self.note = None
        if fit_desktop:
            try:
                dw, dh = pygame.display.get_desktop_sizes()[0]
                fit = fit_scale(dw - 40, dh - 80, bool(self.skin))
                if fit < scale:
                    self.scale = fit
                    self.note = "scale %s does not fit the %dx%d desktop; using %s" % (
                        scale, dw, dh, fit)
            except (pygame.error, IndexError):
                pass
        self.window_size = (round(uw * self.scale), round(uh * self.scale))
        pygame.display.set_caption(title)
        self.surface = pygame.display.set_mode(self.window_size, pygame.RESIZABLE)
        self.fullscreen = False
        self._plain = Skin()         # its fonts, for the pause overlay without a skin
        self._oled = None
        self._oled_scaled = None
        self._oled_key = None
        self._oled_layout = 0

    def toggle_upright(self):
        """F9: player 1's half upright, or as the device shows it."""
        self.presenter.upright = not self.presenter.upright
        return self.presenter.upright

    def toggle_fullscreen(self):
        pygame = self.pygame
        try:
            if self.fullscreen:
                self.surface = pygame.display.set_mode(self.window_size, pygame.RESIZABLE)
            else:
                self.window_size = self.surface.get_size()
                self.surface = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
            self.fullscreen = not self.fullscreen
        except pygame.error:
            pass
        self._oled_scaled = None

    def placement(self):
        """(k, ox, oy): the scale and top-left of the layout in the window now."""
        ww, wh = self.surface.get_size()
        k = fit_scale(ww, wh, bool(self.skin))
        uw, uh = layout_size(bool(self.skin))
        return k, (ww - uw * k) / 2, (wh - uh * k) / 2

    def render(self, pressed=(), overlay=None):
        pygame = self.pygame
        self.surface = pygame.display.get_surface() or self.surface
        k, ox, oy = self.placement()
        self.surface.fill(LETTERBOX)
        if self.skin is not None:
            self.skin.draw(self.surface, k, ox, oy, pressed)
            sx, sy = self.skin.screen_origin(k, ox, oy)
        else:
            sx, sy = ox, oy
        layout = self.presenter.layout()
        if self.dirty or self._oled is None or layout != self._oled_layout:
            self._oled = screen_surface(self.presenter(self.panel, layout))
            self._oled_layout = layout
            self._oled_scaled = None
            self.dirty = False
        size = (round(W * k), round(H * k))
        if self._oled_scaled is None or self._oled_key != size:
            self._oled_scaled = pygame.transform.scale(self._oled, size)
            self._oled_key = size
        self.surface.blit(self._oled_scaled, (round(sx), round(sy)))
        if overlay:
            band = pygame.Surface((round(W * k), round(12 * k)), pygame.SRCALPHA)
            band.fill((0, 0, 0, 200))
            self.surface.blit(band, (round(sx), round(sy + 26 * k)))
            font = (self.skin or self._plain)._font(9 * k)
            t = font.render(overlay, True, BUTTON_LIT)
            self.surface.blit(t, t.get_rect(center=(round(sx + W * k / 2), round(sy + 32 * k))))
        pygame.display.flip()

    def save_window_png(self, path):
        self.pygame.image.save(self.surface, str(path))


def render_offscreen(buf, scale=6, skin=None, pressed=()):
    """The window's picture without a window (headless --screenshot with --skin)."""
    import pygame
    uw, uh = layout_size(skin is not None)
    surf = pygame.Surface((uw * scale, uh * scale))
    surf.fill(LETTERBOX)
    if skin is not None:
        skin.draw(surf, scale, 0, 0, pressed)
        sx, sy = skin.screen_origin(scale, 0, 0)
    else:
        sx, sy = 0, 0
    oled = pygame.transform.scale(screen_surface(buf), (W * scale, H * scale))
    surf.blit(oled, (round(sx), round(sy)))
    return surf


class FrameDumper:
    """--dump-frames DIR: every frame the app shows, as DIR/000001.png ... (the screen
    at `scale`), and DIR/frames.txt listing each file with its time in ms since the
    start, so a tool such as ffmpeg or ImageMagick can make an animated GIF of them
    (pygame cannot write GIFs)."""

    def __init__(self, directory, scale, clock, presenter=None):
        import os
        self.dir = directory
        self.presenter = presenter or Presenter()
        self.scale = scale
        self.clock = clock
        self.n = 0
        from desktop_emulator.outputs import refuse
        os.makedirs(directory, exist_ok=True)
        refuse(os.path.join(directory, "frames.txt"))
        self._index = open(os.path.join(directory, "frames.txt"), "w")

    def __call__(self, panel):
        import os
        from desktop_emulator.outputs import refuse
        self.n += 1
        name = "%06d.png" % self.n
        path = os.path.join(self.dir, name)
        refuse(path)                   # never write through a link or onto a device
        save_png(self.presenter(panel), path, self.scale)
        self._index.write("%s %d\n" % (name, self.clock.elapsed_us() // 1000))

    def close(self):
        self._index.close()
