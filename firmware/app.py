# The handheld's program, independent of hardware (DESIGN.md "ports"). It is given
# plain port objects and stepped by whoever owns the loop:
#
#   app = App(Ports(input, display, sound, storage))
#   while True:
#       app.step(clock.ticks_us())
#
# step(now_us) never blocks: it drains the input, turns each button event into an
# action through the player's Pad, hands it to the Arbiter stamped with the touch time
# (R19), settles, moves screens and timers on, redraws what changed and starts a sound.
# It never imports machine, framebuf or pygame.
#
# Ports:
#   input.drain([out]) -> [(t_us, player, button, down)], button "A"/"B"/"L"/"R"/"U"/"D"
#                         or the Pad's int codes; optional input.dropped (overflows)
#   display.fb          framebuf-compatible 128x64 MONO_VLSB; display.show(), and
#                         optionally display.show_spans(spans) to send only what changed
#   sound.play(tune)    a tune of firmware.sound, non-blocking (optional port)
#   storage.load() -> dict or None; storage.save(dict)   (atomic; optional port)
#
# Screens: title (menu) -> game (ready / play / stall / slap) -> round summary ->
# game ... -> game over -> title; pause from the game. Buttons, in menus: A = next
# item, B = choose (six-button pads: UP/LEFT = previous, DOWN/RIGHT = next).
# Pause: hold both A and B of your pad for a second (ready or play phase).

from shared_rules.game import Game, Rules, READY, PLAY, SLAP, OVER
from shared_rules.arbiter import Arbiter, BEATEN
from shared_rules.arbiter import ticks_diff, ticks_add
from shared_rules.pad import Pad, TWO_BUTTON, A, B, LEFT, RIGHT, UP, DOWN
from shared_rules.replay import Replay
from firmware import sound, texts, savegame
from firmware.view import View, Message, BAR_MAX
from firmware.records import PackedRecords
from firmware.seats import HumanSeat, CpuSeat, level_name, cpu_seed
from firmware.stats import Stats

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

# Screens.
TITLE = const(0)
GAME = const(1)
SUMMARY = const(2)
OVER_SCREEN = const(3)
PAUSE = const(4)
SCREEN_NAMES = ("title", "game", "summary", "over", "pause")

# Times (us).
WINDOW_US = const(2000)            # the arbiter's first-touch window (R18-R19)
SLAP_LIMIT_US = const(3000000)     # R26: the slap time limit
HOLD_US = const(1000000)           # hold A+B this long to pause
MSG_US = const(1500000)            # a feedback message stays this long
SUMMARY_MIN_US = const(800000)     # presses right after a round (slaps) don't skip it
SUMMARY_AUTO_US = const(8000000)   # the summary moves on by itself after this
OVER_MIN_US = const(1500000)
RACE_NOTE_US = const(250000)       # a slap this close after the decisive one lost a race
RECORD_LIMIT = const(16384)        # bytes of replay a game may use (about 4000 records)

# A pause button of its own: the emulator's Esc (on the device, hold A+B of a pad).
PAUSE_BUTTON = const(6)
BUTTON_CODES = {"A": A, "B": B, "L": LEFT, "R": RIGHT, "U": UP, "D": DOWN,
                "LEFT": LEFT, "RIGHT": RIGHT, "UP": UP, "DOWN": DOWN, "PAUSE": PAUSE_BUTTON}

# Title menu items.
_CONTINUE = const(0)
_MODE = const(1)
_RULES = const(2)
_FLIP = const(3)
_SOUND = const(4)
_START = const(5)


