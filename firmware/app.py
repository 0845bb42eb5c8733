# The handheld's program, independent of hardware (DESIGN.md "ports"). It is given
# plain port objects and stepped by whoever owns the loop:
#
#   app = App(Ports(input, display, sound, storage))
#   while True:
#       app.step(clock.ticks_us())
#
# step(now_us) never blocks: it drains the input, sorts the button events by their
# touch stamps (R19) and routes each press to the current screen, lets the screen's
# timers run, redraws what changed, starts a sound and, in the right frame, saves.
# It never imports machine, framebuf or pygame.
#
# This file is the loop and the routing; every screen is a small module of its own
# (firmware/screens/: title, game, summary, over, pause, attract, how to play,
# rematch) and the game in play is a firmware.table.Table.
#
# Ports:
#   input.drain([out]) -> [(t_us, player, button, down)], button "A"/"B"/"L"/"R"/"U"/"D"
#                         or the Pad's int codes; optional input.dropped (overflows)
#   display.fb          framebuf-compatible 128x64 MONO_VLSB; display.show(), and
#                         optionally display.show_spans(spans) to send only what changed
#   sound.play(tune)    a tune of firmware.sound, non-blocking (optional port)
#   storage.load() -> dict or None; storage.save(dict)   (atomic; optional port)
#   link                the cable to a second handheld (optional port): its contract is
#                         firmware/link/port.py; with it the menu offers LINK PLAY

import gc

from shared_rules.game import Game
from shared_rules.arbiter import ticks_diff, ticks_add
from shared_rules.pad import TWO_BUTTON
from shared_rules.conduct import Conduct, SLAP_LIMIT_US
from firmware import sound, texts
from firmware.view import View
from firmware.records import Recording
from firmware.seats import HumanSeat
from firmware.stats import Stats
from firmware.table import Table
from firmware import screens as _screens
from firmware.screens import (TITLE, GAME, SUMMARY, OVER, PAUSE, ATTRACT, HOWTO, REMATCH,
                              LAB, NAMES, DEMO_LEVELS, A, B, LEFT, RIGHT, UP, DOWN,
                              PAUSE_BUTTON)
from firmware.screens.game import GameScreen

from shared_rules.compat import const

OVER_SCREEN = OVER                 # the names the tests and tools know
SCREEN_NAMES = NAMES

# Times (us).
FRAME_US = const(33333)            # the device's frame: 30 a second (<= 4 pages a frame)
WINDOW_US = const(2000)            # the arbiter's first-touch window (R18-R19)
# A save (a flash erase stalls the interrupts that stamp presses, for tens to
# hundreds of ms) waits until no race can still be decided: past the window in which
# a slap still counts as having lost the race to the decisive one (R20, R26).
SAVE_DELAY_US = const(400000)
# Bytes of replay a game may hold in the heap on the device (about 5100 records). A
# storage port that keeps recordings (firmware/hw/storage.py on flash) takes the full
# chunks between rounds, so only the round in play is in the heap and a game of any
# length is recorded whole (R40); without one the recording stops here and the game
# goes on. Hosts with room set their own (the emulator records whole games in memory).
RECORD_LIMIT = const(16384)
# What a frame that ran out of heap says (the app collects and carries on).
LOW_MEMORY = ("LOW", "MEMORY")

# Button names the ports may use, to the pad's codes (the letters: shared_rules.pad).
BUTTON_CODES = {"A": A, "B": B, "L": LEFT, "R": RIGHT, "U": UP, "D": DOWN,
                "LEFT": LEFT, "RIGHT": RIGHT, "UP": UP, "DOWN": DOWN, "PAUSE": PAUSE_BUTTON}
_NO_SEATS = (HumanSeat(0), HumanSeat(1))


class Ports:
    def __init__(self, input, display, sound=None, storage=None, clock=None, link=None):
        self.input = input
        self.display = display
        self.sound = sound
        self.storage = storage
        self.clock = clock
        self.link = link             # the cable to another handheld (firmware/link/port.py)


def _code(b):
    if isinstance(b, int):
        return b
    return BUTTON_CODES.get(b, -1)


