"""Link play in the desktop emulator: `--link listen:PORT` / `--link connect:HOST:PORT`
carry the cable's bytes over a local socket; bad arguments and a peer that cannot be
reached end with one line and exit 2; two processes play one game headless."""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_emulator.link import SocketLink, LinkError, parse_spec
from firmware.link import frame as F
from firmware.link.link import Link, LINKED, LOST, HELLO, RULES_VERSION

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    n = s.getsockname()[1]
    s.close()
    return n


def emu(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "desktop_emulator"] + list(args),
                          capture_output=True, text=True, cwd=str(ROOT), env=ENV,
                          timeout=timeout)


def spawn(*args):
    return subprocess.Popen([sys.executable, "-m", "desktop_emulator"] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=str(ROOT), env=ENV)


@pytest.mark.parametrize("spec,why", [
    ("listen", "not a port number"),
    ("listen:abc", "not a port number"),
    ("listen:0", "port must be 1 .. 65535"),
    ("connect:7000", "connect needs HOST:PORT"),
    ("connect:host:99999", "port must be 1 .. 65535"),
    ("serial:/dev/tty0", "listen:PORT, connect:HOST:PORT, loopback or app"),
    ("loopback:7", "listen:PORT, connect:HOST:PORT, loopback or app"),
    ("app", "--link app is the emulated Pico's peer"),
])
def test_a_bad_link_spec_is_one_line_and_exit_2(spec, why):
    p = emu("--headless", "--link", spec)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0] and "Traceback" not in p.stderr


def test_link_refuses_what_it_cannot_go_with():
    for extra, why in ((["--engine", "pico"], "--engine pico links to the app engine in this "
                                              "process (--link app), not over a socket"),
                       (["--headless", "--p1", "hard"], "player 1 is the other process's")):
        p = emu("--link", "listen:%d" % free_port(), *extra)
        assert p.returncode == 2 and why in p.stderr and len(p.stderr.splitlines()) == 1


def test_an_unreachable_peer_is_one_line_and_exit_2():
    t = time.monotonic()
    p = emu("--headless", "--link", "connect:127.0.0.1:%d" % free_port())
    assert p.returncode == 2
    assert "error: cannot reach 127.0.0.1:" in p.stderr and len(p.stderr.splitlines()) == 1
    assert time.monotonic() - t < 60


def test_a_port_in_use_is_one_line_and_exit_2():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    try:
        p = emu("--headless", "--link", "listen:%d" % s.getsockname()[1])
    finally:
        s.close()
    assert p.returncode == 2 and "error: cannot listen on port" in p.stderr


class WallClock:
    def ticks_us(self):
        return time.perf_counter_ns() // 1000 & 0x3FFFFFFF


def test_socket_ports_link_two_protocols_and_survive_a_dropped_connection():
    n = free_port()
    a = SocketLink("listen", "127.0.0.1", n).open()
    b = SocketLink("connect", "127.0.0.1", n).open()
    clock = WallClock()
    la, lb = Link(a, clock), Link(b, clock)
    deadline = time.monotonic() + 20
    got = []

    def pump(until):
        while time.monotonic() < deadline and not until():
            la.poll()
            lb.poll()
            m = lb.recv()
            while m is not None:
                got.append(m)
                m = lb.recv()
            time.sleep(0.0005)
    pump(lambda: la.state == LINKED and lb.state == LINKED)
    for k in range(50):
        la.send(b"n%d" % k)
    pump(lambda: len(got) >= 20)
    b._lost()                                 # the cable is pulled for 1.5 s
    b._next_dial = time.monotonic() + 1.5
    pump(lambda: la.state == LOST)
    assert la.state == LOST
    pump(lambda: la.state == LINKED and len(got) == 50)
    assert time.monotonic() < deadline
    assert got == [b"n%d" % k for k in range(50)]
    assert b.connects == 2 and a.connects == 2
    a.close()
    b.close()


def test_parse_spec():
    assert parse_spec("listen:7000") == ("listen", "127.0.0.1", 7000)
    assert parse_spec("listen:0.0.0.0:7000") == ("listen", "0.0.0.0", 7000)
    assert parse_spec("connect:pi.local:7001") == ("connect", "pi.local", 7001)
    with pytest.raises(LinkError):
        parse_spec("connect:")


