"""The link protocol (R43) on CPython: framing (COBS + CRC-32), the handshake and
election, acknowledgement and resend, LINK LOST and a restarted peer, the clock sync's
bound, and bad input on the wire. The same checks run under MicroPython in
tests/mp/link_protocol.py."""
import pytest
from hypothesis import given, settings, strategies as st

from firmware.link import frame as F
from firmware.link.link import (Link, LINKED, LOST, INCOMPATIBLE, LOOPED, VERSION,
                                READS, WINDOW, RESEND_US, DATA)
from firmware.link.sync import ClockSync
from host.simlink import SimWire, DeviceClock

MASK = (1 << 30) - 1


def frames_of(data):
    got = []
    d = F.Decoder()
    d.feed(data, len(data), lambda v, k, s, a, raw, end: got.append(
        (v, k, s, a, bytes(raw[F.HEAD:end]))))
    return got, d


# ---- framing ------------------------------------------------------------------------
def test_crc16_is_ccitt_false():
    assert F.crc16(b"123456789", 0, 9) == 0x29B1


def test_a_frame_ends_in_the_crc32_of_its_head_and_payload():
    import binascii
    raw = bytearray(4 + 5 + 4)
    enc = F.encode(VERSION, 5, 7, 9, b"hello")
    assert F.cobs_decode(enc, len(enc) - 1, raw) == 13
    c = binascii.crc32(bytes(raw[:9]))
    assert raw[:9] == bytes((VERSION, 5, 7, 9)) + b"hello"
    assert raw[9:] == c.to_bytes(4, "little")
    assert binascii.crc32(bytes(raw)) == F.RESIDUE               # what the decoder checks
    assert F.crc32(b"123456789") == 0xCBF43926


def test_the_crc32_without_binascii_is_the_same(monkeypatch):
    data = bytes((i * 151 + 7) & 0xFF for i in range(300))
    want = F.crc32(data)
    from firmware import crc
    monkeypatch.setattr(crc, "_crc32", None)
    assert F.crc32(data) == want and F.crc32(b"123456789") == 0xCBF43926


def test_cobs_decoding_refuses_a_zero_inside_or_a_block_past_the_end():
    raw = bytearray(F._RAW_MAX)
    assert F.cobs_decode(b"\x03ab", 3, raw) == 2 and raw[:2] == b"ab"
    assert F.cobs_decode(b"\x03a\x00", 3, raw) == -1
    assert F.cobs_decode(b"\x05ab", 3, raw) == -1
    assert F.cobs_decode(b"\xff" + b"a" * 254, 255, bytearray(100)) == -1   # too long


@given(st.lists(st.one_of(st.just(b"\x00"), st.binary(max_size=3),
                          st.integers(250, 600).map(lambda n: bytes(1 + i % 255 for i in range(n)))),
                max_size=5).map(b"".join))
@settings(max_examples=200, deadline=None)
def test_cobs_round_trips_any_bytes_long_runs_too(data):
    """COBS itself, beyond our frames' sizes: runs of 254 and more non-zero bytes take
    code 0xFF blocks, which no frame of ours is long enough to need."""
    enc = F.cobs_encode(bytearray(data))
    assert enc[-1] == 0 and 0 not in enc[:-1]
    out = bytearray(len(data) + 1)
    assert F.cobs_decode(enc, len(enc) - 1, out) == len(data)
    assert out[:len(data)] == data


@given(st.lists(st.binary(max_size=F.MAX_PAYLOAD), min_size=1, max_size=6),
       st.lists(st.integers(1, 300), min_size=1, max_size=30))
