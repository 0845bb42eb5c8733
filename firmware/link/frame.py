# The bytes on the wire. A frame is
#
#   version, kind, seq, ack, payload..., CRC-16 (high byte first)
#
# COBS-encoded (so that no 0 byte is left in it) and ended by one 0 byte. A receiver
# that joins mid-frame, or a byte lost or flipped on a loose cable, costs at most the
# frame it fell in: the next 0 starts afresh, and the CRC-16 (CCITT, 0x1021, which
# catches every error of up to 3 bits and every burst up to 16 bits in frames this
# short) throws the damaged one away. The protocol then resends it (link.py).
#
# No allocation per received byte: the decoder keeps two buffers of the longest frame.

from shared_rules.compat import const

MAX_PAYLOAD = const(200)
HEAD = const(4)                  # version, kind, seq, ack
_RAW_MAX = const(206)            # HEAD + MAX_PAYLOAD + 2 (the CRC)
ENC_MAX = const(209)             # COBS adds one byte per 254 and the code byte, + the 0


def _crc_table():
    t = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        t.append(c & 0xFFFF)
    return t


_CRC = _crc_table()


def crc16(buf, start, end, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of buf[start:end]."""
    t = _CRC
    for i in range(start, end):
        crc = ((crc << 8) & 0xFF00) ^ t[((crc >> 8) ^ buf[i]) & 0xFF]
    return crc


def encode(version, kind, seq, ack, payload):
    """The frame as bytes to write: COBS with its ending 0."""
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ValueError("payload of %d bytes, at most %d" % (n, MAX_PAYLOAD))
    raw = bytearray(HEAD + n + 2)
    raw[0] = version
    raw[1] = kind
    raw[2] = seq & 0xFF
    raw[3] = ack & 0xFF
    raw[HEAD:HEAD + n] = payload
    c = crc16(raw, 0, HEAD + n)
    raw[HEAD + n] = c >> 8
    raw[HEAD + n + 1] = c & 0xFF
    return cobs_encode(raw)


def cobs_encode(raw):
    out = bytearray(len(raw) + len(raw) // 254 + 2)
    code_at = 0
    code = 1
    k = 1
    for b in raw:
        if b == 0:
            out[code_at] = code
            code_at = k
            k += 1
            code = 1
        else:
            out[k] = b
            k += 1
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = k
                k += 1
                code = 1
    out[code_at] = code
    out[k] = 0
    return bytes(out[:k + 1])


def cobs_decode(src, n, dst):
    """Decode src[:n] (one frame without its 0) into dst; the length, or -1 if the
    bytes are not COBS (a 0 inside, a block running past the end) or too long."""
    i = 0
    k = 0
    dmax = len(dst)
    while i < n:
        code = src[i]
        end = i + code
        if code == 0 or end > n:
            return -1
        i += 1
        while i < end:
            b = src[i]
            if b == 0 or k >= dmax:
                return -1
            dst[k] = b
            k += 1
            i += 1
        if code != 0xFF and i < n:
            if k >= dmax:
                return -1
            dst[k] = 0
            k += 1
    return k


class Decoder:
    """Bytes in, checked frames out. feed(buf, n, handler) calls
    handler(version, kind, seq, ack, raw, end) for every good frame in buf[:n]; the
    payload is raw[HEAD:end]. Counts what it threw away."""

    def __init__(self):
        self._enc = bytearray(ENC_MAX)
        self._n = 0
        self._over = False           # the frame being gathered is too long: skip it
        self._zero = False           # the last byte fed was a 0
        self.raw = bytearray(_RAW_MAX)
        self.good = 0
        self.bad = 0                 # failed the CRC, not COBS, too short or too long, 0 0

    def feed(self, buf, n, handler):
        enc = self._enc
        for i in range(n):
            b = buf[i]
            zero_before = self._zero
            self._zero = not b
            if b:
                if self._n < ENC_MAX:
                    enc[self._n] = b
                    self._n += 1
                elif not self._over:
                    # Counted now, not at its end: a peer at another baud rate never
                    # gets a 0 through (it reads as a break, which the UART drops).
                    self._over = True
                    self.bad += 1
                continue
            m = self._n
            self._n = 0
            if self._over:
                self._over = False
                continue
            if m == 0:
                # A lone 0: a line waking up, nothing lost. Two in a row are never
                # sent (COBS): a line held low, a peer at another baud rate.
                if zero_before:
                    self.bad += 1
                continue
            self._frame(m, handler)

    def _frame(self, m, handler):
        raw = self.raw
        k = cobs_decode(self._enc, m, raw)
        if k < HEAD + 2:
            self.bad += 1
            return
        c = crc16(raw, 0, k - 2)
        if raw[k - 2] != c >> 8 or raw[k - 1] != c & 0xFF:
            self.bad += 1
            return
        self.good += 1
        handler(raw[0], raw[1], raw[2], raw[3], raw, k - 2)
