"""Two emulated Picos joined by a link cable, driven from Python.

``LinkedPicos`` starts ``link.mjs`` (both chips in one Node process, stepped in equal
slices of guest time) and gives two :class:`LinkedChip` objects, each a full
:class:`~desktop_emulator.pico.device.Pico` (boot, raw REPL, pins, OLED, flash...). Running
either chip runs both: the pair moves together, so a µs race across the cable is decided
on one timebase.

    with LinkedPicos(firmware, files=(files_a, files_b)) as pair:
        a, b = pair.boot()
        pair.faults(ppm=(0, 200), drop=0.01, seed=7)
        pair.run_for(100_000)                  # 100 ms of true (cable) time
        pair.true_offset_us()                  # b's ticks_us() minus a's, exactly

Time: ``pair.t_ns`` is true time (the cable's); each chip's ``t_ns`` is its own clock,
which runs `ppm` fast or slow. Every wait has a guest-time and a wall-time limit
(:class:`DeviceTimeout`, one line).
"""

import json
import queue
import subprocess
import time

from desktop_emulator.pico.device import (DeviceError, DeviceTimeout, Pico, node_command,
                                          spawn, HERE, US, MS, S, TICKS_MASK)

LINK_HARNESS = HERE / "link.mjs"

#: The cable's pins on both boards (firmware/boards/pico.py: LINK_TX, LINK_RX).
TX_PIN = 0
RX_PIN = 1


class LinkedChip(Pico):
    """One chip of a LinkedPicos pair: a Pico whose requests go through the pair and
    whose running runs the pair."""

    def __init__(self, pair, index, firmware, **kw):
        Pico.__init__(self, firmware, **kw)
        self.pair = pair
        self.index = index

    def request(self, cmd, wall_s=60.0, **args):
        return self.pair.request(cmd, chip=self.index, wall_s=wall_s, **args)

    def run_to(self, t_ns, wall_s=120.0, stop_on_serial=False, stop_on_reset=False,
               stop_after_flash_ops=0):
        """Run the PAIR until this chip's own clock reads t_ns (or this chip prints, when
        stop_on_serial)."""
        if stop_after_flash_ops:
            raise DeviceError("stop_after_flash_ops is not offered on a linked pair")
        if t_ns <= self.t_ns:
            return "time"
        stops = [False, False]
        stops[self.index] = stop_on_serial
        return self.pair.run_to(self.pair.true_ns(self.index, t_ns), wall_s=wall_s,
                                stop_on_serial=stops, stop_on_reset=stop_on_reset)

    def close(self):
        self.pair.close()


