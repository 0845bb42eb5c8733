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

import re
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
        c = self.pico
        c.interrupt(wall_s=wall_s)
        c.enter_raw(soft_reset=False, wall_s=wall_s)
        return c.eval_json(expr, guest_ms=3000, wall_s=wall_s)


# ---- the command line: --engine pico --link app[:FAULT,...] ------------------------------

#: Guest time the headless mixed run gives each stage.
LINK_MS = 2000               # the link up and the host's clocks synced
NOISE_MS = 2600              # a peer at another rate shows as noise after a frame's worth
PLAY_MS = 2000               # the CPU on the app's side plays this long (default)
APP_HOSTS_UID = b"\xf0\x00\x00\x00\x00\x00\x00\x01"
PICO_HOSTS_UID = b"\x10\x00\x00\x00\x00\x00\x00\x01"
WALL_S = 900.0


def parse_faults(text):
    """'' or 'loopback', 'tx-to-tx', 'floating', 'baud=N', 'flip=P', 'stop=MS',
    'pico-hosts', joined by commas -> {name: value}; ValueError (one line) if not."""
    out = {}
    for part in [p for p in text.split(",") if p]:
        name, eq, value = part.partition("=")
        try:
            if name in ("loopback", "tx-to-tx", "floating", "pico-hosts") and not eq:
                out[name] = True
            elif name == "baud" and eq:
                out[name] = int(value)
                if not 1200 <= out[name] <= 3_000_000:
                    raise ValueError
            elif name == "flip" and eq:
                out[name] = float(value)
                if not 0 <= out[name] < 1:
                    raise ValueError
            elif name == "stop" and eq:
                out[name] = int(value)
                if out[name] < 0:
                    raise ValueError
            else:
                raise KeyError(name)
        except KeyError:
            raise ValueError("--link app: unknown cable %r (loopback, tx-to-tx, floating, "
                             "baud=N, flip=P, stop=MS, pico-hosts)" % part) from None
        except ValueError:
            raise ValueError("--link app: bad value in %r (baud 1200..3000000, flip "
                             "0..1, stop >= 0 ms)" % part) from None
    wirings = [w for w in ("loopback", "tx-to-tx", "floating") if w in out]
    if len(wirings) > 1:
        raise ValueError("--link app: one wiring at a time, got %s" % " and ".join(wirings))
    return out


def _said(lines):
    return " / ".join(x for x in lines if x and x != "A: BACK")


