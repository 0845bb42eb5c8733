# Runs ON the emulated Pico (tools/bench_pico.py puts it on the board's filesystem and
# calls it through the raw REPL). Measures the firmware's own parts on the chip; the
# host schedules the button edges at exact guest times and reads the lines printed here.
#
#   races(pins, trials, window_us)   the capture and the arbiter deciding P0 against P1
#                                    (kind="pio": the PIO capture instead of the GPIO IRQ)
#   play(seconds, seed)              the app on the real ports, P0 pressed by the host,
#                                    P1 the CPU: frame times, stamps, heap, GC, saves
#   irq_off(kind, windows)           presses while interrupts are off for 20 ms
#   storm(kind, storms)              50-edge bounce storms with a clean press inside
#   cpu(kind, ms)                    CPU time the capture takes per edge and per frame
#
# Output lines: "R trial winner reason t0 t1" per race, "F start end screen" per frame
# followed by "E t player button" for each press that frame drained, "S start end" per save, "G pause_us alloc"
# per heap sample, "DONE" at the end.

import gc
import time

from shared_rules.arbiter import Arbiter
from shared_rules.game import Game
from shared_rules.pad import Pad, TWO_BUTTON, B

WINDOW_US = 2000


def race_game(tie_priority):
    # Both players' first stockpile fits the one pile (7 on 8 or 9), but once either is
    # played the other no longer fits: a real race for the pile (R18, R20).
    from shared_rules.cards import card
    g = Game.from_layout([[[card("7H")], [], [], [], []], [[card("9S")], [], [], [], []]],
                         [[], []], [[card("8C")]])
    g.tie_priority = tie_priority
    return g


def capture(kind, pins, debounce_us=10000):
    """The capture of that kind ("gpio": the GPIO-interrupt capture, "pio"), started."""
    import machine
    if kind == "pio":
        from firmware.hw.buttons_pio import PioCapture
        return PioCapture(pins, debounce_us).start(machine)
    from firmware.hw.buttons import ButtonCapture
    return ButtonCapture(pins, debounce_us).start(machine)


def races(pins, trials, timeout_us=200000, kind="gpio"):
    """pins: the capture's pin map (gpio, player, name). For each trial the host presses
    B of both players; the arbiter decides; prints who won and both stamps."""
    cap = capture(kind, pins)
    pads = (Pad(0, TWO_BUTTON), Pad(1, TWO_BUTTON))
    tie = 0
    evs = []
    print("READY")
    for k in range(trials):
        g = race_game(tie)
        arb = Arbiter(g, WINDOW_US)
        stamps = [None, None]
        first = None
        while True:
            now = time.ticks_us()
            del evs[:]
            cap.drain(evs)
            for t, p, name, down in evs:
                if down and name == "B" and stamps[p] is None:
                    stamps[p] = t
                    if first is None:
                        first = t
                    act = pads[p].press(g, B)
                    if act is not None:
                        arb.press(act, t)
            if stamps[0] is not None and stamps[1] is not None:
                break
            if first is not None and time.ticks_diff(now, first) > timeout_us:
                break
            time.sleep_us(200)
        last = stamps[0] if stamps[1] is None else stamps[1]
        if stamps[0] is not None and stamps[1] is not None and \
                time.ticks_diff(stamps[0], stamps[1]) > 0:
            last = stamps[0]
        winner = -1
        reason = "-"
        for action, _t, why in arb.settle(time.ticks_add(last, WINDOW_US + 1)):
            if why is None:
                winner = action[1]
            elif why != "beaten":
                reason = why
        tie = g.tie_priority
        print("R %d %d %s %s %s" % (k, winner, reason, stamps[0], stamps[1]))
        while cap.pending() or time.ticks_diff(time.ticks_us(), last) < 40000:
            del evs[:]
            cap.drain(evs)
            time.sleep_ms(2)
    cap.stop()
    print("DONE")


class _Done(Exception):
    pass


class _NoWatchdog:
    def feed(self):
        pass


