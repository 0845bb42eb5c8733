# CRC-32 (IEEE) for the save files (firmware/hw/storage.py) and the link's frames
# (firmware/link/frame.py): binascii's, in C, where the port has it, else the same sums
# in Python, so a checksum never depends on the build. binascii.crc32 is never
# negative on CPython or MicroPython, so nothing masks it (on the RP2040 a mask of a
# sum of 2**30 or more would be one more heap int a frame).

try:
    from binascii import crc32 as _crc32
except ImportError:          # (a port built without it: the same sums, slower)
    _crc32 = None


def crc32(data):
    """CRC-32 (IEEE) of a bytes-like object, as binascii.crc32."""
    if _crc32 is not None:
        return _crc32(data)
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0xEDB88320 if c & 1 else 0)
    return c ^ 0xFFFFFFFF
