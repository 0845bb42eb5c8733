# What every engine that runs the handheld off the device offers its host's loops and
# command line, written down once: the app engine (the firmware's app on this
# interpreter: desktop_emulator.session.AppEngine), the emulated Pico
# (desktop_emulator.pico.engine.PicoMachine) and the browser page (web/spitweb). The
# loops (desktop_emulator/loops.py, the page's frame) and the reports (--print-state,
# the page's finish) use only these.


class Engine:
    """An engine's interface.

    clock           ticks_us() and elapsed_us() (a SimClock, a real clock, guest time)
    display         the display port; `panel` is what the OLED shows
    app             screen_name(), game, cpu, seats: the app, or a stand-in that reads
                    the board's status lines
    replay_in       the host.replays.LoadedReplay being played, or None
    steps           frames stepped so far
    start_game(seats, seed, rules, keep_saved=True)
    start_replay(loaded)
    step()          one frame at the clock's now
    """

    app = None
    replay_in = None
    steps = 0
    #: The app has a pause button of its own (Esc sends it); the emulated Pico has not.
    has_pause_button = True

    def reached(self, until):
        """Has the run reached `until` ("over": the game-over screen; "round": the end
        of a round)?"""
        scr = self.app.screen_name()
        if until == "over":
            return scr == "over"
        if until == "round":
            return scr in ("summary", "over")
        return False

    def state_line(self):
        """`state <sha1 of the game> frame <sha1 of the picture>` (host.state)."""
        raise NotImplementedError

    def summary_line(self):
        """Where the run ended: the screen, phase, round, winner, scores, frames."""
        raise NotImplementedError

    def replay_divergence(self, finished):
        """None, or one line on how the replay being played left its recording."""
        raise NotImplementedError
