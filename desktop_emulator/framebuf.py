"""A pure-Python stand-in for MicroPython's ``framebuf`` module.

The emulator runs ``firmware``'s app unchanged, and the app draws into a
``framebuf.FrameBuffer``. On the desktop there is no C ``framebuf``, so this module
provides one that writes *the same bytes* into the caller's buffer as MicroPython's
``extmod/modframebuf.c`` does (the parity test in ``tests/emulator/test_framebuf_standin.py``
runs random drawing sequences under the real interpreter and compares).

What matches the device, deliberately:
- the buffer is the caller's: every call writes into it in place (the display
  port sends those bytes);
- clipping, zero and negative sizes, ``rect`` built from four clipped lines (so
  ``rect(x, y, w, 0, c)`` draws two rows, y-1 and y), the Bresenham variant of
  ``line`` (end point always drawn), ``blit`` with a key, a palette and a source
  given as a tuple ``(buffer, width, height, format[, stride])``, ``scroll``
  (pixels scrolled away from are left as they were);
- colours are truncated to 32 bits as in C, mono formats store ``c != 0``;
- arguments must be ints (a float raises ``TypeError``, as on the device), and
  methods take no keyword arguments (the device raises ``TypeError`` for them);
- the constructor checks sizes and the buffer's length and raises ``ValueError``.

What is different:
- there is no ``text()`` (the project draws its own font), no ``ellipse()`` and no
  ``poly()``: using them raises ``AttributeError`` here;
- a ``FrameBuffer`` does not expose the buffer protocol (CPython 3.11 classes
  cannot); use the buffer you gave it. Like the device's, it has no public
  ``width``/``height`` attributes (its own are named ``_fb_*``, so a subclass such
  as an SSD1306 driver may set ``self.width`` freely);
- reading a palette outside its buffer raises ``IndexError`` (C reads garbage).

MONO_VLSB (the SSD1306 layout) has fast paths: ``fill_rect`` works on whole
bytes, ``blit`` and ``scroll`` on whole columns. The other formats are exact but
go pixel by pixel.
"""

from operator import index as _int

MONO_VLSB = 0
MVLSB = MONO_VLSB
RGB565 = 1
GS4_HMSB = 2
MONO_HLSB = 3
MONO_HMSB = 4
GS2_HMSB = 5
GS8 = 6

_U32 = 0xFFFFFFFF
_NO_STRIDE = object()

# (mask, bit) -> 256-byte table turning a byte into the byte with the bits of
# `mask` cleared (bit 0) or set (bit 1); used with bytes.translate.
_TABLES = {}


def _table(mask, bit):
    t = _TABLES.get((mask, bit))
    if t is None:
        keep = ~mask & 0xFF
        put = mask if bit else 0
        t = bytes((v & keep) | put for v in range(256))
        _TABLES[(mask, bit)] = t
    return t


def _writable(buf):
    if isinstance(buf, bytearray):
        return buf
    try:
        m = memoryview(buf)
    except TypeError:
        raise TypeError("object with buffer protocol required") from None
    if m.readonly:
        raise TypeError("object with buffer protocol required")
    return m.cast("B") if m.format != "B" or m.ndim != 1 else m


def _readable(buf):
    if isinstance(buf, (bytearray, bytes)):
        return buf
    try:
        m = memoryview(buf)
    except TypeError:
        raise TypeError("object with buffer protocol required") from None
    return m.cast("B") if m.format != "B" or m.ndim != 1 else m


def _check_geometry(buf, width, height, fmt, stride):
    """Validate like modframebuf.c; return the (possibly rounded-up) stride."""
    if width < 1 or height < 1 or width > 0xFFFF or height > 0xFFFF \
            or stride > 0xFFFF or stride < width:
        raise ValueError()
    bpp = 1
    height_req = height
    width_req = width
    strides_req = height - 1
    if fmt == MONO_VLSB:
        height_req = (height + 7) & ~7
        strides_req = height_req - 8
    elif fmt == MONO_HLSB or fmt == MONO_HMSB:
        stride = (stride + 7) & ~7
        width_req = (width + 7) & ~7
    elif fmt == GS2_HMSB:
        stride = (stride + 3) & ~3
        width_req = (width + 3) & ~3
        bpp = 2
    elif fmt == GS4_HMSB:
        stride = (stride + 1) & ~1
        width_req = (width + 1) & ~1
        bpp = 4
    elif fmt == GS8:
        bpp = 8
    elif fmt == RGB565:
        bpp = 16
    else:
        raise ValueError("invalid format")
    if (strides_req * stride + (height_req - strides_req) * width_req) * bpp // 8 > len(buf):
        raise ValueError()
    return stride


