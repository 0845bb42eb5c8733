"""Fidelity of the emulator's screen: the key screens of real games, drawn
by the firmware's view through the app, come out byte for byte the same from the
real MicroPython binary with its C framebuf and from CPython with the emulator's
pure-Python stand-in (desktop_emulator/screens.py is the driver for both)."""

import binascii

import pytest

from desktop_emulator import framebuf, screens
from tests.helpers import MICROPYTHON, ROOT, device_modules, run_micropython

pytestmark = [pytest.mark.mp,
              pytest.mark.skipif(not MICROPYTHON.exists(), reason="no micropython binary")]


@pytest.fixture(scope="module")
def both():
    # The device's compiled modules, as on the board. The heap is roomy: this compares
    # pictures (three games' worth, eleven screens kept), not memory, which
    # `make firmware-sim` guards (176K on this 64-bit port) and `make pico-sim`
    # measures on the emulated device.
    p = run_micropython(ROOT / "desktop_emulator" / "screens.py", heap="512K",
                        path=[device_modules(), ROOT])
    assert p.returncode == 0, p.stderr
    mp = {}
    for line in p.stdout.strip().split("\n"):
        name, hexdata = line.split()
        mp[name] = binascii.unhexlify(hexdata)
    cp = dict(screens.key_screens(framebuf))
    return mp, cp


def test_micropython_draws_every_key_screen(both):
    mp, _cp = both
    assert list(mp) == list(screens.NAMES)
    assert all(len(v) == 1024 for v in mp.values())


@pytest.mark.parametrize("name", screens.NAMES)
def test_screen_bytes_identical_under_micropython_and_the_standin(both, name):
    mp, cp = both
    if mp[name] != cp[name]:
        diff = [i for i in range(1024) if mp[name][i] != cp[name][i]]
        pytest.fail("%s differs in %d bytes, first at page %d column %d" % (
            name, len(diff), diff[0] // 128, diff[0] % 128))


def test_the_screens_are_real_and_distinct(both):
    _mp, cp = both
    assert len(set(cp.values())) == len(cp)
    for name, data in cp.items():
        lit = sum(bin(b).count("1") for b in data)
        assert 300 < lit < 7000, (name, lit)