def play(seconds, seed, cpu_level=3, heap_every=15):
    """The app on the board's real ports for `seconds` of play: P0 human (the host
    presses its pins), P1 the CPU, stepped by firmware.main's own loop (with app.step
    timed and the input and saves logged around it)."""
    import machine
    from firmware import main as fm
    from firmware.hw import board
    from firmware.app import App, Ports
    from firmware.hw.storage import FileStorage
    from firmware.hw.clock import Clock
    from shared_rules.game import Rules
    pins, scheme = board.button_pins()
    display, buttons, buzzer = board.build_hardware(machine, pins)
    storage = FileStorage(fm.STORAGE_PATH)
    save = storage.save

    def timed_save(d):
        t0 = time.ticks_us()
        save(d)
        print("S %d %d" % (t0, time.ticks_us()))
    storage.save = timed_save
    drain = buttons.drain
    pressed = []

    def logged_drain(out=None, poll=True):
        n = len(out) if out is not None else 0
        got = drain(out, poll)
        for e in got[n:]:
            if e[3]:
                pressed.append(e)
        return got
    buttons.drain = logged_drain
    app = App(Ports(buttons, display, buzzer, storage, Clock()), scheme=scheme,
              now_us=time.ticks_us())
    step = app.step

    def timed_step(now):
        step(now)
        print("F %d %d %d" % (now, time.ticks_us(), app.screen))
        for e in pressed:
            print("E %d %d %s" % (e[0], e[1], e[2]))
        del pressed[:]
    app.step = timed_step
    t = time.ticks_us()
    print("START %d" % t)
    app.start_game(seed, Rules(), (None, cpu_level), t)
    end = time.ticks_add(t, seconds * 1000000)
    count = [0]

    def probe(_app):
        count[0] += 1
        if count[0] % heap_every == 0:
            g0 = time.ticks_us()
            gc.collect()
            print("G %d %d" % (time.ticks_diff(time.ticks_us(), g0), gc.mem_alloc()))
        if time.ticks_diff(time.ticks_us(), end) >= 0:
            raise _Done()
    try:
        fm.loop(app, display, buttons, buzzer, _NoWatchdog(), False, probe)
    except _Done:
        pass
    buttons.stop()
    buzzer.stop()
    print("DONE %d" % count[0])


def irq_off(kind, windows, off_us=20000):
    """Interrupts off for off_us, `windows` times (as a flash erase does); the host
    presses inside. Prints "W start end" per window, then "E t player button down" per
    event and DONE."""
    import machine
    from firmware.boards import pico as board
    cap = capture(kind, board.BUTTONS)
    cap.drain()
    print("READY")
    evs = []
    for _ in range(windows):
        time.sleep_ms(30)
        s = machine.disable_irq()
        t0 = time.ticks_us()
        while time.ticks_diff(time.ticks_us(), t0) < off_us:
            pass
        t1 = time.ticks_us()
        machine.enable_irq(s)
        print("W %d %d" % (t0, t1))
        time.sleep_ms(30)
        cap.drain(evs)
    time.sleep_ms(150)                 # the host's last presses, and their releases
    for e in cap.drain(evs):
        print("E %d %d %s %d" % (e[0], e[1], e[2], 1 if e[3] else 0))
    print("X %d" % cap.dropped)
    cap.stop()
    print("DONE")


def storm(kind, storms, every_ms=120):
    """The host makes `storms` 50-edge bounce storms on player 1's B, each with a clean
    press of player 0's A inside. Prints the capture's counts, the events and DONE."""
    from firmware.boards import pico as board
    cap = capture(kind, board.BUTTONS)
    cap.drain()
    print("READY")
    evs = []
    for _ in range(storms):
        time.sleep_ms(every_ms)
        cap.drain(evs)
    time.sleep_ms(50)
    cap.drain(evs)
    for e in evs:
        print("E %d %d %s %d" % (e[0], e[1], e[2], 1 if e[3] else 0))
    print("C %d %d %d %d" % (sum(cap.presses), sum(cap.bounces), cap.dropped,
                             getattr(cap, "lost_words", 0)))
    cap.stop()
    print("DONE")


def _spin(us):
    end = time.ticks_add(time.ticks_us(), us)
    n = 0
    while time.ticks_diff(end, time.ticks_us()) > 0:
        n += 1
    return n


def cpu(kind, ms):
    """CPU time the capture costs. Per edge: a spin loop counts its turns for `ms`
    without edges, then again while the host makes edges; the turns lost are the time
    the capture's interrupts took. Per frame: drain() (with its poll) with nothing to
    report, timed over many calls against the same loop without the call."""
    from firmware.boards import pico as board
    cap = capture(kind, board.BUTTONS)
    cap.drain()
    evs = []
    n = 300
    t0 = time.ticks_us()
    for _ in range(n):
        del evs[:]
    empty = time.ticks_diff(time.ticks_us(), t0)
    t0 = time.ticks_us()
    for _ in range(n):
        del evs[:]
        cap.drain(evs)
    frame = time.ticks_diff(time.ticks_us(), t0) - empty
    print("F %d %d" % (frame, n))
    print("READY")
    quiet = _spin(ms * 1000)
    busy = _spin(ms * 1000)
    print("S %d %d %d" % (quiet, busy, ms * 1000))
    print("X %d %d %d" % (sum(cap.presses), sum(cap.bounces), cap.dropped))
    cap.stop()
    print("DONE")