def _pixel_functions(buf, stride, fmt):
    """Return (setpixel, getpixel) closures for one buffer; no bounds checks.

    setpixel takes a colour already truncated to 32 bits, like C's uint32_t.
    """
    if fmt == MONO_VLSB:
        def setpixel(x, y, c):
            i = (y >> 3) * stride + x
            if c:
                buf[i] |= 1 << (y & 7)
            else:
                buf[i] &= ~(1 << (y & 7))

        def getpixel(x, y):
            return (buf[(y >> 3) * stride + x] >> (y & 7)) & 1
    elif fmt == MONO_HLSB or fmt == MONO_HMSB:
        msb_first = fmt == MONO_HLSB

        def setpixel(x, y, c):
            i = (x + y * stride) >> 3
            off = 7 - (x & 7) if msb_first else x & 7
            if c:
                buf[i] |= 1 << off
            else:
                buf[i] &= ~(1 << off)

        def getpixel(x, y):
            off = 7 - (x & 7) if msb_first else x & 7
            return (buf[(x + y * stride) >> 3] >> off) & 1
    elif fmt == RGB565:
        def setpixel(x, y, c):
            i = (x + y * stride) * 2
            buf[i] = c & 0xFF
            buf[i + 1] = (c >> 8) & 0xFF

        def getpixel(x, y):
            i = (x + y * stride) * 2
            return buf[i] | (buf[i + 1] << 8)
    elif fmt == GS8:
        def setpixel(x, y, c):
            buf[x + y * stride] = c & 0xFF

        def getpixel(x, y):
            return buf[x + y * stride]
    elif fmt == GS4_HMSB:
        def setpixel(x, y, c):
            i = (x + y * stride) >> 1
            if x & 1:
                buf[i] = (c & 0x0F) | (buf[i] & 0xF0)
            else:
                buf[i] = ((c & 0x0F) << 4) | (buf[i] & 0x0F)

        def getpixel(x, y):
            v = buf[(x + y * stride) >> 1]
            return v & 0x0F if x & 1 else v >> 4
    else:  # GS2_HMSB
        def setpixel(x, y, c):
            i = (x + y * stride) >> 2
            shift = (x & 3) << 1
            buf[i] = ((c & 3) << shift) | (buf[i] & ~(3 << shift) & 0xFF)

        def getpixel(x, y):
            return (buf[(x + y * stride) >> 2] >> ((x & 3) << 1)) & 3
    return setpixel, getpixel


class _Source:
    """A read-only view of a blit source or palette (FrameBuffer or tuple)."""

    __slots__ = ("buf", "width", "height", "format", "stride", "getpixel")

    def __init__(self, arg):
        if isinstance(arg, FrameBuffer):
            self.buf = arg._fb_buf
            self.width = arg._fb_width
            self.height = arg._fb_height
            self.format = arg._fb_format
            self.stride = arg._fb_stride
            self.getpixel = arg._fb_get
            return
        if not isinstance(arg, (tuple, list)):
            raise TypeError("object '%s' isn't a tuple or list" % type(arg).__name__)
        if len(arg) < 4 or len(arg) > 5:
            raise ValueError()
        width = _int(arg[1])
        height = _int(arg[2])
        fmt = _int(arg[3])
        stride = _int(arg[4]) if len(arg) == 5 else width
        buf = _readable(arg[0])
        stride = _check_geometry(buf, width, height, fmt, stride)
        self.buf = buf
        self.width = width
        self.height = height
        self.format = fmt
        self.stride = stride
        self.getpixel = _pixel_functions(buf, stride, fmt)[1]


def _same_memory(a, b):
    """True when two buffers may share memory (then use the pixel-order path)."""
    if a is b:
        return True
    oa = a.obj if isinstance(a, memoryview) else a
    ob = b.obj if isinstance(b, memoryview) else b
    return oa is ob