@pytest.mark.slow
def test_two_processes_play_a_linked_round_headless_with_the_same_recording(tmp_path):
    n = free_port()
    ra, rb = tmp_path / "a.txt", tmp_path / "b.txt"
    a = spawn("--headless", "--link", "listen:%d" % n, "--p0", "hard", "--until", "round",
              "--seed", "3", "--record", str(ra), "--print-state")
    # No wait for the listener: the connecting side dials again until it answers.
    b = spawn("--headless", "--link", "connect:127.0.0.1:%d" % n, "--p0", "hard",
              "--until", "round", "--seed", "3", "--record", str(rb), "--print-state")
    try:
        out_b, err_b = b.communicate(timeout=240)
        out_a, err_a = a.communicate(timeout=60)
    finally:
        for p in (a, b):
            if p.poll() is None:
                p.kill()
    assert a.returncode == 0, err_a
    assert b.returncode == 0, err_b
    assert ra.read_text() == rb.read_text()
    assert "seed 3" in ra.read_text().splitlines()[2]       # the authority's --seed
    # The same game state on both screens' state lines (the pictures differ: each
    # shows its own player at the bottom).
    assert out_a.splitlines()[0].split(" frames=")[0] == out_b.splitlines()[0].split(" frames=")[0]
    assert "screen=summary" in out_a


def test_the_loopback_self_test_passes_with_one_line():
    p = emu("--headless", "--link", "loopback")
    assert p.returncode == 0, p.stderr
    assert "(loopback test OK)" in p.stdout and p.stderr == ""


class FakePeer:
    """A TCP peer that answers every connection with `answer(bytes received) -> bytes`
    (an echo: the cable looped back; garbage; a foreign HELLO), on a thread."""

    def __init__(self, answer):
        import threading
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(1)
        self.server.settimeout(30)
        self.port = self.server.getsockname()[1]
        self.answer = answer
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        try:
            conn, _ = self.server.accept()
        except OSError:
            return
        conn.settimeout(0.05)
        with conn:
            while not self.stop:
                try:
                    got = conn.recv(4096)
                    if not got:
                        return
                except socket.timeout:
                    got = b""
                except OSError:
                    return
                out = self.answer(got)
                if out:
                    try:
                        conn.sendall(out)
                    except OSError:
                        return

    def close(self):
        self.stop = True
        self.server.close()
        self.thread.join(5)


def _foreign_hello(version):
    uid = b"\x01\x02"
    body = bytes([RULES_VERSION, 0, 0, 0, 0, 0x12, 0x34, 0, 0, len(uid)]) + uid
    return F.encode(version, HELLO, 0, 0, body)


@pytest.mark.parametrize("answer,why", [
    (lambda got: got, "this handheld hears its own frames: CABLE LOOPED BACK"),
    (lambda got: _foreign_hello(1), "the peer cannot play with this one: OTHER VERSION 1"),
    (lambda got: bytes((x * 89 + 1) & 0xFF for x in range(300)),
     "no peer, only noise after 5 s: NOISE ON THE CABLE"),
], ids=["looped-back", "other-version", "noise"])
def test_a_bad_cable_is_one_line_and_exit_2(answer, why):
    peer = FakePeer(answer)
    try:
        p = emu("--headless", "--p0", "hard", "--link", "connect:127.0.0.1:%d" % peer.port,
                timeout=60)
    finally:
        peer.close()
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0] and "Traceback" not in p.stderr, p.stderr


@pytest.mark.parametrize("args,why", [
    (["--headless", "--link", "app:bogus"], "--link app: unknown cable 'bogus'"),
    (["--headless", "--link", "app:baud=5"], "--link app: bad value in 'baud=5'"),
    (["--headless", "--link", "app:flip=2"], "--link app: bad value in 'flip=2'"),
    (["--headless", "--link", "app:tx-to-tx,floating"], "one wiring at a time"),
    (["--link", "app"], "--engine pico --link app plays headless"),
    (["--headless", "--link", "app", "--record", "x.txt"], "--record cannot be used with --link app"),
])
def test_a_bad_mixed_link_is_one_line_and_exit_2(args, why):
    p = emu("--engine", "pico", *args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0], p.stderr


@pytest.mark.slow
def test_a_peer_that_stops_answering_mid_game_is_one_line_and_exit_2():
    # Slow by design: the headless run gives a peer gone mid-game 20 s to come back.
    # The peer quits by itself after 150 frames (5 s: linked, synced, dealt), as a
    # pulled cable or a crashed peer would: no more bytes, no goodbye.
    port = free_port()
    a = spawn("--headless", "--p0", "hard", "--seed", "3", "--link", "listen:%d" % port)
    b = spawn("--headless", "--p0", "hard", "--link", "connect:127.0.0.1:%d" % port,
              "--frames", "150", "--print-state")
    try:
        out_b, err_b = b.communicate(timeout=60)
        out, err = a.communicate(timeout=60)
    finally:
        for p in (a, b):
            if p.poll() is None:
                p.kill()
            p.communicate()
    assert b.returncode == 0 and out_b.startswith("screen=game ") and "(frames)" in out_b, \
        (out_b, err_b)
    assert a.returncode == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "the peer has been gone for 20 s: LINK LOST / CHECK THE " \
        "CABLE; the game stood still where it was" in lines[0], err
