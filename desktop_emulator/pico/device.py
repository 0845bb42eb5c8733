"""The emulated Pico, driven from Python.

``Pico`` starts ``harness.mjs`` (rp2040js under Node) and talks to it over JSON lines.
Python is in charge: it builds the flash (the MicroPython UF2 and a littlefs image of
exactly what ``make deploy`` puts on a board), drives the button pins at exact guest
times, decodes the OLED's I2C traffic into the picture (:mod:`.oled`), watches the
buzzer's PWM, and talks to MicroPython's REPL over the emulated USB serial port the
way mpremote does (raw REPL).

Time: every figure is **guest** time, exact to the emulated clock; ``t_ns`` counts
nanoseconds since the first boot. Every wait has a guest-time and a wall-time limit and
ends in :class:`DeviceTimeout` (one line) rather than hanging.

    pico = Pico(find_firmware()); pico.boot()
    with pico.raw_repl():
        print(pico.exec("import sys; print(sys.implementation)"))
"""

import json
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from desktop_emulator import devicefiles
from desktop_emulator.pico import image as img
from desktop_emulator.pico.oled import Oled
from firmware.boards import pico as board

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness.mjs"
NODE_MODULES = HERE / "node_modules" / "rp2040js"

US = 1000                    # ns
MS = 1000 * US
S = 1000 * MS
TICKS_MASK = (1 << 30) - 1
I2C_PULLUPS = (board.I2C_SDA, board.I2C_SCL)

#: Raw REPL markers (MicroPython's pyexec.c).
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n>"
SOFT_REBOOT = b"soft reboot\r\n"


class DeviceError(Exception):
    """Something the device or the emulator did wrong; str() is one line, and
    ``traceback`` holds the device's own traceback when there is one."""

    def __init__(self, message, traceback=""):
        Exception.__init__(self, message)
        self.traceback = traceback


class DeviceTimeout(DeviceError):
    pass


def node_command():
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise DeviceError("the emulated Pico needs Node.js (18 or later): install it from "
                          "https://nodejs.org or your package manager")
    if not NODE_MODULES.is_dir():
        raise DeviceError("rp2040js is not installed: run `make pico-setup` (npm ci in %s)"
                          % HERE.relative_to(devicefiles.REPO))
    return [node, str(HARNESS)]