def run_headless(firmware, faults, level, seed, rules, play_ms=PLAY_MS, out=None,
                 wall_s=WALL_S):
    """The mixed game headless (docs/LINK.md): link, deal, "Spit!" on both, the app's
    player a CPU for play_ms, then the two games compared. -> the summary line; raises
    LinkError (one line: what the screens say) when the cable is bad."""
    from desktop_emulator.link import LinkError
    from host.rig import BotHand
    from host.simlink import _PadInput
    from firmware.link.link import LINKED, LOOPED
    from firmware.link.play import PLAYING
    m = MixedLink(firmware, app_uid=PICO_HOSTS_UID if faults.get("pico-hosts")
                  else APP_HOSTS_UID)
    pa, pb = board.P0_A, board.P0_B
    try:
        m.boot(wall_s=wall_s)
        if faults.get("loopback"):
            m.pair.faults(loopback=(True, False))
        elif faults.get("tx-to-tx"):
            m.wiring = "tx-to-tx"
        elif faults.get("floating"):
            m.wiring = "floating"
        if "baud" in faults:
            m.set_peer_baud(faults["baud"])
        if faults.get("flip"):
            m.pair.faults(flip=faults["flip"], seed=seed + 1)
        pico_lines = "__import__('firmware.main').main.app.linkplay.lines()"
        if faults.get("loopback"):
            _choose_link_play(m, pa, pb, wall_s)
            m.run_for(600_000, wall_s=wall_s)
            lines = m.pico_eval(pico_lines, wall_s=wall_s)
            if lines[0] != "CABLE LOOPED BACK":
                raise LinkError("loopback test failed: the Pico's LINK screen says %s"
                                % _said(lines))
            return "loopback test OK: the Pico hears its own frames (%s)" % _said(lines)
        lp = m.app_link_play()
        m.run_for(600_000, wall_s=wall_s)
        if b"spit: link " not in m.pico.transcript:     # its menu did not join by itself
            _choose_link_play(m, pa, pb, wall_s)
        wait_ms = NOISE_MS if "baud" in faults or faults.get("floating") else LINK_MS
        try:
            m.run_until(lambda: lp.link.state == LINKED and b"spit: link LINKED" in
                        m.pico.transcript and (not lp.link.authority or lp.link.sync.synced()),
                        wait_ms, "link")
        except DeviceTimeout:
            mine = lp.lines()
            theirs = m.pico_eval(pico_lines, wall_s=wall_s)
            raise LinkError("no link with the Pico after %.1f s: the Pico says %s; the app "
                            "says %s" % (wait_ms / 1000, _said(theirs), _said(mine))) from None
        if lp.link.state == LOOPED:
            raise LinkError("the app's end hears its own frames: CABLE LOOPED BACK")
        host_is_app = lp.link.authority
        if not host_is_app:
            m.run_for(400_000, wall_s=wall_s)    # the Pico host syncs its clocks
        if host_is_app:
            m.app_press("B")
        else:
            m.press(pb)
        game_line = re.compile(rb"spit: screen=game phase=(\w+)")
        m.run_until(lambda: lp.mode == PLAYING and game_line.search(m.pico.transcript),
                    1500, "the deal on both", wall_s=wall_s)
        m.press(pb)
        m.run_for(60_000, wall_s=wall_s)
        m.app_press("B")
        m.run_until(lambda: m.app.game.phase != "ready", 1500, "play on both",
                    wall_s=wall_s)
        m.hands.append(BotHand(m.app, lp.me, level, seed * 2 + lp.me,
                               _PadInput(m.inp, m.clock)))
        stop = faults.get("stop")
        m.run_for((play_ms if stop is None else min(stop, play_ms)) * 1000, wall_s=wall_s)
        if stop is not None:
            m.answering = False
            try:
                m.run_until(lambda: b"spit: link LINK LOST" in m.pico.transcript, 1500,
                            "LINK LOST on the Pico", wall_s=wall_s)
            except DeviceTimeout:
                raise LinkError("the app stopped answering and the Pico did not notice "
                                "within 1.5 s") from None
            m.run_for(300_000, wall_s=wall_s)
            phase = m.pico_eval("__import__('firmware.main').main.app.game.phase",
                                wall_s=wall_s)
            raise LinkError("link lost: the app's end stopped answering %d ms into the "
                            "game; the Pico says LINK LOST / CHECK THE CABLE and its game "
                            "stands still (%s)" % (stop, phase))
        m.hands = []
        m.run_for(300_000, wall_s=wall_s)
        m.run_until(lambda: not host_is_app or lp.link.pending() == 0, 1000,
                    "every step acknowledged", wall_s=wall_s)
        mine = m.app.game.snapshot()
        theirs = m.pico_eval("__import__('firmware.main').main.app.game.snapshot()",
                             wall_s=wall_s)
        if theirs != mine:
            raise LinkError("OUT OF STEP: the Pico's game and the app's differ (round %s "
                            "on the Pico, %s here)" % (theirs.get("round"), mine["round"]))
        s = lp.link.sync if host_is_app else None
        return ("mixed link: %s host; %s; resent %d; round %d %s, %d cards on the piles; "
                "the same game on both ends" % (
                    "app" if host_is_app else "Pico",
                    "rtt %.1f ms, clocks +-%d us" % (s.rtt_last / 1000,
                                                     s.bound_at(m.clock.ticks_us()))
                    if s else "the Pico syncs the clocks",
                    lp.link.resends, mine["round"], mine["phase"],
                    sum(len(p) for p in mine["piles"])))
    finally:
        m.close()


def _choose_link_play(m, pa, pb, wall_s):
    """The Pico's player: A (down to LINK PLAY, below START), then B."""
    m.press(pa)
    m.run_for(120_000, wall_s=wall_s)
    if b"spit: link " not in m.pico.transcript:
        m.press(pb)
        m.run_for(120_000, wall_s=wall_s)
