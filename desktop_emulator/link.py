"""Link play on the desktop: ``--link listen:PORT`` and ``--link connect:HOST:PORT``.

Two emulator processes (two windows, or headless for tests) play one linked game
(R43) over a local TCP socket that carries exactly the bytes of the cable
(firmware/link/frame.py): :class:`SocketLink` is the link port of firmware/link/port.py
on a socket. A dropped connection is a pulled cable: the listening side waits for the
peer again, the connecting side dials again, and the game resumes where it was.

Headless (:func:`run_headless`), a CPU hand plays this device's player at real time;
the authority starts the game as soon as the clocks are synchronised.
"""

import os
import socket
import time

from firmware.link.link import LINKED, LOOPED, INCOMPATIBLE
from firmware.link.play import PLAYING, LOBBY

#: How long `connect:` tries to reach the peer at the start, and `listen:` waits for one.
CONNECT_S = 5.0
LISTEN_S = 30.0
#: Bytes waiting to be sent beyond which a new frame is dropped whole (the protocol
#: resends): a peer that stopped reading cannot make this process grow.
OUT_MAX = 65536
#: Headless: a run ends after this much wall time whatever happens.
HEADLESS_LIMIT_S = 600.0
#: Headless: the peer gone for this long mid-game ends the run (one line, exit 1).
HEADLESS_LOST_S = 20.0


class LinkError(Exception):
    """One line for the user: a bad --link, a peer that cannot be reached."""


class BadCable(LinkError):
    """What the LINK screen says of a cable that cannot carry a game (looped back, noise,
    another version, the peer gone): one line, exit status 2."""


def parse_spec(text):
    """'listen:PORT' -> ('listen', '', port); 'connect:HOST:PORT' -> ('connect', host,
    port). LinkError names what is wrong."""
    kind, _, rest = text.partition(":")
    if kind == "loopback" and not rest:
        return kind, "", 0
    if kind == "app":
        return kind, rest, 0          # the emulated Pico's peer (pico/mixed.py)
    if kind == "listen":
        host, port = "127.0.0.1", rest
        if ":" in rest:
            host, _, port = rest.rpartition(":")
    elif kind == "connect":
        host, sep, port = rest.rpartition(":")
        if not sep or not host:
            raise LinkError("--link connect needs HOST:PORT, got %r" % text)
    else:
        raise LinkError("--link is listen:PORT, connect:HOST:PORT, loopback or app, got %r"
                        % text)
    try:
        n = int(port)
    except ValueError:
        raise LinkError("--link %s: %r is not a port number" % (kind, port)) from None
    if not 1 <= n <= 65535:
        raise LinkError("--link %s: port must be 1 .. 65535, got %d" % (kind, n))
    return kind, host, n


