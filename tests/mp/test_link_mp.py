"""The link protocol (framing, acknowledgement and resend, clock sync) under the real
MicroPython binary prints exactly what it prints on CPython, and every check holds."""
import os
import subprocess
import sys

import pytest

from tests.helpers import MICROPYTHON, ROOT, run_micropython, same_on_micropython_and_cpython

pytestmark = [pytest.mark.mp,
              pytest.mark.skipif(not MICROPYTHON.exists(),
                                 reason="micropython binary missing (run `make setup`)")]


def test_link_protocol_is_the_same_on_micropython_and_cpython():
    script = ROOT / "tests/mp/link_protocol.py"
    lines = same_on_micropython_and_cpython(script)
    assert len(lines) == 8
    for line in lines[:4]:
        assert line.endswith(" True 0 False"), line           # round trip, no 0 inside
    assert lines[4] == "flips caught 128 of 128"
    assert lines[5] == "crc 0x29b1 0xcbf43926"
    for line in lines[6:]:
        parts = line.split()
        assert parts[3:6] == ["True", "True", "True"], line   # linked, authority, in order
        assert parts[9] == "True", line                       # sync within its bound
        assert parts[10] == "-40", line                       # 400 ppm apart, fitted
    assert lines[7].split()[6] == "True"                      # the damage was resent


def test_a_linked_game_plays_the_same_on_micropython_and_cpython():
    script = ROOT / "tests/mp/link_game.py"
    mp = run_micropython(script, "3", heap="32M", timeout=600)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cp = subprocess.run([sys.executable, str(script), "3"], capture_output=True, text=True,
                        env=env, cwd=str(ROOT), timeout=600)
    assert mp.returncode == 0, mp.stderr + mp.stdout[-2000:]
    assert cp.returncode == 0, cp.stderr
    assert mp.stdout == cp.stdout
    lines = cp.stdout.splitlines()
    assert lines[1].startswith("same transcript True records ")
    assert int(lines[1].split()[-1]) > 1000
    assert lines[2].startswith("table over ")
    assert lines[3] == "same table True" and lines[4] == "diverged -1 -1"


def test_the_kept_stream_allocates_only_its_blocks_on_micropython(tmp_path):
    """3,000 frame records kept in a 64 KB heap: an append allocates only when it opens
    a new block (the others pass with the heap locked), and the whole stream holds
    little more than its bytes (a list of bytes objects would need several times it)."""
    mp = run_micropython(ROOT / "tests/mp/link_stream.py", str(tmp_path), heap="64K")
    assert mp.returncode == 0, mp.stderr + mp.stdout[-2000:]
    lines = mp.stdout.splitlines()
    assert lines[0] == "messages 3000 bytes 21000"
    blocks = -(-3000 * 8 // 1024)                          # 8 bytes kept a message
    assert lines[1] == "appends that allocated %d blocks %d" % (blocks, blocks)
    assert lines[2] == "refused appends left the log unchanged True"
    held = int(lines[3].split()[2])
    assert blocks * 1024 <= held <= blocks * (1024 + 64) + 256, lines[3]   # a header a block
    assert lines[4] == "read back 3000 in order True"
    # Spilled between rounds: the heap keeps the block being filled, the file the rest.
    assert lines[5] == "spilled %d heap blocks 1 freed over 20000 True" % ((blocks - 1) * 1024)
    assert lines[6] == "read back 3000 in order True errors 0"
    assert (tmp_path / "s.lnk").stat().st_size == (blocks - 1) * 1024