class Ports:
    def __init__(self, input, display, sound=None, storage=None, clock=None):
        self.input = input
        self.display = display
        self.sound = sound
        self.storage = storage
        self.clock = clock


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
    def __init__(self, ports, scheme=TWO_BUTTON, slap_limit_us=SLAP_LIMIT_US,
                 window_us=WINDOW_US, now_us=0, record_limit=RECORD_LIMIT, defaults=None,
                 hint=None):
        """defaults: the settings for a first start (savegame.default_settings() if
        None: two players, standard rules); the emulator starts against the CPU.
        hint: the title screen's line on the buttons (the emulator names its keys)."""
        self.ports = ports
        self.hint = hint or texts.HINT
        self.defaults = savegame.settings_from(defaults) if defaults is not None else None
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
        self.last_pages = 0
        # The game (None until one starts).
        self.game = None
        self.arbiter = None
        self.pads = [Pad(0, scheme), Pad(1, scheme)]
        self.seats = [HumanSeat(0), HumanSeat(1)]
        self.cpu = [None, None]
        self.stats = Stats()
        self.replay = None               # the current (or last) game's recording
        self.replay_snapshot = None      # the saved game a resumed recording starts from
        self._rec = False                # recording: from start_game until the title
        self.msgs = [Message(), Message()]
        self._msg_until = [0, 0]
        self._msg_on = [False, False]
        self._bars = [-1, -1]
        self._cursors = [0, 0]
        self._down = [0, 0]              # held buttons per player (bit per button code)
        self._down_t = [[0, 0], [0, 0]]  # when A and B went down
        self._hold_used = [False, False]
        self._seen_round = 0
        self._seen_phase = None
        self._slap_deadline = 0
        self._auto_t = None              # stamp of the app's own slap when nobody slapped
        self._auto = None                # that slap (the action tuple)
        self._slap_t = None              # the decisive slap: stamp and player
        self._slap_p = -1
        self._screen_t = now_us
        self._notes = ["", ""]
        self._noted = [False, False]
        self._changed = False
        self._tune = None
        self._pause_sel = 0
        # Title and settings.
        self.screen = TITLE
        self._text_key = 0
        self._sel = 0
        self.saved = None
        self.note = ""
        self._load()

    # ---- the loop ---------------------------------------------------------------------
    def step(self, now_us):
        """One non-blocking iteration; returns True if the display was updated."""
        self.now = now_us
        self.frames += 1
        self._changed = False
        state = False
        evs = self._collect(now_us)
        self._check_dropped(now_us)
        for e in evs:
            down = bool(e[3])
            self._event(e[0], e[1], _code(e[2]), down)
            if down:
                # A release only updates which buttons are held (for the pause hold,
                # which compares stamps): replayed with the next recorded frame, before
                # that frame's timers, it changes nothing, so its frame need not be kept.
                state = True
        if self._tick(now_us):
            state = True
        if self._changed and self.screen == GAME:
            for p in (0, 1):
                if not self.seats[p].human:
                    self.seats[p].observe(self.game, now_us, self.pads[p].cursor)
        drew = self._draw()
        if self._tune is not None:
            s = self.ports.sound
            if s is not None and self.settings["sound"]:
                s.play(self._tune)
            self._tune = None
        if state:
            self.busy_frames += 1
            if self._rec:
                # Only frames that changed the state are recorded: replaying just those
                # reaches the same state and the same picture, because every timer the
                # others could have fired (message expiry, the slap bar) is a pure
                # function of the clock and is caught up at the next recorded frame.
                self.replay.frame(now_us)
        return drew

    def _collect(self, now):
        evs = self._evs
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
        if self.screen == GAME:
            # A CPU seat's buttons are its own: ignore the hardware's for that player.
            k = 0
            for e in evs:
                if e[1] in (0, 1) and self.seats[e[1]].human:
                    evs[k] = e
                    k += 1
            while len(evs) > k:
                evs.pop()
            for seat in self.seats:
                if not seat.human:
                    seat.poll(now, evs)
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
        self._want(sound.WARN)
        for p in (0, 1):
            self._flash(p, texts.INPUT_LOST, True, now)
        self.note = "INPUT LOST: %d" % self.dropped
        self._text_key += 1
        return True

    # ---- events ---------------------------------------------------------------------------
    def _event(self, t, p, code, down):
        if p not in (0, 1) or code < 0:
            return
        if self._rec:
            self.replay.button(t, p, code, down)
        self._track_hold(t, p, code, down)
        if not down:
            return
        scr = self.screen
        if code == PAUSE_BUTTON:
            if scr == PAUSE:
                self._resume(t)
            elif scr == GAME and (self.game.phase == READY or self.game.phase == PLAY):
                self._pause(t)
            return
        if scr == GAME:
            self._game_press(t, p, code)
        elif scr == TITLE:
            self._menu_press(t, code)
        elif scr == SUMMARY:
            self._summary_press(t, p)
        elif scr == OVER_SCREEN:
            if ticks_diff(t, self._screen_t) >= OVER_MIN_US:
                self._to_title()
        elif scr == PAUSE:
            self._pause_press(t, code)

    def _track_hold(self, t, p, code, down):
        if code != A and code != B:
            return
        bit = 1 << code
        if down:
            self._down[p] |= bit
            self._down_t[p][code] = t
        else:
            self._down[p] &= ~bit
            self._hold_used[p] = False

    def _game_press(self, t, p, code):
        arb = self.arbiter
        if arb.pending():
            # Decide everything touched well before this press first, so the Pad reads
            # the table as it was when this button closed.
            self._settle(t)
            if self.screen != GAME:
                self._event_again(t, p, code)
                return
        action = self.pads[p].press(self.game, code)
        if action is None:
            self._changed = True          # the cursor moved
            return
        arb.press(action, t)

    def _event_again(self, t, p, code):
        if self.screen == SUMMARY:
            self._summary_press(t, p)

    def _settle(self, now):
        """Settle the arbiter and react; True if anything was decided."""
        return self._results(self.arbiter.settle(now))

    def _results(self, results):
        if not results:
            return False
        self._changed = True
        for action, t, reason in results:
            verb = action[0]
            p = action[1]
            if reason is None:
                if verb == "play":
                    self.stats.play(p, t)
                    self._want(sound.PLAY)
                elif verb == "spit":
                    self._want(sound.SAID)
                elif verb == "slap":
                    self._slap_t = t
                    self._slap_p = p
                    self._want(sound.SLAP)
                else:
                    self._want(sound.MOVE)
            elif action is self._auto:
                pass                     # the app's own slap came too late: a real one won
            elif verb == "slap" and self._auto_t is not None and ticks_diff(t, self._auto_t) >= 0:
                self._flash(p, texts.TOO_LATE, False, t)     # R26: past the time limit
                self._want(sound.ILLEGAL)
            elif reason == BEATEN:
                # R20: legal when pressed, but the other player touched first.
                self.stats.won_race(1 - p)
                self._flash(p, texts.beaten(self.arbiter.beaten_by_us[p]), True, t)
                self._want(sound.LOST)
            elif reason in texts.QUIET:
                pass
            else:
                self._flash(p, texts.REASONS.get(reason, texts.NOT_ALLOWED), False, t)
                self._want(sound.ILLEGAL)
            self._watch(t)
        return True

    def _watch(self, t):
        """React to what the game did by itself: spit, stall, slap, end of round."""
        g = self.game
        if self.screen != GAME:
            return
        if g.round != self._seen_round or g.phase == OVER:
            self._round_over(t)
            return
        ph = g.phase
        if ph != self._seen_phase:
            self._seen_phase = ph
            self.stats.new_stretch()
            if ph == PLAY:
                self._want(sound.SPIT)                       # R9, R23: the cards turn
            elif ph == SLAP:
                self._slap_deadline = ticks_add(t, self.slap_limit_us)   # R26
                self._auto_t = None
                self._auto = None
                self._want(sound.SLAP_NOW)
            for p in (0, 1):
                self._msg_on[p] = False
        for p in (0, 1):
            if not self._msg_on[p]:
                self._stand(p)

    def _stand(self, p):
        m = texts.standing(self.game, p)
        self.msgs[p].set(m[0], m[1], False)

    def _flash(self, p, text, inv, t):
        self.msgs[p].set(text[0], text[1], inv)
        self._msg_on[p] = True
        self._msg_until[p] = ticks_add(t, MSG_US)

    def _want(self, tune):
        cur = self._tune
        if cur is None or sound.PRIORITY[tune[0]] > sound.PRIORITY[cur[0]]:
            self._tune = tune

    # ---- timers -------------------------------------------------------------------------
    def _tick(self, now):
        scr = self.screen
        if scr == GAME:
            return self._tick_game(now)
        if scr == SUMMARY and ticks_diff(now, self._screen_t) >= SUMMARY_AUTO_US:
            self._leave_summary(now)
            return True
        return False

    def _tick_game(self, now):
        """Timers of the game screen; True if the game's state changed."""
        state = False
        arb = self.arbiter
        if arb.pending():
            state = self._settle(now)
            if self.screen != GAME:
                return True
        g = self.game
        if g.phase == SLAP:
            left = ticks_diff(self._slap_deadline, now)
            if left <= 0 and self._auto_t is None:
                # R26 ruling: nobody slapped in time. Two piles: each player takes the
                # pile they started (as if player 0 slapped pile 0). One pile (R33, equal
                # counts): the player who would win the next tie (R21) counts as out first.
                # Pressed through the arbiter at the deadline, so a slap touched before
                # it still wins by first touch.
                who = 0 if len(g.piles) == 2 else g.tie_priority
                self._auto_t = self._slap_deadline
                self._auto = ("slap", who, 0)
                arb.press(self._auto, self._slap_deadline)
                self._settle(now)
                state = True
                if self.screen != GAME:
                    return True
            bar = left * BAR_MAX // self.slap_limit_us if left > 0 else 0
        else:
            bar = -1
        for p in (0, 1):
            self._bars[p] = bar
            if self._msg_on[p] and ticks_diff(now, self._msg_until[p]) >= 0:
                self._msg_on[p] = False
                self._stand(p)
        if g.phase == READY or g.phase == PLAY:
            for p in (0, 1):
                if self._down[p] & 3 == 3 and not self._hold_used[p]:
                    dt = self._down_t[p]
                    t_both = dt[0] if ticks_diff(dt[0], dt[1]) > 0 else dt[1]
                    if ticks_diff(now, t_both) >= HOLD_US:
                        self._hold_used[p] = True
                        self._pause(now)
                        return True
        return state

    # ---- game flow ----------------------------------------------------------------------
    def start_game(self, seed, rules, cpu=(None, None), now_us=0, snapshot=None, stats=None,
                   game=None):
        """Start a game (from the menu, a test or a replay). cpu[p] is None for a human
        or the CPU level 1-3 (easy, normal, hard). With snapshot (a Game.snapshot()
        taken between rounds), resume that game instead of dealing a new one; with
        game (a Game, e.g. Game.from_layout for a test or a puzzle), play that one. A
        recording of a resumed or given game starts from replay_snapshot."""
        if game is not None:
            snapshot = game.snapshot()
        if snapshot is not None:
            game = Game.restore(snapshot)
        else:
            game = Game(seed, rules)
        self.game = game
        self.arbiter = Arbiter(game, self.window_us)
        self.pads = [Pad(0, self.scheme), Pad(1, self.scheme)]
        self.cpu = [cpu[0], cpu[1]]
        self.stats = Stats.from_list(stats) if stats is not None else Stats()
        self.replay = Replay(game.seed, game.rules, PackedRecords(self.record_limit))
        self.replay_snapshot = snapshot
        self.replay.frame(now_us)        # first record: when the game started
        self._rec = True
        self._make_seats(now_us)
        self._seen_round = game.round
        self._seen_phase = game.phase
        self._save()                     # a round boundary (R27-R28): resumable from here
        self._enter_game(now_us)

    def _make_seats(self, now):
        g = self.game
        seats = []
        for p in (0, 1):
            if self.cpu[p]:
                seed = cpu_seed(g.seed + g.round * 1009 + (now & 0xFFFF), p)
                seats.append(CpuSeat(p, level_name(self.cpu[p]), seed))
            else:
                seats.append(HumanSeat(p))
        self.seats = seats

    def _enter_game(self, now):
        self.screen = GAME
        self._screen_t = now
        self._auto_t = None
        self._auto = None
        self._slap_t = None
        self.stats.new_stretch()
        for p in (0, 1):
            self._msg_on[p] = False
            self._stand(p)
            self._bars[p] = -1
            # Buttons still held from the menu or the pause must be let go first.
            self._hold_used[p] = self._down[p] & 3 == 3
            self.seats[p].observe(self.game, now, self.pads[p].cursor)
        self.view.invalidate()

    def _round_over(self, t):
        g = self.game
        self._seen_round = g.round
        self._seen_phase = g.phase
        self.screen = SUMMARY
        self._screen_t = t
        self._notes[0] = self._notes[1] = ""
        self._noted[0] = self._noted[1] = False
        lr = g.last_round
        if lr is not None and lr["slap"] is not None and self._auto_t is not None and \
                self._slap_t == self._auto_t:
            self._notes[0] = self._notes[1] = "NOBODY SLAPPED"
            self._slap_t = None
        if g.phase == OVER:
            self._want(sound.WIN if g.winner is not None else sound.DRAW)
        else:
            self._want(sound.ROUND_OVER)
        self._save()                     # between rounds only: never during play
        self._text_key += 1

    def _summary_press(self, t, p):
        # A slap that arrives just after the decisive one lost that race (R20, R26).
        if self._slap_t is not None and p != self._slap_p and not self._noted[p]:
            d = ticks_diff(t, self._slap_t)
            if 0 <= d < RACE_NOTE_US:
                self._noted[p] = True
                self.stats.won_race(self._slap_p)
                b = texts.beaten(d)
                self._notes[p] = b[0] + " " + b[1]
                self._want(sound.LOST)
                self._text_key += 1
                return
        if ticks_diff(t, self._screen_t) >= SUMMARY_MIN_US:
            self._leave_summary(t)

    def _leave_summary(self, t):
        if self.game.phase == OVER:
            self.screen = OVER_SCREEN
            self._screen_t = t
            self._text_key += 1
        else:
            self._make_seats(t)
            self._enter_game(t)

    def _pause(self, now):
        self.screen = PAUSE
        self._pause_sel = 0
        self._screen_t = now
        self._want(sound.PAUSE)
        self._text_key += 1

    def _resume(self, t):
        self._want(sound.RESUME)
        self._make_seats(t)      # the CPU starts afresh: nothing stamped in the pause
        self._enter_game(t)
        self._text_key += 1

    def _pause_press(self, t, code):
        if code == B:
            if self._pause_sel == 0:
                self._resume(t)
                return
            else:
                self._to_title()
        else:
            self._pause_sel = 1 - self._pause_sel
            self._want(sound.CLICK)
        self._text_key += 1

    def _to_title(self):
        self._rec = False
        self.screen = TITLE
        self._sel = 0
        self._load()
        self._text_key += 1

    # ---- title menu ---------------------------------------------------------------------
    def menu_items(self):
        items = []
        if self.saved is not None:
            items.append(_CONTINUE)
        items.append(_MODE)
        items.append(_RULES)
        items.append(_FLIP)
        items.append(_SOUND)
        items.append(_START)
        return items

    def menu_text(self, item):
        s = self.settings
        if item == _CONTINUE:
            return "CONTINUE ROUND %d" % self.saved["game"].round
        if item == _MODE:
            return texts.MODE_NAMES[s["mode"]]
        if item == _RULES:
            return "POINTS GAME" if s["points"] else "STANDARD GAME"
        if item == _FLIP:
            return "MANUAL FLIP" if s["flip"] else "AUTO FLIP"
        if item == _SOUND:
            return "SOUND ON" if s["sound"] else "SOUND OFF"
        return "START"

    def _menu_press(self, t, code):
        items = self.menu_items()
        n = len(items)
        self._text_key += 1
        if code == B:
            self._choose(items[self._sel % n], t)
            return
        if code == UP or code == LEFT:
            self._sel = (self._sel - 1) % n
        else:
            self._sel = (self._sel + 1) % n
        self._want(sound.CLICK)

    def _choose(self, item, t):
        s = self.settings
        self._want(sound.CLICK)
        if item == _MODE:
            s["mode"] = (s["mode"] + 1) % savegame.MODES
        elif item == _RULES:
            s["points"] ^= 1
        elif item == _FLIP:
            s["flip"] ^= 1
        elif item == _SOUND:
            s["sound"] ^= 1
        if item == _MODE or item == _RULES or item == _FLIP or item == _SOUND:
            self._save_settings()
        elif item == _START:
            rules = Rules(points=bool(s["points"]), manual_flip=bool(s["flip"]))
            cpu = (None, s["mode"]) if s["mode"] else (None, None)
            self.start_game(t & 0x3FFFFFFF, rules, cpu, t)
        elif item == _CONTINUE:
            sv = self.saved
            self.start_game(sv["game"].seed, sv["game"].rules, sv["cpu"], t,
                            snapshot=sv["game"].snapshot(), stats=sv["stats"])

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
        s, saved, why = savegame.unpack(data, self.defaults)
        self.settings = s
        self.saved = saved
        self.note = why or msg or ""
        self._sel = 0

    def _save(self):
        """At a round boundary (a fresh deal, the only game state ever saved: flash
        writes stall interrupts, so never during play) or at game over (clears it)."""
        g = self.game
        if g is None or g.phase == OVER:
            self._write(savegame.pack(self.settings))
        elif g.phase == READY and not g.piles and not g.said[0] and not g.said[1]:
            self._write(savegame.pack(self.settings, g, self.cpu, self.stats.to_list()))
        # else: a game set up mid-round (tests, puzzles) is not resumable

    def _save_settings(self):
        """On the title screen: the settings, keeping the resumable game as it was."""
        sv = self.saved
        if sv is None:
            self._write(savegame.pack(self.settings))
        else:
            self._write(savegame.pack(self.settings, sv["game"], sv["cpu"], sv["stats"]))

    def _write(self, d):
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
    def _draw(self):
        v = self.view
        scr = self.screen
        key = self._text_key
        drew = False
        if scr == GAME:
            c = self._cursors
            c[0] = self.pads[0].cursor
            c[1] = self.pads[1].cursor
            drew = v.game(self.game, c, self.msgs, self._bars)
        elif v.stale_text(scr, key):
            if scr == TITLE:
                items = self.menu_items()
                names = []
                for it in items:
                    names.append(self.menu_text(it))
                drew = v.title(scr, key, names, self._sel % len(items), self.note or self.hint)
            elif scr == SUMMARY:
                g = self.game
                drew = v.halves(scr, key, texts.summary(g, 0, self._notes[0]),
                                texts.summary(g, 1, self._notes[1]))
            elif scr == OVER_SCREEN:
                g = self.game
                drew = v.halves(scr, key, texts.game_over(g, self.stats, 0),
                                texts.game_over(g, self.stats, 1))
            elif scr == PAUSE:
                lines, sel = texts.pause(self._pause_sel)
                drew = v.halves(scr, key, lines, lines, sel)
        if drew:
            self._show()
        return drew

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

    # ---- for tests and tools ------------------------------------------------------------
    def screen_name(self):
        return SCREEN_NAMES[self.screen]
