# The link protocol (R43) over a transport port (port.py): who the peer is, which of
# the two is the authority, messages that arrive once and in order however the cable
# behaves, and the peer's clock.
#
# Frames (frame.py) of these kinds:
#   HELLO   who I am: rules version, how much game I hold, my start number (a fresh
#           one at every start, so a peer that restarted is noticed), the start number
#           of the peer I have heard (so both know the other has heard them), my
#           unique id. Sent every HELLO_US, and at once to a peer that has not heard us.
#   BEAT    nothing but the acknowledgement: the heartbeat, every BEAT_US.
#   SYNC    the authority's "what time is it?" (t1); SYNC_R the answer (t1, t2, t3).
#   DATA    a message of the game, numbered (seq); every frame carries the number of
#           the next DATA frame its sender expects (ack), so DATA not acknowledged
#           within RESEND_US is sent again (go-back-N: the receiver takes only the
#           next one in order and drops the rest, so nothing is doubled or reordered).
#
# Election: the device holding more of a game (a restarted device holds none) is the
# authority; between equals the larger unique id. Ids differ between devices, so it
# cannot tie; a frame with our own id and start number is our own, come back: the
# cable is looped (the loopback self-test), or TX is wired to RX on one device.
#
# A frame of another protocol version is not read; a HELLO of another version, or of
# other rules, makes the link INCOMPATIBLE (and says which version the peer speaks).
# Nothing heard from the peer for LOST_US: LOST, until its next HELLO (if its start
# number is new, the peer restarted and the session begins afresh; other frames are not
# read until then, as they cannot say which).

from shared_rules.arbiter import ticks_diff
from firmware.link import frame as F
from firmware.link.sync import ClockSync

from shared_rules.compat import const

VERSION = const(2)               # of this protocol, in every frame (1: a CRC-16, no H, Q)
RULES_VERSION = const(44)        # the rules both must follow: R1-R44

HELLO = const(1)
BEAT = const(2)
SYNC = const(3)
SYNC_R = const(4)
DATA = const(5)

# States.
SEARCHING = const(0)             # no peer heard yet
LINKED = const(1)
LOST = const(2)                  # the peer went quiet
INCOMPATIBLE = const(3)          # the peer speaks another version, or other rules
LOOPED = const(4)                # our own frames come back
STATE_NAMES = ("SEARCHING", "LINKED", "LINK LOST", "INCOMPATIBLE", "LOOPED BACK")

HELLO_US = const(250000)
BEAT_US = const(100000)
SYNC_US = const(100000)
LOST_US = const(600000)          # LINK LOST within a second of the cable coming out
RESEND_US = const(60000)
WINDOW = const(8)                # DATA frames in flight
READS = const(8)                 # reads per poll at most: a flood cannot hold the loop
INBOX_MAX = const(64)
SYNC_FRAME_BYTES = const(22)     # SYNC and SYNC_R on the wire: 4 + 12 + 4, +1, +1
# Edge stamps (a port with `edges`, firmware/hw/link_uart.py): a SYNC or SYNC_R goes out
# only on a line idle this long, so that its start bit is a frame start the PIO stamps
# on both boards (it needs ~22 us of quiet).
EDGE_GAP_US = const(60)
EDGE_JITTER_US = const(2)        # what one edge stamp may be late by beyond another's
EDGES_REPORTED = const(4)        # RX frame starts the answer carries, to find the SYNC's
# SYNC and SYNC_R on edges: one length both ways, so that the time each sender spends
# handing its frame to the UART (its own start-bit stamp waits for that) is the same
# on both sides and cancels out of the offset: t1, t2, t3 (12), the count and the RX
# starts (1 + 16), the follow-up's flag and q, t3, t3 before (1 + 12).
EDGE_SYNC_BYTES = const(42)
_SYNC_PAD = b"\xff" * EDGE_SYNC_BYTES
_TX_EDGES = const(8)             # frame starts remembered, each line
_RX_EDGES = const(32)


