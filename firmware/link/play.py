# A linked game (R43): two handhelds, one game, each player with their own screen.
#
# One device, the authority, holds the game: its app runs the match exactly as when
# two people share one handheld. The other, the follower, sends its own player's
# presses over the link, stamped with its own clock; the authority converts each stamp
# into its own time (firmware/link/sync.py), with the error bound of that conversion,
# and hands it to the arbiter as the other player's press. The game's time on the
# authority never passes what the follower has said it sent everything before (its
# "T" stamp, behind its presses in the same ordered stream): the wait for the link's
# bounded delay, however long a resend makes it. The arbiter treats two conflicting
# presses closer than the bound as a tie (R21), and otherwise lets the earlier stamp
# win whichever message came first (R19).
#
# What the authority's app was given is the game: every frame it stepped, with the
# button events of that frame (its own player's and the converted ones) and the bound
# in force. It sends exactly that, in order, to the follower, whose own app steps the
# same frames with the same events: the same decisions, screens, sounds and recording,
# by construction (R40). A digest of the game at every round's end is checked by the
# follower, so any divergence is caught and said. The stream is kept (`log`,
# firmware/link/stream.py), so a follower that restarted, or a device that joins, is
# brought to the same place by stepping it all again; and a device that holds the game
# when its authority restarted takes over (the election prefers the device holding
# more, link.py). Kept is what changes the game: a frame sent only so that the
# follower's clock goes on (H, when nothing has changed for FLUSH_US) is not, because
# a frame that changes nothing need not be stepped again (as in the app's own
# recording). So the kept stream grows with what is played, not with the time a game
# stands on a screen. It goes to the link a window ahead at most (_AHEAD), so a rejoin
# does not copy the whole game into the link's queue at once.
#
# The cable test: with the house rule "link_player = cpu hard" (firmware/house.py) the
# CPU plays this device's own player. Its presses are this device's presses: stamped
# with this clock and taken where the buttons' are, so the guest's cross the cable to
# the authority's arbiter like a person's. Two handhelds set so play each other a whole
# game with nobody at either: a check of a classroom's cables.
#
# Cable out: both sides show LINK LOST and the game's time stands still (the authority
# steps nothing, and its game clock leaves out the time lost), so plugged back in, the
# game goes on exactly where it was.
#
# The stream's records, several to a DATA message, authority -> follower:
#   S  t(4) seed(4) flags(1) authority's player(1) [target(2)] conduct line
#                                        a game starts; flags: 1 points, 2 manual flip,
#                                        4 R37's target follows (when it is not 100)
#   E  t(4) player(1) code(1) down(1)                             a button event
#   F  t(4) bound(2)                                              step the app at t
#   H  t(4) bound(2)             the same, a frame that changed nothing: never kept
#   D  round(2) digest(3)                                         the state, checked
#   W  authority's player(1)                                      who holds the game
# follower -> authority (one message a frame):
#   P  t(4) code(1) down(1)                                       my player's button
#   T  t(4)                            I have sent every press touched before t
#   X  round(2)                                                   my digest differs
# authority -> follower, outside the stream (never kept in `log`):
#   Q                                  a press waits for your T: say it now

from shared_rules.arbiter import ticks_diff
from firmware.link.arbiter import LinkArbiter
from shared_rules.game import Rules
from shared_rules.conduct import Conduct
from firmware.table import Table
from firmware.seats import CpuSeat, level_name
from shared_rules.bot import bot_seed
from firmware.view import View, W, H
from firmware.screens import TITLE, GAME, A, B, LEFT, RIGHT, UP, DOWN, PAUSE_BUTTON
from shared_rules.pad import BUTTON_NAMES
from firmware.link.link import Link, LINKED, INCOMPATIBLE, LOOPED
from firmware.link import face
from firmware.link.stream import StreamLog

from shared_rules.compat import const

FLUSH_US = const(100000)         # the follower sees the authority's time at least this often
LEAVE_US = const(5000000)        # LINK LOST this long: A leaves link play
_MASK = const(0x3FFFFFFF)
_MSG = const(150)                # stream bytes gathered into one message at most
_TARGET = const(100)             # R37's target, unless the start record names another
_AHEAD = const(16)               # kept messages handed to the link, not yet acknowledged

