# The bytes on the wire. A frame is
#
#   version, kind, seq, ack, payload..., CRC-32 (low byte first)
#
# COBS-encoded (so that no 0 byte is left in it) and ended by one 0 byte. A receiver
# that joins mid-frame, or a byte lost or flipped on a loose cable, costs at most the
# frame it fell in: the next 0 starts afresh, and the CRC-32 (IEEE, binascii's: every
# error of up to 3 bits and every burst up to 32 bits in frames this short) throws the
# damaged one away. The protocol then resends it (link.py). Low byte first, so that
# the CRC-32 of a whole good frame, its CRC included, is always RESIDUE: a check that
# compares one small int (on the chip a CRC is often 2**30 or more, a heap object).
#
# Version 1 of the protocol ended its frames with a CRC-16 (CCITT) computed in Python:
# some 14 µs a byte on the chip, each way, against binascii's C. Such a frame is still
# recognised (its version byte and its CRC-16), so a handheld running version 1 is
# named as one (link.py: INCOMPATIBLE) rather than taken for noise.
#
# The work is done a run of bytes at a time (find, slices: C), never a byte at a time
# in Python: decoding took ~60 µs a byte on the chip, and the link reads ~1 KB a second.
# Little garbage: no allocation per received byte, three small views per frame (the
# decoder keeps two buffers of the longest frame); every frame the link reads or
# writes is garbage a collection must sweep, inside a frame if the heap runs out.

from shared_rules.compat import const
import struct

from firmware.crc import crc32

MAX_PAYLOAD = const(200)
HEAD = const(4)                  # version, kind, seq, ack
CHECK = const(4)                 # the CRC-32's bytes (version 1: 2, a CRC-16)
_RAW_MAX = const(208)            # HEAD + MAX_PAYLOAD + CHECK
ENC_MAX = const(211)             # COBS adds one byte per 254 and the code byte, + the 0
_FIRST = const(1)                # the version whose frames end in a CRC-16
RESIDUE = const(0x2144DF1C)      # the CRC-32 of any good frame with its CRC (< 2**30)
_ZERO = b"\0"


def _crc16_table():
    t = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        t.append(c & 0xFFFF)
    return t


_CRC16 = None                    # built when a version-1 frame is first checked


