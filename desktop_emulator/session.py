"""Running the firmware's app on the desktop: the ports wired to ``firmware.app.App``,
the three loops (window, headless, terminal), replays and the state line.

Nothing here decides anything about the game: the app does, exactly as on the
device. The emulator only owns the loop and the clock:

- **headless** steps ``app.step(now)`` every device frame (33.3 ms) on a
  :class:`SimClock`, as fast as the CPU allows;
- **window** steps it 60 times a second on the real clock (``PerfClock``), or on a
  SimClock in tests, and draws the screen (and the skin) after each step;
- **terminal** is headless paced to real time, drawing with half blocks.

Replays are the app's own recording (``app.replay``: seed, rules, every button event
with its touch stamp, CPU presses included, and the frames at which something
happened). Playing one back starts the game with two human seats and feeds each
recorded frame's events through the input port, stepping at the recorded times; the
game and the screen then go through exactly the states they went through when it
was recorded, on the device or here.
"""

import os
import sys
import time

from desktop_emulator.clock import ticks_diff
from desktop_emulator.display import FrameDisplay
from firmware.app import FRAME_US
from host.ports import FrameInput as QueueInput
from host.clock import MAX_SIM_US
from host.replays import (RECORD_LIMIT, ReplayError, LoadedReplay, parse_replay, format_replay,  # noqa: F401
                          META_PREFIX, SNAPSHOT_PREFIX, digests_of, divergence)
from host.seats import LEVELS, CPU_CODE, CPU_NAME, DESKTOP_DEFAULTS, names_of  # noqa: F401
from host.state import game_state_line, summary_line
from host.lights import CpuLights

#: The device's frame period (firmware/app.py: 30 frames a second).
DEVICE_FRAME_US = FRAME_US
#: The window's frame period: 60 frames a second.
WINDOW_FRAME_US = 16667


def device_frame_us():
    """The handheld's frame period: firmware/app.py's FRAME_US."""
    return FRAME_US


class OutputError(Exception):
    """An output (frames, a GIF, a replay) that could not be written (one line)."""


def guarded(write, label):
    """Wrap a per-frame writer (--dump-frames) so that a failure while the game runs
    ends it with one line (OutputError), not a traceback."""
    def call(panel):
        try:
            write(panel)
        except Exception as e:                # OSError, pygame.error
            raise OutputError("%s: %s" % (label, getattr(e, "strerror", None) or e)) from None
    call.close = write.close
    return call


def numbered(path, k):
    """The file of the k-th game of a session: game.txt, game-2.txt, game-3.txt ..."""
    if k == 1:
        return path
    base, ext = os.path.splitext(path)
    return "%s-%d%s" % (base, k, ext)


# ---------------------------------------------------------------- replays on disk

