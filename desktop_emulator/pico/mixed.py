"""A mixed linked game (R43): the real firmware on an emulated Pico at one end of the
cable, the app engine (the firmware's app on this Python) at the other, so the device's
link code is checked against the desktop's.

The Pico is chip 0 of ``link.mjs`` with no chip 1: the other end of its cable is this
process (``LinkedPicos.outside_peer``). The bytes its UART0 sends on GP0 are sampled at
the outside end's baud rate and come back with the time each was whole; the app's bytes
go onto its GP1 with ``inject``, one after another at the line's rate, so each arrives
at its time on the line.

Time: one timebase, the emulator's guest time. The app engine's clock
(:class:`GuestTicks`) reads the guest's true time (plus a start of its own), so neither
side ever waits on the other's wall time. :meth:`MixedLink.run_for` moves the Pico a
slice (``slice_us``, default 500 µs) at a time; after each slice the app reads what has
arrived by then, polls its link and steps its frame when one is due, and what it wrote
goes onto the wire at that instant. So the app's stamps and sends are late by up to a
slice: its round trip and its clock bound carry that (the link measures them; nothing
assumes the slice).

Wiring faults, for the bad-input cases (docs/LINK.md): ``wiring="tx-to-tx"`` (each TX
on the other's TX: neither RX hears anything), ``"floating"`` (the Pico's RX not
connected: noise), ``peer_baud`` (the app's end runs at another rate: each side reads
the other's bytes as garbage), ``answering=False`` (the app stops mid-game: a peer that
stops answering), and the cable's own faults (``pair.faults(flip=...)``).

Every run has a guest-time and a wall-time limit (DeviceTimeout, one line).
"""

import time

from desktop_emulator.pico.device import DeviceTimeout, US, MS, TICKS_MASK
from desktop_emulator.pico.link import LinkedPicos
from firmware.app import FRAME_US
from firmware.boards import pico as board
from shared_rules.rng import Rng

#: The cable's rate on the device (firmware/hw/link_uart.py's LINK_BAUD).
LINE_BAUD = 1_000_000
WIRINGS = ("straight", "tx-to-tx", "floating")
#: Noise bytes a floating RX picks up per slice (a float's edges, as bytes).
NOISE_PER_SLICE = 3