def crc16(buf, start, end, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of buf[start:end] (version 1's frames)."""
    global _CRC16
    if _CRC16 is None:
        _CRC16 = _crc16_table()
    t = _CRC16
    for i in range(start, end):
        crc = ((crc << 8) & 0xFF00) ^ t[((crc >> 8) ^ buf[i]) & 0xFF]
    return crc


# The frame being encoded and its encoding: one of each, made once (a frame a few
# times a frame interval would otherwise leave both as garbage every time).
_RAW = bytearray(_RAW_MAX)
_RAWV = memoryview(_RAW)
_OUT = bytearray(ENC_MAX)
_OUTV = memoryview(_OUT)


def encode(version, kind, seq, ack, payload):
    """The frame as bytes to write: COBS with its ending 0. (Version 1's frames end in
    a CRC-16, as that version sent them: for tests of a peer running it.)"""
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ValueError("payload of %d bytes, at most %d" % (n, MAX_PAYLOAD))
    raw = _RAW
    raw[0] = version
    raw[1] = kind
    raw[2] = seq & 0xFF
    raw[3] = ack & 0xFF
    raw[HEAD:HEAD + n] = payload
    e = HEAD + n
    if version == _FIRST:
        c = crc16(raw, 0, e)
        raw[e] = c >> 8
        raw[e + 1] = c & 0xFF
        e += 2
    else:
        struct.pack_into("<I", raw, e, crc32(_RAWV[:e]))
        e += CHECK
    k = _cobs_into(raw, _RAWV, e, _OUT)
    return bytes(_OUTV[:k])


def cobs_encode(raw):
    """COBS of raw (bytes-like), with its ending 0."""
    n = len(raw)
    out = bytearray(n + n // 254 + 2)
    k = _cobs_into(raw, memoryview(raw), n, out)
    return bytes(out[:k])


def _cobs_into(raw, src, n, out):
    # COBS of raw[:n] (src: a view of it) into out; -> its length, the ending 0 too.
    k = 0                        # where the current block's code byte goes
    i = 0
    while True:
        z = raw.find(_ZERO, i, n)
        end = n if z < 0 else z
        while end - i >= 254:    # a full block (code 0xFF): no 0 implied after it
            out[k] = 0xFF
            out[k + 1:k + 255] = src[i:i + 254]
            k += 255
            i += 254
        run = end - i
        out[k] = run + 1
        if run:                  # (a SYNC's padding is 0s: no slice for each)
            out[k + 1:k + 1 + run] = src[i:end]
        k += run + 1
        if z < 0:
            break
        i = z + 1
    out[k] = 0
    return k + 1


def cobs_decode(src, n, dst):
    """Decode src[:n] (one frame without its 0) into dst; the length, or -1 if the
    bytes are not COBS (a 0 inside, a block running past the end) or too long."""
    if src.find(_ZERO, 0, n) >= 0:
        return -1
    return _unblock(memoryview(src), n, dst)


def _unblock(src, n, dst):
    # src[:n] holds no 0 (a memoryview, so that a slice of it copies nothing).
    if n < 255:
        # Shorter than one full block, as every frame of ours: no code can be 0xFF, so
        # the data are src[1:n] with a 0 where each code byte after the first stands.
        if n - 1 > len(dst):
            return -1
        dst[0:n - 1] = src[1:n]
        i = src[0]
        while i < n:
            dst[i - 1] = 0
            i += src[i]
        return n - 1 if i == n else -1
    i = 0
    k = 0
    dmax = len(dst)
    while i < n:
        code = src[i]
        end = i + code
        if end > n or k + code - 1 > dmax:
            return -1
        if code > 1:             # (1: an empty block, a SYNC's padding of 0s)
            dst[k:k + code - 1] = src[i + 1:end]
            k += code - 1
        i = end
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
        self._encv = memoryview(self._enc)
        self._n = 0
        self._over = False           # the frame being gathered is too long: skip it
        self._zero = False           # the last byte fed was a 0
        self.raw = bytearray(_RAW_MAX)
        self._rawv = memoryview(self.raw)
        self.good = 0
        self.bad = 0                 # failed the CRC, not COBS, too short or too long, 0 0
        self._src = None             # the buffer last fed, and a view of it
        self._srcv = None

    def feed(self, buf, n, handler):
        if buf is not self._src:
            self._src = buf
            self._srcv = memoryview(buf)
        src = self._srcv
        enc = self._enc
        i = 0
        while i < n:
            z = buf.find(_ZERO, i, n)
            end = n if z < 0 else z
            if end > i:
                self._zero = False
                m = self._n
                if m + end - i <= ENC_MAX:
                    enc[m:m + end - i] = src[i:end]
                    self._n = m + end - i
                else:
                    self._n = ENC_MAX
                    if not self._over:
                        # Counted now, not at its end: a peer at another baud rate never
                        # gets a 0 through (it reads as a break, which the UART drops).
                        self._over = True
                        self.bad += 1
            if z < 0:
                return
            i = z + 1
            zero_before = self._zero
            self._zero = True
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
        k = _unblock(self._encv, m, raw)
        if k < HEAD + 2:
            self.bad += 1
            return
        e = k - CHECK
        if e >= HEAD and crc32(self._rawv[:k]) == RESIDUE:
            self.good += 1
            handler(raw[0], raw[1], raw[2], raw[3], raw, e)
            return
        if raw[0] == _FIRST:
            # A frame of version 1 (a CRC-16): only so that its sender can be named.
            e = k - 2
            c = crc16(raw, 0, e)
            if raw[e] == c >> 8 and raw[e + 1] == c & 0xFF:
                self.good += 1
                handler(raw[0], raw[1], raw[2], raw[3], raw, e)
                return
        self.bad += 1