@settings(max_examples=200, deadline=None)
def test_frames_fed_in_any_pieces_come_out_whole_and_in_order(payloads, cuts):
    """The UART hands over whatever it has: a frame in several reads, several frames in
    one. The decoder's runs of bytes are the same frames, whatever the pieces."""
    stream = b"".join(F.encode(VERSION, 5, k, 0, p) for k, p in enumerate(payloads))
    got = []
    d = F.Decoder()
    buf = bytearray(300)                  # the same buffer every read, as the port's
    i = 0
    k = 0
    while i < len(stream):
        n = min(cuts[k % len(cuts)], len(stream) - i)
        buf[:n] = stream[i:i + n]
        d.feed(buf, n, lambda v, kind, s, a, raw, end: got.append((s, bytes(raw[F.HEAD:end]))))
        i += n
        k += 1
    assert got == list(enumerate(payloads)) and d.bad == 0


def test_r43_a_handheld_running_version_1_is_named_not_taken_for_noise():
    """Version 1 ended its frames in a CRC-16: its HELLO is still read, so the player is
    told the other handheld runs version 1, and neither links."""
    p = Pair()
    p.links[1] = Link(p.wire.ends[1], p.clocks[1], version=1)
    p.run(800)
    assert p.links[0].state == INCOMPATIBLE and p.links[0].peer_version == 1
    assert p.links[0].dec.bad == 0


@pytest.mark.parametrize("payload", [b"", b"\x00", b"\x00\x00\x00", b"a" * 200,
                                     bytes(range(256))[:200], bytes(254) [:200],
                                     b"\x01" * 253 + b"\x00", b"\xff" * 254])
def test_cobs_frames_round_trip_and_hold_no_zero(payload):
    payload = payload[:F.MAX_PAYLOAD]
    enc = F.encode(VERSION, 5, 7, 9, payload)
    assert enc[-1] == 0 and 0 not in enc[:-1]
    got, d = frames_of(enc)
    assert got == [(VERSION, 5, 7, 9, payload)] and d.bad == 0


def test_a_payload_too_long_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="at most 200"):
        F.encode(VERSION, 5, 0, 0, bytes(201))


def test_every_single_flipped_bit_is_caught():
    enc = F.encode(VERSION, 5, 1, 2, b"press 12345")
    for i in range(len(enc) - 1):
        for bit in range(8):
            bad = bytearray(enc)
            bad[i] ^= 1 << bit
            got, d = frames_of(bytes(bad) + b"\x00")
            assert got == [], (i, bit)


def test_garbage_costs_only_the_frame_it_fell_in():
    good = F.encode(VERSION, 5, 3, 0, b"after")
    noise = bytes((x * 37 + 11) & 0xFF for x in range(300))
    got, d = frames_of(noise + b"\x00" + good + b"\xff\xfe" + good)
    assert got == [(VERSION, 5, 3, 0, b"after")]       # the second was glued to junk: dropped
    assert d.bad >= 2


def test_an_overlong_frame_is_skipped_to_the_next_zero():
    good = F.encode(VERSION, 5, 3, 0, b"ok")
    got, d = frames_of(b"\x05" * 1000 + b"\x00" + good)
    assert got == [(VERSION, 5, 3, 0, b"ok")] and d.bad == 1