def spawn(cmd):
    """Start a Node harness: its process, a queue of its reply lines (None at its end)
    and the list its stderr lines go to, each read by a thread of its own."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(HERE))
    replies = queue.Queue()
    stderr = []

    def pump(stream, sink):
        for line in iter(stream.readline, b""):
            sink(line)
        sink(None)

    threading.Thread(target=pump, args=(proc.stdout, replies.put), daemon=True).start()
    threading.Thread(target=pump, args=(proc.stderr, stderr.append), daemon=True).start()
    return proc, replies, stderr


class Pico:
    """One emulated Pico running MicroPython from `firmware` (an image.Firmware).

    files: {board path: local Path} for the filesystem (default: the device build of this
    repository, as `make deploy` makes it); extra: {board path: bytes} added to it;
    buttons: the GPIOs the host holds high until told otherwise (the pull-ups the
    emulator does not model), like `pullups` (default: the I2C pins, which the panel's
    pull-up resistors hold high); timer_start_us: the chip's µs timer at boot;
    jumpers: wires [(from gpio, to gpio)] (the input reads low while the source drives
    low, as a jumper onto a pulled-up button pin)."""

    def __init__(self, firmware, files=None, extra=None, buttons=(), timer_start_us=0,
                 i2c_addresses=(0x3C,), workdir=None, pullups=I2C_PULLUPS, jumpers=()):
        self.firmware = firmware
        self._tmp = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="spit-pico-")
            workdir = self._tmp.name
        self.workdir = Path(workdir)
        self.files = files
        self.extra = dict(extra or {})
        self.buttons = tuple(buttons) + tuple(pullups)
        self.timer_start_us = timer_start_us
        self.i2c_addresses = list(i2c_addresses)
        self.jumpers = [list(j) for j in jumpers]
        self.proc = None
        self._replies = None
        self._id = 0
        self.t_ns = 0
        self.boot_ns = 0              # guest time of the last (re)boot
        self.serial = bytearray()     # device output not yet consumed
        self.transcript = bytearray()  # everything the device ever printed
        self.oled = Oled()
        self.i2c_log = []             # (t_start, t_end, addr, bytes, acked), if keep_i2c
        self.keep_i2c = False
        self.pwm = []                 # (t_ns, offset, value) writes to the PWM block
        self.resets = []              # (t_ns, why)
        self.flash_ops = []           # (t_ns, "erase"|"program", offset, bytes)
        self.on_i2c = None            # callback(t_start, t_end, addr, data, acked)
        self.levels = {}

    # ---- process ------------------------------------------------------------------------
    def _start(self):
        cmd = node_command()
        self.proc, self._replies, self._stderr = spawn(cmd)

    def request(self, cmd, wall_s=60.0, **args):
        if self.proc is None:
            self._start()
        self._id += 1
        msg = dict(args, id=self._id, cmd=cmd)
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise DeviceError("the emulator process has gone: %s" % self._last_stderr()) from None
        try:
            line = self._replies.get(timeout=wall_s + 5)
        except queue.Empty:
            self.close()
            raise DeviceTimeout("the emulator did not answer %r within %.0f s of wall time"
                                % (cmd, wall_s + 5)) from None
        if line is None:
            raise DeviceError("the emulator process stopped: %s" % self._last_stderr())
        reply = json.loads(line)
        self._absorb(reply)
        if "error" in reply:
            raise DeviceError("emulator: %s" % reply["error"])
        return reply

    def _last_stderr(self):
        lines = [x.decode(errors="replace").strip() for x in self._stderr if x]
        return lines[-1] if lines else "no message"

    def _absorb(self, reply):
        if "t" in reply:
            self.t_ns = reply["t"]
        s = reply.get("serial")
        if s:
            b = s.encode("latin-1")
            self.serial += b
            self.transcript += b
        for t0, t1, addr, hexdata, acked in reply.get("i2c", ()):
            data = bytes.fromhex(hexdata)
            self.oled.transaction(t1, addr, data, acked)
            if self.keep_i2c:
                self.i2c_log.append((t0, t1, addr, data, acked))
            if self.on_i2c is not None:
                self.on_i2c(t0, t1, addr, data, acked)
        if "pwm" in reply:
            self.pwm.extend(tuple(x) for x in reply["pwm"])
        self.flash_ops.extend(tuple(x) for x in reply.get("flash", ()))
        for t, why in reply.get("resets", ()):
            self.resets.append((t, why))
            self.boot_ns = t

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.write(b'{"cmd":"quit","id":0}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- boot ---------------------------------------------------------------------------
    def build_flash(self):
        """Write the flash image (UF2 + littlefs) to the work folder; -> its path."""
        files = self.files
        if files is None:
            files = devicefiles.build(self.workdir / "device", driver=self.firmware.ssd1306)
        fs = devicefiles.littlefs_image(files, self.extra)
        flash = img.flash_image(self.firmware, fs, devicefiles.LFS_OFFSET)
        path = self.workdir / "flash.bin"
        path.write_bytes(flash)
        rom = self.workdir / "bootrom.bin"
        rom.write_bytes(img.read_bootrom(self.firmware))
        return path, rom

    def boot(self, flash=None):
        """Power on (the first time: build and load the flash)."""
        if flash is None:
            flash, rom = self.build_flash()
        else:
            rom = self.workdir / "bootrom.bin"
            rom.write_bytes(img.read_bootrom(self.firmware))
        for gpio in self.buttons:
            self.levels.setdefault(gpio, 1)        # released, unless a test holds it
        self.request("configure", i2c_addresses=self.i2c_addresses,
                     timer_start_us=self.timer_start_us, jumpers=self.jumpers)
        self.request("boot", flash=str(flash), bootrom=str(rom),
                     pins=[[g, v] for g, v in sorted(self.levels.items())])
        self.boot_ns = self.t_ns
        self.resets.append((self.t_ns, "power"))
        return self

    def power_cycle(self, why="power"):
        """Cut the power and turn it on again: RAM lost, flash kept, timer from zero."""
        self.request("reset", why=why)

    # ---- time ---------------------------------------------------------------------------
    def run_to(self, t_ns, wall_s=120.0, stop_on_serial=False, stop_on_reset=False,
               stop_after_flash_ops=0):
        """Run until guest time t_ns, or earlier: at the first serial output, at a
        reset, or right after the n-th flash erase/program, when asked (-> "serial",
        "reset", "stop"). Raises DeviceTimeout if wall_s of real time pass first."""
        if t_ns <= self.t_ns:
            return "time"
        r = self.request("run", until=t_ns, wall_ms=int(wall_s * 1000), wall_s=wall_s,
                         stop_on_serial=stop_on_serial, stop_on_reset=stop_on_reset,
                         stop_after_flash_ops=stop_after_flash_ops)
        if r["reason"] == "wall":
            raise DeviceTimeout("the emulated Pico reached only %.3f s of guest time "
                                "within %.0f s of wall time" % (self.t_ns / S, wall_s))
        return r["reason"]

    def run_for(self, us, **kw):
        return self.run_to(self.t_ns + us * US, **kw)

    def ticks_us(self, t_ns=None):
        """The device's time.ticks_us() at guest time t_ns (default: now)."""
        t = self.t_ns if t_ns is None else t_ns
        return (self.timer_start_us + int((t - self.boot_ns) // US)) & TICKS_MASK

    def guest_ns(self, ticks):
        """Guest time (ns) at which the device's ticks_us() read `ticks` (the latest
        such moment not after now, within 2**30 µs)."""
        # The device's µs ticks count from its boot, which need not fall on a whole µs
        # of guest time: the moment is the boot's plus whole µs (rounding the guest's
        # own ns down put a press up to 1 µs before the tick it was aimed at).
        now = self.ticks_us()
        back = (now - ticks) & TICKS_MASK
        return self.boot_ns + ((self.t_ns - self.boot_ns) // US - back) * US

    # ---- pins ---------------------------------------------------------------------------
    def set_pin(self, gpio, level):
        self.levels[gpio] = 1 if level else 0
        self.request("pins", set=[[gpio, self.levels[gpio]]])

    def schedule(self, edges):
        """edges: [(t_ns, gpio, level)], applied at exactly those guest times."""
        if edges:
            for _t, g, lv in edges:
                self.levels[g] = 1 if lv else 0
            self.request("pins", edges=[[float(t), int(g), 1 if lv else 0] for t, g, lv in edges])

    def press(self, gpio, at_ns=None, hold_us=60000):
        """A clean press (falling edge, then the release hold_us later)."""
        t = self.t_ns if at_ns is None else at_ns
        self.schedule([(t, gpio, 0), (t + hold_us * US, gpio, 1)])

    # ---- serial -------------------------------------------------------------------------
    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.request("serial", data=data.decode("latin-1"))

    def read_until(self, pattern, guest_ms=2000, wall_s=60.0, what=None):
        """Run until `pattern` (bytes, or a compiled bytes regex) has been printed;
        returns everything up to and including it, and consumes it."""
        end = self.t_ns + guest_ms * MS
        wall_end = time.monotonic() + wall_s
        while True:
            if isinstance(pattern, bytes):
                i = self.serial.find(pattern)
                j = i + len(pattern) if i >= 0 else -1
            else:
                m = pattern.search(self.serial)
                j = m.end() if m else -1
            if j >= 0:
                got = bytes(self.serial[:j])
                del self.serial[:j]
                return got
            if self.t_ns >= end:
                raise DeviceTimeout("no %s from the device within %d ms of guest time "
                                    "(it printed: %s)" % (what or repr(pattern), guest_ms,
                                                          _tail(self.serial)))
            left = wall_end - time.monotonic()
            if left <= 0:
                raise DeviceTimeout("no %s from the device within %.0f s of wall time"
                                    % (what or repr(pattern), wall_s))
            self.run_to(min(end, self.t_ns + 50 * MS), wall_s=left, stop_on_serial=True)

    def drain_serial(self):
        got = bytes(self.serial)
        self.serial.clear()
        return got

    # ---- MicroPython's raw REPL (what mpremote does) ------------------------------------
    def interrupt(self, guest_ms=500, wall_s=60.0):
        """Ctrl-C twice: stop whatever runs (main.py included) and reach the REPL."""
        self.write(b"\r\x03")
        self.run_for(20 * 1000, wall_s=wall_s)
        self.write(b"\x03")
        self.read_until(b">>> ", guest_ms=guest_ms, wall_s=wall_s, what="REPL prompt")
        self.run_for(5 * 1000, wall_s=wall_s)
        self.drain_serial()

    def enter_raw(self, soft_reset=True, guest_ms=3000, wall_s=60.0):
        self.write(b"\r\x01")
        self.read_until(RAW_BANNER, guest_ms=guest_ms, wall_s=wall_s, what="raw REPL")
        if soft_reset:
            self.write(b"\x04")
            self.read_until(SOFT_REBOOT, guest_ms=guest_ms, wall_s=wall_s, what="soft reboot")
            self.read_until(RAW_BANNER, guest_ms=guest_ms, wall_s=wall_s, what="raw REPL")

    def exit_raw(self):
        self.write(b"\r\x02")

    def boot_to_raw(self):
        """Boot, stop whatever main.py runs (Ctrl-C) and enter the raw REPL, the board
        as it was at power-up: for a test or a tool that then runs its own code."""
        self.boot()
        self.run_for(50_000)
        self.interrupt()
        self.enter_raw()

    def raw_repl(self, soft_reset=True, guest_ms=3000, wall_s=60.0):
        """Context: interrupt, enter the raw REPL (soft reset by default), leave it after."""
        pico = self

        class _Raw:
            def __enter__(self):
                pico.interrupt(wall_s=wall_s)
                pico.enter_raw(soft_reset, guest_ms, wall_s)
                return pico

            def __exit__(self, *exc):
                if pico.proc is not None and exc[0] is None:
                    pico.exit_raw()
        return _Raw()

    def exec_start(self, code, guest_ms=2000, wall_s=60.0):
        """Send code to the raw REPL and wait for its OK (the code then runs)."""
        if isinstance(code, str):
            code = code.encode()
        self.write(code + b"\x04")
        head = self.read_until(b"OK", guest_ms=guest_ms, wall_s=wall_s, what="raw REPL OK")
        if not head.endswith(b"OK") or len(head) > 2:
            raise DeviceError("raw REPL did not accept the code: %s" % _tail(head))

    def exec_finish(self, guest_ms=10000, wall_s=120.0):
        """Wait for the running code to end -> its output; DeviceError with the device's
        traceback if it raised."""
        out = self.read_until(b"\x04", guest_ms=guest_ms, wall_s=wall_s, what="end of output")
        err = self.read_until(b"\x04", guest_ms=guest_ms, wall_s=wall_s, what="end of errors")
        self.read_until(b">", guest_ms=guest_ms, wall_s=wall_s, what="raw REPL prompt")
        err = err[:-1].decode(errors="replace")
        if err.strip():
            raise DeviceError("exception on the device: %s" % exception_line(err), err)
        return out[:-1].decode(errors="replace")

    def exec(self, code, guest_ms=10000, wall_s=120.0):
        self.exec_start(code, min(guest_ms, 2000), wall_s)
        return self.exec_finish(guest_ms, wall_s)

    def eval_json(self, expr, guest_ms=10000, wall_s=120.0):
        out = self.exec("import json\nprint(json.dumps(%s))" % expr, guest_ms, wall_s)
        return json.loads(out)

    # ---- flash --------------------------------------------------------------------------
    def read_flash(self, offset, size):
        path = self.workdir / "flash-read.bin"
        self.request("read_flash", offset=offset, size=size, path=str(path))
        return path.read_bytes()

    def files_on_flash(self):
        """{path: bytes}: the board's filesystem as the flash holds it now."""
        region = self.read_flash(devicefiles.LFS_OFFSET,
                                 devicefiles.LFS_BLOCK_SIZE * devicefiles.LFS_BLOCK_COUNT)
        return devicefiles.read_littlefs(region)

    def configure(self, **kw):
        self.request("configure", **kw)

    # MicroPython's collector, as the emulator sees it run (docs/BENCHMARKS.md).
    GC_FUNCTIONS = ("gc_collect_start", "gc_collect_end", "gc_mark_subtree", "gc_alloc")

    def watch_gc(self):
        """Count the guest's garbage collections from now on, and those that overflowed
        their mark stack and marked the heap a second time (gc_stats). DeviceError if the
        image has no symbol table to find the collector's functions in."""
        table = self.firmware.symbols()
        missing = [n for n in self.GC_FUNCTIONS if n not in table]
        if missing:
            raise DeviceError("%s has no symbol table naming %s (a .sym file beside it, as "
                              "../shared/rp2 has)" % (self.firmware.uf2.name, ", ".join(missing)))
        self.request("configure", gc_watch=[table[n] for n in self.GC_FUNCTIONS])

    def gc_stats(self):
        """-> {collections, rescanned, rescan_marks, spans} since watch_gc(): collections
        that began, those whose end marked blocks again (a mark-stack overflow) and how
        many; spans: each collection's (start ns, end ns, blocks marked again, bytes) in
        this chip's time (the first 4,096; end None if it was going on as the run
        stopped); bytes: the last allocation asked for before it, for a collection
        MicroPython made by itself the one that found no room."""
        r = self.request("gc_stats")
        out = {k: r[k] for k in ("collections", "rescanned", "rescan_marks")}
        out["spans"] = [(a, b if b >= 0 else None, m, n) for a, b, m, n in r.get("spans", ())]
        return out


def _tail(b, n=120):
    s = bytes(b[-n:]).decode(errors="replace")
    return repr(s) if s else "nothing"


def _last_line(text):
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1].strip() if lines else "?"


def exception_line(text):
    """The "SomeError: why" line of the last MicroPython traceback in text."""
    lines = text.replace("\r", "").split("\n")
    found = None
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            for after in lines[i + 1:]:
                if after.strip() and not after.startswith(" "):
                    found = after.strip()
                    break
    return found or _last_line(text)


def boot_to_repl(firmware, **kw):
    """A Pico booted with no main.py, at the REPL prompt (for tools and tests)."""
    pico = Pico(firmware, **kw)
    pico.boot()
    pico.read_until(b">>> ", guest_ms=3000, what="REPL prompt")
    return pico


