"""The app engine: the firmware's app on the desktop, its ports wired to
``firmware.app.App``. Nothing here decides anything about the game: the app does,
exactly as on the device. The engine only owns the ports and the clock; the loops that
step it are in loops.py (headless, terminal) and window.py, replays on disk in
replays.py.

Replays are the app's own recording (``app.replay``: seed, rules, conduct, every button
event with its touch stamp, CPU presses included, and the frames at which something
happened). Playing one back starts the game with two human seats and feeds each
recorded frame's events through the input port, stepping at the recorded times; the
game and the screen then go through exactly the states they went through when it
was recorded, on the device or here.
"""

import sys

from desktop_emulator.display import FrameDisplay
from desktop_emulator.replays import RecordedGame
from firmware.app import FRAME_US
from host.engine import Engine
from host.ports import FrameInput as QueueInput  # noqa: F401
from host.replays import RECORD_LIMIT, digests_of, divergence, start_loaded, step_loaded
from host.seats import LEVELS, CPU_CODE, CPU_NAME, DESKTOP_DEFAULTS  # noqa: F401
from host.state import game_state_line, summary_line

#: The device's frame period (firmware/app.py: 30 frames a second).
DEVICE_FRAME_US = FRAME_US


def device_frame_us():
    """The handheld's frame period: firmware/app.py's FRAME_US."""
    return FRAME_US


class AppEngine(Engine):
    """The app engine: the firmware's app and its ports on this interpreter.
    ``step()`` runs one app.step at the clock's now. The interface the loops and the
    command line use is host.engine.Engine (``--engine pico`` has the same in
    desktop_emulator/pico/engine.py); besides it: step_window, step_replay, games (the
    recordings of the session) and end_recording."""

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
            report(self.app.storage_note)
            if self.app.house_error is not None:     # a bad house-rules file: its line
                print("house rules ignored: %s" % self.app.house_error, file=sys.stderr)
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
        start_loaded(self.app, loaded)
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
        k = self._replay_i
        t = self.replay_in.frames[k][0]
        self._replay_i += 1
        step_loaded(self.app, self.input, self.replay_in, k)
        self.steps += 1
        self.note_game(t)
        return t

    def step_window(self, now):
        """One window frame: the app steps at the window's clock."""
        self.app.step(now)
        self.steps += 1
        self.note_game(now)

    # -- reporting
    def state_line(self):
        return game_state_line(self.app.game, self.display.buf)

    def summary_line(self):
        return summary_line(self.app.screen_name(), self.app.game, self.steps)