# ---- two links on a simulated cable -------------------------------------------------
class Pair:
    def __init__(self, seed=1, ppm=(0, 0), uids=(b"\x00\x01", b"\x00\x02"), **kw):
        self.wire = SimWire(seed=seed, uids=uids)
        self.clocks = [DeviceClock(self.wire, 1000, ppm[0]),
                       DeviceClock(self.wire, 600000000, ppm[1])]
        self.links = [Link(self.wire.ends[k], self.clocks[k], **kw) for k in (0, 1)]

    def run(self, ms, each=None):
        for i in range(ms * 4):
            self.wire.now += 250
            for lk in self.links:
                lk.poll()
            if each is not None and i % 4 == 0:
                each(i // 4)


def test_r43_handshake_links_and_the_larger_id_is_the_authority():
    p = Pair()
    p.run(600)
    a, b = p.links
    assert a.state == LINKED and b.state == LINKED
    assert (a.authority, b.authority) == (False, True)
    q = Pair(uids=(b"\x09\x00", b"\x00\x02"))
    q.run(600)
    assert (q.links[0].authority, q.links[1].authority) == (True, False)


def test_r43_the_device_holding_more_game_is_the_authority_whatever_its_id():
    p = Pair()
    p.links[0].hold = 5            # e.g. the authority restarted and holds nothing
    p.run(600)
    assert (p.links[0].authority, p.links[1].authority) == (True, False)


def _exchange(p, n, every=7):
    sent = [b"m%d" % k for k in range(n)]
    got = []
    k = [0]

    def each(ms):
        if ms % every == 0 and k[0] < n:
            p.links[0].send(sent[k[0]])
            k[0] += 1
        m = p.links[1].recv()
        while m is not None:
            got.append(m)
            m = p.links[1].recv()
    return sent, got, each


def test_r43_flush_puts_a_message_on_the_line_now_and_never_before_the_link_is_up():
    p = Pair()
    a, b = p.links
    a.send(b"early")
    a.flush()                           # searching: nothing to send it to yet
    assert a.frames_out == 0 and a.pending() == 1
    p.run(600)
    assert b.recv() == b"early"
    a.send(b"press")
    frames = a.frames_out
    a.flush()
    assert a.frames_out == frames + 1 and a.pending() == 1   # written, not yet acked
    for _ in range(12):                 # only the receiver reads: no poll of the sender
        p.wire.now += 250
        b.poll()
    assert b.recv() == b"press"


@pytest.mark.parametrize("drop,flip", [(0, 0), (10, 0), (0, 10), (20, 20)])
def test_messages_arrive_once_and_in_order_through_dropped_and_flipped_bytes(drop, flip):
    p = Pair(seed=drop + flip)
    p.run(600)
    p.wire.drop_per_k = drop
    p.wire.flip_per_k = flip
    sent, got, each = _exchange(p, 300)
    p.run(25000, each)                  # 4% of bytes damaged: about half the frames
    assert got == sent
    assert p.links[0].pending() == 0
    if drop or flip:
        assert p.links[0].resends > 0 and p.links[1].dec.bad + p.wire.dropped > 0


def test_r43_a_resend_goes_one_frame_a_poll_oldest_first_and_nothing_is_lost():
    # The whole window at once held the chip's loop for ~38 ms (8 frames encoded and
    # written in one poll, measured on the emulated Pico): one a poll instead.
    p = Pair()
    p.run(600)
    a, b = p.links
    p.wire.cut(p.wire.now, 300)
    for k in range(WINDOW):
        a.send(b"m%d" % k)
    a.poll()
    assert len(a._inflight) == WINDOW and a.resends == 0
    p.wire.now += RESEND_US + 1000
    seqs = []
    send = a._send
    a._send = lambda kind, seq, payload: (seqs.append(seq) if kind == DATA else None,
                                          send(kind, seq, payload))
    for n in range(1, WINDOW + 1):
        a.poll()
        assert a.resends == n                    # one more each poll
    a.poll()
    assert a.resends == WINDOW                   # the window once, till the next timeout
    assert seqs == [e[0] for e in a._inflight]   # oldest first
    a._send = send
    p.run(2000)
    got = []
    m = b.recv()
    while m is not None:
        got.append(m)
        m = b.recv()
    assert got == [b"m%d" % k for k in range(WINDOW)] and a.pending() == 0


def test_link_lost_within_a_second_of_a_cut_and_back_after_it():
    p = Pair()
    p.run(600)
    sent, got, each = _exchange(p, 200)
    p.run(300, each)
    start = p.wire.now
    p.wire.cut(p.wire.now, 2000)
    seen = {}

    def watch(ms):
        each(ms)
        for k, lk in enumerate(p.links):
            if lk.state == LOST and k not in seen:
                seen[k] = p.wire.now - start
    p.run(1000, watch)
    assert set(seen) == {0, 1} and max(seen.values()) < 1000000
    p.run(4000, each)
    assert [lk.state for lk in p.links] == [LINKED, LINKED]
    assert got == sent                      # nothing lost across the cut
    assert p.links[0].epoch == 1            # the same session: no restart


def test_a_peer_that_restarts_is_noticed_and_a_new_session_begins():
    p = Pair()
    p.run(600)
    p.wire.now += 5000
    p.links[1] = Link(p.wire.ends[1], p.clocks[1])     # a fresh start number
    p.run(800)
    assert p.links[0].epoch == 2 and p.links[0].state == LINKED
    assert p.links[1].state == LINKED


def test_r43_after_a_silence_only_a_hello_brings_the_link_back(monkeypatch):
    # A LOST link cannot tell the old peer's frames from those of one that restarted
    # (only a HELLO carries its start number): before its HELLO, a frame neither brings
    # the link back as the old session nor passes a message into it.
    from firmware.link.link import BEAT, DATA
    p = Pair()
    p.run(600)
    p.wire.cut(p.wire.now, 1000)
    p.run(1000)
    assert [lk.state for lk in p.links] == [LOST, LOST]
    quiet = p.links[1]
    monkeypatch.setattr(quiet, "_hello", lambda now: None)
    p.run(300)                               # the cable is back; no HELLO from link 1
    quiet._send(BEAT, 0, b"")
    quiet._send(DATA, p.links[0]._rx_expect, b"not the old session's")
    p.run(50)
    assert p.links[0].state == LOST and p.links[0].recv() is None
    monkeypatch.undo()                       # its HELLO again
    p.run(600)
    assert p.links[0].state == LINKED and p.links[0].epoch == 1    # the same session


def test_an_incompatible_version_says_which_and_never_links():
    p = Pair()
    p.links[1] = Link(p.wire.ends[1], p.clocks[1], version=VERSION + 1)
    p.run(800)
    assert p.links[0].state == INCOMPATIBLE and p.links[0].peer_version == VERSION + 1
    assert p.links[1].state == INCOMPATIBLE and p.links[1].peer_version == VERSION


def test_other_rules_are_incompatible_too():
    p = Pair()
    p.links[1] = Link(p.wire.ends[1], p.clocks[1], rules_version=45)
    p.run(800)
    assert p.links[0].state == INCOMPATIBLE and p.links[0].peer_version == 45


def test_a_frame_of_a_future_version_is_not_read():
    p = Pair()
    p.run(600)
    p.wire.inject(1, F.encode(7, 5, 0, 0, b"from the future"))
    p.run(100)
    assert p.links[1].recv() is None and p.links[1].foreign == 1
    assert p.links[1].state == LINKED


def test_a_looped_cable_is_recognised():
    w = SimWire()
    clock = DeviceClock(w, 5)

    class Loop:
        uid = b"\x00\x07"
        byte_us = 0

        def __init__(self):
            self.q = bytearray()

        def write(self, buf):
            self.q.extend(buf)

        def readinto(self, buf):
            n = min(len(buf), len(self.q))
            buf[:n] = self.q[:n]
            del self.q[:n]
            return n
    lk = Link(Loop(), clock)
    for _ in range(5):
        w.now += 1000
        lk.poll()
    assert lk.state == LOOPED


def test_a_flood_of_garbage_never_holds_the_loop_nor_breaks_the_link():
    p = Pair()
    p.run(600)
    junk = bytes((x * 131 + 7) & 0xFF for x in range(64 * READS * 3))
    for _ in range(10):
        p.wire.inject(1, junk)
        queued = len(p.wire.ends[1].inq)
        p.links[1].poll()
        assert queued - len(p.wire.ends[1].inq) <= 64 * READS      # bounded work a poll
    sent, got, each = _exchange(p, 50)
    p.run(3000, each)
    assert got == sent and p.links[1].dec.bad > 0


def test_a_flood_of_messages_is_not_taken_beyond_the_inbox():
    p = Pair()
    p.run(600)
    for k in range(500):
        p.links[0].send(b"x%d" % k)
    p.run(3000)                            # nobody reads: the receiver stops acknowledging
    assert len(p.links[1].inbox) == 64
    got = []
    for _ in range(400):
        p.run(5)
        m = p.links[1].recv()
        while m is not None:
            got.append(m)
            m = p.links[1].recv()
    assert got == [b"x%d" % k for k in range(500)]


# ---- the clock sync -----------------------------------------------------------------
@pytest.mark.parametrize("ppm", [(0, 0), (-200, 200), (200, -200), (0, 200)])
def test_r43_the_peer_clock_is_known_within_the_stated_bound(ppm):
    p = Pair(ppm=ppm)
    auth = p.links[1]                   # the larger id
    worst = []

    def check(ms):
        if ms > 1500 and ms % 10 == 0 and auth.sync.synced():
            here = p.clocks[1].ticks_us()
            there = p.clocks[0].ticks_us()
            err = ((auth.sync.to_local(there) - here + (1 << 29)) & MASK) - (1 << 29)
            worst.append((abs(err), auth.sync.bound_at(here)))
    p.run(6000, check)
    assert worst and all(e <= b for e, b in worst), max(worst)
    assert max(b for e, b in worst) < 1000             # a few poll periods
    if ppm[0] != ppm[1]:
        true_ppb = ((1000000 + ppm[0]) * 1000000 // (1000000 + ppm[1]) - 1000000) * 1000
        assert abs(auth.sync.drift_ppb - true_ppb) < 20000


def test_sync_refuses_an_answer_with_stamps_out_of_order():
    s = ClockSync()
    assert not s.sample(1000, 5, 6, 900)
    assert not s.synced()
    # 200 µs there, 10 µs at the peer, 190 µs back: the peer is 49000 - 200 + ... ahead.
    assert s.sample(1000, 50200, 50210, 1400)
    assert s.synced()
    assert s.offset == ((50200 - 1000) + (50210 - 1400)) // 2      # 49005
    assert s.rtt_min == 390 and s.base_bound == 196
    assert s.to_local(s.to_peer(123456)) == 123456


def test_the_sync_frames_line_time_is_what_the_link_takes_out_of_the_round_trip():
    from firmware.link.link import SYNC_FRAME_BYTES
    for k in range(256):
        payload = bytes((k + i * 53) & 0xFF for i in range(12))     # zeros or not
        assert len(F.encode(VERSION, 3, k, 255 - k, payload)) == SYNC_FRAME_BYTES
    # With edge stamps, the question is padded to the answer's length (0xFF, which
    # the codec takes in one block): on the line, both are as long, whatever they hold.
    from firmware.link.link import EDGE_SYNC_BYTES, _SYNC_PAD
    answer = bytes((i * 41) & 0xFF for i in range(EDGE_SYNC_BYTES))
    assert len(_SYNC_PAD) == EDGE_SYNC_BYTES
    assert len(F.encode(VERSION, 3, 1, 2, _SYNC_PAD)) == len(F.encode(VERSION, 4, 1, 2, answer))


def test_garbage_with_no_zero_counts_as_soon_as_it_is_longer_than_any_frame():
    # A peer at another baud rate: its 0s arrive as breaks, which the UART drops.
    _, d = frames_of(b"\xff" * (F.ENC_MAX + 1))
    assert d.bad == 1
    _, d = frames_of(b"\xff" * F.ENC_MAX)
    assert d.bad == 0


def test_zeros_in_a_row_are_noise_but_a_lone_zero_is_not():
    good = F.encode(VERSION, 5, 3, 0, b"ok")
    got, d = frames_of(b"\x00" + good + good)            # a line waking up, then frames
    assert len(got) == 2 and d.bad == 0
    got, d = frames_of(b"\x00" * 9 + good)
    assert got == [(VERSION, 5, 3, 0, b"ok")] and d.bad == 8
