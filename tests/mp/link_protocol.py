# Runs unchanged under CPython and MicroPython: the link protocol's framing and its
# acknowledgement and resend over a simulated cable that drops and flips bytes, and
# the clock sync against clocks 200 ppm apart. Prints one line per check; the two
# interpreters must print the same lines (tests/mp/test_link_mp.py).
from firmware.link import frame as F
from firmware.link.link import Link, LINKED, VERSION
from host.simlink import SimWire, DeviceClock


def decode_all(data):
    got = []
    d = F.Decoder()
    d.feed(data, len(data), lambda v, k, s, a, raw, end: got.append(bytes(raw[F.HEAD:end])))
    return got, d.bad


def framing():
    for n in (0, 1, 100, 200):
        p = bytes([(i * 7) & 0xFF for i in range(n)])
        enc = F.encode(VERSION, 5, n & 0xFF, 3, p)
        got, bad = decode_all(enc)
        print("frame", n, len(enc), got == [p], bad, 0 in enc[:-1])
    enc = F.encode(VERSION, 5, 1, 2, b"flip me")
    caught = 0
    for i in range(len(enc) - 1):
        for bit in range(8):
            b = bytearray(enc)
            b[i] ^= 1 << bit
            got, bad = decode_all(bytes(b) + b"\x00")
            if not got:
                caught += 1
    print("flips caught", caught, "of", (len(enc) - 1) * 8)
    print("crc", hex(F.crc16(b"123456789", 0, 9)), hex(F.crc32(b"123456789")))


def resend(drop, flip, n):
    w = SimWire(seed=drop * 31 + flip)
    clocks = [DeviceClock(w, 1000, -200), DeviceClock(w, 600000000, 200)]
    links = [Link(w.ends[k], clocks[k]) for k in (0, 1)]
    sent = []
    got = []
    for ms in range(20000):
        for _ in range(4):
            w.now += 250
            links[0].poll()
            links[1].poll()
        if ms == 600:
            w.drop_per_k = drop
            w.flip_per_k = flip
        if ms > 600 and ms % 7 == 0 and len(sent) < n:
            m = ("m%d" % len(sent)).encode()
            sent.append(m)
            links[0].send(m)
        m = links[1].recv()
        while m is not None:
            got.append(m)
            m = links[1].recv()
        if len(got) == n and ms > 600:
            break
    s = links[1].sync
    here = clocks[1].ticks_us()
    err = (s.to_local(clocks[0].ticks_us()) - here) & 0x3FFFFFFF
    err = err - 0x40000000 if err >= 0x20000000 else err
    print("resend drop=%d flip=%d" % (drop, flip), links[0].state == LINKED,
          links[1].authority, got == sent, links[0].resends > 0, w.dropped, w.flipped,
          abs(err) <= s.bound_at(here), s.drift_ppb // 10000)


framing()
resend(0, 0, 100)
resend(10, 10, 200)