class LinkedPicos:
    """Two Picos (`files`, `extra`, `timer_start_us`: one per chip) with GP0/GP1 crossed."""

    def __init__(self, firmware, files=(None, None), extra=({}, {}), buttons=(),
                 timer_start_us=(0, 0), **kw):
        self.firmware = firmware
        self.proc = None
        self._id = 0
        self.t_ns = 0
        self.counters = {}
        self.chips = [LinkedChip(self, i, firmware, files=files[i], extra=extra[i],
                                 buttons=buttons, timer_start_us=timer_start_us[i], **kw)
                      for i in range(2)]
        self._rates = [1.0, 1.0]
        self.wire = []                       # [true ns, byte] an outside peer received
        self._anchor = [(0, 0), (0, 0)]     # (true ns, chip ns) where each rate began

    # ---- process ------------------------------------------------------------------------
    def _start(self):
        cmd = node_command()
        cmd[-1] = str(LINK_HARNESS)
        self.proc, self._replies, self._stderr = spawn(cmd)

    def request(self, cmd, chip=None, wall_s=60.0, **args):
        if self.proc is None:
            self._start()
        self._id += 1
        msg = dict(args, id=self._id, cmd=cmd)
        if chip is not None:
            msg["chip"] = chip
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise DeviceError("the link emulator process has gone: %s" % self._last_stderr()) from None
        try:
            line = self._replies.get(timeout=wall_s + 5)
        except queue.Empty:
            self.close()
            raise DeviceTimeout("the link emulator did not answer %r within %.0f s of wall "
                                "time" % (cmd, wall_s + 5)) from None
        if line is None:
            raise DeviceError("the link emulator process stopped: %s" % self._last_stderr())
        reply = json.loads(line)
        self.t_ns = reply.get("t", self.t_ns)
        for c, events in zip(self.chips, reply.get("chips", ())):
            c._absorb(events)
        self.counters = reply.get("link", self.counters)
        self.wire.extend(reply.get("wire", ()))
        if "error" in reply:
            raise DeviceError("link emulator: %s" % reply["error"])
        return reply

    def _last_stderr(self):
        lines = [x.decode(errors="replace").strip() for x in self._stderr if x]
        return lines[-1] if lines else "no message"

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
        for c in self.chips:
            if c._tmp is not None:
                c._tmp.cleanup()
                c._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- boot and faults -----------------------------------------------------------------
    def boot(self):
        """Power both on at true time 0 (or now); -> (chip 0, chip 1)."""
        for i, c in enumerate(self.chips):
            c.boot()
            self._anchor[i] = (self.t_ns, c.t_ns)
        return tuple(self.chips)

    def boot_alone(self):
        """Power chip 0 on alone (chip 1 stays unbuilt: see outside_peer) -> chip 0."""
        c = self.chips[0]
        c.boot()
        self._anchor[0] = (self.t_ns, c.t_ns)
        return c

    def outside_peer(self, baud=1_000_000):
        """The far end of chip 0's cable is outside the emulator (desktop_emulator/pico/
        mixed.py): what chip 0 sends is sampled at `baud` and collected (take_wire);
        bytes for chip 0 come in with inject(0, ...)."""
        self.request("link_configure", outside=True, outside_baud=baud)

    def take_wire(self):
        """[(true ns the byte was whole, byte)] the outside peer received since the last
        call, in order."""
        got, self.wire = self.wire, []
        return got

    def faults(self, drop=None, flip=None, cut=None, ppm=None, loopback=None, seed=None,
               slice_ns=None):
        """drop/flip: probability per byte; cut: (t0_ns, t1_ns) of true time or None;
        ppm: (chip 0, chip 1) clock error from now on; loopback: (bool, bool) a chip's
        TX wired to its own RX; seed: the faults' PRNG."""
        args = {}
        for k, v in (("drop", drop), ("flip", flip), ("seed", seed), ("slice_ns", slice_ns)):
            if v is not None:
                args[k] = v
        if cut is not None:
            args["cut"] = list(cut) if cut else None
        if loopback is not None:
            args["loopback"] = list(loopback)
        if ppm is not None:
            args["ppm"] = list(ppm)
            for i in range(2):
                self._anchor[i] = (self.t_ns, self.local_ns(i))
                self._rates[i] = 1 + ppm[i] / 1e6
        self.request("link_configure", **args)

    def inject(self, to, data, baud=None):
        """Put bytes on chip `to`'s RX line as if its peer had sent them (from now, at
        `baud`, default the receiver's own rate): garbage, floods, foreign frames. They
        go through the faults like any byte."""
        args = {"to": to, "hex": bytes(data).hex()}
        if baud:
            args["baud"] = baud
        return self.request("inject", **args)["injected"]

    def cut_for(self, ms, start_ns=None):
        """Pull the cable for `ms` of true time from start_ns (default now)."""
        t0 = self.t_ns if start_ns is None else start_ns
        self.faults(cut=(t0, t0 + ms * MS))

    # ---- time -----------------------------------------------------------------------------
    def local_ns(self, i, t_true=None):
        """Chip i's own clock (ns since its first boot) at true time t_true (default now)."""
        t = self.t_ns if t_true is None else t_true
        t0, l0 = self._anchor[i]
        return l0 + self._rates[i] * (t - t0)

    def true_ns(self, i, t_local):
        t0, l0 = self._anchor[i]
        return t0 + (t_local - l0) / self._rates[i]

    def ticks_us(self, i, t_true=None):
        """Chip i's time.ticks_us() at true time t_true (default now), exactly."""
        c = self.chips[i]
        return c.ticks_us(int(self.local_ns(i, t_true)))

    def true_offset_us(self, t_true=None):
        """Chip 1's ticks_us() minus chip 0's at the same true instant, in µs (a float:
        the fraction is where each timer is within its µs), wrapped to ±2**29."""
        ts = []
        for i in range(2):
            c = self.chips[i]
            ts.append(c.timer_start_us * US + self.local_ns(i, t_true) - c.boot_ns)
        d = (ts[1] - ts[0]) / US
        period = TICKS_MASK + 1
        return (d + period / 2) % period - period / 2

    def run_to(self, t_ns, wall_s=120.0, stop_on_serial=(False, False), stop_on_reset=False):
        """Run both chips to true time t_ns, in equal slices; stop early at a chip's
        first serial output or at a reset when asked (-> "serial", "reset", "time")."""
        if t_ns <= self.t_ns:
            return "time"
        r = self.request("run", until=t_ns, wall_ms=int(wall_s * 1000), wall_s=wall_s,
                         stop_on_serial=list(stop_on_serial), stop_on_reset=stop_on_reset)
        if r["reason"] == "wall":
            raise DeviceTimeout("the linked Picos reached only %.3f s of guest time within "
                                "%.0f s of wall time" % (self.t_ns / S, wall_s))
        return r["reason"]

    def run_for(self, us, **kw):
        return self.run_to(self.t_ns + us * US, **kw)

    def wait_lines(self, patterns, guest_ms=2000, wall_s=120.0):
        """Run until chip i has printed patterns[i] (bytes; None: nothing awaited) ->
        what each printed up to it, consumed."""
        end = self.t_ns + guest_ms * MS
        wall_end = time.monotonic() + wall_s
        got = [None, None]
        while True:
            for i, p in enumerate(patterns):
                if p is not None and got[i] is None:
                    j = self.chips[i].serial.find(p)
                    if j >= 0:
                        got[i] = bytes(self.chips[i].serial[:j + len(p)])
                        del self.chips[i].serial[:j + len(p)]
            if all(g is not None or p is None for g, p in zip(got, patterns)):
                return got
            if self.t_ns >= end:
                raise DeviceTimeout("no %r within %d ms of guest time (chip 0 printed %r, "
                                    "chip 1 %r)" % (patterns, guest_ms,
                                                    bytes(self.chips[0].serial[-80:]),
                                                    bytes(self.chips[1].serial[-80:])))
            left = wall_end - time.monotonic()
            if left <= 0:
                raise DeviceTimeout("no %r within %.0f s of wall time" % (patterns, wall_s))
            stops = [p is not None and g is None for p, g in zip(patterns, got)]
            self.run_to(min(end, self.t_ns + 20 * MS), wall_s=left, stop_on_serial=stops)