def _before(a, b):
    """Event a sorts before event b: by stamp (R19), then player, then button (a fixed
    order for equal stamps, which the arbiter treats as a tie anyway, R21)."""
    d = ticks_diff(a[0], b[0])
    if d:
        return d < 0
    if a[1] != b[1]:
        return a[1] < b[1]
    return _code(a[2]) < _code(b[2])


class App:
    table_kind = Table               # link play gives its own (firmware/link/play.py)

    def __init__(self, ports, scheme=TWO_BUTTON, slap_limit_us=SLAP_LIMIT_US,
                 window_us=WINDOW_US, now_us=0, record_limit=RECORD_LIMIT, defaults=None,
                 hint=None, house=None):
        """defaults: the settings for a first start (savegame.default_settings() if
        None: two players, standard rules); the emulator starts against the CPU.
        hint: the title screen's line on the buttons (the emulator names its keys).
        house: a house-rules file's text (firmware/house.py); None: the file beside
        the storage port's, if there is one."""
        self.ports = ports
        self.on_cpu_press = None         # a host's hook(t, player, button): a CPU pressed
        self.linkplay = None             # a linked game's conduct (firmware/link/play.py)
        self._wake = None                # the menu listening on the cable
        self.hint = hint                 # None: the title screen's own
        self.defaults = _savegame().settings_from(defaults) if defaults is not None else None
        if defaults is not None and self.defaults is None:
            raise ValueError("bad default settings: %r" % (defaults,))
        self.scheme = scheme
        self.slap_limit_us = slap_limit_us
        self.window_us = window_us
        self.record_limit = record_limit
        self.view = View(ports.display.fb)
        self._show_spans = hasattr(ports.display, "show_spans")
        self._has_dropped = hasattr(ports.input, "dropped")
        self._dropped_seen = ports.input.dropped if self._has_dropped else 0
        self._drain_out = True
        self._evs = []
        self.now = now_us
        # Counters for tools and tests.
        self.frames = 0
        self.busy_frames = 0
        self.shows = 0
        self.pages_sent = 0
        self.bytes_sent = 0
        self.dropped = 0
        self.save_errors = 0
        self.mem_errors = 0              # frames or screens that ran out of heap
        self.last_pages = 0
        # The match: the game in play (None until one starts) and what goes with it.
        self.game = None
        self.table = None
        self.cpu = [None, None]
        self.conduct = None              # the game's conduct (R41, R44, R26)
        self.stats = Stats()
        self.series = [0, 0]             # games won in this run of rematches
        self.series_draws = 0
        self.replay = None               # the current (or last) game's recording
        self.replay_snapshot = None      # the saved game a resumed recording starts from
        self._kept = None                # a saved game kept while another is played
        self._rec = False                # recording: from start_game until the title
        # Frames that only draw (a spread redraw going on, a timer's message or bar)
        # or follow a save are recorded too: how much of a change a frame draws
        # depends on what else it draws (view.DRAW_BUDGET), so a replay steps every
        # frame that drew, to draw the same pictures in the same frames; a linked game
        # records only the frames that change the state, which both devices share
        # (each device draws its own side, R43).
        self.record_redraws = True
        # Link play's: called with "the state changed" once a frame's outcome is known,
        # before its picture is drawn and sent (the guest's copy need not wait for it).
        self.before_draw = None
        self._save_at = None             # a save waiting for its frame (SAVE_DELAY_US)
        self._saved_now = False          # a save ran in this frame: draw in the next
        self._started_now = False        # a game began in this frame: draw in the next
        self.start_t = 0                 # when the game began: its recording's first frame
                                         # (a replay steps that frame again: the same)
        self.draw_owed = False           # the last step left its drawing to the next
        # Buttons held, per player (for the pause hold): a bit per button code, when A
        # and B went down, and whether the current hold already paused.
        self.down = [0, 0]
        self.down_t = [[0, 0], [0, 0]]
        self.hold_used = [False, False]
        self._tune = None
        self._text_key = 0
        # Settings and the saved game.
        self.saved = None
        self.note = ""
        self.target = 100                # R37's target for a points game
        self.link_cpu = 0                # link play: the CPU level of this device's player
        self._load()
        self._house(house)
        # The screens, by number; the ones in screens.LAZY only while shown.
        self.screens = [None] * len(NAMES)
        self.screens[GAME] = GameScreen(self)
        self.screen = TITLE
        self.cur = self._screen(TITLE)
        self.cur.enter(now_us)

    # ---- the loop ---------------------------------------------------------------------
    def step(self, now_us):
        """One non-blocking iteration; returns True if the display was updated."""
        if self.linkplay is not None:
            try:
                return self.linkplay.step(now_us)
            except MemoryError:
                # Link play's own allocations (a message, a block of the kept stream)
                # or a step of the game that ran out of heap twice: collect and say
                # so, as for a frame of the app's; link play goes on where it stopped
                # at its next step, nothing received, recorded or pressed lost.
                self._low_memory(now_us)
                return False
        link = getattr(self.ports, "link", None)
        if link is not None and (self.screen == TITLE or self.screen == ATTRACT):
            # The other handheld calls (it restarted us mid-game, or its player chose
            # LINK PLAY first): join it.
            if self._wake is None:
                from firmware.link.wake import Wake
                self._wake = Wake()
            if self._wake.heard(link):
                return self.link_play(now_us).step(now_us)
        return self.step_alone(now_us)

    def prepare(self):
        """Between frames (the device's loop, when the chip is idle): work that the
        next step would do, done ahead where that changes nothing (the CPU players'
        next look, firmware.table.Table.prepare)."""
        if self.screen == GAME and self.table is not None:
            self.table.prepare()

    def link_play(self, now_us):
        """Start link play (the menu's LINK PLAY): the lobby, then a linked game."""
        from firmware.link.play import LinkPlay
        self.linkplay = LinkPlay(self, now_us)
        return self.linkplay

    def step_alone(self, now_us):
        """One step of this app by itself (link play's steps: step_whole)."""
        self._begin_step(now_us)
        return self._end_step(now_us, False)

    def step_whole(self, now_us, again=False):
        """A step that must be taken whole (link play: both handhelds take every step
        of the game, or their games part). Out of heap twice, MemoryError goes out and
        the step stands half taken; step_whole(now_us, again=True) takes the rest of it
        later, its events neither lost nor handled twice."""
        if not again:
            self._begin_step(now_us)
        return self._end_step(now_us, True)

    def _begin_step(self, now_us):
        self.now = now_us
        self.frames += 1
        self._saved_now = False          # a save made between steps is no frame's
        if self._started_now and now_us != self.start_t:
            self._started_now = False    # a game begun between steps: draw it now
        self._state = False
        self._next = -3                  # the frame's events are not drained yet

    def _end_step(self, now_us, whole):
        # Out of heap (a fragmented heap has no block for a screen's code, a CPU's
        # plan, a save): collect, then the rest of the frame again, and say so; never
        # an exception out of the loop, which would reset the board.
        try:
            return self._frame(now_us)
        except MemoryError:
            self._low_memory(now_us)
        try:
            return self._frame(now_us)
        except MemoryError:
            if whole:
                raise                    # (step() says it)
            self._low_memory(now_us)
            return False

    def _low_memory(self, now):
        gc.collect()
        self.mem_errors += 1
        self.note = "LOW MEMORY"
        self.touch()
        if self.table is not None and self.screen == GAME:
            try:
                for p in (0, 1):
                    self.table.flash(p, LOW_MEMORY, True, now)
            except MemoryError:
                pass

    def _frame(self, now_us):
        if self._next < 0:
            self._collect(now_us)
            self._check_dropped(now_us)
            self._next = 0
        evs = self._evs
        while self._next < len(evs):
            e = evs[self._next]
            # Taken before it is handled: a press that runs out of heap half-way is
            # not handled twice when the frame is tried again.
            self._next += 1
            down = bool(e[3])
            self._event(e[0], e[1], _code(e[2]), down)
            if down:
                # A release only updates which buttons are held (for the pause hold,
                # which compares stamps): replayed with the next recorded frame, before
                # that frame's timers, it changes nothing, so its frame need not be kept.
                self._state = True
        state = self._state
        if self.cur.tick(now_us):
            state = True
            self._state = True
        if self._save_at is not None and self.screen != GAME and \
                ticks_diff(now_us, self._save_at) >= 0:
            self._save_at = None
            self._save()
        if self.before_draw is not None:
            self.before_draw(state)
        # A frame that goes on with a redraw spread over frames (view.DRAW_BUDGET) is
        # recorded too, so a replay draws the same pictures in the same frames.
        going_on = self.view.behind
        saved = self._saved_now
        self.draw_owed = saved or self._started_now
        if self.draw_owed:
            # This frame wrote flash (tens of ms on the device), or began a game (whose
            # recording starts after it): what it would draw (a whole new screen,
            # mostly) comes in the next step, not on top of it.
            self._saved_now = self._started_now = False
            drew = False
        else:
            drew = self._draw()
        if self._tune is not None:
            s = self.ports.sound
            if s is not None and self.settings["sound"] and self.screen != ATTRACT:
                s.play(self._tune)
            self._tune = None
        if state:
            self.busy_frames += 1
        if state or (self.record_redraws and (drew or going_on or self.view.behind or saved)):
            if self._rec:
                # Frames that neither changed the state nor drew are left out: every
                # timer they could have fired is a pure function of the clock, caught
                # up at the next recorded frame, and they changed no pixel.
                self.replay.frame(now_us)
        return drew

    def _collect(self, now):
        # In stages (_next -3, -2, -1), so that a frame tried again after running out
        # of heap neither drains nor filters twice: what was drained stays, and the CPU
        # presses a poll already gave are not filtered out.
        evs = self._evs
        if self._next == -3:
            evs.clear()
            inp = self.ports.input
            if self._drain_out:
                try:
                    inp.drain(evs)
                except TypeError:      # a port whose drain() takes no list
                    self._drain_out = False
            if not self._drain_out:
                got = inp.drain()
                if got:
                    evs.extend(got)
            self._next = -2
        if self._next == -2 and self.screen == GAME:
            # A CPU seat's buttons are its own: ignore the hardware's for that player.
            seats = self.table.seats
            k = 0
            for e in evs:
                if e[1] in (0, 1) and seats[e[1]].human:
                    evs[k] = e
                    k += 1
            while len(evs) > k:
                evs.pop()
        self._next = -1
        if self.screen == GAME:
            self.table.poll(now, evs, self.on_cpu_press)
        # Insertion sort by touch time (few events a frame; stable; no allocation).
        for i in range(1, len(evs)):
            e = evs[i]
            j = i
            while j > 0 and _before(e, evs[j - 1]):
                evs[j] = evs[j - 1]
                j -= 1
            evs[j] = e
        return evs

    def _check_dropped(self, now):
        if not self._has_dropped:
            return False
        d = self.ports.input.dropped
        if d == self._dropped_seen:
            return False
        # The input ring overflowed: some presses were lost. Say so (DESIGN.md).
        self.dropped += (d - self._dropped_seen) if d > self._dropped_seen else d
        self._dropped_seen = d
        self.want(sound.WARN)
        if self.table is not None and self.screen == GAME:
            for p in (0, 1):
                self.table.flash(p, texts.INPUT_LOST, True, now)
        self.note = "INPUT LOST: %d" % self.dropped
        self.touch()
        return True

    # ---- events and routing -------------------------------------------------------------
    def _event(self, t, p, code, down):
        if p not in (0, 1) or code < 0:
            return
        if self._rec:
            self.replay.button(t, p, code, down)
        self._track_hold(t, p, code, down)
        if down:
            self.cur.press(t, p, code)

    def route(self, t, p, code):
        """Hand a press to the current screen (after a screen changed under it)."""
        self.cur.press(t, p, code)

    def _track_hold(self, t, p, code, down):
        if code != A and code != B:
            return
        bit = 1 << code
        if down:
            self.down[p] |= bit
            self.down_t[p][code] = t
        else:
            self.down[p] &= ~bit
            self.hold_used[p] = False

    def go(self, screen, t):
        """Show another screen."""
        leave = getattr(self.cur, "leave", None)
        if leave is not None:
            leave()
        old = self.screen
        if old != screen and old in _screens.LAZY:
            self._unload(old)
        if screen == GAME:
            self.flush_save()            # a round boundary is saved before play goes on
        self.screen = screen
        self.cur = self._screen(screen)
        self.cur.enter(t)
        self.touch()

    def _screen(self, n):
        s = self.screens[n]
        if s is None:
            try:
                s = self._import(n)
            except MemoryError:
                # No block for the module's code: collect and try again; failing that,
                # say so and keep trying each frame (_LowMemory) rather than reset.
                gc.collect()
                try:
                    s = self._import(n)
                except MemoryError:
                    self.mem_errors += 1
                    return _LowMemory(self, n)
            self.screens[n] = s
        return s

    def _import(self, n):
        import sys
        name = _screens.LAZY[n]
        try:
            return __import__("firmware.screens." + name, None, None, (name,)).SCREEN(self)
        except MemoryError:
            sys.modules.pop("firmware.screens." + name, None)    # half imported
            raise

    def _unload(self, n):
        # Let the heap have the screen's code back (MicroPython frees a module no one
        # refers to any more).
        import sys
        self.screens[n] = None
        name = _screens.LAZY[n]
        sys.modules.pop("firmware.screens." + name, None)
        if hasattr(_screens, name):
            delattr(_screens, name)
        if n == TITLE:
            _drop_savegame()             # its menu's, loaded again for a save

    def touch(self):
        """What a text screen shows has changed: draw it again."""
        self._text_key += 1

    def want(self, tune):
        cur = self._tune
        if cur is None or sound.PRIORITY[tune[0]] > sound.PRIORITY[cur[0]]:
            self._tune = tune

    # ---- the match ----------------------------------------------------------------------
    def start_game(self, seed, rules, cpu=(None, None), now_us=0, snapshot=None, stats=None,
                   game=None, fumble_ms=None, conduct=None, keep_saved=False, linked=False):
        """Start a game (from the menu, a test or a replay). cpu[p] is None for a human
        or the CPU level 1-3 (easy, normal, hard). With snapshot (a Game.snapshot()
        taken between rounds), resume that game instead of dealing a new one; with
        game (a Game, e.g. Game.from_layout for a test or a puzzle), play that one. A
        recording of a resumed or given game starts from replay_snapshot. conduct: the
        device's conduct (shared_rules.conduct.Conduct; a replay gives its own); None:
        the settings' fumble time (or fumble_ms) and slap signal, R41 and R44.
        keep_saved: a saved game in storage is the player's, kept as it is while this
        game is played and after it (a host that starts a game without the menu, unless
        the player said to replace it); the menu's START and CONTINUE replace it.
        linked: a replay of a linked game's recording, whose presses carry the bounds it
        recorded (R43, link_bound())."""
        if game is not None:
            snapshot = game.snapshot()
        if snapshot is not None:
            game = Game.restore(snapshot)
        else:
            game = Game(seed, rules)
        self._save_at = None
        self.release_last_game()
        self._kept = self.saved if keep_saved else None
        if conduct is None:
            conduct = self.settings_conduct(fumble_ms)
        self.conduct = conduct
        self.game = game
        self.cpu = [cpu[0], cpu[1]]
        self.stats = Stats.from_list(stats) if stats is not None else Stats()
        self.table = self.table_kind(game, self.cpu, self.scheme, self.window_us, conduct,
                                     self.stats, self.want, now_us)
        if linked:
            from firmware.link.arbiter import LinkArbiter
            self.table.arbiter = LinkArbiter(game, self.window_us, 1, self.note_bound)
        st = self.ports.storage
        self.replay = Recording(game.seed, game.rules, self.record_limit,
                                st if getattr(st, "recording", False) else None)
        self.replay.conduct = conduct
        self.replay_snapshot = snapshot
        self.replay.frame(now_us)        # first record: when the game started
        self._rec = True
        self._save()                     # a round boundary (R27-R28): resumable from here
        self.go(GAME, now_us)
        self._saved_now = False
        self._started_now = True
        self.start_t = now_us

    def note_bound(self, player, us):
        """R43: from this frame on, the presses of `player` were queued with this bound
        (their stamps converted from a linked handheld's clock): recorded, so that the
        recording replayed alone ties the same presses (R40)."""
        if self._rec:
            self.replay.bound(self.now, player, us)

    def link_bound(self, player, us):
        """Replaying a linked game (start_game(linked=True)): the bound its recording
        gives the presses of `player` in the frame about to be stepped (R43)."""
        arb = self.table.arbiter
        arb.remote = player
        arb.bound_us = us

    def settings_conduct(self, fumble_ms=None):
        """The conduct the settings choose: their fumble time (R41; or fumble_ms) and
        slap signal (R44), and this app's slap time limit (R26)."""
        s = self.settings
        return Conduct(s["fumble"] * 1000 if fumble_ms is None else fumble_ms * 1000,
                       signal=s["signal"], limit_us=self.slap_limit_us)

    def release_last_game(self):
        """Let the heap have the finished game back (before another one is made)."""
        if not self._rec:
            self.game = None
            self.table = None
            self.replay = None
            self.replay_snapshot = None

    def round_over(self, t):
        """The table says the round (or the game) is over."""
        g = self.game
        self.table.ended = False
        if self._rec:
            # What a replay must reach here (R40): checked by the host that replays it.
            self.replay.digest(t, g.last_round["round"], g.digest())
        if g.phase == "over":
            if g.winner is None:
                self.series_draws += 1
            else:
                self.series[g.winner] += 1
            self.want(sound.WIN if g.winner is not None else sound.DRAW)
            self.go(OVER, t)
        else:
            self.want(sound.ROUND_OVER)
            self.go(SUMMARY, t)
        # Between rounds only, never during play, and not in this frame: the losing
        # slap may still be on its way (R20, R26), and a flash erase stalls interrupts.
        self._save_at = ticks_add(t, SAVE_DELAY_US)

    def new_series(self):
        self.series[0] = self.series[1] = 0
        self.series_draws = 0

    def rematch(self, t):
        """The same settings again: the same rules, seats and conduct."""
        g = self.game
        self.flush_save()
        self.start_game(t & 0x3FFFFFFF, g.rules, self.cpu, t, conduct=self.conduct)

    def to_title(self, t):
        self.flush_save()
        self._rec = False
        self._load()
        self.go(TITLE, t)

    # ---- storage ------------------------------------------------------------------------
    def _load(self):
        st = self.ports.storage
        data = None
        msg = None
        if st is not None:
            try:
                data = st.load()
            except Exception:            # a port must not crash the app: defaults
                data = None
                msg = "SAVED DATA UNREADABLE"
            if msg is None:
                msg = getattr(st, "message", None)
        s, saved, why = _savegame().unpack(data, self.defaults)
        self.settings = s
        self.saved = saved
        self.note = why or msg or ""

    def _house(self, text):
        """The house rules, once at power-up: they set the menu's settings (the menu
        can still change them) and the points target. A bad file changes nothing and
        the title says which line (house_error: the whole line, for a host)."""
        import sys
        from firmware import house
        rules, err = house.load(self.ports.storage, text)
        self.storage_note = self.note    # what the save file said, for a host's report
        # Read once: the heap has the reader's code back (as a screen's, _unload).
        sys.modules.pop("firmware.house", None)
        self.house_error = None if err is None else str(err)
        if err is not None:
            self.note = err.note
            return
        for key in rules:
            if key == "target":
                self.target = rules[key]
            elif key == "link_cpu":
                self.link_cpu = rules[key]
            else:
                self.settings[key] = rules[key]
        if rules and not self.note:      # a storage problem says more
            self.note = "HOUSE RULES ON"

    def flush_save(self):
        """Do a waiting save now (leaving the screens where it was due)."""
        if self._save_at is not None:
            self._save_at = None
            self._save()

    def _save(self):
        """At a round boundary (a fresh deal, the only game state ever saved: flash
        writes stall interrupts, so never during play) or at game over (clears it)."""
        g = self.game
        kept = self._kept
        pack = _savegame().pack
        if kept is not None:
            # A game the player did not choose to replace stays saved.
            self._write(pack(self.settings, kept["game"], kept["cpu"], kept["stats"]))
        elif g is None or g.phase == "over":
            self._write(pack(self.settings))
        elif g.phase == "ready" and not g.piles and not g.said[0] and not g.said[1]:
            self._write(pack(self.settings, g, self.cpu, self.stats.to_list()))
        # else: a game set up mid-round (tests, puzzles) is not resumable
        if self.screen != TITLE:
            # Saves come once a round: between them its code need not be on the heap
            # (the title screen's menu uses it too, so it stays while that is shown).
            _drop_savegame()
        if self._rec:
            # The same moment suits the recording: the rounds played so far go to
            # flash, and the heap keeps only the round to come (R40).
            self.replay.records.spill()
        if self.linkplay is not None:
            self.linkplay.spill()      # and a linked game's stream, kept for a rejoin

    def save_settings(self):
        """On the title screen: the settings, keeping the resumable game as it was."""
        sv = self.saved
        pack = _savegame().pack
        if sv is None:
            self._write(pack(self.settings))
        else:
            self._write(pack(self.settings, sv["game"], sv["cpu"], sv["stats"]))

    def _write(self, d):
        self._saved_now = True
        st = self.ports.storage
        if st is None:
            return
        try:
            st.save(d)
        except Exception:
            # Flash full or failing: play on, say so on the title screen.
            self.save_errors += 1
            self.note = "COULD NOT SAVE"

    # ---- drawing ------------------------------------------------------------------------
    def draw_on(self):
        """Between steps (link play's guest, whose steps are the host's): the rest of a
        redraw spread over steps (view.DRAW_BUDGET), or the picture a step left owed,
        drawn from the state as it stands; nothing of the game changes. True if drawn.
        Without it the guest's picture waited for the host's next frame (up to 100 ms a
        share) and its loop stepped every 2 ms meanwhile, asking for the rest."""
        if not (self.view.behind or self.draw_owed):
            return False
        self.draw_owed = False
        return self._draw()

    def _draw(self):
        if self.cur.draw(self.view, self._text_key):
            self._show()
            return True
        return False

    def _show(self):
        v = self.view
        d = self.ports.display
        n = 0
        nb = 0
        s = v.spans
        for p in range(8):
            if s[2 * p] <= s[2 * p + 1]:
                n += 1
                nb += s[2 * p + 1] - s[2 * p] + 1
        self.last_pages = n
        self.pages_sent += n
        self.bytes_sent += nb
        self.shows += 1
        if self._show_spans:
            d.show_spans(s)
        else:
            d.show()
        v.clear_spans()

    # ---- for tests, tools and hosts -----------------------------------------------------
    def screen_name(self):
        return NAMES[self.screen]

    @property
    def title(self):
        """The title screen (its menu), loaded if it is not on screen."""
        return self._screen(TITLE)

    def menu_items(self):
        return self.title.items()

    def menu_text(self, item):
        return self.title.text(item)

    @property
    def seats(self):
        """The seats of the game on screen (the attract mode's demo included)."""
        if self.screen == ATTRACT and self.cur.table is not None:
            return self.cur.table.seats
        return self.table.seats if self.table is not None else _NO_SEATS

    @property
    def pads(self):
        return self.table.pads if self.table is not None else None

    @property
    def arbiter(self):
        return self.table.arbiter if self.table is not None else None

    @property
    def msgs(self):
        return self.table.msgs if self.table is not None else None

    def seat_levels(self):
        """Who plays each side of what is on screen, for a host's labels: the CPU
        level 1-3 or None for a person; on the menu, the mode it would start, or with
        CONTINUE selected the saved game's seats (what that choice resumes)."""
        if self.screen == ATTRACT:
            return DEMO_LEVELS
        if self.screen == LAB:
            return (None, None)          # the reaction lab: people at both pads
        if self.screen == TITLE and self.saved is not None and self.cur.sel == 0:
            # CONTINUE is the first item whenever there is a saved game.
            cpu = self.saved["cpu"]
            return (cpu[0], cpu[1])
        if self.screen == TITLE or self.screen == HOWTO or self.game is None:
            m = self.settings["mode"]
            return (None, m if m else None)
        return (self.cpu[0], self.cpu[1])


def _savegame():
    from firmware import savegame
    return savegame


def _drop_savegame():
    import sys
    import firmware
    sys.modules.pop("firmware.savegame", None)
    if hasattr(firmware, "savegame"):
        delattr(firmware, "savegame")


class _LowMemory:
    """Stands for a screen whose code found no room in the heap: says so, and loads it
    as soon as it fits (the screen then enters as if just shown)."""

    sel = 0
    table = None

    def __init__(self, app, n):
        self.app = app
        self.n = n

    def enter(self, t):
        pass

    def press(self, t, p, code):
        pass

    def tick(self, now):
        app = self.app
        s = app._screen(self.n)
        if isinstance(s, _LowMemory) or app.cur is not self:
            return False
        app.cur = s
        s.enter(now)
        app.touch()
        return True

    def draw(self, view, key):
        half = ("MEMORY", True, "LOW MEMORY: WAIT", "", None, -1)
        return view.banners(self.n, key, half, half)