class GuestTicks:
    """The app engine's clock port: µs ticks of the emulator's true time, from `start`."""

    def __init__(self, pair, start=0):
        self.pair = pair
        self.start = start

    def ticks_us(self):
        return (self.start + self.pair.t_ns // US) & TICKS_MASK

    def elapsed_us(self):
        return self.pair.t_ns // US


class CableEnd:
    """The app's end of the cable: the link port (firmware/link/port.py). write() queues
    whole frames for the wire, readinto() hands over the bytes whole by now."""

    byte_us = 10 * 1_000_000 // LINE_BAUD

    def __init__(self, pair, uid):
        self.pair = pair
        self.uid = uid
        self.out = bytearray()
        self.inq = []                # [true ns the byte was whole, byte]

    def write(self, buf):
        self.out.extend(buf)

    def readinto(self, buf):
        now = self.pair.t_ns
        q = self.inq
        n = 0
        while n < len(buf) and n < len(q) and q[n][0] <= now:
            buf[n] = q[n][1]
            n += 1
        del q[:n]
        return n


class MixedLink:
    """The emulated Pico (``pico``: a Pico, booted by :meth:`boot`) and an app engine
    (``machine``: session.AppEngine on :class:`GuestTicks`, its input ``inp``) joined by
    one cable. ``app_uid`` decides the election between two devices holding no game
    (the larger id hosts; the Pico's id is e6 60 58 38 83 20 51 00)."""

    def __init__(self, firmware, files=None, app_uid=b"\xf0\x00\x00\x00\x00\x00\x00\x01",
                 app_start_us=123_457, slice_us=500, buttons=board.BUTTONS):
        from desktop_emulator import session
        from desktop_emulator.display import FrameDisplay
        from desktop_emulator.sound import ListSound
        from desktop_emulator.storage import MemoryStorage
        from host.ports import ScriptInput
        gpios = [g for g, _p, _n in buttons]
        self.pair = LinkedPicos(firmware, files=(files, None), buttons=gpios)
        self.pico = self.pair.chips[0]
        self.slice_us = slice_us
        self.clock = GuestTicks(self.pair, app_start_us)
        self.port = CableEnd(self.pair, bytes(app_uid))
        self.inp = ScriptInput(self.clock)
        self.machine = session.AppEngine(self.clock, self.inp, FrameDisplay(), ListSound(),
                                         MemoryStorage())
        self.wiring = "straight"
        self.peer_baud = LINE_BAUD
        self.answering = True
        self.hands = []
        self.sent = 0                # bytes the app put on the wire
        self.heard = 0               # bytes the app was given
        self._noise = Rng(7)
        self._next_frame = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.pair.close()

    # ---- starting -----------------------------------------------------------------------
    def boot(self, guest_ms=4000, wall_s=300.0):
        """Power the Pico on alone, the cable's far end outside; run to its title."""
        self.pair.boot_alone()
        self.pair.outside_peer(baud=self.peer_baud)
        self.pair.wait_lines([b"spit: screen=title", None], guest_ms=guest_ms, wall_s=wall_s)
        self._next_frame = self.clock.ticks_us()
        return self

    def set_peer_baud(self, baud):
        self.peer_baud = baud
        self.pair.outside_peer(baud=baud)

    def app_link_play(self):
        """The app's player chooses LINK PLAY (the Pico's menu hears it calling and joins
        by itself, firmware/link/wake.py)."""
        from desktop_emulator.link import attach
        return attach(self.machine, self.port, self.clock.ticks_us())

    @property
    def app(self):
        return self.machine.app

    # ---- running ------------------------------------------------------------------------
    def run_for(self, us, wall_s=300.0):
        """Both ends on for `us` of guest time."""
        self.run_to(self.pair.t_ns + us * US, wall_s=wall_s)

    def run_to(self, t_ns, wall_s=300.0):
        wall_end = time.monotonic() + wall_s
        while self.pair.t_ns < t_ns:
            left = wall_end - time.monotonic()
            if left <= 0:
                raise DeviceTimeout("the mixed link reached only %.3f s of guest time within "
                                    "%.0f s of wall time" % (self.pair.t_ns / 1e9, wall_s))
            self.pair.run_to(min(t_ns, self.pair.t_ns + self.slice_us * US), wall_s=left)
            self._after_slice()

    def run_until(self, cond, guest_ms, what, wall_s=300.0):
        """Run until cond() (checked after every slice) -> True; DeviceTimeout (one line,
        naming `what`) after guest_ms of guest time or wall_s of wall time."""
        end = self.pair.t_ns + guest_ms * MS
        wall_end = time.monotonic() + wall_s
        while not cond():
            if self.pair.t_ns >= end:
                raise DeviceTimeout("no %s within %d ms of guest time (the Pico printed %r)"
                                    % (what, guest_ms, bytes(self.pico.transcript[-160:])))
            left = wall_end - time.monotonic()
            if left <= 0:
                raise DeviceTimeout("no %s within %.0f s of wall time" % (what, wall_s))
            self.run_to(min(end, self.pair.t_ns + 5 * MS), wall_s=left)
        return True

    def _after_slice(self):
        wire = self.pair.take_wire()
        if self.wiring == "straight":
            self.port.inq.extend(wire)
        if self.wiring == "floating":
            noise = bytes(self._noise.below(256) for _ in range(NOISE_PER_SLICE))
            self.pair.inject(0, noise, baud=LINE_BAUD)
        if not self.answering:
            self.port.inq = []       # a peer that stopped hears nothing and says nothing
            self.port.out = bytearray()
            return
        now = self.clock.ticks_us()
        lp = self.machine.app.linkplay
        if lp is not None:
            lp.link.poll(now)        # between frames, as the device's loop does
        if (now - self._next_frame) & TICKS_MASK < 0x20000000:
            self._next_frame = (self._next_frame + FRAME_US) & TICKS_MASK
            for h in self.hands:
                h.pump(now)
            self.machine.step()
        if self.port.out:
            data = bytes(self.port.out)
            self.port.out = bytearray()
            self.sent += len(data)
            if self.wiring == "straight":
                self.pair.inject(0, data, baud=self.peer_baud)

    # ---- the Pico's side ----------------------------------------------------------------
    def press(self, gpio, hold_us=40_000):
        """A press of one of the Pico's buttons, now."""
        self.pico.press(gpio, hold_us=hold_us)

    def app_press(self, button, delay_us=1000, hold_us=40_000):
        """A press of the app's own pad (its player, whichever seat the link gave it)."""
        from desktop_emulator.clock import ticks_add
        self.inp.press(ticks_add(self.clock.ticks_us(), delay_us), 0, button, hold_us)

    def pico_eval(self, expr, wall_s=300.0):
        """Stop the Pico's game (Ctrl-C: the app object stays) and evaluate expr on it
        through the raw REPL -> its JSON value. The app engine is not stepped meanwhile."""
        answering = self.answering
        c = self.pico
        c.interrupt(wall_s=wall_s)
        c.enter_raw(soft_reset=False, wall_s=wall_s)
        try:
            return c.eval_json(expr, guest_ms=3000, wall_s=wall_s)
        finally:
            self.answering = answering
