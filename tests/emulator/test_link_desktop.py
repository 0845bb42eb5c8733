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
from firmware.link.link import Link, LINKED, LOST

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
    ("serial:/dev/tty0", "listen:PORT or connect:HOST:PORT"),
])
def test_a_bad_link_spec_is_one_line_and_exit_2(spec, why):
    p = emu("--headless", "--link", spec)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0] and "Traceback" not in p.stderr


def test_link_refuses_what_it_cannot_go_with():
    for extra, why in ((["--engine", "pico"], "--engine pico cannot be used with --link"),
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
    time.sleep(0.5)
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
