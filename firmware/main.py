# Boot on the device (`make deploy` copies a /main.py that calls run()).
# Builds the ports from the board's pin map, then steps the app at FRAME_US a frame
# while a watchdog makes sure a hang resets the board. Holding any button at power-up
# enters the self-test instead (selftest.py). Importing this module touches no
# hardware: run() does everything.
#
# The board reports what it is doing on its USB serial console, one line whenever the
# screen, the phase or the round changes ("spit: screen=game phase=play round=2 ..."),
# so `make repl` shows it and the emulated Pico's harness can follow the game. Output is
# dropped when no computer listens. Ctrl-C stops the game, switches the watchdog off and
# leaves the running app in `firmware.main.app` for the REPL.

import time

from firmware.hw import chip_name
from firmware.screens import GAME as GAME_SCREEN

CHECK_US = 1000000        # how often the loop checks that the input's interrupt is alive
WDT_MS = 4000             # longest a frame, a flash save or the boot may take
STORAGE_PATH = "/spit.json"
NO_DISPLAY_US = 10000000  # how often a board without a working display says so
EXTRA_STEP_US = 500       # after the arbiter's window, when a press waits to be shown
GO_ON_US = 2000           # the next share of a redraw spread over steps (view, display)
# Garbage is collected when the game chooses, not when an allocation fails inside a
# frame: a full collection takes ~13 ms on the chip, ~17 ms in a linked game (firmware/
# collector.py keeps it from scanning the heap twice: docs/BENCHMARKS.md, make bench-gc),
# so it runs between frames, only with GC_ROOM_US before the next one, no press waiting
# for its decision and no slap open (R18-R20, R25-R26), at least every GC_EVERY frames.
# Linked, every GC_EVERY_LINKED: link play allocates faster (frames coded and read, the
# stream kept) and leaves less heap; every 8, the host still ran out inside 14 frames
# in 20 s of play on the emulated chip (a collection then: ~30 ms), every 4 in 2.
GC_EVERY = 8
GC_EVERY_LINKED = 4
GC_ROOM_US = 24000
# The CPU players' next look is worked out between frames (app.prepare, ~4 ms on the
# chip) once after each step, with this much room before the next frame and, like a
# collection, no press waiting for its decision: a frame that makes the look has
# only the look's random draws and its press left to do.
PREPARE_ROOM_US = 8000

# The watchdog's control register (CTRL, enable bit 30) through the atomic-clear alias
# (+0x3000): RP2040 and RP2350. machine.WDT has no way to stop it.
_WDT_CTRL_CLR = {"RP2040": 0x40058000 + 0x3000, "RP2350": 0x400D8000 + 0x3000}
_WDT_ENABLE = 1 << 30

app = None                # the running App (for the REPL and the emulated Pico's harness)
# The loop's own collections: how many, and how long the last and the longest took.
gc_runs = 0
gc_last_us = 0
gc_max_us = 0


def stop_watchdog(machine):
    """Switch the watchdog off, so the REPL, mpremote and a new deploy are not reset
    WDT_MS later (on rp2 machine.WDT cannot be stopped once started)."""
    machine.mem32[_WDT_CTRL_CLR[chip_name()]] = _WDT_ENABLE


def start_game(app, start, log=True):
    """start: {"seed", "points", "flip", "cpu": [level or 0, level or 0]} and optionally
    "snapshot" (a Game.snapshot() between rounds) and "conduct" (a recording's conduct
    line; without it, the settings'): begin that game now. The start is
    reported before the game is dealt and saved (a flash write), so a computer that
    plays presses against the clock knows the start at once."""
    from shared_rules.game import Rules
    rules = Rules(points=bool(start.get("points", 0)), manual_flip=bool(start.get("flip", 0)))
    cpu = start.get("cpu", (0, 0))
    seed = start.get("seed", 0) & 0x3FFFFFFF
    now = time.ticks_us()
    if log:
        print("spit: start seed=%d t=%d" % (seed, now))
    conduct = None
    if start.get("conduct"):
        from shared_rules.conduct import Conduct
        conduct = Conduct.parse(start["conduct"].split()[1:])
    app.start_game(seed, rules, (cpu[0] or None, cpu[1] or None), now,
                   snapshot=start.get("snapshot"), conduct=conduct)


def report(app, now):
    g = app.game
    if g is None:
        print("spit: screen=%s t=%d" % (app.screen_name(), now))
        return
    w = "-" if g.winner is None else g.winner
    print("spit: screen=%s phase=%s round=%d scores=%d:%d winner=%s t=%d" % (
        app.screen_name(), g.phase, g.round, g.scores[0], g.scores[1], w, now))


