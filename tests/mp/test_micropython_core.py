"""The MicroPython tier for the rules core: the real `micropython` binary must produce
exactly CPython's output, line for line, and pass the scenario checks."""
import os
import subprocess
import sys

import pytest

from tests.helpers import MICROPYTHON, ROOT, run_micropython

pytestmark = [pytest.mark.mp,
              pytest.mark.skipif(not MICROPYTHON.exists(),
                                 reason="micropython binary missing (run `make setup`)")]


def run_cpython(script, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(script)] + list(args), capture_output=True,
                          text=True, env=env, cwd=str(ROOT), timeout=300)


@pytest.mark.parametrize("seeds", [["0", "1", "2"], ["3", "4", "5", "6"]])
def test_seeded_games_identical_on_micropython_and_cpython(seeds):
    script = ROOT / "tests/mp/core_games.py"
    mp = run_micropython(script, *seeds, heap="150K")
    cp = run_cpython(script, *seeds)
    assert mp.returncode == 0, mp.stderr + mp.stdout[-2000:]
    assert cp.returncode == 0, cp.stderr
    mp_lines = mp.stdout.splitlines()
    cp_lines = cp.stdout.splitlines()
    assert len(cp_lines) > 300
    for n, (a, b) in enumerate(zip(cp_lines, mp_lines), 1):
        assert a == b, "line %d differs" % n
    assert len(cp_lines) == len(mp_lines)
    assert sum(1 for line in mp_lines if line.startswith("end seed=")) == len(seeds)


def test_rule_scenarios_pass_under_micropython():
    script = ROOT / "tests/mp/core_scenarios.py"
    mp = run_micropython(script)
    assert mp.returncode == 0, mp.stderr
    lines = mp.stdout.splitlines()
    assert len(lines) >= 10
    assert all(line.startswith("ok ") for line in lines), mp.stdout
    assert run_cpython(script).stdout == mp.stdout


def test_a_whole_game_runs_in_a_small_heap_from_mpy_files(tmp_path):
    # As on the device: precompiled .mpy modules, a small heap (bench_rules.HEAP_TARGET_K,
    # 34 KB: the core with R41/R42, the stricter snapshot checks and the small-int PRNG
    # measures 33 KB on the unix port; the RP2040 leaves ~240 KB for the whole firmware).
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import bench_rules
    finally:
        sys.path.pop(0)
    bench_rules.compile_core(tmp_path)
    assert bench_rules.game_runs(tmp_path, bench_rules.HEAP_TARGET_K)
    assert not bench_rules.game_runs(tmp_path, 8)     # the check itself can fail