_DUE = const(1)                  # a step of the app to take
_BEGUN = const(2)                # a step of the app that ran out of heap: its rest to take

LOBBY = const(0)
PLAYING = const(1)


class LinkInput:
    """The input port the app reads during link play: the events of this frame."""

    def __init__(self, dropped):
        self.events = []
        self.dropped = dropped

    def drain(self, out=None):
        if out is None:
            out = []
        for e in self.events:
            out.append(e)
        self.events = []
        return out


class _StepClock:
    # The app's clock port, when the host gave none: the time of the step.
    def __init__(self, t):
        self.t = t

    def ticks_us(self):
        return self.t


def _u32(b, i):
    return (b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]


def _put32(b, v):
    b.append((v >> 24) & 0xFF)
    b.append((v >> 16) & 0xFF)
    b.append((v >> 8) & 0xFF)
    b.append(v & 0xFF)


class LinkPlay:
    def __init__(self, app, now):
        self.app = app
        ports = app.ports
        self.clock = ports.clock if ports.clock is not None else _StepClock(now)
        wake = app._wake             # (what the menu heard the caller say, if it called)
        self.link = Link(ports.link, self.clock,
                         remembered=wake.remembered if wake is not None else 0)
        self.mode = LOBBY
        self.me = 0                  # this device's player
        self.remote = 1              # the player whose stamps the authority converts
        self.base = 0                # authority: local time - game time
        self.paused_at = None        # authority: when the link went down mid-game
        self.game_t = 0              # the game time of the last frame stepped
        # The stream of the current game, message by message (on flash between rounds
        # where the storage can append to a file).
        st = ports.storage
        self.log = StreamLog(store=st if getattr(st, "recording", False) and
                             hasattr(st, "link_new") else None)
        self._sent = 0               # authority: how many of its messages went to the link
        self._fed = 0                # and where the next one is in the log
        self._cur = bytearray()
        self._flushed_t = now
        self._epoch = 0
        self.leading = False         # this device's app decides the game
        self._busy = 0
        self._screen = -1
        self._digest_at = None
        self._evs = []               # follower: events of the frame being gathered
        self.diverged = -1           # the round whose digest differed, or -1
        self.late = 0                # remote presses that came after their window
        self._water = None           # authority: the guest has sent all it touched before
        self._held = []              # authority: own presses not yet reached by game time
        self._asked = False          # authority: a Q went out, no T has come since
        self._step = None            # authority: the step being taken (now, gt, bound, events)
        self._told = True            # its outcome was sent (or needed nothing)
        self._framed = False         # it sent an F
        self._ev_rec = 0             # authority: the step's events recorded (E) so far
        # Out of heap (a MemoryError) anywhere in a step, nothing of the game is lost
        # or taken twice: a message is held until every record of it is played, a
        # step the app could not finish is finished at the next (App.step_whole), and
        # this device's own presses wait until they are sent or held for the game.
        self._msg = None             # the message being played (received, acknowledged)
        self._at = 0                 # its next record
        self._logged = False         # it is in the kept stream
        self._mid = 0                # a step of the app due (_DUE) or begun (_BEGUN)
        self._unsent = []            # this device's presses not yet taken in
        self.lag_us = 0              # authority: how far the game's time is behind its clock
        self.lag_max_us = 0
        self.presses_in = 0
        self._real_input = ports.input
        self._real_display = ports.display
        self._real_view = app.view
        self._inp = LinkInput(getattr(ports.input, "dropped", 0))
        self._facing = None
        self._shown_key = None
        self._lost_shown = False
        self._step_shown = False
        self._cpu = None             # the cable test's CPU seat for this device's player
        self._cpu_game = None
        self._cpu_signal = None      # the slap signal (R44) it was shown: (round, time)
        app.table_kind = self._make_table
        app.record_redraws = False

    # ---- the app's hooks --------------------------------------------------------------
    def _make_table(self, game, cpu, scheme, window_us, conduct, stats, want, now):
        tb = Table(game, cpu, scheme, window_us, conduct, stats, want, now)
        tb.arbiter = LinkArbiter(game, window_us, self.remote, self.app.note_bound)
        return tb

    def close(self, t):
        """Leave link play: the app is as it was, back at the title."""
        app = self.app
        app.table_kind = Table
        app.record_redraws = True
        app.ports.input = self._real_input
        app.ports.display = self._real_display
        app.view = self._real_view
        app._show_spans = hasattr(self._real_display, "show_spans")
        app.linkplay = None
        app.view.invalidate()
        lk = self.link
        if lk.peer_uid is not None:
            # The player left this peer: the menu does not join it again by itself.
            from firmware.link.wake import Wake
            if app._wake is None:
                app._wake = Wake()
            app._wake.declined = (lk.peer_uid, lk.peer_nonce)
        app.to_title(t)

    # ---- the loop ---------------------------------------------------------------------
    def step(self, now):
        """One frame of link play (the app's step while linked); True if drawn."""
        if isinstance(self.clock, _StepClock):
            self.clock.t = now
        lk = self.link
        lk.hold = self.log.count
        lk.poll(now)
        if lk.epoch != self._epoch:
            if self._msg is not None and lk.authority and not self.leading and \
                    self.mode == PLAYING:
                # Taking the game over: the message in hand is kept (the new guest
                # gets it), so this device plays all of it first.
                self._play_stream(now, False)
            self._msg = None
            self._new_session(now)
            self._epoch = lk.epoch       # (after: out of heap, it is done again)
        if self.leading and self._sent < self.log.count:
            self._feed()             # (the follower keeps the stream, never sends it)
        evs = self._local(now)
        if self.app.link_cpu:
            evs = self._cpu_presses(now, evs)
        if self.mode == LOBBY:
            return self._lobby(now, evs)
        if self.diverged >= 0:
            return self._out_of_step(now, evs)
        if lk.state != LINKED:
            return self._lost(now, evs)
        if self._lost_shown:
            self._lost_shown = False
            self._resume(now)
        if lk.authority:
            drew = self._lead(now, evs)
        else:
            drew = self._follow(now, evs)
        if self.app.screen == TITLE and self.mode == PLAYING:
            self.mode = LOBBY        # the game was left: back to the lobby, still linked
            self._unface()
            self._shown_key = None
        return drew

    def _local(self, now):
        """This device's own buttons (its first pad: its player's), as (t, code, down)."""
        out = []
        got = self._real_input.drain()
        if got:
            for e in got:
                if e[1] == 0:
                    out.append(e)
        return out

    def _cpu_presses(self, now, evs):
        """The cable test: on the game screen of a linked game in play, the CPU is this
        device's player, and its presses (this clock's stamps) stand for the buttons'.
        The pad is the CPU's there, as a CPU seat's is on one handheld."""
        app = self.app
        g = app.game
        if self.mode != PLAYING or app.screen != GAME or g is None or \
                self.link.state != LINKED or self.diverged >= 0:
            # Nothing moves (a pause, the summary, a lost link): a fresh seat when play
            # goes on, so no press is stamped in the time it stood still.
            self._cpu = None
            return evs
        seat = self._cpu
        if seat is None or self._cpu_game is not g or seat.player != self.me:
            # (A device that restarted learns which player it is as it catches up: the
            # game's start names the first authority, a takeover the next, R43.)
            seat = CpuSeat(self.me, level_name(app.link_cpu),
                           bot_seed((g.seed + g.round * 1009 + now) & _MASK, self.me))
            seat.bot.awaits_signal = app.conduct.signal
            self._cpu = seat
            self._cpu_game = g
        tb = app.table
        seat.observe(g, now, tb.pads[self.me].cursor)
        if tb.signal_t is not None and tb.signalled:
            seen = (g.round, tb.signal_t)
            if seen != self._cpu_signal:
                self._cpu_signal = seen
                seat.signal(now)         # R44: on this screen now; it reacts from here
        out = []
        seat.poll(now, out)
        return out

    def _new_session(self, now):
        """A new peer, or the peer restarted: bring it to where the game is."""
        lk = self.link
        if self.mode != PLAYING:
            return
        if lk.authority:
            if not self.leading:
                # Our authority restarted and holds less: this device takes the game
                # over from the last frame it stepped, and says so in the stream.
                # (Out of heap part way, this is all done again at the next step: a
                # second W changes nothing.)
                self._record(bytes((87, self.me)))
                self.base = (now - self.game_t) & _MASK
                self._water = None       # until the new guest says what it has sent
                self._held = []
                self._asked = False
                self._ev_rec = 0
                self.remote = 1 - self.me
                tb = self.app.table
                if tb is not None and isinstance(tb.arbiter, LinkArbiter):
                    tb.arbiter.remote = self.remote
                self.leading = True
                self._flush(None)
            if self.paused_at is None:
                self.paused_at = now
            # It may hold nothing: the whole game again, in order.
            self._sent = self._fed = 0
            self._feed()
        else:
            # The peer holds more of the game: it sends it all; step it again.
            self.mode = LOBBY
            self.leading = False
            self._forget()
            self._unface()
            self.app.to_title(now)

    # ---- the authority ----------------------------------------------------------------
    def _lead(self, now, local):
        app = self.app
        lk = self.link
        sync = lk.sync
        bound = sync.bound_at(now) if sync.synced() else 0xFFFF
        bound = bound if bound < 0xFFFF else 0xFFFF
        held = self._held
        pend = self._pending(local)
        while pend:
            e = pend[0]
            held.append(((e[0] - self.base) & _MASK, self.me, e[2], e[3]))
            del pend[0]
        if self._mid or not self._told:
            # The last step ran out of heap: finish it before anything joins the
            # next (its events are recorded already).
            return self._take_step(now)
        evs = self._inp.events
        while True:
            m = self._take()
            if m is None:
                break
            self._from_guest(m, sync, bound, evs)
            self._msg = None
        # The game's time: this clock (less link losses), but never past what the
        # guest has told us all of (R43): its stamp "everything before this is sent",
        # which comes in order behind its presses, converted and less the bound. So
        # every press of the guest's is in the arbiter before it settles anything
        # touched later, however long the cable took (a resend, a busy line).
        gt = (now - self.base) & _MASK
        mine = gt
        if self._water is None:
            gt = self.game_t
        elif ticks_diff(gt, self._water) > app.window_us:
            gt = (self._water + app.window_us) & _MASK
        if ticks_diff(gt, self.game_t) < 0:
            gt = self.game_t
        lag = ticks_diff(mine, gt)
        self.lag_us = lag
        if lag > self.lag_max_us and self._water is not None:
            self.lag_max_us = lag
        while held and ticks_diff(held[0][0], gt) <= 0:
            evs.append(held[0])
            del held[0]
        tb = app.table
        if tb is not None and isinstance(tb.arbiter, LinkArbiter):
            tb.arbiter.bound_us = bound
        arb = tb.arbiter if tb is not None else None
        if lag > 0 and (held or (arb is not None and arb.pending())):
            self.ask(now)
        for j in range(self._ev_rec, len(evs)):
            e = evs[j]
            r = bytearray(b"E")
            _put32(r, e[0])
            r.append(e[1])
            r.append(e[2] if isinstance(e[2], int) else _code(e[2]))
            r.append(1 if e[3] else 0)
            self._record(r)
            self._ev_rec = j + 1
        self._step = (now, gt, bound, len(evs))
        self._framed = False
        self._told = False
        self._ev_rec = 0
        self._mid = _DUE
        return self._take_step(now)

    def _take_step(self, now):
        """The authority's step of its app at the game's time (again, if it ran out of
        heap), its outcome recorded and sent."""
        app = self.app
        gt = self._step[1]
        drew = False
        if self._mid:
            self._inp.dropped = getattr(self._real_input, "dropped", 0)
            app.ports.input = self._inp
            app.before_draw = self._tell
            again = self._mid == _BEGUN
            self._mid = _BEGUN
            try:
                drew = app.step_whole(gt, again)
            finally:
                app.before_draw = None
            self._mid = 0
            self.game_t = gt
        if not self._told:           # (the step ran out of heap before its picture)
            self._tell(app.busy_frames != self._busy)
        self._busy = app.busy_frames
        if not self._framed and ticks_diff(now, self._flushed_t) >= FLUSH_US:
            self._flush(now)
            if self._sent == self.log.count:     # (a rejoining peer: the kept stream first)
                self.link.send(_frame(b"H", gt, self._step[2]))
        return drew

    def _tell(self, changed):
        """The frame's outcome is known (the app calls this before drawing it): what
        changed goes to the guest now, not after this device's picture is drawn and
        sent to its panel."""
        if self._told:
            return                   # (a frame tried again after running out of heap)
        now, gt, bound, n_ev = self._step
        app = self.app
        if n_ev or changed or app.screen != self._screen:
            # In parts, each done once, should one run out of heap (the frame is
            # tried again, or the next step finishes it).
            if not self._framed:
                self._record(_frame(b"F", gt, bound))
                self._framed = True
            self._digest()
            self._screen = app.screen
            self._flush(now)
        self._told = True

    def _from_guest(self, m, sync, bound, evs):
        """A message of the guest's: its presses (P) and its 'all sent before' (T), from
        the record at self._at on."""
        n = len(m)
        while self._at < n:
            i = self._at
            k = m[i]
            if k == 80 and i + 7 <= n:                            # P
                t = (sync.to_local(_u32(m, i + 1)) - self.base) & _MASK
                if m[i + 5] <= PAUSE_BUTTON:          # a button the pads have
                    evs.append((t, self.remote, m[i + 5], 1 if m[i + 6] else 0))
                    self.presses_in += 1
                if ticks_diff(self.game_t, t) > self.app.window_us:
                    self.late += 1       # only if the bound was wrong
                self._at = i + 7
            elif k == 84 and i + 5 <= n:                          # T
                self._asked = False
                if sync.synced():
                    self._water = (sync.to_local(_u32(m, i + 1)) - self.base - bound) & _MASK
                self._at = i + 5
            elif k == 88 and i + 3 <= n:                          # X
                self.diverged = (m[i + 1] << 8) | m[i + 2]
                self._at = i + 3
            else:
                return

    def _digest(self):
        g = self.app.game
        if g is None:
            return
        at = (g.round, g.phase == "over")
        if at == self._digest_at:
            return
        d = g.digest()
        self._record(bytes((68, (g.round >> 8) & 0xFF, g.round & 0xFF,
                            (d >> 16) & 0xFF, (d >> 8) & 0xFF, d & 0xFF)))
        self._digest_at = at

    def _record(self, r):
        if len(self._cur) + len(r) > _MSG:
            self._flush(None)
        self._cur.extend(r)

    def _flush(self, now):
        if now is not None:
            self._flushed_t = now
        if not self._cur:
            return
        fresh = bytearray()          # (first: out of heap, the message is not kept twice)
        self.log.append(self._cur)
        self._cur = fresh
        self._feed()
        self.link.flush()

    def _feed(self):
        """Hand the kept stream to the link in order, _AHEAD messages ahead of the
        peer's acknowledgement at most."""
        lk = self.link
        log = self.log
        while self._sent < log.count and lk.pending() < _AHEAD:
            m, nxt = log.read(self._fed)
            lk.send(m)
            self._fed = nxt
            self._sent += 1

    def spill(self):
        """Between rounds (the app's moment for its own recording): the kept stream's
        full blocks to flash."""
        return self.log.spill()

    def _forget(self):
        self.log.clear()
        self._sent = self._fed = 0
        self._mid = 0                # (a step of the game forgotten)
        self._told = True
        self._ev_rec = 0

    def start(self, now, seed=None, rules=None):
        """The authority starts a linked game with the settings of its menu (a host may
        name the seed and the rules)."""
        app = self.app
        s = app.settings
        self.me = 0
        self.remote = 1
        self.base = 0                 # the game's time is this device's, less any link loss
        self.leading = True
        self._water = None
        self._held = []
        self._asked = False
        self.game_t = now
        self.paused_at = None
        self._forget()
        self._cur = bytearray()
        self._digest_at = None
        conduct = app.settings_conduct()
        seed = (now if seed is None else seed) & _MASK
        if rules is None:
            flags = (1 if s["points"] else 0) | (2 if s["flip"] else 0)
            target = app.target
        else:
            flags = (1 if rules.points else 0) | (2 if rules.manual_flip else 0)
            target = rules.target
        if target != _TARGET:
            flags |= 4
        r = bytearray(b"S")
        _put32(r, now)
        _put32(r, seed)
        r.append(flags)
        r.append(self.me)
        if flags & 4:
            r.append((target >> 8) & 0xFF)
            r.append(target & 0xFF)
        r.extend(conduct.format().encode())
        self._record(r)
        self._flush(now)
        self.mode = PLAYING
        self._face()
        app.ports.input = self._inp
        app.new_series()
        app.start_game(seed, _rules(flags, target), (None, None), now, conduct=conduct)
        self._busy = app.busy_frames
        self._screen = app.screen
        self._digest()

    # ---- the follower -----------------------------------------------------------------
    def _follow(self, now, local):
        lk = self.link
        pend = self._pending(local)
        b = bytearray()
        i = 0
        while i < len(pend):
            e = pend[i]
            b.append(80)
            _put32(b, e[0])
            b.append(e[2] if isinstance(e[2], int) else _code(e[2]))
            b.append(1 if e[3] else 0)
            i += 1
            if len(b) > 180:
                lk.send(b)
                del pend[:i]         # sent: not again
                i = 0
                b = bytearray()
        # Every press touched before `now` is in this message or an earlier one.
        b.append(84)
        _put32(b, now)
        lk.send(b)
        del pend[:]
        lk.flush(now)                # on the line before this step's drawing
        drew = self._play_stream(now, False)
        if not drew and self.mode == PLAYING:
            drew = self.app.draw_on()
        return drew

    def _pending(self, local):
        """This device's presses not yet taken in: those of a step that ran out of
        heap before it took them, then this step's."""
        pend = self._unsent
        if not pend:
            self._unsent = local
            return local
        pend.extend(local)
        return pend

    def _take(self):
        """The message in hand, else the next one the link received (or None)."""
        m = self._msg
        if m is None:
            m = self.link.recv()
            if m is not None:
                self._at = 0
                self._logged = False
                self._msg = m
        return m

    def _play_stream(self, now, start_only):
        """The follower: keep and play the authority's messages (in the lobby only a
        game's start); True if the app drew."""
        drew = False
        while True:
            m = self._take()
            if m is None:
                break
            if start_only and self.mode != PLAYING and not (m and m[0] == 83):
                self._msg = None
                continue
            if not self._logged:
                if _kept(m):
                    self.log.append(m)
                self._logged = True
            if self._apply(m, now):
                drew = True
            self._msg = None
        return drew

    def _apply(self, m, now):
        """Play a stream message from the record at self._at on; True if the app drew.
        Each record counts as played only once it is (self._at moves past it): out of
        heap, the rest of the message is played at the next step."""
        app = self.app
        drew = False
        n = len(m)
        while self._at < n:
            i = self._at
            k = m[i]
            if k == 69 and i + 8 <= n:                           # E
                self._evs.append((_u32(m, i + 1), m[i + 5], m[i + 6], m[i + 7]))
                self._at = i + 8
            elif (k == 70 or k == 72) and i + 7 <= n:            # F, H
                t = _u32(m, i + 1)
                if self._mid != _BEGUN:
                    tb = app.table
                    if tb is not None and isinstance(tb.arbiter, LinkArbiter):
                        tb.arbiter.bound_us = (m[i + 5] << 8) | m[i + 6]
                    inp = self._inp
                    inp.events = self._evs
                    self._evs = []
                    app.ports.input = inp
                    again = False
                else:
                    again = True
                self._mid = _BEGUN
                if app.step_whole(t, again):
                    drew = True
                self._mid = 0
                self.game_t = t
                self._at = i + 7
            elif k == 68 and i + 6 <= n:                         # D
                rnd = (m[i + 1] << 8) | m[i + 2]
                d = (m[i + 3] << 16) | (m[i + 4] << 8) | m[i + 5]
                g = app.game
                if g is None or g.round != rnd or g.digest() != d:
                    if self.diverged < 0:
                        self.link.send(bytes((88, (rnd >> 8) & 0xFF, rnd & 0xFF)))
                        self.diverged = rnd
                self._at = i + 6
            elif k == 87 and i + 2 <= n:                         # W
                self._set_authority_player(m[i + 1])
                self._at = i + 2
            elif k == 83 and i + 11 <= n:                        # S: the rest is its own
                self._start_from(m, i, now)
                self._at = n
                return True
            else:
                self._at = n
                return drew                                      # not ours: skip it
        return drew

    def _set_authority_player(self, p):
        self.remote = 1 - p
        me = 1 - p
        tb = self.app.table
        if tb is not None and isinstance(tb.arbiter, LinkArbiter):
            tb.arbiter.remote = self.remote
        if me != self.me:
            self.me = me
            if self.mode == PLAYING:
                self._face()

    def _start_from(self, m, i, now):
        app = self.app
        t = _u32(m, i + 1)
        seed = _u32(m, i + 5)
        flags = m[i + 9]
        self._set_authority_player(m[i + 10])
        j = i + 11
        target = _TARGET
        if flags & 4 and j + 2 <= len(m):
            target = (m[j] << 8) | m[j + 1]
            j += 2
        conduct = None
        try:
            conduct = Conduct.parse(bytes(m[j:]).decode().split()[1:])
        except (ValueError, UnicodeError):
            conduct = None
        self._forget()
        self.log.append(m)
        self._evs = []
        self.diverged = -1
        self.leading = False
        self.mode = PLAYING
        self._face()
        app.ports.input = self._inp
        app.new_series()
        app.start_game(seed & _MASK, _rules(flags, target), (None, None), t, conduct=conduct)

    # ---- link down, back up -------------------------------------------------------------
    def _lost(self, now, local):
        """The link is down mid-game: LINK LOST, nothing moves. After LEAVE_US more the
        player may give up on it (A): a press in the heat of the game does not."""
        if self.link.authority and self.paused_at is None:
            self.paused_at = now
        if not self._lost_shown:
            self._lost_shown = True
            self._lost_t = now
            self._lost_leave = False
            self._banner("LINK LOST", "CHECK THE CABLE")
            return True
        if not self._lost_leave:
            if ticks_diff(now, self._lost_t) < LEAVE_US:
                return False
            self._lost_leave = True
            self._banner("LINK LOST", "A: LEAVE")
            return True
        for e in local:
            if e[3] and (e[2] == A or e[2] == "A") and ticks_diff(e[0], self._lost_t) >= LEAVE_US:
                self.close(e[0])
                return True
        return False

    def _out_of_step(self, now, local):
        """The two games differ (a digest did not match): say so on both, play no more
        of it; A leaves link play."""
        if self.link.authority:
            self._msg = None
            while self.link.recv() is not None:
                pass
        for e in local:
            if e[3] and (e[2] == A or e[2] == "A"):
                self.close(e[0])
                return True
        if self._step_shown:
            return False
        self._step_shown = True
        self._banner("OUT OF STEP", "ROUND %d  A: LEAVE" % self.diverged)
        return True

    def _resume(self, now):
        if self.paused_at is not None:
            # The game's clock leaves out the time the link was down.
            self.base = (self.base + ticks_diff(now, self.paused_at)) & _MASK
            self.paused_at = None
        self._flushed_t = now
        self.app.view.invalidate()
        self.app.touch()

    def _banner(self, l1, l2):
        v = self._real_view
        x = 8
        v.fill_rect(x, 18, W - 2 * x, 28, 0, 0)
        v.rect(x, 18, W - 2 * x, 28, 1, 0)
        v.med_centred(l1, 22, 1, 0)
        v.med_centred(l2, 34, 1, 0)
        self._real_display.show()
        v.clear_spans()

    # ---- the lobby: the link-health screen --------------------------------------------
    def _lobby(self, now, local):
        lk = self.link
        for e in local:
            if not e[3]:
                continue
            code = e[2] if isinstance(e[2], int) else _code(e[2])
            if code == A:
                self.close(e[0])
                return True
            if code == B and lk.authority and lk.state == LINKED and lk.sync.synced():
                self.start(now)
                return True
        if not lk.authority:
            # The follower's lobby: the authority's start comes as a message.
            self._play_stream(now, True)
            if self.mode == PLAYING:
                return True
        else:
            self._msg = None
            while lk.recv() is not None:
                pass                  # presses from a lobby: nothing to play yet
        return self._draw_lobby(now)

    def ask(self, now):
        """The authority's press waits for the guest's word that nothing touched before
        it is still to come (R43). The guest says so once a step, up to a frame away:
        asked now (the loop asks as soon as the press is in, before its window has
        passed), the press is decided within a round trip, not a frame."""
        lk = self.link
        if self._asked or self.mode != PLAYING or not lk.authority or lk.state != LINKED:
            return
        self._asked = True
        lk.send(b"Q")
        lk.flush(now)

    def guest_playing(self):
        """This device is the guest of a linked game in play: its presses are decided
        by the authority, so they go there at once (R43)."""
        return self.mode == PLAYING and not self.link.authority and self.link.state == LINKED

    def news(self):
        """Has the link brought what the next step should take at once, not a frame
        later: a press of the follower's, or the T asked for (on the authority), the
        game's next frames (on the follower)? Each hop of a linked press then costs a loop pass, not a frame."""
        inbox = self.link.inbox
        if not inbox or self.mode != PLAYING:
            return False
        if not self.link.authority:
            return True
        for m in inbox:
            if m and (m[0] == 80 or self._asked):        # P: a press; or the T we asked for
                return True
        return False

    def lines(self):
        """The link-health screen's four lines (also for hosts and tests): what the
        link is doing, the round trip and the sync's bound, the peer, the buttons."""
        lk = self.link
        st = lk.state
        if st == INCOMPATIBLE:
            return ("OTHER VERSION %d" % lk.peer_version, "PLAYING ALONE", "", "A: BACK")
        if st == LOOPED:
            return ("CABLE LOOPED BACK", "LOOPBACK TEST OK", "", "A: BACK")
        if lk.peer_uid is None:
            if lk.dec.bad:
                # Bytes come but no frame is whole: a floating RX, a peer at another
                # baud rate, a wire loose.
                return ("NOISE ON THE CABLE", "%d BAD FRAMES" % lk.dec.bad,
                        "CHECK WIRING AND BAUD", "A: BACK")
            # Nothing at all comes: no cable, or TX wired to TX (each RX hears nothing).
            return ("LOOKING FOR PEER", "CONNECT THE CABLE", "TX TO RX, RX TO TX", "A: BACK")
        s = lk.sync
        peer = "PEER %s  RESENT %d" % (lk.peer_name(), lk.resends)
        if st != LINKED:
            return (lk.state_name(), "", peer, "A: BACK")
        if not lk.authority:
            return ("LINKED AS GUEST", "", peer, "WAITING FOR HOST")
        if not s.synced():
            return ("SYNCING CLOCKS", "", peer, "A: BACK")
        rtt = s.rtt_last
        return ("RTT %d.%d MS" % (rtt // 1000, rtt % 1000 // 100),
                "CLOCKS +-%d US" % s.bound_at(self.clock.ticks_us()), peer,
                "B: START  A: BACK")

    def _draw_lobby(self, now):
        ls = self.lines()
        key = ls
        if key == self._shown_key:
            return False
        self._shown_key = key
        v = self._real_view
        v.fill_rect(0, 0, W, H, 0, 0)
        v.big_centred("LINK", 0, 1, 0)
        y = 14
        for k in range(3):
            v.med_centred(ls[k], y, 1, 0)
            y += 11
        v.med_centred(ls[3], 56, 1, 0)
        self._real_display.show()
        v.clear_spans()
        v.invalidate()
        return True

    # ---- this player's side, upright ---------------------------------------------------
    def _face(self):
        """Player 1's device shows the game turned: its own cards at the bottom."""
        self._unface()
        if self.me != 1:
            return
        app = self.app
        self._facing = face.FacingDisplay(self._real_display, app.screen_name)
        app.ports.display = self._facing
        app.view = View(self._facing.fb)
        app._show_spans = True

    def _unface(self):
        if self._facing is None:
            return
        app = self.app
        self._facing = None
        app.ports.display = self._real_display
        app.view = self._real_view
        app._show_spans = hasattr(self._real_display, "show_spans")
        app.view.invalidate()


def _frame(kind, t, bound):
    r = bytearray(kind)
    _put32(r, t)
    r.append(bound >> 8)
    r.append(bound & 0xFF)
    return r


def _kept(m):
    # An H message (the authority sends it alone) changes nothing, and a Q is a
    # question outside the game: neither is kept.
    return len(m) > 0 and m[0] != 72 and m != b"Q"


def _rules(flags, target):
    return Rules(points=bool(flags & 1), manual_flip=bool(flags & 2),
                 target=target if target >= 1 else _TARGET)


# A port may name its buttons (firmware/app.py's BUTTON_CODES; not imported: the app
# imports this module).
_NAMED = {"LEFT": LEFT, "RIGHT": RIGHT, "UP": UP, "DOWN": DOWN, "PAUSE": PAUSE_BUTTON}


def _code(b):
    if b in BUTTON_NAMES:
        return BUTTON_NAMES.index(b)
    return _NAMED.get(b, -1)
