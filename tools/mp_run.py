"""Running the firmware under the real MicroPython binary (CPython side, for
tools/firmware_sim.py and tools/bench_firmware.py): the device's modules compiled with
mpy-cross as on the board, and the interpreter started with a heap size."""

import sys


def run_under_micropython(script, argv, heap, path=None):
    """CPython: run `script` under the real MicroPython binary, with `path` (the
    repository root if None) as its MICROPYPATH."""
    import os
    import subprocess
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    mp = root / ".venv" / "bin" / "micropython"
    if not mp.exists():
        mp = Path(sys.executable).parent / "micropython"
    env = dict(os.environ, MICROPYPATH=str(path or root))
    cmd = [str(mp), "-X", "heapsize=" + heap, str(Path(script).resolve())] + list(argv)
    return subprocess.call(cmd, env=env, cwd=str(root))


def compile_device(out=None):
    """CPython: every module of firmware/ and shared_rules/ compiled with mpy-cross
    into `out` (build/mpy), as on the board, and of host/ (the simulated ports the
    tools run the app on); only what changed is compiled again. Returns the folder."""
    import subprocess
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    out = Path(out) if out else root / "build" / "mpy"
    cross = root / ".venv" / "bin" / "mpy-cross"
    if not cross.exists():
        cross = Path(sys.executable).parent / "mpy-cross"
    for pkg in ("firmware", "shared_rules", "host"):
        for src in sorted((root / pkg).rglob("*.py")):
            if "__pycache__" in src.parts:
                continue
            dst = out / src.relative_to(root).with_suffix(".mpy")
            if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            # The relative name, as `make deploy` gives it (it is kept in the .mpy).
            r = subprocess.run([str(cross), "-o", str(dst), str(src.relative_to(root))],
                               capture_output=True, text=True, cwd=str(root))
            if r.returncode != 0:
                raise SystemExit("mpy-cross %s: %s" % (src, (r.stderr or r.stdout).strip()))
    # A module deleted from the sources must not linger as a stale .mpy.
    for mpy in out.rglob("*.mpy"):
        if not (root / mpy.relative_to(out).with_suffix(".py")).exists():
            mpy.unlink()
    return out
