# The state line and the summary line that every engine prints (--print-state, the
# page's finish, the emulated Pico), one implementation: the state line is the sha1 of
# json.dumps(game.snapshot(), sort_keys=True) and of the framebuffer, so two engines that
# reached the same game and the same picture print the same line. Written to run where
# the interpreter lacks them: the browser's MicroPython has hashlib.sha256 but no
# sha1, and its json.dumps has no sort_keys.

try:
    from hashlib import sha1 as _sha1
except ImportError:
    _sha1 = None

_M = 0xFFFFFFFF


def _rol(x, n):
    return ((x << n) | (x >> (32 - n))) & _M


def sha1_pure(data):
    """SHA-1 (FIPS 180-4) of bytes, as a hex string."""
    n = len(data)
    msg = bytearray(data)
    msg.append(0x80)
    while len(msg) % 64 != 56:
        msg.append(0)
    bits = n * 8
    for i in range(7, -1, -1):
        msg.append((bits >> (8 * i)) & 0xFF)
    h0, h1, h2, h3, h4 = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0
    w = [0] * 80
    for off in range(0, len(msg), 64):
        for i in range(16):
            j = off + 4 * i
            w[i] = (msg[j] << 24) | (msg[j + 1] << 16) | (msg[j + 2] << 8) | msg[j + 3]
        for i in range(16, 80):
            w[i] = _rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1)
        a, b, c, d, e = h0, h1, h2, h3, h4
        for i in range(80):
            if i < 20:
                f = (b & c) | (~b & d)
                k = 0x5A827999
            elif i < 40:
                f = b ^ c ^ d
                k = 0x6ED9EBA1
            elif i < 60:
                f = (b & c) | (b & d) | (c & d)
                k = 0x8F1BBCDC
            else:
                f = b ^ c ^ d
                k = 0xCA62C1D6
            t = (_rol(a, 5) + (f & _M) + e + k + w[i]) & _M
            e = d
            d = c
            c = _rol(b, 30)
            b = a
            a = t
        h0 = (h0 + a) & _M
        h1 = (h1 + b) & _M
        h2 = (h2 + c) & _M
        h3 = (h3 + d) & _M
        h4 = (h4 + e) & _M
    return "%08x%08x%08x%08x%08x" % (h0, h1, h2, h3, h4)


def sha1_hex(data):
    if _sha1 is not None:
        return "".join(["%02x" % b for b in _sha1(bytes(data)).digest()])
    return sha1_pure(bytes(data))


_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
        "\f": "\\f"}


def _str(s, out):
    out.append('"')
    for ch in s:
        e = _ESC.get(ch)
        if e is not None:
            out.append(e)
            continue
        c = ord(ch)
        if 0x20 <= c < 0x7F:
            out.append(ch)
        elif c < 0x10000:
            out.append("\\u%04x" % c)
        else:
            c -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 | (c >> 10), 0xDC00 | (c & 0x3FF)))
    out.append('"')


def _dump(x, out):
    if x is None:
        out.append("null")
    elif x is True:
        out.append("true")
    elif x is False:
        out.append("false")
    elif isinstance(x, int):
        out.append(str(x))
    elif isinstance(x, str):
        _str(x, out)
    elif isinstance(x, (list, tuple)):
        out.append("[")
        first = True
        for v in x:
            if not first:
                out.append(", ")
            first = False
            _dump(v, out)
        out.append("]")
    elif isinstance(x, dict):
        out.append("{")
        first = True
        for k in sorted(x):
            if not isinstance(k, str):
                raise TypeError("keys must be str, got %r" % (k,))
            if not first:
                out.append(", ")
            first = False
            _str(k, out)
            out.append(": ")
            _dump(x[k], out)
        out.append("}")
    else:
        # Floats print differently on CPython and MicroPython: a snapshot has none.
        raise TypeError("cannot hash a %s in a snapshot" % type(x).__name__)


def dumps_sorted(x):
    """CPython's json.dumps(x, sort_keys=True), byte for byte, for what a game
    snapshot holds (dicts with str keys, lists, str, int, bool, None)."""
    out = []
    _dump(x, out)
    return "".join(out)


def state_line(snapshot, frame_buf):
    """`state <sha1 of the snapshot's JSON> frame <sha1 of the framebuffer>`."""
    return "state %s frame %s" % (sha1_hex(dumps_sorted(snapshot).encode()),
                                  sha1_hex(frame_buf))


def game_state_line(game, frame_buf):
    """The state line of a game (None: no game yet) and the picture."""
    return state_line(game.snapshot() if game is not None else None, frame_buf)


def summary_line(screen, game, frames, extra=""):
    """One line on where a run ended: the screen, the phase, round, winner, scores."""
    if game is None:
        return "no game (screen %s)" % screen
    w = {0: "0", 1: "1", None: "draw" if game.phase == "over" else "-"}[game.winner]
    return "screen=%s phase=%s round=%d winner=%s scores=%d:%d frames=%d%s" % (
        screen, game.phase, game.round, w, game.scores[0], game.scores[1], frames, extra)