class FrameBuffer:
    """framebuf.FrameBuffer(buffer, width, height, format[, stride])."""

    def __init__(self, buffer, width, height, format, stride=_NO_STRIDE, /):
        width = _int(width)
        height = _int(height)
        format = _int(format)
        stride = width if stride is _NO_STRIDE else _int(stride)
        buf = _writable(buffer)
        stride = _check_geometry(buf, width, height, format, stride)
        self._fb_buf = buf
        self._fb_width = width
        self._fb_height = height
        self._fb_format = format
        self._fb_stride = stride
        self._fb_set, self._fb_get = _pixel_functions(buf, stride, format)

    def __repr__(self):
        return "<FrameBuffer>"

    # -- the clipped rectangle fill every line/rect call goes through ---------

    def _fill_rect(self, x, y, w, h, c):
        width = self._fb_width
        height = self._fb_height
        if h < 1 or w < 1 or x + w <= 0 or y + h <= 0 or y >= height or x >= width:
            return
        xend = min(width, x + w)
        yend = min(height, y + h)
        if x < 0:
            x = 0
        if y < 0:
            y = 0
        self._fill_clipped(x, y, xend, yend, c & _U32)

    def _fill_clipped(self, x, y, xend, yend, c):
        """Fill [x, xend) x [y, yend), already inside the buffer."""
        fmt = self._fb_format
        buf = self._fb_buf
        stride = self._fb_stride
        n = xend - x
        if fmt == MONO_VLSB:
            bit = 1 if c else 0
            whole = (b"\xff" if bit else b"\x00") * n
            is_bytearray = isinstance(buf, bytearray)
            for page in range(y >> 3, ((yend - 1) >> 3) + 1):
                top = page << 3
                lo = y - top if y > top else 0
                hi = yend - top if yend - top < 8 else 8
                mask = ((1 << hi) - 1) & ~((1 << lo) - 1)
                a = page * stride + x
                if mask == 0xFF:
                    buf[a:a + n] = whole
                elif is_bytearray:
                    buf[a:a + n] = buf[a:a + n].translate(_table(mask, bit))
                else:
                    buf[a:a + n] = bytes(buf[a:a + n]).translate(_table(mask, bit))
        elif fmt == GS8:
            row = bytes((c & 0xFF,)) * n
            for yy in range(y, yend):
                a = yy * stride + x
                buf[a:a + n] = row
        elif fmt == RGB565:
            row = (c & 0xFFFF).to_bytes(2, "little") * n
            for yy in range(y, yend):
                a = (yy * stride + x) * 2
                buf[a:a + 2 * n] = row
        else:
            setpixel = self._fb_set
            for yy in range(y, yend):
                for xx in range(x, xend):
                    setpixel(xx, yy, c)

    # -- public drawing API -----------------------------------------------------

    def fill(self, c, /):
        self._fill_clipped(0, 0, self._fb_width, self._fb_height, _int(c) & _U32)

    def fill_rect(self, x, y, w, h, c, /):
        self._fill_rect(_int(x), _int(y), _int(w), _int(h), _int(c))

    def hline(self, x, y, w, c, /):
        self._fill_rect(_int(x), _int(y), _int(w), 1, _int(c))

    def vline(self, x, y, h, c, /):
        self._fill_rect(_int(x), _int(y), 1, _int(h), _int(c))

    def rect(self, x, y, w, h, c, f=False, /):
        x = _int(x)
        y = _int(y)
        w = _int(w)
        h = _int(h)
        c = _int(c)
        if f:
            self._fill_rect(x, y, w, h, c)
        else:
            # Four independently clipped lines, exactly like the C code: with
            # h < 1 the two horizontal lines still land at y and y + h - 1.
            self._fill_rect(x, y, w, 1, c)
            self._fill_rect(x, y + h - 1, w, 1, c)
            self._fill_rect(x, y, 1, h, c)
            self._fill_rect(x + w - 1, y, 1, h, c)

    def pixel(self, x, y, /, *c):
        if len(c) > 1:
            raise TypeError("function expected at most 4 arguments, got %d" % (3 + len(c)))
        x = _int(x)
        y = _int(y)
        if 0 <= x < self._fb_width and 0 <= y < self._fb_height:
            if not c:
                return self._fb_get(x, y)
            self._fb_set(x, y, _int(c[0]) & _U32)
        return None

    def line(self, x1, y1, x2, y2, c, /):
        x1 = _int(x1)
        y1 = _int(y1)
        x2 = _int(x2)
        y2 = _int(y2)
        c = _int(c) & _U32
        width = self._fb_width
        height = self._fb_height
        setpixel = self._fb_set
        dx = x2 - x1
        sx = 1
        if dx <= 0:
            dx = -dx
            sx = -1
        dy = y2 - y1
        sy = 1
        if dy <= 0:
            dy = -dy
            sy = -1
        steep = dy > dx
        if steep:
            # walk along y: (a, b) are (y, x)
            x1, y1 = y1, x1
            dx, dy = dy, dx
            sx, sy = sy, sx
            wa, wb = height, width
        else:
            wa, wb = width, height
        # a is the major coordinate, b the minor one; both are clipped per pixel.
        a = x1
        b = y1
        e = 2 * dy - dx
        two_dx = 2 * dx
        two_dy = 2 * dy
        for _ in range(dx):
            if 0 <= a < wa and 0 <= b < wb:
                if steep:
                    setpixel(b, a, c)
                else:
                    setpixel(a, b, c)
            while e >= 0:
                b += sy
                e -= two_dx
            a += sx
            e += two_dy
        if 0 <= x2 < width and 0 <= y2 < height:
            setpixel(x2, y2, c)

    def blit(self, fbuf, x, y, key=-1, palette=None, /):
        source = _Source(fbuf)
        x = _int(x)
        y = _int(y)
        key = _int(key) & _U32
        pal = None
        if palette is not None:
            pal = _Source(palette)
        width = self._fb_width
        height = self._fb_height
        if x >= width or y >= height or -x >= source.width or -y >= source.height:
            return
        x0 = max(0, x)
        y0 = max(0, y)
        x1 = max(0, -x)
        y1 = max(0, -y)
        x0end = min(width, x + source.width)
        y0end = min(height, y + source.height)
        if self._fb_format == MONO_VLSB and source.format == MONO_VLSB \
                and (pal is None or pal.width >= 2) \
                and not _same_memory(self._fb_buf, source.buf):
            self._blit_vlsb(source, pal, key, x, y, x0, y0, x1, x0end, y0end)
            return
        getsrc = source.getpixel
        setpixel = self._fb_set
        getpal = pal.getpixel if pal is not None else None
        for yd in range(y0, y0end):
            cx1 = x1
            for xd in range(x0, x0end):
                col = getsrc(cx1, y1)
                if getpal is not None:
                    col = getpal(col, 0)
                if col != key:
                    setpixel(xd, yd, col)
                cx1 += 1
            y1 += 1

    def _blit_vlsb(self, source, pal, key, x, y, x0, y0, x1, x0end, y0end):
        """MONO_VLSB onto MONO_VLSB, one whole column of bits at a time."""
        # What a source bit of 0 and of 1 does: None = skip (it equals the key),
        # otherwise the bit written (the colour, after the palette, != 0).
        actions = []
        for bit in (0, 1):
            col = pal.getpixel(bit, 0) if pal is not None else bit
            actions.append(None if col == key else (1 if col else 0))
        if actions[0] is None and actions[1] is None:
            return
        sbuf = source.buf
        sstride = source.stride
        spages = (source.height + 7) >> 3
        dbuf = self._fb_buf
        dstride = self._fb_stride
        p0 = y0 >> 3
        p1 = (y0end - 1) >> 3
        npages = p1 - p0 + 1
        shift = y - (p0 << 3)  # source row r lands on bit r + shift of the column
        rng = ((1 << (y0end - (p0 << 3))) - 1) & ~((1 << (y0 - (p0 << 3))) - 1)
        act0, act1 = actions
        sx = x1
        for xd in range(x0, x0end):
            s = int.from_bytes(sbuf[sx:sx + spages * sstride:sstride], "little")
            s = (s << shift if shift >= 0 else s >> -shift) & rng
            a = p0 * dstride + xd
            sl = slice(a, a + npages * dstride, dstride)
            d = int.from_bytes(dbuf[sl], "little")
            ones = s
            zeros = rng & ~s
            if act1 is not None:
                d = d | ones if act1 else d & ~ones
            if act0 is not None:
                d = d | zeros if act0 else d & ~zeros
            dbuf[sl] = d.to_bytes(npages, "little")
            sx += 1

    def scroll(self, xstep, ystep, /):
        xstep = _int(xstep)
        ystep = _int(ystep)
        width = self._fb_width
        height = self._fb_height
        if xstep >= width or -xstep >= width or ystep >= height or -ystep >= height:
            return
        # The C loop walks from the far end so it always reads pixels it has not
        # yet overwritten: the result is a copy from a snapshot of the buffer.
        xa, xb = (xstep, width) if xstep >= 0 else (0, width + xstep)
        ya, yb = (ystep, height) if ystep >= 0 else (0, height + ystep)
        if xa >= xb or ya >= yb:
            return
        buf = self._fb_buf
        stride = self._fb_stride
        if self._fb_format == MONO_VLSB:
            old = bytes(buf)
            pages = (height + 7) >> 3
            rng = ((1 << yb) - 1) & ~((1 << ya) - 1)
            keep = ~rng
            for xd in range(xa, xb):
                sx = xd - xstep
                s = int.from_bytes(old[sx:sx + pages * stride:stride], "little")
                s = s << ystep if ystep >= 0 else s >> -ystep
                sl = slice(xd, xd + pages * stride, stride)
                d = int.from_bytes(old[sl], "little")
                buf[sl] = ((d & keep) | (s & rng)).to_bytes(pages, "little")
            return
        getold = _pixel_functions(bytes(buf), stride, self._fb_format)[1]
        setpixel = self._fb_set
        for yd in range(ya, yb):
            for xd in range(xa, xb):
                setpixel(xd, yd, getold(xd - xstep, yd - ystep))


def FrameBuffer1(buffer, width, height, stride=_NO_STRIDE, /):
    """The legacy constructor: a MONO_VLSB FrameBuffer."""
    return FrameBuffer(buffer, width, height, MONO_VLSB, width if stride is _NO_STRIDE else stride)
