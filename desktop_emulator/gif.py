"""Animated GIFs of the OLED, in pure Python (pygame cannot write GIFs; no Pillow).

A GIF89a file with a two-colour global colour table (the emulator's unlit and lit
OLED colours, ``display.OFF`` / ``display.ON``), the NETSCAPE2.0 extension so that it
loops, and for each frame a graphic control extension carrying its delay in
centiseconds. Pixels are LZW-compressed (variable code width, a clear code whenever
the table reaches 4096 codes).

Frames are the app's 1024-byte MONO_VLSB framebuffers (128x64), each OLED pixel drawn
as a ``scale`` x ``scale`` square. The first frame is the whole screen; each later one
is only the bounding rectangle of the pixels that changed, drawn over the previous
frame (disposal "do not dispose"). A frame that repeats the previous one adds its delay
to that frame instead of becoming a frame of its own.

- :func:`lzw_encode` -- the GIF flavour of LZW, on a sequence of colour indices;
- :class:`GifWriter` -- ``add(buf, delay_cs)`` then ``finish()`` -> the file's bytes;
- :class:`GifRecorder` -- ``--gif FILE``: the display port's ``on_show`` hook, sampling
  what the panel shows at a fixed rate on the emulator's clock.
"""

import itertools
import struct

from desktop_emulator.display import BUF_LEN, H, OFF, ON, W, pixel_rows

MAX_CODES = 4096          # 12-bit codes: the table is full at 4096
MAX_DELAY = 0xFFFF        # a graphic control extension's delay is 16 bits (cs)


# ---------------------------------------------------------------- LZW

def lzw_encode(indices, min_code_size=2):
    """GIF LZW: colour indices (bytes, each < 2**min_code_size) -> the code stream,
    packed least significant bit first (before it is cut into sub-blocks).

    Codes start min_code_size + 1 bits wide and widen as the table grows, up to 12
    bits. The stream opens with a clear code, and when the table reaches 4096 codes
    another clear code starts a fresh one; it ends with the end-of-information code."""
    if not 2 <= min_code_size <= 8:
        raise ValueError("min_code_size must be 2..8, got %r" % (min_code_size,))
    clear = 1 << min_code_size
    end = clear + 1
    first_free = clear + 2
    reset_size = min_code_size + 1
    out = bytearray()
    acc = clear              # bits not yet written out, the clear code first
    nacc = reset_size
    size = reset_size
    limit = 1 << size        # codes widen once the next free code passes this
    nxt = first_free
    table = {}
    get = table.get
    it = iter(indices)
    prefix = next(it, None)
    if prefix is None:
        acc |= end << nacc
        nacc += size
    else:
        if prefix >= clear:
            raise ValueError("colour index %d does not fit %d bits" % (prefix, min_code_size))
        for c in it:
            key = (prefix << 8) | c
            code = get(key)
            if code is not None:
                prefix = code
                continue
            if c >= clear:
                raise ValueError("colour index %d does not fit %d bits" % (c, min_code_size))
            acc |= prefix << nacc
            nacc += size
            while nacc >= 8:
                out.append(acc & 0xFF)
                acc >>= 8
                nacc -= 8
            table[key] = nxt
            nxt += 1
            if nxt == MAX_CODES:
                # The table is full: say so, and start again with the roots only.
                acc |= clear << nacc
                nacc += size
                table.clear()
                nxt = first_free
                size = reset_size
                limit = 1 << size
            elif nxt > limit:
                size += 1
                limit <<= 1
            prefix = c
        acc |= prefix << nacc
        nacc += size
        # The decoder adds a table entry after reading this last code, as it does
        # after every code but the first: if that entry widens its codes, the end
        # code must be written at the new width.
        if nxt + 1 > limit and size < 12:
            size += 1
        acc |= end << nacc
        nacc += size
    while nacc > 0:
        out.append(acc & 0xFF)
        acc >>= 8
        nacc -= 8
    return bytes(out)


def sub_blocks(data):
    """Data -> GIF sub-blocks (a length byte, up to 255 bytes) and the 0 terminator."""
    out = bytearray()
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        out.append(len(chunk))
        out += chunk
    out.append(0)
    return bytes(out)


# ---------------------------------------------------------------- frames