def report_link(app, said):
    """One line when link play's state or role changes ("spit: link LINKED host=1"), so
    a computer on the console can follow the cable. said: the last (state, host) said.
    -> what is said now."""
    lp = app.linkplay
    now = None if lp is None else (lp.link.state, lp.link.authority)
    if now != said and now is not None:
        from firmware.link.link import STATE_NAMES
        print("spit: link %s host=%d" % (STATE_NAMES[now[0]], 1 if now[1] else 0))
    return now


def report_start(app):
    # (The time the game began is its recording's first frame; read from the app, not
    # the recording, whose reader's code would then stay on the heap all game.)
    print("spit: start seed=%d t=%d" % (app.game.seed, app.start_t))


def run(start=None, log=True, probe=None):
    """The game. start: a game to begin at once instead of the title menu (see
    start_game); log: report screen changes on the serial console; probe: called with
    the app after every frame (measuring tools, e.g. the live heap)."""
    global app
    import machine
    from firmware.hw import board
    pins, scheme = board.button_pins()
    if board.held_at_boot(machine, pins):
        from firmware import selftest
        selftest.main()
        return
    display, buttons, buzzer = board.build_hardware(machine, pins)
    if log:                            # which capture stamps the touches, and if not PIO, why
        print("spit: input %s%s" % (buttons.kind, " (%s)" % buttons.why if buttons.why else ""))
    link, why = board.build_link(machine)
    board = None
    forget_boot(buttons)
    if log and link is None:           # no LINK PLAY; the single-handheld game goes on
        print("spit: no link (%s)" % why)
    elif log and why:                  # it links, but its clock sync is 100 times coarser
        print("spit: link without edge stamps (%s)" % why)
    from firmware.app import App, Ports
    from firmware.hw.storage import FileStorage
    from firmware.hw.clock import Clock
    app = App(Ports(buttons, display, buzzer, FileStorage(STORAGE_PATH), Clock(),
                    link=link),
              scheme=scheme, now_us=time.ticks_us())
    if start is not None:
        start_game(app, start, log)
    wdt = machine.WDT(timeout=WDT_MS)
    try:
        while True:
            try:
                loop(app, display, buttons, buzzer, wdt, log, probe)
            except MemoryError:      # out of heap outside app.step (which handles its own)
                import gc
                gc.collect()         # the loop starts again; the game is the app's
    except KeyboardInterrupt:
        stop_watchdog(machine)
        buzzer.stop()
        # The panel gets the rest of the picture the game had drawn (a redraw's later
        # shares, hw/display.SEND_BUDGET), so it shows where the game stopped.
        for _ in range(8):
            if not getattr(display, "behind", False) or not display.flush():
                break
        raise


def forget_boot(buttons):
    """Let the heap have the boot's code back once the ports are built (a module stays
    on the heap while sys.modules or its package holds it): the board's pin map and
    builders, and the GPIO-interrupt capture's module when the PIO capture runs (it
    only chose between the two). ~5 KB on the chip."""
    import sys
    names = [("firmware.hw", "board"), ("firmware.boards", "pico"), ("firmware", "boards")]
    if buttons.kind == "pio":
        names.append(("firmware.hw", "buttons"))
    for parent, leaf in names:
        sys.modules.pop(parent + "." + leaf, None)
        package = sys.modules.get(parent)
        if package is not None and hasattr(package, leaf):
            delattr(package, leaf)


def check_input(buttons, seen, log):
    """Re-arm the input's interrupt if MicroPython switched it off, and report on the
    console when that happened or the handler caught errors. seen: [errors, rearmed] as
    last reported (updated). -> True if anything new was reported."""
    buttons.check()
    errors = buttons.errors
    rearmed = buttons.rearmed
    if errors == seen[0] and rearmed == seen[1]:
        return False
    seen[0] = errors
    seen[1] = rearmed
    if log:
        print("spit: input %s errors=%d rearmed=%d" % (buttons.kind, errors, rearmed))
    return True


def deciding(app):
    """The arbiter holds a press until its first-touch window has passed (R18-R19)."""
    arb = app.arbiter
    return app.screen == GAME_SCREEN and arb is not None and arb.pending() > 0


def race_open(app):
    """A press waits for its decision, or a slap is open (R25-R26)."""
    if deciding(app):
        return True
    g = app.game
    return g is not None and app.screen == GAME_SCREEN and g.phase == "slap"