def load_replay(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise ReplayError("cannot read replay %s: not a text file" % path) from None
    except OSError as e:
        raise ReplayError("cannot read replay %s: %s" % (path, e.strerror or e)) from None
    return parse_replay(text, "replay %s" % path)


def replay_text(app, seats=None, frame_us=None):
    """The app's recording of its current game, with the emulator's header comment."""
    rp = app.replay
    if rp is None:
        return None
    if seats is None:
        seats = names_of(app.cpu)
    return format_replay(rp, seats, app.replay_snapshot, frame_us)


class RecordedGame:
    """One game of a session, caught when it started (the app keeps only the last)."""

    def __init__(self, app):
        self.replay = app.replay
        self.seats = names_of(app.cpu)
        self.snapshot = app.replay_snapshot

    def text(self):
        return format_replay(self.replay, self.seats, self.snapshot)


def write_recordings(machine, path, warn=None):
    """Write every game of the session: the first to `path`, the next ones to
    numbered(path, k). Returns the paths; OSError if one cannot be written."""
    paths = []
    for k, g in enumerate(machine.games):
        out = numbered(path, k + 1)
        lost = getattr(g.replay.records, "lost", 0)
        if lost and warn is not None:
            warn("warning: the recording of %s is incomplete (%d records lost); it will "
                 "not replay to the same end" % (out, lost))
        write_replay(out, g.text())
        paths.append(out)
    return paths


def write_replay(path, text):
    """Write through a temporary file renamed over `path`, so a replay is never half
    written; only onto a regular file or a new name (the rename would replace a
    device node or a symbolic link)."""
    from desktop_emulator.outputs import refuse
    refuse(path)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------- the machine

class Machine:
    """The app and its ports. ``step()`` runs one app.step at the clock's now.

    The engine interface the loops and the command line use (``--engine pico`` has
    the same in desktop_emulator/pico/engine.py): clock, display, app (screen_name(),
    game, cpu, seats), replay_in, start_game, start_replay, step, step_window,
    reached, state_line, summary_line, games (the recordings), end_recording."""

    #: The app has its own pause button (Esc sends it); the emulated Pico has not.
    has_pause_button = True

    def __init__(self, clock, input, display=None, sound=None, storage=None, hint=None):
        from firmware.app import App, Ports
        self.clock = clock
        self.input = input
        self.display = display if display is not None else FrameDisplay()
        self.sound = sound
        self.storage = storage
        self.ports = Ports(input, self.display, sound, storage, clock)
        # The device caps a game's recording to fit its heap; a desktop need not. On the
        # desktop one person usually plays alone: the menu starts at "vs CPU normal".
        self.app = App(self.ports, now_us=clock.ticks_us(), record_limit=RECORD_LIMIT,
                       defaults=DESKTOP_DEFAULTS, hint=hint)
        report = getattr(storage, "report", None)
        if report is not None:
            report(self.app.note)
        self.steps = 0
        self.seats = None            # ("human", "hard") when the emulator started it
        self.replay_in = None        # a LoadedReplay being played
        self._replay_i = 0
        self.games = []              # every game of the session, for --record
        self.last_now = None

    def note_game(self, now=None):
        """After a step: keep the recording of a game that has just started."""
        if now is not None:
            self.last_now = now
        rp = self.app.replay
        if rp is not None and (not self.games or self.games[-1].replay is not rp):
            self.games.append(RecordedGame(self.app))

    def end_recording(self):
        """The session ends: the game still being recorded gets a last frame at the
        last step, so that its replay ends on the same picture (timers such as the
        fumble bar run on between the frames the app records)."""
        app = self.app
        rp = app.replay
        if rp is None or self.last_now is None or not app._rec or \
                not self.games or self.games[-1].replay is not rp:
            return
        last = None
        for rec in rp.records:
            if rec[0] == "frame":
                last = rec[1]
        if last != self.last_now:
            rp.frame(self.last_now)

    # -- starting
    def start_game(self, seats, seed, rules, keep_saved=True):
        """A game straight from the command line: a saved game stays as it is (it is
        the player's) unless keep_saved is False (--replace-save)."""
        self.seats = tuple(seats)
        cpu = (CPU_CODE[seats[0]], CPU_CODE[seats[1]])
        self.app.start_game(seed & 0x3FFFFFFF, rules, cpu, self.clock.ticks_us(),
                            keep_saved=keep_saved)
        self.note_game()

    def start_replay(self, loaded):
        """Start playing a LoadedReplay; the clock must read loaded.start_t."""
        self.replay_in = loaded
        self._replay_i = 0
        self.seats = ("human", "human")
        self.app.start_game(loaded.seed, loaded.rules, (None, None), loaded.start_t,
                            snapshot=loaded.snapshot, conduct=loaded.replay.played_conduct())
        self.note_game()

    def replay_divergence(self, finished):
        """None, or one line on how the replay being played left its recording."""
        return divergence(self.replay_in, digests_of(self.app.replay.records), finished)

    # -- stepping
    def step(self):
        now = self.clock.ticks_us()
        self.app.step(now)
        self.steps += 1
        self.note_game(now)
        return now

    def replay_done(self):
        return self.replay_in is not None and self._replay_i >= len(self.replay_in.frames)

    def next_replay_t(self):
        return self.replay_in.frames[self._replay_i][0]

    def step_replay(self):
        """Step the next recorded frame (the clock must be at its time)."""
        t, events = self.replay_in.frames[self._replay_i]
        self._replay_i += 1
        self.input.events = list(events)
        self.app.step(t)
        self.steps += 1
        self.note_game(t)
        return t

    def step_window(self, now):
        """One window frame: the app steps at the window's clock."""
        self.app.step(now)
        self.steps += 1
        self.note_game(now)

    # -- stopping
    def reached(self, until):
        scr = self.app.screen_name()
        if until == "over":
            return scr == "over"
        if until == "round":
            return scr in ("summary", "over")
        return False

    # -- reporting
    def state_line(self):
        return game_state_line(self.app.game, self.display.buf)

    def summary_line(self):
        return summary_line(self.app.screen_name(), self.app.game, self.steps)


# ---------------------------------------------------------------- loops

class StopRun(Exception):
    pass


def run_headless(machine, frame_us, until=None, frames=None, max_us=MAX_SIM_US):
    """Step at frame_us on the machine's SimClock until `until` / `frames`.
    Returns a reason string ('over', 'round', 'frames', 'replay end')."""
    clock = machine.clock
    if machine.replay_in is not None:
        while not machine.replay_done():
            clock.advance_to_ticks(machine.next_replay_t())
            machine.step_replay()
            if frames is not None and machine.steps >= frames:
                return "frames"
            if until and machine.reached(until):
                return until
        return "replay end"
    start = clock.elapsed_us()
    while True:
        clock.advance(frame_us)
        machine.step()
        if frames is not None and machine.steps >= frames:
            return "frames"
        if until and machine.reached(until):
            return until
        if clock.elapsed_us() - start > max_us:
            raise StopRun("no end after %d simulated minutes (screen %s)" % (
                max_us // 60000000, machine.app.screen_name()))


def run_terminal(machine, screen, frame_us, until="over", frames=None, speed=1.0,
                 status="", linger_us=3000000, sleep=None, now=None, max_fps=30,
                 present=None):
    """Headless paced to real time (speed x), drawing into a TerminalScreen (the
    panel, or what `present(panel)` makes of it: --upright)."""
    sleep = sleep or time.sleep
    now = now or time.perf_counter
    clock = machine.clock
    disp = machine.display
    t0 = now()
    last_draw = -1.0
    ended_at = None
    reason = None
    while True:
        clock.advance(frame_us)
        machine.step()
        if reason is None:
            if frames is not None and machine.steps >= frames:
                reason = "frames"
            elif until and machine.reached(until):
                reason = until
            if reason is not None:
                ended_at = clock.elapsed_us()
                if reason == "frames":
                    linger_us = 0
        if speed > 0:
            due = t0 + clock.elapsed_us() / 1e6 / speed
            lag = due - now()
            if lag > 0:
                sleep(lag)
        t = now()
        done = reason is not None and clock.elapsed_us() - ended_at >= linger_us
        if disp.dirty and (done or speed <= 0 or t - last_draw >= 1.0 / max_fps):
            disp.dirty = False
            last_draw = t
            g = machine.app.game
            extra = "  round %d" % g.round if g is not None else ""
            screen.draw(disp.panel if present is None else present(disp.panel),
                        status + extra)
        if done:
            return reason


class PadLights:
    """Which pad buttons the skin lights: held keys, and each CPU press for a moment
    (through the app's on_cpu_press hook: the CPU's presses never pass the keyboard)."""

    def __init__(self):
        self.cpu = CpuLights()
        self._app = None

    def watch(self, app):
        if app is not self._app:
            self._app = app
            app.on_cpu_press = self.cpu.pressed

    def lit(self, now, held):
        out = set(held)
        for p, b in self.cpu.lit(now):
            out.add((p, "AB"[b] if b in (0, 1) else str(b)))
        return out


def seat_names(machine, labels):
    """What the skin writes by each pad."""
    app = machine.app
    names = {}
    # Who plays each side of what is on screen: on the menu, the mode it would start
    # (so the label says what the menu says); in the attract mode, its demo CPUs.
    levels = app.seat_levels()
    demo = app.screen_name() == "attract"
    for p in (0, 1):
        cpu = levels[p]
        if machine.replay_in is not None:
            who = machine.replay_in.meta.get("p%d" % p, "human")
            names[p] = "REPLAY " + (who.upper() if who != "human" else "P%d" % p)
        elif cpu:
            names[p] = ("DEMO " if demo else "CPU ") + CPU_NAME[cpu].upper()
        else:
            names[p] = "P%d  %s" % (p, "/".join(labels[p].get(b, "?") for b in ("A", "B")))
    return names


class Window:
    """The pygame window loop. Owns pause (Esc), player 1's half upright or not (F9),
    fullscreen (F11), screenshot (F12)."""

    def __init__(self, machine, display, keyboard, realtime=True, frame_us=WINDOW_FRAME_US,
                 shot_dir=None, out=None):
        import pygame
        self.pygame = pygame
        self.m = machine
        self.display = display
        self.keyboard = keyboard
        self.realtime = realtime
        self.frame_us = frame_us
        self.shot_dir = shot_dir
        self.out = out if out is not None else sys.stdout
        self.lights = PadLights()
        self.running = True
        self.frozen = False          # the emulator's own pause (when the app has none)
        self.shots = []
        self.frames = 0
        self.replay_finished = False
        from desktop_emulator.keyboard import keys_of
        self.labels = {p: keys_of(keyboard.keymap, p) for p in (0, 1)}
        presenter = getattr(display, "presenter", None)
        if presenter is not None and presenter.screen is None:
            presenter.screen = machine.app.screen_name

    # -- events
    def handle(self, ev):
        pygame = self.pygame
        if ev.type == pygame.QUIT:
            self.running = False
        elif ev.type == pygame.KEYDOWN and ev.key == pygame.K_ESCAPE:
            self.pause()
        elif ev.type == pygame.KEYDOWN and ev.key == pygame.K_F9:
            self.display.toggle_upright()
            self.set_caption()
        elif ev.type == pygame.KEYDOWN and ev.key == pygame.K_F11:
            self.display.toggle_fullscreen()
        elif ev.type == pygame.KEYDOWN and ev.key == pygame.K_F12:
            self.screenshot()
        elif self.m.replay_in is None and not self.frozen:
            self.keyboard.handle(ev)
        elif ev.type == pygame.WINDOWFOCUSLOST:
            self.keyboard.release_all()

    def pause(self):
        """Esc. On the device a player pauses by holding A and B together for a
        second (firmware/app.py); a key cannot do that without also pressing A and B,
        which move the cursor and play a card. So Esc sends the app its own PAUSE
        button, an ordinary stamped event, recorded and replayed like any other. While
        a replay plays, Esc freezes the emulator instead: the app is not stepped and
        the clock stands still, so to the app no time passes at all."""
        if self.m.replay_in is None and not self.frozen and self.m.has_pause_button:
            app = self.m.app
            p = 0 if app.game is None or app.seats[0].human else 1
            self.keyboard.inject(p, "PAUSE")
            return
        self.frozen = not self.frozen
        # Keys held now are released (stamped now, delivered at the first step after
        # the pause); keys are not read while frozen.
        self.keyboard.release_all()
        clock = self.m.clock
        if hasattr(clock, "freeze"):
            (clock.freeze if self.frozen else clock.thaw)()
        self.set_caption()

    def screenshot(self, path=None):
        """F12: the window as it is, as spit-screenshot-NNN.png in the user's data
        directory (storage.screenshot_dir()) unless `shot_dir` says otherwise."""
        try:
            if path is None:
                d = self.shot_dir
                if d is None:
                    from desktop_emulator.storage import screenshot_dir
                    d = screenshot_dir()
                os.makedirs(d, exist_ok=True)
                n = 1
                while True:
                    path = os.path.abspath(os.path.join(d, "spit-screenshot-%03d.png" % n))
                    if not os.path.lexists(path):
                        break
                    n += 1
            self.display.save_window_png(path)
        except (self.pygame.error, OSError) as e:
            print("screenshot failed: %s" % e, file=sys.stderr)
            return None
        self.shots.append(path)
        print("screenshot saved: %s" % path, file=self.out)
        return path

    def set_caption(self):
        l0, l1 = self.labels[0], self.labels[1]
        state = "PAUSED (Esc resumes)  " if self.frozen else ""
        if self.replay_finished:
            state = "replay finished  "
        presenter = getattr(self.display, "presenter", None)
        upright = "on" if presenter is not None and presenter.upright else "off"
        self.pygame.display.set_caption(
            "Spit handheld  %sP0 %s/%s  P1 %s/%s  Esc pause  F9 upright: %s  "
            "F11 fullscreen  F12 screenshot"
            % (state, l0.get("A", "?"), l0.get("B", "?"), l1.get("A", "?"), l1.get("B", "?"),
               upright))

    # -- the loop
    def frame(self):
        """Handle events, step the app once, draw. Returns the app's now."""
        pygame = self.pygame
        m = self.m
        if self.realtime:
            for ev in pygame.event.get():
                self.handle(ev)
        else:
            if not self.frozen:
                m.clock.advance(self.frame_us)
            for ev in pygame.event.get():
                self.handle(ev)
        now = m.clock.ticks_us()
        if not self.frozen:
            if m.replay_in is not None:
                while not m.replay_done() and ticks_diff(m.next_replay_t(), now) <= 0:
                    m.step_replay()
                if m.replay_done() and not self.replay_finished:
                    self.replay_finished = True
                    self.set_caption()
            else:
                m.step_window(now)
        self.lights.watch(m.app)
        if self.display.skin is not None:
            self.display.skin.names = seat_names(m, self.labels)
        self.display.render(self.lights.lit(now, self.keyboard.pressed),
                            "PAUSED - Esc resumes" if self.frozen else None)
        self.frames += 1
        return now

    def wait_for_next(self, deadline):
        """Real time: take events as they come (stamping them on arrival) until the
        next frame is due."""
        pygame = self.pygame
        while self.running:
            left = deadline - time.perf_counter()
            if left <= 0:
                return
            ev = pygame.event.wait(max(1, int(left * 1000)))
            if ev.type != pygame.NOEVENT:
                self.handle(ev)

    def run(self, until=None, frames=None, on_frame=None):
        self.set_caption()
        period = self.frame_us / 1e6
        deadline = time.perf_counter()
        reason = "closed"
        while self.running:
            if on_frame is not None:
                on_frame(self, self.frames)
            self.frame()
            if frames is not None and self.frames >= frames:
                reason = "frames"
                break
            if until and self.m.reached(until):
                reason = until
                break
            if self.realtime:
                deadline += period
                if deadline < time.perf_counter() - 0.25:
                    deadline = time.perf_counter()   # fell far behind: don't race to catch up
                self.wait_for_next(deadline)
        return reason