def changed_box(old, new):
    """The OLED pixels that differ between two MONO_VLSB buffers, as their bounding box
    (x0, y0, x1, y1), inclusive; None when nothing changed."""
    if old == new:
        return None
    x0 = W
    x1 = -1
    y0 = H
    y1 = -1
    for page in range(H // 8):
        o = page * W
        a = old[o:o + W]
        b = new[o:o + W]
        if a == b:
            continue
        bits = 0
        for x in range(W):
            d = a[x] ^ b[x]
            if d:
                bits |= d
                if x < x0:
                    x0 = x
                if x > x1:
                    x1 = x
        top = page * 8 + ((bits & -bits).bit_length() - 1)
        bottom = page * 8 + bits.bit_length() - 1
        if top < y0:
            y0 = top
        if bottom > y1:
            y1 = bottom
    return x0, y0, x1, y1


def scaled_indices(rows, box, scale):
    """Row-major 0/1 pixels (display.pixel_rows) of the OLED -> the colour indices of
    the box, each pixel a scale x scale square."""
    x0, y0, x1, y1 = box
    out = []
    for y in range(y0, y1 + 1):
        row = rows[y * W + x0:y * W + x1 + 1]
        if scale != 1:
            row = bytes(itertools.chain.from_iterable(zip(*([row] * scale))))
        out.append(row * scale)
    return b"".join(out)


class GifWriter:
    """An animated GIF of OLED frames: ``add(buf, delay_cs)`` for each frame, then
    ``finish()`` returns the file's bytes. A frame equal to the one before it only
    lengthens that frame. Frames are kept as they come (1 KB each) and encoded in
    finish(), so recording costs next to nothing while the emulator runs."""

    def __init__(self, scale=3, on=ON, off=OFF, loop=0):
        if not (isinstance(scale, int) and scale >= 1):
            raise ValueError("scale must be a whole number >= 1, got %r" % (scale,))
        self.scale = scale
        self.colours = (off, on)
        self.loop = loop
        self.frames = []         # [buf, delay_cs], no two neighbours equal

    def add(self, buf, delay_cs):
        buf = bytes(buf)
        if len(buf) != BUF_LEN:
            raise ValueError("a frame is %d bytes, got %d" % (BUF_LEN, len(buf)))
        if delay_cs < 0:
            raise ValueError("a delay cannot be negative")
        if self.frames and self.frames[-1][0] == buf:
            self.frames[-1][1] += delay_cs
        else:
            self.frames.append([buf, delay_cs])

    def finish(self):
        """The whole file. At least one frame must have been added."""
        if not self.frames:
            raise ValueError("a GIF needs at least one frame")
        k = self.scale
        out = bytearray(b"GIF89a")
        # Logical screen: a 2-entry global colour table (size field 0), 8 bits a
        # primary, background index 0, square pixels.
        out += struct.pack("<HHBBB", W * k, H * k, 0x80 | 0x70, 0, 0)
        for rgb in self.colours:
            out += bytes(rgb)
        # NETSCAPE2.0: loop count (0 = forever).
        out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", self.loop) + b"\x00"
        prev = None
        for buf, delay in self.frames:
            box = (0, 0, W - 1, H - 1) if prev is None else changed_box(prev, buf)
            rows = pixel_rows(buf)
            while True:
                d = min(delay, MAX_DELAY)
                out += self._frame(rows, box, d)
                delay -= d
                if delay <= 0:
                    break
                box = (0, 0, 0, 0)       # the rest of a very long delay: one pixel again
            prev = buf
        out.append(0x3B)
        return bytes(out)

    def _frame(self, rows, box, delay):
        k = self.scale
        x0, y0, x1, y1 = box
        # Graphic control extension: disposal 1 (leave the frame in place), no
        # transparency, the delay in centiseconds.
        head = struct.pack("<BBBBHBB", 0x21, 0xF9, 4, 1 << 2, delay, 0, 0)
        desc = struct.pack("<BHHHHB", 0x2C, x0 * k, y0 * k, (x1 - x0 + 1) * k,
                           (y1 - y0 + 1) * k, 0)
        data = lzw_encode(scaled_indices(rows, box, k), 2)
        return head + desc + b"\x02" + sub_blocks(data)

    def save(self, path):
        from desktop_emulator.outputs import refuse
        data = self.finish()
        refuse(path)                   # a regular file or a new name only
        with open(path, "wb") as f:
            f.write(data)
        return len(data)


class GifRecorder:
    """``--gif FILE``: hung on the display port's ``on_show``. It samples what the panel
    shows ``fps`` times a second of the emulator's clock (simulated headless, real in
    the window and the terminal).

    The clip runs from the first frame shown to ``close()``: n = ceil(length * fps)
    samples, sample k showing the panel as it was at first + k / fps, except that the
    last sample shows the last picture (so a run that stops on the game-over screen
    ends on it). Its delays add up to exactly n / fps seconds. ``save()`` writes the
    file."""

    def __init__(self, path, scale, clock, fps=10):
        if not (isinstance(fps, int) and 1 <= fps <= 100):
            raise ValueError("fps must be 1..100, got %r" % (fps,))
        self.path = path
        self.clock = clock
        self.fps = fps
        self.writer = GifWriter(scale)
        self.t0 = None
        self.samples = 0
        self.last = None         # the panel as last shown
        self.pending = None      # the latest sample, held back until it is not the last

    def _delay(self, k):
        """Sample k's delay in cs, rounded so that n samples last n / fps seconds."""
        f = self.fps
        return ((k + 1) * 100 + f // 2) // f - (k * 100 + f // 2) // f

    def _catch_up(self, t):
        # Every sample instant before t shows the panel as it was before t.
        span = (t - self.t0) * self.fps
        while self.samples * 1000000 < span:
            if self.pending is not None:
                self.writer.add(*self.pending)
            self.pending = (self.last, self._delay(self.samples))
            self.samples += 1

    def __call__(self, panel):
        t = self.clock.elapsed_us()
        if self.t0 is None:
            self.t0 = t
        else:
            self._catch_up(t)
        self.last = bytes(panel)

    def close(self):
        """End the clip now (idempotent)."""
        if self.t0 is None or self.last is None:
            return
        self._catch_up(self.clock.elapsed_us())
        if self.pending is None:
            self.pending = (self.last, self._delay(0))
            self.samples = 1
        self.writer.add(self.last, self.pending[1])
        self.pending = None
        self.last = None

    def save(self):
        """Write the file; False when no frame was ever shown (nothing written)."""
        if not self.writer.frames:
            return False
        self.writer.save(self.path)
        return True