def _u32(b, i):
    return (b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]


def _close(a, b):
    """Two stamped gaps of the same wire, one on each clock: equal to the drift (at most
    1000 ppm) and the stamps' jitter."""
    d = a - b
    d = -d if d < 0 else d
    m = a if a > 0 else -a
    return d <= m // 1000 + 4 * EDGE_JITTER_US


def _edge_after(starts, w):
    """The first frame start at or after the write at w (a write on an idle line starts
    its frame within microseconds), or None."""
    for t in starts:
        d = ticks_diff(t, w)
        if -EDGE_JITTER_US <= d <= 5 * EDGE_GAP_US:
            return t
    return None


def _plausible(sync, local_t, peer_t):
    """Could our stamp local_t and the peer's peer_t be of one edge, by what the clock
    sync knows already (within its bound)? Frames follow each other at the pace of the
    loops, so gaps alone can repeat; the estimate tells which of them is meant."""
    if not sync.synced():
        return True
    d = ticks_diff(peer_t, local_t) - sync.offset_at(local_t)
    d = -d if d < 0 else d
    return d <= sync.bound_at(local_t) + 4 * EDGE_JITTER_US


def _match(starts, t, before, after, until, sync):
    """Our stamp of the frame start the peer stamped t (the one before it: before), among
    `starts`, after our stamp `after` and no later than `until`; None if not exactly one
    fits."""
    gap = ticks_diff(t, before)
    found = None
    for k in range(1, len(starts)):
        s = starts[k]
        if ticks_diff(s, after) > 0 and ticks_diff(until, s) >= 0 and \
                _close(ticks_diff(s, starts[k - 1]), gap) and _plausible(sync, s, t):
            if found is not None:
                return None
            found = s
    return found


def _put32(b, i, v):
    b[i] = (v >> 24) & 0xFF
    b[i + 1] = (v >> 16) & 0xFF
    b[i + 2] = (v >> 8) & 0xFF
    b[i + 3] = v & 0xFF


def start_number(now):
    """This device's number for one Link's life (its HELLO says it), from the clock."""
    return ((now ^ (now >> 16)) & 0xFFFF) or 1


