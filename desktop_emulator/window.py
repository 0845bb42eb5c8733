"""The pygame window's loop: events, pause (Esc), fullscreen (F11), the upright view
(F9), screenshots (F12), and the skin's pad lights and seat names."""

import os
import sys
import time

from desktop_emulator.clock import ticks_diff
from host.lights import CpuLights
from host.seats import CPU_NAME

#: The window's frame period: 60 frames a second.
WINDOW_FRAME_US = 16667


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