class SocketLink:
    """The link port (firmware/link/port.py) on a TCP socket. Never blocks: write()
    queues whole frames, readinto() returns what has come (0 when nothing)."""

    byte_us = 0                      # no line: the sync measures what it sees

    def __init__(self, kind, host, port, uid=None):
        self.kind = kind
        self.host = host
        self.port = port
        self.uid = uid if uid is not None else os.urandom(8)
        self.sock = None
        self.server = None
        self.out = bytearray()
        self.dropped_frames = 0
        self.connects = 0
        self._next_dial = 0.0

    # -- opening
    def open(self, wait_s=None):
        """Listen, or reach the peer; LinkError (one line) if it cannot be done."""
        if self.kind == "listen":
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((self.host, self.port))
            except OSError as e:
                s.close()
                raise LinkError("cannot listen on port %d: %s" % (
                    self.port, e.strerror or e)) from None
            s.listen(1)
            s.setblocking(False)
            self.server = s
            return self
        limit = time.monotonic() + (CONNECT_S if wait_s is None else wait_s)
        why = None
        while time.monotonic() < limit:
            why = self._dial(blocking_s=max(0.05, limit - time.monotonic()))
            if why is None:
                return self
            time.sleep(0.1)
        raise LinkError("cannot reach %s:%d: %s" % (self.host, self.port, why))

    def _dial(self, blocking_s=0.0):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(blocking_s if blocking_s > 0 else 0.001)
        try:
            s.connect((self.host, self.port))
        except OSError as e:
            s.close()
            return e.strerror or str(e) or "no answer"
        self._connected(s)
        return None

    def _connected(self, s):
        s.setblocking(False)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = s
        self.out = bytearray()       # a new cable: nothing half-sent carries over
        self.connects += 1

    def _ensure(self):
        if self.sock is not None:
            return True
        if self.server is not None:
            try:
                s, _ = self.server.accept()
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                return False
            self._connected(s)
            return True
        now = time.monotonic()
        if now >= self._next_dial:
            self._next_dial = now + 0.5              # the cable plugged back: dial again
            self._dial()
        return self.sock is not None

    def waiting(self):
        """Listening and nobody has connected yet."""
        return self.sock is None

    def _lost(self):
        try:
            self.sock.close()
        except OSError:
            pass
        self.sock = None

    # -- the port
    def write(self, buf):
        if not self._ensure():
            return
        if len(self.out) + len(buf) > OUT_MAX:
            self.dropped_frames += 1
            return
        self.out.extend(buf)
        self._flush()

    def _flush(self):
        while self.out and self.sock is not None:
            try:
                n = self.sock.send(self.out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._lost()
                return
            del self.out[:n]

    def readinto(self, buf):
        if not self._ensure():
            return 0
        self._flush()
        try:
            n = self.sock.recv_into(buf)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            self._lost()
            return 0
        if n == 0:
            self._lost()             # the peer closed: the cable is out
        return n

    def close(self):
        for s in (self.sock, self.server):
            if s is not None:
                try:
                    s.close()
                except OSError:
                    pass
        self.sock = self.server = None


class LoopbackPort:
    """The self-test plug: this handheld's TX wired to its own RX (a link port)."""

    byte_us = 0
    port = 0

    def __init__(self, uid=None):
        self.uid = uid if uid is not None else os.urandom(8)
        self.buf = bytearray()

    def write(self, buf):
        self.buf.extend(buf)

    def readinto(self, buf):
        n = min(len(buf), len(self.buf))
        buf[:n] = self.buf[:n]
        del self.buf[:n]
        return n

    def waiting(self):
        return False

    def close(self):
        pass


def open_link(spec):
    """The port a --link spec names, open; LinkError if it cannot be."""
    kind, host, port = parse_spec(spec)
    if kind == "loopback":
        return LoopbackPort()
    return SocketLink(kind, host, port).open()


#: Headless: bytes but no frame for this long before a peer is heard: noise, not a peer.
NOISE_S = 5.0


def _check_cable(lp, port, wall, start):
    """BadCable (what the LINK screen says, one line) for a cable that cannot carry the
    game, or None."""
    lk = lp.link
    if lk.state != LOOPED and lk.state != INCOMPATIBLE and not (
            lk.peer_uid is None and lk.dec.bad and wall - start > NOISE_S):
        return None
    said = " / ".join(x for x in lp.lines() if x and x != "A: BACK")
    if lk.state == LOOPED:
        raise BadCable("this handheld hears its own frames: %s (its TX is wired to its "
                       "own RX)" % said)
    if lk.state == INCOMPATIBLE:
        raise BadCable("the peer cannot play with this one: %s" % said)
    raise BadCable("no peer, only noise after %d s: %s" % (NOISE_S, said))


def attach(machine, port, now):
    """Give the app its cable and go to link play (the menu's LINK PLAY)."""
    app = machine.app
    app.ports.link = port
    return app.link_play(now)


def run_headless(machine, port, level, seed, rules, until="over", limit_s=HEADLESS_LIMIT_S,
                 frame_us=33333, out=None, frames=None):
    """Link play at real time with a CPU hand for this device's player: the authority
    starts a game (seed, rules) once the clocks are synchronised. Returns the reason
    it ended: until ('over'), 'frames' after `frames` frames (from the start, lobby
    included), or raises LinkError (no peer, the peer gone)."""
    from host.rig import BotHand
    from host.ports import ScriptInput
    from host.simlink import _PadInput
    clock = machine.clock
    app = machine.app
    inp = machine.input
    lp = attach(machine, port, clock.ticks_us())
    if isinstance(port, LoopbackPort):
        return _loopback_test(machine, lp, limit_s=min(limit_s, 5.0))
    hand = None
    start = time.monotonic()
    lost_since = None
    next_t = clock.ticks_us()
    started = False
    pad = _PadInput(inp, clock) if isinstance(inp, ScriptInput) else None
    ended_at = None
    while True:
        wall = time.monotonic()
        if wall - start > limit_s:
            raise LinkError("no end of the linked game after %d s" % limit_s)
        now = clock.ticks_us()
        lp = app.linkplay
        if lp is None:
            raise LinkError("link play was left")
        lp.link.poll(now)
        if lp.mode == LOBBY:
            _check_cable(lp, port, wall, start)
        if port.waiting() and lp.link.peer_uid is None and wall - start > LISTEN_S:
            raise LinkError("no peer connected to port %d within %d s" % (
                port.port, LISTEN_S))
        if (now - next_t) & 0x3FFFFFFF < 0x20000000:
            next_t = (next_t + frame_us) & 0x3FFFFFFF
            if hand is not None and lp.link.state == LINKED:
                # A CPU hand waits out LINK LOST: after 5 s its A would leave the game.
                hand.pump(now)
            machine.step()
            if frames is not None and machine.steps >= frames:
                return "frames"
            if lp.mode == LOBBY and not started and lp.link.authority and \
                    lp.link.state == LINKED and lp.link.sync.synced():
                started = True
                lp.start(now, seed=seed, rules=rules)
            if lp.mode == PLAYING and hand is None and pad is not None:
                started = True
                hand = BotHand(app, lp.me, level, seed * 2 + lp.me, pad)
            if (lp.mode == PLAYING or lp.link.peer_uid is not None) and \
                    lp.link.state != LINKED:
                lost_since = lost_since or wall
                if wall - lost_since > HEADLESS_LOST_S:
                    raise BadCable("the peer has been gone for %d s: LINK LOST / CHECK THE "
                                   "CABLE; %s" % (HEADLESS_LOST_S, "the game stood still "
                                                  "where it was" if lp.mode == PLAYING
                                                  else "no game had started"))
            else:
                lost_since = None
            if ended_at is None and until and machine.reached(until):
                ended_at = wall
            # Ended here: stay a moment so the peer hears the last frames and acks.
            if ended_at is not None and (wall - ended_at > 1.0 or not lp.link.pending()
                                         and wall - ended_at > 0.3):
                # The recording ends at its last recorded frame, in the game's time
                # (the emulator's own last step is on this process's clock).
                machine.last_now = None
                return until
        time.sleep(0.0005)


def _loopback_test(machine, lp, limit_s):
    """The cable loopback self-test: this handheld's own HELLO must come back."""
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        lp.link.poll(machine.clock.ticks_us())
        machine.step()
        if lp.link.state == LOOPED:
            return "loopback test OK"
        time.sleep(0.001)
    raise BadCable("loopback test failed: nothing came back within %d s" % limit_s)
