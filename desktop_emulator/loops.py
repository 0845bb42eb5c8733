"""The loops that step an engine off the window: headless (as fast as it can, on a
simulated clock) and the terminal demo (paced to real time, drawn with half blocks).
The window's loop is window.py's."""

import time

from host.clock import MAX_SIM_US


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