class Link:
    def __init__(self, port, clock, version=VERSION, rules_version=RULES_VERSION, remembered=0):
        self.port = port
        self.clock = clock
        self.version = version
        self.rules_version = rules_version
        self.uid = bytes(getattr(port, "uid", b"") or b"")
        # A SYNC frame's time on the line, each way (known, so not an uncertainty): its
        # 12-byte payload, the head and the CRC, COBS's one byte and the ending 0.
        self.frame_us = getattr(port, "byte_us", 0) * SYNC_FRAME_BYTES
        now = clock.ticks_us()
        nonce = start_number(now)
        if nonce == remembered:
            # The peer still knows this device by that number from before it restarted
            # (a reboot takes as long each time, so the clock can give the same number):
            # with it the peer would take this for the old session going on, and keep
            # the roles it had, not the ones the election gives (R43).
            nonce = nonce % 0xFFFF + 1
        self.nonce = nonce
        self.hold = 0                # how much game this device holds (the election)
        self.dec = F.Decoder()
        self._rx = bytearray(64)
        self.sync = ClockSync()
        self.state = SEARCHING
        self.peer_uid = None
        self.peer_nonce = 0
        self.peer_version = VERSION
        self.peer_hold = 0
        self.authority = False
        self.epoch = 0               # new sessions (a new peer, or the peer restarted)
        self.heard = now             # the last good frame from the peer
        self._rt = now               # when the bytes being read came in
        self.heard_us = False        # the peer has heard our HELLO
        self._hello_t = None
        self._beat_t = now
        self._sync_t = now
        self._sync_q = -1            # t1 of the question in flight
        # Edge stamps (R43): the frame starts on this board's two pins, as its own PIO
        # saw them, so each side knows its stamps of the same physical edges.
        self.edges = getattr(port, "edges", None)
        self.byte_us = getattr(port, "byte_us", 0)
        self._line_free = now        # when what this side wrote will have left
        self._wrote_t = now          # when the last frame was handed to the port
        self._tx_e = []              # recent frame starts on our TX line (our clock)
        self._rx_e = []              # and on our RX line
        self._ev = []                # frame_starts() out buffer
        self._sync_w = []            # authority: [question t1, write time] recent SYNCs
        self._pend = None            # authority: [q, t1, t2] awaiting the peer's t3
        self._answer = None          # follower: the SYNC_R to send when the line is idle
        self._ans_w = None           # follower: [q, write time] of the last SYNC_R sent
        self._fu = None              # follower: [q, t3, t3 before] for the next SYNC_R
        self.edge_samples = 0
        # The reliable channel.
        self._tx_seq = 0
        self._inflight = []          # [seq, payload]
        self._sent_t = now
        self._resend_i = 0           # a resend under way: the next of the window to send
        self._resend_n = 0           # ... and where it ends
        self._backlog = []
        self._rx_expect = 0
        self._ack_due = False
        self.inbox = []
        # Counters (the link-health screen).
        self.resends = 0
        self.frames_out = 0
        self.foreign = 0             # frames of another version, or from no peer of ours
        self.lost_count = 0

    # ---- sending ------------------------------------------------------------------
    def _send(self, kind, seq, payload):
        self.frames_out += 1
        f = F.encode(self.version, kind, seq, self._rx_expect, payload)
        if self.edges is not None:
            now = self.clock.ticks_us()
            start = self._line_free if ticks_diff(self._line_free, now) > 0 else now
            self._line_free = (start + len(f) * self.byte_us) & 0x3FFFFFFF
            # When the frame went to the port: its start bit follows within µs (the
            # encoding above takes a while on the device, so not before it).
            self._wrote_t = self.clock.ticks_us()
        self.port.write(f)
        if kind != HELLO:
            self._ack_due = False

    def _idle(self, now):
        return ticks_diff(now, self._line_free) >= EDGE_GAP_US

    def _take_edges(self):
        ev = self._ev
        self.edges.frame_starts(ev)
        for t, which in ev:
            h = self._tx_e if which == "TX" else self._rx_e
            h.append(t)
            if len(h) > (_TX_EDGES if which == "TX" else _RX_EDGES):
                del h[0]
        del ev[:]

    def _hello(self, now):
        self._hello_t = now
        u = self.uid
        b = bytearray(10 + len(u))
        b[0] = self.rules_version
        _put32(b, 1, self.hold)
        b[5] = self.nonce >> 8
        b[6] = self.nonce & 0xFF
        b[7] = self.peer_nonce >> 8
        b[8] = self.peer_nonce & 0xFF
        b[9] = len(u)
        b[10:] = u
        self._send(HELLO, 0, b)

    def send(self, payload):
        """Queue a game message; it arrives once, in order (when the link is up)."""
        if len(payload) > F.MAX_PAYLOAD:
            raise ValueError("message of %d bytes" % len(payload))
        self._backlog.append(bytes(payload))

    def flush(self, now=None):
        """Put what was queued on the line now, not at the next poll: a press, or the
        decision it waits for, is a loop pass sooner on the other side (R43)."""
        if self.state == LINKED and self.peer_uid is not None:
            self._pump(self.clock.ticks_us() if now is None else now)

    def recv(self):
        """The next game message (bytes), or None."""
        if self.inbox:
            return self.inbox.pop(0)
        return None

    def pending(self):
        """Messages sent but not yet acknowledged, or not yet sent."""
        return len(self._inflight) + len(self._backlog)

    # ---- the loop -----------------------------------------------------------------
    def poll(self, now=None):
        """Read what came, answer, resend, keep the heartbeat; never blocks."""
        port = self.port
        rx = self._rx
        edges = self.edges is not None
        for _ in range(READS):
            n = port.readinto(rx)
            if not n:
                break
            self._rt = self.clock.ticks_us()
            if edges:
                self._take_edges()   # a frame read now has its start stamped already
            self.dec.feed(rx, n, self._frame)
        if edges:
            self._take_edges()
        if now is None:
            now = self.clock.ticks_us()
        st = self.state
        if st == INCOMPATIBLE or st == LOOPED:
            if self._hello_t is None or ticks_diff(now, self._hello_t) >= HELLO_US:
                self._hello(now)
            return st
        if st == LINKED and ticks_diff(now, self.heard) >= LOST_US:
            self.state = st = LOST
            self.lost_count += 1
        if self._hello_t is None or ticks_diff(now, self._hello_t) >= HELLO_US:
            self._hello(now)
        if self.peer_uid is None:
            return st
        if st == LINKED:
            if edges:
                self._edge_sync(now)
            self._pump(now)
            if self.authority and ticks_diff(now, self._sync_t) >= SYNC_US and \
                    not edges:
                self._sync_t = now
                self._sync_q = self.clock.ticks_us()
                # As long as the answer: both ways spend the same time on the line.
                b = bytearray(12)
                _put32(b, 0, self._sync_q)
                self._send(SYNC, 0, b)
        if self._ack_due or ticks_diff(now, self._beat_t) >= BEAT_US:
            self._beat_t = now
            self._send(BEAT, 0, b"")
        return st

    def _pump(self, now):
        fl = self._inflight
        if fl and ticks_diff(now, self._sent_t) >= RESEND_US:
            self._resend_i = 0
            self._resend_n = len(fl)
            self._sent_t = now
        i = self._resend_i
        if i < self._resend_n and i < len(fl):
            # One frame a poll, oldest first: the window at once (8 frames, ~40 ms on
            # the chip) would hold the loop for longer than a frame, and the oldest's
            # ack often covers the rest (acks are cumulative).
            e = fl[i]
            self._send(DATA, e[0], e[1])
            self.resends += 1
            self._resend_i = i + 1
        while self._backlog and len(fl) < WINDOW:
            p = self._backlog.pop(0)
            e = [self._tx_seq, p]
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            if not fl:
                self._sent_t = now
            fl.append(e)
            self._send(DATA, e[0], p)

    # ---- the clock exchange on edge stamps (R43) ------------------------------------
    # The four stamps of an exchange are PIO stamps of two physical edges: the SYNC's
    # start bit, leaving the authority's TX pin (t1) and reaching the follower's RX pin
    # (t2), and the SYNC_R's start bit, leaving the follower (t3) and reaching the
    # authority (t4). Each side knows for sure only the stamps of what it wrote itself
    # (the first start on its TX pin after writing on an idle line). The other two are
    # found among the frame starts on the RX pin by their spacing: the gap between a
    # frame start and the one before is the same on both boards' stamps of that line,
    # to the drift of the clocks (both boards watch the same wire).
    #
    # SYNC_R's payload: t1 (the question's own stamp, to match it) and the software
    # stamps t2, t3 (12 bytes, what a port without edges uses), then how many and which
    # recent RX frame starts (the question's among them), then a flag (1) and the
    # follow-up: q (the question answered before), t3 of that answer and the TX start
    # before it. EDGE_SYNC_BYTES in all, and the SYNC as long.

    def _edge_sync(self, now):
        if self.authority:
            if ticks_diff(now, self._sync_t) < SYNC_US or not self._idle(now):
                return
            self._sync_t = now
            q = self.clock.ticks_us()
            self._sync_q = q
            # As long as the answer, padded with 0xFF, not 0: the same bytes on the line
            # (COBS's length does not depend on them), one block for the codec, not 38.
            b = bytearray(_SYNC_PAD)
            _put32(b, 0, q)
            self._send(SYNC, 0, b)
            w = self._sync_w
            w.append([q, self._wrote_t])
            if len(w) > 3:
                del w[0]
            return
        aw = self._ans_w
        if aw is not None:
            t3 = _edge_after(self._tx_e, aw[1])
            if t3 is not None:
                k = self._tx_e.index(t3)
                if k > 0:
                    self._fu = [aw[0], t3, self._tx_e[k - 1]]
                self._ans_w = None
            elif ticks_diff(now, aw[1]) > 5 * EDGE_GAP_US:
                self._ans_w = None   # its start was not stamped (a dropped stamp)
        b = self._answer
        if b is not None and self._idle(now):
            self._answer = None
            fu = self._fu
            if fu is not None:
                b[29] = 1
                for k in range(3):
                    _put32(b, 30 + 4 * k, fu[k])
                self._fu = None
            t3 = self.clock.ticks_us()
            _put32(b, 8, t3)             # the software stamp, for a peer without edges
            self._send(SYNC_R, 0, b)
            self._ans_w = [_u32(b, 0), self._wrote_t]

    def _edge_answer(self, raw, h, end):
        if end - h < EDGE_SYNC_BYTES:
            return
        q = _u32(raw, h)
        n = raw[h + 12]
        n = n if n < EDGES_REPORTED else EDGES_REPORTED
        reported = [_u32(raw, h + 13 + 4 * k) for k in range(n)]
        fu = None
        if raw[h + 29] == 1:
            fu = (_u32(raw, h + 30), _u32(raw, h + 34), _u32(raw, h + 38))
        # The answer before this one completes its exchange: t4 is its start on our RX.
        p = self._pend
        if fu is not None and p is not None and fu[0] == p[0]:
            t4 = _match(self._rx_e, fu[1], fu[2], p[1], p[3], self.sync)
            if t4 is not None:
                if not self.edge_samples:
                    self.sync.reset()    # the software samples' bound is 100 times wider
                if self.sync.sample(p[1], p[2], fu[1], t4, 0, EDGE_JITTER_US):
                    self.edge_samples += 1
        self._pend = None
        # This answer's question: its start on our TX, found on the follower's RX.
        for w in self._sync_w:
            if w[0] != q:
                continue
            t1 = _edge_after(self._tx_e, w[1])
            if t1 is None:
                return
            k = self._tx_e.index(t1)
            if k == 0 or len(reported) < 2:
                return
            t2 = None
            n = 0
            gap = ticks_diff(t1, self._tx_e[k - 1])
            for j in range(1, len(reported)):
                if _close(ticks_diff(reported[j], reported[j - 1]), gap) and \
                        _plausible(self.sync, t1, reported[j]):
                    t2 = reported[j]
                    n += 1
            if n == 1:
                self._pend = [q, t1, t2, self._rt]   # _rt: its answer was in by then
            return

    # ---- receiving ----------------------------------------------------------------
    def _frame(self, version, kind, seq, ack, raw, end):
        if version != self.version:
            self.foreign += 1
            if kind == HELLO and end > F.HEAD:
                # A HELLO keeps its place in every version: say whom we met.
                self.peer_version = version
                self.state = INCOMPATIBLE
            return
        if kind == HELLO:
            self._on_hello(raw, end)
            return
        if self.peer_uid is None or self.state == INCOMPATIBLE or self.state == LOOPED:
            self.foreign += 1
            return
        if self.state == LOST:
            # After a silence only a HELLO says who is there: the same peer (the cable
            # back: its next HELLO, within HELLO_US) or one that restarted, whose frames
            # must not pass for the old session's (R43).
            return
        self._heard()
        self._on_ack(ack)
        if kind == DATA:
            if seq == self._rx_expect and len(self.inbox) < INBOX_MAX:
                self.inbox.append(bytes(raw[F.HEAD:end]))
                self._rx_expect = (self._rx_expect + 1) & 0xFF
            self._ack_due = True
        elif kind == SYNC and end - F.HEAD >= 4:
            t2 = self._rt
            b = bytearray(12)
            b[0:4] = raw[F.HEAD:F.HEAD + 4]
            _put32(b, 4, t2)
            _put32(b, 8, self.clock.ticks_us())
            if self.edges is None:
                self._send(SYNC_R, 0, b)
            else:
                # The question's start is among the latest frame starts on RX; the
                # authority finds which (_edge_answer). The answer waits for a quiet
                # line, so its own start is stamped too (reported with the next).
                rx_e = self._rx_e[-EDGES_REPORTED:]
                b.extend(bytes(EDGE_SYNC_BYTES - 12))
                b[12] = len(rx_e)
                for k in range(len(rx_e)):
                    _put32(b, 13 + 4 * k, rx_e[k])
                self._answer = b
        elif kind == SYNC_R and end - F.HEAD >= 12 and self.authority:
            h = F.HEAD
            t1 = _u32(raw, h)
            if self.edges is not None and end - h > 12:
                self._edge_answer(raw, h, end)
            if t1 == self._sync_q and not self.edge_samples:
                # Software stamps until the first exchange on edge stamps is complete
                # (and for good if either side has no edges).
                self._sync_q = -1
                self.sync.sample(t1, _u32(raw, h + 4), _u32(raw, h + 8), self._rt,
                                 2 * self.frame_us)

    def _heard(self):
        self.heard = self._rt

    def _on_ack(self, ack):
        fl = self._inflight
        k = 0
        while k < len(fl) and 1 <= ((ack - fl[k][0]) & 0xFF) <= WINDOW:
            k += 1
        if k:
            del fl[:k]
            self._sent_t = self._rt
            self._resend_i = self._resend_i - k if self._resend_i > k else 0
            self._resend_n = self._resend_n - k if self._resend_n > k else 0

    def _on_hello(self, raw, end):
        h = F.HEAD
        if end - h < 10 or end - h < 10 + raw[h + 9]:
            self.foreign += 1
            return
        rules = raw[h]
        hold = _u32(raw, h + 1)
        nonce = (raw[h + 5] << 8) | raw[h + 6]
        seen = (raw[h + 7] << 8) | raw[h + 8]
        uid = bytes(raw[h + 10:h + 10 + raw[h + 9]])
        if uid == self.uid and nonce == self.nonce:
            self.state = LOOPED
            return
        if rules != self.rules_version:
            self.peer_version = rules
            self.state = INCOMPATIBLE
            return
        if uid != self.peer_uid or nonce != self.peer_nonce:
            self._new_session(uid, nonce, hold)
        self._heard_hello(seen)

    def _heard_hello(self, seen):
        self.heard = self._rt
        if seen != self.nonce:
            self.heard_us = False
            self._hello(self._rt)        # it has not heard us (yet, or since it restarted)
            return
        self.heard_us = True
        if self.state != LINKED:
            self.state = LINKED

    def _new_session(self, uid, nonce, hold):
        first = self.peer_uid is None
        self.peer_uid = uid
        self.peer_nonce = nonce
        self.peer_hold = hold
        # More game held wins; then the larger id (ids differ: no tie).
        if hold != self.hold:
            self.authority = self.hold > hold
        else:
            self.authority = self.uid > uid
        self.epoch += 1
        self.sync.reset()
        self.edge_samples = 0        # software stamps again until the edges match
        self._pend = None
        self._fu = None
        self._answer = None
        self._tx_seq = 0
        self._rx_expect = 0
        if not first:
            # Meant for the peer as it was: the game starts it afresh (epoch).
            self._inflight = []
            self._backlog = []
        self._resend_i = self._resend_n = 0
        self.inbox = []
        self.heard_us = False
        self.state = SEARCHING

    # ---- for the health screen ----------------------------------------------------
    def state_name(self):
        return STATE_NAMES[self.state]

    def peer_name(self):
        """The last four hex digits of the peer's id."""
        u = self.peer_uid
        if not u:
            return "----"
        return "%02X%02X" % (u[-2] if len(u) > 1 else 0, u[-1])