def collect(full, ticks_us, ticks_diff):
    global gc_runs, gc_last_us, gc_max_us
    t0 = ticks_us()
    full()
    gc_last_us = ticks_diff(ticks_us(), t0)
    gc_runs += 1
    if gc_last_us > gc_max_us:
        gc_max_us = gc_last_us


def loop(app, display, buttons, buzzer, wdt, log, probe=None):
    from firmware import sound
    from firmware.collector import collect as full_collect
    from firmware.app import FRAME_US
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    ticks_add = time.ticks_add
    next_frame = ticks_us()
    next_check = ticks_add(next_frame, CHECK_US)
    seen = [0, 0]
    warned = None                      # when "no display" was last said
    shown = True
    screen = -1
    phase = None
    rnd = -1
    game = app.game                    # a game begun by run(start=...) was reported there
    pending = getattr(buttons, "pending", None)
    flush = getattr(display, "flush", None)
    soon = None                        # an extra step: presses waiting, a redraw going on
    since_gc = 0
    ahead = False                      # app.prepare() is due (once after each step)
    linked = None                      # link play's (state, host) as last reported
    while True:
        now = ticks_us()
        if soon is None and pending is not None and pending():
            lp = app.linkplay
            if lp is not None and lp.guest_playing():
                # A guest decides no press itself (R43): its press goes to the authority
                # now, and the first-touch window is waited out there.
                soon = now
            else:
                # Decide and show a press as soon as the arbiter may (its first-touch
                # window has passed), not at the next frame: up to a frame less from
                # touch to pixels.
                soon = ticks_add(now, app.window_us + EXTRA_STEP_US)
                if lp is not None:
                    lp.ask(now)        # linked: the guest's word comes within the window
        if ticks_diff(now, next_frame) >= 0 or (soon is not None and ticks_diff(now, soon) >= 0):
            drew = app.step(now)
            if not drew and flush is not None and display.behind:
                flush()                # the next share of what the panel is owed
            soon = None
            since_gc += 1
            ahead = True
            if deciding(app):
                # A press drained before its window had passed is still queued: step
                # again when it may be decided, not a whole frame later.
                soon = ticks_add(now, app.window_us + EXTRA_STEP_US)
            elif app.view.behind or app.draw_owed or (flush is not None and display.behind):
                soon = ticks_add(ticks_us(), GO_ON_US)
            if ticks_diff(now, next_frame) >= 0:
                next_frame = ticks_add(next_frame, FRAME_US)
                if ticks_diff(now, next_frame) >= 0:  # fell behind: don't try to catch up
                    next_frame = ticks_add(now, FRAME_US)
            if probe is not None:
                probe(app)
            if log:
                g = app.game
                if g is not game:
                    game = g
                    report_start(app)
                if app.screen != screen or (g is not None and (g.phase != phase or g.round != rnd)):
                    screen = app.screen
                    if g is not None:
                        phase = g.phase
                        rnd = g.round
                    report(app, now)
                linked = report_link(app, linked)
            if not display.ok:
                display.show()         # a retry every RETRY_SHOWS frames; all of it once back
            if display.ok != shown or (not shown and ticks_diff(now, warned) >= NO_DISPLAY_US):
                # A board with no picture says so by ear, every few seconds, and on the
                # serial console; the game itself goes on (its state is safe).
                shown = display.ok
                warned = now
                if not shown:
                    buzzer.play(sound.NO_DISPLAY)
                if log:
                    print("spit: %s" % ("display ok" if shown else display.problem))
        now = ticks_us()
        if ahead and soon is None and ticks_diff(next_frame, now) >= PREPARE_ROOM_US \
                and not (pending is not None and pending()) and not deciding(app):
            ahead = False
            app.prepare()
            now = ticks_us()
        if since_gc >= (GC_EVERY if app.linkplay is None else GC_EVERY_LINKED) \
                and soon is None and ticks_diff(next_frame, now) >= GC_ROOM_US \
                and not (pending is not None and pending()) and not race_open(app):
            collect(full_collect, ticks_us, ticks_diff)
            since_gc = 0
            now = ticks_us()
        if ticks_diff(now, next_check) >= 0:
            next_check = ticks_add(now, CHECK_US)
            check_input(buttons, seen, log)
        buzzer.step(now)
        lp = app.linkplay
        if lp is not None:             # answered between frames: a tighter round trip (R43)
            lp.link.poll(now)
            if soon is None and lp.news():
                soon = now
        wdt.feed()
        time.sleep_ms(1)


if __name__ == "__main__":
    run()
