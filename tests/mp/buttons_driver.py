# Drives firmware/hw/buttons.py against a fake `machine` and a test-controlled clock.
# Runs under the real MicroPython unix interpreter and under CPython alike; prints one
# line per case, "RESULT <json>", which tests/hw/test_buttons_mpy.py parses and checks.
#
#   MICROPYPATH=<repo> micropython -X heapsize=150K tests/mp/buttons_driver.py [case ...]
#   PYTHONPATH=<repo>  python tests/mp/buttons_driver.py [case ...]
#
# The fake board mimics the rp2 port: Pin(gpio, Pin.IN, Pin.PULL_UP), pin.irq(handler,
# trigger, hard=...), the handler called with the Pin, mem32[0xd0000004] returning the
# GPIO input word (buttons active low: pressed = bit 0), disable_irq()/enable_irq().

import sys

try:
    import json
except ImportError:
    import ujson as json

MICROPYTHON = sys.implementation.name == "micropython"
GPIO_IN = 0xD0000004
PERIOD = 1 << 30
ALL_HIGH = 0x3FFFFFFF  # every GPIO 0..29 pulled up, nothing pressed


class Board:
    """The outside world: pin levels, the clock, and the registered handlers."""

    def __init__(self, t=0):
        self.reg = ALL_HIGH
        self.now = [t]  # a list so the clock closure reads it without allocating
        self.handlers = {}
        self.pins = {}
        self.irq_disabled = 0
        self.disable_calls = 0
        self.bad_reads = 0

    def ticks(self):
        return self.now[0]

    def set_time(self, t):
        self.now[0] = t % PERIOD

    def level(self, gpio, down):
        if down:
            self.reg &= ~(1 << gpio)
        else:
            self.reg |= 1 << gpio

    def fire(self, gpio):
        h = self.handlers[gpio]
        if h is not None:
            h(self.pins[gpio])

    def edge(self, t, gpio, down):
        """Pin `gpio` changes level at time t and its interrupt is serviced then."""
        self.set_time(t)
        self.level(gpio, down)
        self.fire(gpio)


BOARD = Board()


class FakeIrq:
    """What Pin.irq() returns on rp2: trigger() reads the trigger, trigger(0) is what
    MicroPython does to an IRQ whose handler raised."""

    def __init__(self, pin):
        self.pin = pin

    def trigger(self, new=None):
        old = self.pin.trigger
        if new is not None:
            self.pin.trigger = new
            if new == 0:
                BOARD.handlers[self.pin.gpio] = None
        return old


class FakePin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, gpio, mode=-1, pull=-1):
        self.gpio = gpio
        self.mode = mode
        self.pull = pull
        self.trigger = None
        self.hard = None
        BOARD.pins[gpio] = self

    def irq(self, *args, **kw):
        # Pin.irq() with no arguments only returns the IRQ object (as on rp2); with
        # any, it configures: irq(handler=None, trigger=12, hard=False).
        if args or kw:
            handler = args[0] if args else kw.get("handler")
            self.trigger = args[1] if len(args) > 1 else kw.get("trigger", 12)
            self.hard = kw.get("hard", False)
            BOARD.handlers[self.gpio] = handler
        return FakeIrq(self)


class FakeMem:
    def __getitem__(self, addr):
        if addr != GPIO_IN:
            BOARD.bad_reads += 1
        return BOARD.reg


class FakeMachine:
    Pin = FakePin
    mem32 = FakeMem()

    @staticmethod
    def disable_irq():
        BOARD.irq_disabled += 1
        BOARD.disable_calls += 1
        return 7

    @staticmethod
    def enable_irq(state):
        BOARD.irq_disabled -= 1


sys.modules["machine"] = FakeMachine  # what `import machine` in start() will find

from firmware.boards import pico  # noqa: E402
from firmware.hw.buttons import ButtonCapture  # noqa: E402

A0, B0, A1, B1 = pico.P0_A, pico.P0_B, pico.P1_A, pico.P1_B
DB = 10_000


def new_board(t=0, size=64, debounce_us=DB, pins=None):
    global BOARD
    BOARD = Board(t)
    bc = ButtonCapture(pins or pico.BUTTONS, debounce_us=debounce_us, size=size, ticks_us=BOARD.ticks)
    bc.start()  # imports the fake machine from sys.modules
    return bc


def ev(events):
    return [[e[0], e[1], e[2], 1 if e[3] else 0] for e in events]


def counters(bc):
    return {
        "dropped": bc.dropped,
        "presses": list(bc.presses),
        "bounces": list(bc.bounces),
        "bad_reads": BOARD.bad_reads,
        "irq_left_disabled": BOARD.irq_disabled,
    }


# ---- cases: each returns a dict of observations --------------------------------------


def case_start():
    bc = new_board()
    handlers = [BOARD.handlers[g] for g in bc.gpios]
    same = all(h is handlers[0] for h in handlers)
    pins = [BOARD.pins[g] for g in bc.gpios]
    return {
        "gpios": list(bc.gpios),
        "one_handler": same and handlers[0] is bc._isr,
        "modes": [p.mode for p in pins],
        "pulls": [p.pull for p in pins],
        "triggers": [p.trigger for p in pins],
        "hard": [p.hard for p in pins],
        "events": ev(bc.drain()),
    }


def case_held_at_start():
    global BOARD
    BOARD = Board(500)
    BOARD.level(B1, True)  # player 1's B already held when capture starts
    bc = ButtonCapture(pico.BUTTONS, ticks_us=BOARD.ticks)
    bc.start(FakeMachine)
    first = ev(bc.drain())
    BOARD.set_time(900_000)
    second = ev(bc.drain())
    return {"first": first, "second": second}


def case_default_lockout():
    # No debounce time given: the lock-out is the board's 10 ms, so a release 3 ms after
    # the press is seen only once 10 ms have passed since the press.
    global BOARD
    BOARD = Board(0)
    bc = ButtonCapture(pico.BUTTONS, ticks_us=BOARD.ticks)
    bc.start()
    t = 100_000
    BOARD.edge(t, A0, True)
    BOARD.edge(t + 3000, A0, False)
    BOARD.set_time(t + 9_999)
    before = ev(bc.drain())
    BOARD.set_time(t + 10_050)
    return {"before_end": before, "after_end": ev(bc.drain()), "t": t}


def case_order():
    bc = new_board()
    b = BOARD
    b.edge(1000, A1, True)
    b.edge(1500, B0, True)
    b.edge(2000, A0, True)
    b.edge(40_000, A1, False)
    b.edge(40_300, B0, False)
    b.edge(41_000, A0, False)
    b.set_time(60_000)
    out = ev(bc.drain())
    out2 = ev(bc.drain())
    r = {"events": out, "again": out2}
    r.update(counters(bc))
    return r


def case_tie():
    # Both players close their contacts before the interrupt is serviced. The rp2 port
    # then calls the handler for the lower pin first, then the higher one.
    bc = new_board()
    b = BOARD
    b.set_time(5000)
    b.level(A1, True)
    b.level(A0, True)
    b.fire(A0)  # lower pin serviced first ...
    b.set_time(5020)
    b.fire(A1)  # ... then the higher one, 20 us later
    b.set_time(50_000)
    events = ev(bc.drain())
    # Release P1's and press P0's B at once, serviced in the other pin order.
    b.set_time(70_000)
    b.level(A1, False)
    b.level(B0, True)
    b.fire(A1)
    b.set_time(70_020)
    b.fire(B0)
    b.set_time(90_000)
    events2 = ev(bc.drain())
    return {"events": events, "events2": events2}


def case_bounce():
    bc = new_board()
    b = BOARD
    t = 100_000
    b.edge(t, A0, True)  # the touch
    level = True
    for k in range(30):  # 30 bounce edges within 5 ms, ending pressed
        level = not level
        b.edge(t + 160 * (k + 1), A0, level if k < 29 else True)
    end_level_pressed = not (b.reg & (1 << A0))
    for f in range(10):  # frames while held
        bc.poll(t + 20_000 + 16_000 * f)
    press = ev(bc.drain(poll=False))
    r = t + 300_000
    b.edge(r, A0, False)  # the release, with its own 30 bounces ending released
    level = False
    for k in range(30):
        level = not level
        b.edge(r + 150 * (k + 1), A0, level if k < 29 else False)
    b.set_time(r + 50_000)
    release = ev(bc.drain())
    res = {"press": press, "release": release, "end_level_pressed": end_level_pressed}
    res.update(counters(bc))
    return res


def case_stuck():
    bc = new_board()
    b = BOARD
    b.edge(2000, B0, True)  # B0 gets stuck down
    t = 2000
    other = False
    out = []
    for f in range(625):  # 10 s of 16 ms frames, player 1 mashing A every 5th frame
        t += 16_000
        if f % 5 == 0:
            other = not other
            b.edge(t - 3000, A1, other)
        b.set_time(t)
        bc.drain(out)  # what the app does each frame
    events = ev(out)
    b0_events = [e for e in events if e[1] == 0]
    res = {"b0_events": b0_events, "n_events": len(events), "b0_down": bc.is_down(1)}
    res.update(counters(bc))
    return res


def case_overflow():
    bc = new_board(size=8)
    b = BOARD
    t = 10_000
    for k in range(6):  # 12 events, nobody drains
        b.edge(t, A0, True)
        b.edge(t + 20_000, A0, False)
        t += 40_000
    pending = bc.pending()
    first = ev(bc.drain(poll=False))
    b.edge(t, B1, True)  # room again after the drain
    after = ev(bc.drain(poll=False))
    res = {"pending": pending, "first": first, "after": after}
    res.update(counters(bc))
    return res


def case_wrap():
    bc = new_board(t=PERIOD - 5000)
    b = BOARD
    t0 = PERIOD - 2000
    b.edge(t0, A0, True)  # accepted, just before the wrap
    b.edge(t0 + 1000, A0, False)  # bounce
    b.edge(t0 + 2500, A0, True)  # bounce, after the wrap (stamp 500)
    b.edge(t0 + 9000, A0, False)  # bounce: still 9 ms after the press
    b.edge(t0 + 9500, A0, True)  # bounce
    b.edge(t0 + 11_000, A0, False)  # 11 ms after the press: a real release (stamp 9000)
    b.edge(t0 + 12_000, A0, True)  # bounces of that release ...
    b.edge(t0 + 12_400, A0, False)  # ... settling released
    b.set_time(t0 + 40_000)
    across = ev(bc.drain())
    # A long idle spell: 2**29 + 100 us after an edge, ticks_diff is negative; the lock-
    # out must count as expired (no poll in between).
    bc2 = new_board(t=0)
    b = BOARD
    b.edge(1000, B1, True)
    b.edge(1000 + (1 << 29) + 100, B1, False)
    idle = ev(bc2.drain())
    # 2**30 + 5 us later ticks_diff is 5 again; a poll() in between retires the lock-out.
    bc3 = new_board(t=0)
    b = BOARD
    b.edge(1000, A1, True)
    bc3.poll(1000 + (1 << 28) + 7)
    b.edge(1000 + PERIOD + 5, A1, False)
    full_period = ev(bc3.drain(poll=False))
    return {"across": across, "idle": idle, "full_period": full_period, "bounces": list(bc.bounces)}


def case_lost_release():
    bc = new_board()
    b = BOARD
    b.edge(100_000, A0, True)  # press accepted
    b.edge(103_000, A0, False)  # real release inside the lock-out: ignored as a bounce
    calls0 = BOARD.disable_calls
    bc.poll(105_000)  # still locked out: nothing yet
    mid = ev(bc.drain(poll=False))
    calls1 = BOARD.disable_calls
    bc.poll(112_000)  # lock-out over and the level differs: the release, stamped now
    after = ev(bc.drain(poll=False))
    calls2 = BOARD.disable_calls
    # Same, reconciled by the next interrupt (another button's) instead of a poll.
    b.edge(200_000, B0, True)
    b.edge(204_000, B0, False)  # swallowed
    b.edge(215_000, A1, True)  # P1 presses: that interrupt also settles P0's B
    via_irq = ev(bc.drain(poll=False))
    # Idle frames do not disable IRQs.
    b.set_time(400_000)
    calls3 = BOARD.disable_calls
    for f in range(100):
        bc.poll(400_000 + f * 16_000)
    calls4 = BOARD.disable_calls
    return {
        "mid": mid,
        "after": after,
        "via_irq": via_irq,
        "disable_before": calls1 - calls0,
        "disable_reconcile": calls2 - calls1,
        "disable_idle": calls4 - calls3,
        "irq_left_disabled": BOARD.irq_disabled,
    }


def case_stale_now():
    # The app may pass poll() a `now` read just before an interrupt stamped a press:
    # a slightly negative ticks_diff must not end that press's lock-out.
    bc = new_board()
    b = BOARD
    b.edge(100_000, A0, True)
    bc.poll(99_950)
    b.edge(100_200, A0, False)  # bounce
    b.edge(100_400, A0, True)  # bounce
    b.set_time(130_000)
    return {"events": ev(bc.drain()), "bounces": list(bc.bounces)}


def _locked_run(bc, b, log):
    # Everything below runs with the heap locked (MicroPython): the handler, ties,
    # bounces, a full ring, the tick wrap, lock-out expiry, and poll()'s idle path.
    errors = 0
    try:
        t = PERIOD - 3000
        b.now[0] = t
        b.reg &= ~(1 << A0)
        b.reg &= ~(1 << A1)
        b.fire(A0)  # tie: two events, one stamp
        b.fire(A1)
        b.now[0] = t + 1000
        b.reg |= 1 << A0
        b.fire(A0)  # bounce
        b.now[0] = 500  # wrapped
        b.reg &= ~(1 << A0)
        b.fire(A0)  # bounce
        b.now[0] = 9000
        b.reg |= 1 << A0
        b.reg |= 1 << A1
        b.fire(A0)  # both released (tie) after the wrap: 12 ms after the press
        b.now[0] = 30_000
        b.reg &= ~(1 << B0)
        b.fire(B0)  # ring (size 4) now full
        b.now[0] = 50_000
        b.reg |= 1 << B0
        b.fire(B0)  # dropped
        b.now[0] = 70_000
        bc.poll(70_000)  # idle frame: nothing to do
        bc.poll(70_016)
    except MemoryError:
        errors += 1
    log[0] = errors


def case_heap_lock():
    res = {"micropython": MICROPYTHON}
    if not MICROPYTHON:
        return res
    import micropython

    bc = new_board(t=0, size=4)
    b = BOARD
    bc.drain()  # settle; nothing pending
    log = [0]
    probe = [0]
    # Prove the lock works: an allocation under it must raise.
    micropython.heap_lock()
    try:
        probe[0] = len([0] * 8)
    except MemoryError:
        probe[0] = -1
    micropython.heap_unlock()
    micropython.heap_lock()
    try:
        _locked_run(bc, b, log)
    finally:
        micropython.heap_unlock()
    res["lock_effective"] = probe[0] == -1
    res["memory_errors"] = log[0]
    res["events"] = ev(bc.drain(poll=False))
    res.update(counters(bc))
    return res


def case_cpython_ticks():
    # The module's own clock fallback (CPython) or time.ticks_us (MicroPython): a
    # capture built without an injected clock stamps with it; stamps stay < 2**30.
    global BOARD
    BOARD = Board()
    bc = ButtonCapture(pico.BUTTONS)
    bc.start(FakeMachine)
    BOARD.level(A0, True)
    lo = _clock_now()
    BOARD.fire(A0)
    hi = _clock_now()
    out = ev(bc.drain(poll=False))
    t = out[0][0] if out else lo - 1
    return {"n": len(out), "in_range": all(0 <= e[0] < PERIOD for e in out),
            "between": _diff(t, lo) >= 0 and _diff(hi, t) >= 0 and _diff(hi, lo) < 1_000_000}


def case_first_edge():
    # The IRQ for A0's pin reads the contact open again (it bounced): the press is held
    # back, stamped at this first edge, and published when a read sees it closed.
    bc = new_board()
    b = BOARD
    b.set_time(100_000)
    b.fire(A0)  # the edge fired, the level reads released
    held = ev(bc.drain(poll=False))
    down_while_held = bc.is_down(0)
    b.edge(100_040, A0, True)  # the contact recloses: this IRQ sees it closed
    confirmed = ev(bc.drain(poll=False))
    down = bc.is_down(0)
    b.edge(200_000, A0, False)
    release = ev(bc.drain())
    # A pin that fires while its button is still held from before is not a new press.
    b.edge(300_000, B1, True)
    b.set_time(320_000)
    b.fire(B1)  # a spurious call for the held button: nothing new
    again = ev(bc.drain())
    return {"held": held, "down_while_held": down_while_held, "confirmed": confirmed,
            "down": down, "release": release, "again": again, "presses": list(bc.presses),
            "bounces": list(bc.bounces)}


def case_spike():
    # A glitch the IRQ saw as an edge but never as a closed contact: no press.
    bc = new_board()
    b = BOARD
    b.set_time(100_000)
    b.fire(B0)
    mid = ev(bc.drain())
    bc.poll(105_000)  # within the lock-out: still undecided
    b.set_time(120_000)  # the lock-out is over: it was noise
    after = ev(bc.drain())
    bounces_after = list(bc.bounces)  # counted by that poll, not at the next edge
    b.edge(130_000, B0, True)  # a real press afterwards is a press
    real = ev(bc.drain())
    return {"mid": mid, "after": after, "bounces_after": bounces_after, "real": real,
            "down": bc.is_down(1), "presses": list(bc.presses), "bounces": list(bc.bounces)}


def case_first_edge_poll():
    # The press held back at its first edge is published by poll() once a read sees
    # the contact closed (its own IRQ not yet serviced), stamped at the first edge.
    bc = new_board()
    b = BOARD
    b.set_time(100_000)
    b.fire(A0)  # the edge fired, the level reads released
    held = ev(bc.drain())
    b.level(A0, True)  # the contact recloses; no IRQ serviced yet
    b.set_time(100_030)
    confirmed = ev(bc.drain())
    return {"held": held, "confirmed": confirmed, "down": bc.is_down(0),
            "presses": list(bc.presses), "bounces": list(bc.bounces)}


def case_odd_ring():
    # A ring of an odd size holds that many events too (one spare slot whatever the size).
    out = {}
    for size in (1, 5):
        bc = new_board(size=size)
        t = 10_000
        for k in range(size + 1):
            BOARD.edge(t, A1, k % 2 == 0)
            t += 20_000
        out["pending_%d" % size] = bc.pending()
        out["dropped_%d" % size] = bc.dropped
        out["n_%d" % size] = len(bc.drain(poll=False))
    return out


def _raising_clock():
    raise ValueError("injected")


def case_handler_raises():
    # An exception inside the handler is counted and the handler stays registered (on
    # MicroPython, with the heap locked as in a hard IRQ: the guard allocates nothing).
    bc = new_board()
    b = BOARD
    real = bc._ticks
    bc._ticks = _raising_clock
    log = [0, 0]
    if MICROPYTHON:
        import micropython

        micropython.heap_lock()
    try:
        try:
            b.edge(1000, A1, True)
            b.edge(20_000, A1, False)
        except Exception:
            log[0] += 1
    finally:
        if MICROPYTHON:
            micropython.heap_unlock()
    bc._ticks = real
    b.edge(50_000, A1, True)
    events = ev(bc.drain(poll=False))
    return {"escaped": log[0], "errors": bc.errors, "events": events,
            "still_attached": BOARD.handlers[A1] is bc._isr}


def case_rearm():
    # MicroPython switched one pin's IRQ off (as after an uncaught exception): check()
    # re-arms it, counts it, and its presses are stamped by the IRQ again.
    bc = new_board()
    b = BOARD
    b.pins[A0].irq().trigger(0)
    dead = BOARD.handlers[A0] is None
    first = bc.check()
    second = bc.check()
    b.edge(5000, A0, True)
    events = ev(bc.drain(poll=False))
    return {"dead": dead, "first": first, "second": second, "rearmed": bc.rearmed,
            "trigger": b.pins[A0].trigger, "hard": b.pins[A0].hard, "events": events}


def _clock_now():
    # The reference each port's stamps must follow: microseconds, folded to 2**30.
    import time

    if hasattr(time, "ticks_us"):
        return time.ticks_us() & (PERIOD - 1)
    return (time.perf_counter_ns() // 1000) & (PERIOD - 1)


def _diff(a, b):
    d = (a - b) & (PERIOD - 1)
    return d - PERIOD if d >= PERIOD // 2 else d


def case_exact_debounce():
    # A change exactly debounce_us after an accepted edge is no bounce: the lock-out is
    # over at that instant, so it is emitted at once, with its own stamp.
    bc = new_board()
    b = BOARD
    b.edge(100_000, A0, True)
    b.edge(100_000 + DB, A0, False)  # the interrupt of the release, exactly DB later
    at_irq = ev(bc.drain(poll=False))
    # A release swallowed by the lock-out is emitted by the poll at exactly DB, not later.
    b.edge(200_000, B0, True)
    b.edge(203_000, B0, False)
    bc.poll(200_000 + DB - 1)
    before = ev(bc.drain(poll=False))
    bc.poll(200_000 + DB)
    at_poll = ev(bc.drain(poll=False))
    return {"at_irq": at_irq, "before": before, "at_poll": at_poll, "bounces": list(bc.bounces)}


def _config_error(pins, **kw):
    try:
        ButtonCapture(pins, ticks_us=BOARD.ticks, **kw)
    except ValueError:
        return "ValueError"
    return "ok"


def _config_message(pins, **kw):
    try:
        ButtonCapture(pins, ticks_us=BOARD.ticks, **kw)
    except ValueError as e:
        return str(e)
    return "ok"


def case_bad_config():
    # Pin maps and options a board could be given: each accepted or refused as a whole.
    one = [(2, 0, "A")]
    thirty = [(g, g % 2, "B%d" % g) for g in range(30)]
    return {
        "no pins": _config_error([]),
        "gpio 29": _config_error([(29, 0, "A")]),
        "gpio 30": _config_error([(30, 0, "A")]),
        "gpio 31": _config_error([(2, 0, "A"), (31, 1, "A")]),
        "gpio -1": _config_error([(-1, 0, "A")]),
        "gpio -1 says": _config_message([(-1, 0, "A")]),
        "gpio 30 says": _config_message([(30, 0, "A")]),
        "gpio twice": _config_error([(5, 0, "A"), (5, 1, "A")]),
        "thirty pins": _config_error(thirty),
        "thirty-one pins": _config_error(thirty + [(2, 0, "X")]),
        "size 0": _config_error(one, size=0),
        "size 1": _config_error(one, size=1),
        "debounce -1": _config_error(one, debounce_us=-1),
        "debounce 0": _config_error(one, debounce_us=0),
        "debounce 2**28 - 1": _config_error(one, debounce_us=(1 << 28) - 1),
        "debounce 2**28": _config_error(one, debounce_us=1 << 28),
    }


def case_default_ring():
    # The ring holds 64 events by default: a 65th before any drain is dropped and counted.
    global BOARD
    BOARD = Board(0)
    bc = ButtonCapture(pico.BUTTONS, ticks_us=BOARD.ticks)
    bc.start(FakeMachine)
    t = 10_000
    for k in range(65):
        BOARD.edge(t, A1, k % 2 == 0)
        t += 20_000
    pending = bc.pending()
    events = ev(bc.drain(poll=False))
    return {"pending": pending, "dropped": bc.dropped, "n": len(events),
            "first": events[0], "last": events[-1]}


def case_ring_wrap():
    # Reading and writing go round the ring: after a drain, new events wrap past its end
    # and are still counted and read in order.
    bc = new_board(size=8)
    b = BOARD
    t = 10_000
    for k in range(6):
        b.edge(t, B0, k % 2 == 0)
        t += 20_000
    first = len(bc.drain(poll=False))
    for k in range(5):
        b.edge(t, A0, k % 2 == 0)
        t += 20_000
    pending = bc.pending()
    events = ev(bc.drain(poll=False))
    return {"first": first, "pending": pending, "events": events, "after": bc.pending(),
            "dropped": bc.dropped}


def case_poll_in_lockout():
    # One button's lock-out has expired with nothing to do (and no scan has run since);
    # another's change is still inside its lock-out: a poll has nothing to apply and
    # must not disable IRQs.
    bc = new_board()
    b = BOARD
    b.edge(100_000, A0, True)  # lock-out over at 110 ms; the level matches the state
    b.edge(101_000, B1, True)
    b.edge(103_000, B1, False)  # swallowed: B1 is locked out until 111 ms
    bc.drain(poll=False)
    calls0 = BOARD.disable_calls
    bc.poll(110_500)
    idle = ev(bc.drain(poll=False))
    calls1 = BOARD.disable_calls
    bc.poll(111_000)
    due = ev(bc.drain(poll=False))
    calls2 = BOARD.disable_calls
    return {"idle": idle, "disable_idle": calls1 - calls0, "due": due,
            "disable_due": calls2 - calls1}


def case_retire_boundary():
    # poll() retires a lock-out once ticks_diff says it is 2**28 us old either way: at
    # exactly 3 * 2**28 us (ticks_diff = -2**28) a change swallowed long ago comes out.
    bc = new_board()
    b = BOARD
    b.edge(1000, A0, True)
    b.edge(2000, A0, False)  # swallowed; no poll for three quarters of a period
    bc.drain(poll=False)
    bc.poll(1000 + 3 * (1 << 28))
    at = ev(bc.drain(poll=False))
    # The interrupt path retires at the same age: B0's lock-out, 3 * 2**28 us later.
    bc2 = new_board()
    b = BOARD
    b.edge(1000, B0, True)
    b.edge(1000 + 3 * (1 << 28), B0, False)
    irq = ev(bc2.drain(poll=False))
    return {"at": at, "irq": irq}


def case_retired_by_an_idle_poll():
    # A poll() that finds a lock-out 2**28 us old (positive age) or older than 2**29 us
    # (ticks_diff negative, beyond -2**28) retires it even with nothing to publish: a
    # period later ticks_diff is small again, and a release then is a real event, not
    # a bounce of a press a period old.
    out = {}
    for name, age in (("at_2_pow_28", 1 << 28), ("past_2_pow_29", (1 << 29) + 100)):
        bc = new_board()
        b = BOARD
        b.edge(1000, A1, True)
        bc.poll(1000 + age)
        b.edge(1000 + PERIOD + 5, A1, False)
        out[name] = ev(bc.drain(poll=False))
        out[name + "_bounces"] = list(bc.bounces)
    return out


def case_held_back_poll_quiet():
    # A press held back at its first edge (the contact bounced open), beside another
    # button's ordinary press: frames inside their lock-outs that still read the first
    # contact open have nothing to do, and switch no interrupts off; the frame that
    # reads it closed publishes it.
    bc = new_board()
    b = BOARD
    b.set_time(100_000)
    b.fire(A0)  # the edge fired, the level reads released: held back
    b.edge(100_100, B0, True)  # another button's ordinary press, held down
    early = ev(bc.drain(poll=False))
    calls0 = b.disable_calls
    quiet = []
    for now in (100_500, 104_000, 109_000):
        bc.poll(now)
        quiet += ev(bc.drain(poll=False))
    calls1 = b.disable_calls
    b.level(A0, True)
    bc.poll(109_500)
    return {"early": early, "quiet": quiet, "disable_quiet": calls1 - calls0,
            "disable_closed": b.disable_calls - calls1, "closed": ev(bc.drain(poll=False))}


def case_read_gpio():
    # A board can hand the capture its own reader of the input word instead of mem32.
    global BOARD
    BOARD = Board(0)
    word = [ALL_HIGH & ~(1 << B0)]  # B0 already held at start
    bc = ButtonCapture(pico.BUTTONS, ticks_us=BOARD.ticks, read_gpio=lambda: word[0])
    bc.start(FakeMachine)
    held = ev(bc.drain())
    BOARD.set_time(50_000)
    word[0] = ALL_HIGH  # released ...
    bc.poll()
    BOARD.set_time(90_000)
    word[0] = ALL_HIGH & ~(1 << A1)  # ... and player 1 presses A, seen by the interrupt
    BOARD.fire(A1)
    later = ev(bc.drain(poll=False))
    return {"held": held, "later": later, "bad_reads": BOARD.bad_reads, "down": bc.is_down(2)}

def case_not_started():
    # Before start() the capture has no machine to read: poll() and drain() read nothing,
    # switch no interrupt off, report nothing. A capture given its own GPIO reader needs
    # no machine: it polls that reader (a button held there is one press).
    global BOARD
    BOARD = Board(1000)
    BOARD.level(B0, True)
    bc = ButtonCapture(pico.BUTTONS, ticks_us=BOARD.ticks)
    bc.poll()
    idle = ev(bc.drain())
    untouched = {"bad_reads": BOARD.bad_reads, "disable_calls": BOARD.disable_calls,
                 "presses": list(bc.presses), "errors": bc.errors}
    word = [ALL_HIGH & ~(1 << A1)]
    own = ButtonCapture(pico.BUTTONS, ticks_us=BOARD.ticks, read_gpio=lambda: word[0])
    held = ev(own.drain())
    return {"idle": idle, "untouched": untouched, "held": held,
            "disable_calls": BOARD.disable_calls}


def case_held_back_neighbours():
    # Two presses held back at their first edges (each IRQ read the contact open): the
    # neighbouring buttons read as released meanwhile; each press comes out, stamped at
    # its own first edge, when a read sees its contact closed, in either order.
    bc = new_board()
    b = BOARD
    b.set_time(100_000)
    b.fire(A0)
    down_held_a0 = [bc.is_down(i) for i in range(4)]
    b.set_time(100_100)
    b.fire(A1)
    down_held_both = [bc.is_down(i) for i in range(4)]
    b.edge(100_200, A1, True)
    first = ev(bc.drain(poll=False))
    b.edge(100_300, A0, True)
    second = ev(bc.drain(poll=False))
    return {"down_held_a0": down_held_a0, "down_held_both": down_held_both, "first": first,
            "second": second, "down": [bc.is_down(i) for i in range(4)]}


def case_late_bounces():
    # A0 pressed, bounces open inside its lock-out, and the IRQ of its reclosing comes
    # after the lock-out: still the one press. Then released, bounces closed inside that
    # lock-out, and the IRQ of its reopening comes after it: still the one release.
    bc = new_board()
    b = BOARD
    b.edge(100_000, A0, True)
    b.edge(105_000, A0, False)       # a bounce: counted
    b.edge(115_000, A0, True)        # the lock-out is over; the button is still pressed
    out = ev(bc.drain())
    b.set_time(150_000)
    out += ev(bc.drain())
    down_pressed = bc.is_down(0)
    b.edge(200_000, A0, False)
    b.edge(205_000, A0, True)        # a bounce: counted
    b.edge(215_000, A0, False)       # the lock-out is over; the button is still released
    out += ev(bc.drain())
    b.set_time(240_000)
    out += ev(bc.drain())
    return {"events": out, "down_pressed": down_pressed, "down": bc.is_down(0),
            "presses": list(bc.presses), "bounces": list(bc.bounces)}


def case_gpio_zero():
    # A pin map with a button on GPIO 0: released at start, then pressed and released.
    pins = ((0, 0, "A"), (3, 0, "B"), (14, 1, "A"), (15, 1, "B"))
    bc = new_board(pins=pins)
    b = BOARD
    at_start = [bc.is_down(i) for i in range(4)]
    quiet = ev(bc.drain())
    b.edge(50_000, 0, True)
    down = bc.is_down(0)
    b.edge(90_000, 0, False)
    return {"at_start": at_start, "quiet": quiet, "down": down, "events": ev(bc.drain()),
            "up": bc.is_down(0)}


def case_spike_beside_held():
    # A0's edge was a spike (never seen closed); A1's, 5 ms later, a real touch not yet
    # seen closed. A0's lock-out ends first: that spike is dropped, A1's press still
    # waits, and comes out at its first edge when its contact reads closed.
    bc = new_board()
    b = BOARD
    b.set_time(100_000)
    b.fire(A0)
    b.set_time(105_000)
    b.fire(A1)
    b.set_time(110_500)
    mid = ev(bc.drain())
    down_mid = [bc.is_down(i) for i in range(4)]
    b.edge(111_000, A1, True)
    return {"mid": mid, "down_mid": down_mid, "events": ev(bc.drain()),
            "down": [bc.is_down(i) for i in range(4)], "bounces": list(bc.bounces)}


def case_held_back_beside_a_real_press():
    # A0 pressed for real; A1's IRQ 5 ms later reads its contact open (held back).
    # While A1 waits, A0 is neither pressed again nor taken for a spike when its own
    # lock-out ends; A1 comes out at its first edge once closed.
    bc = new_board()
    b = BOARD
    b.edge(100_000, A0, True)
    out = ev(bc.drain())
    b.set_time(105_000)
    b.fire(A1)
    b.set_time(106_000)
    out += ev(bc.drain())
    b.edge(106_500, B1, True)        # another button's IRQ: a scan while both are locked
    out += ev(bc.drain())
    b.edge(112_000, A1, True)        # A0's lock-out is over by this scan
    out += ev(bc.drain())
    return {"events": out, "down": [bc.is_down(i) for i in range(4)],
            "bounces": list(bc.bounces)}


def case_gpio_zero_and_one():
    # Buttons on GPIO 0 and 1 only: both released at start, each pressed in turn.
    bc = new_board(pins=((0, 0, "A"), (1, 1, "A")))
    b = BOARD
    at_start = [bc.is_down(0), bc.is_down(1)]
    quiet = ev(bc.drain())
    b.edge(50_000, 1, True)
    b.edge(80_000, 0, True)
    return {"at_start": at_start, "quiet": quiet, "events": ev(bc.drain()),
            "down": [bc.is_down(0), bc.is_down(1)]}


CASES = {
    "start": case_start,
    "held_at_start": case_held_at_start,
    "order": case_order,
    "default_lockout": case_default_lockout,
    "tie": case_tie,
    "bounce": case_bounce,
    "stuck": case_stuck,
    "overflow": case_overflow,
    "wrap": case_wrap,
    "lost_release": case_lost_release,
    "stale_now": case_stale_now,
    "heap_lock": case_heap_lock,
    "default_clock": case_cpython_ticks,
    "first_edge": case_first_edge,
    "spike": case_spike,
    "handler_raises": case_handler_raises,
    "rearm": case_rearm,
    "exact_debounce": case_exact_debounce,
    "bad_config": case_bad_config,
    "default_ring": case_default_ring,
    "ring_wrap": case_ring_wrap,
    "poll_in_lockout": case_poll_in_lockout,
    "retire_boundary": case_retire_boundary,
    "retired_by_an_idle_poll": case_retired_by_an_idle_poll,
    "held_back_poll_quiet": case_held_back_poll_quiet,
    "read_gpio": case_read_gpio,
    "first_edge_poll": case_first_edge_poll,
    "odd_ring": case_odd_ring,
    "not_started": case_not_started,
    "held_back_neighbours": case_held_back_neighbours,
    "late_bounces": case_late_bounces,
    "gpio_zero": case_gpio_zero,
    "spike_beside_held": case_spike_beside_held,
    "held_back_beside_a_real_press": case_held_back_beside_a_real_press,
    "gpio_zero_and_one": case_gpio_zero_and_one,
}


def main(argv):
    names = argv[1:] or sorted(CASES)
    for name in names:
        try:
            r = CASES[name]()
            r["case"] = name
        except Exception as e:  # report, and keep going with the other cases
            r = {"case": name, "error": "%s: %s" % (type(e).__name__, e)}
        print("RESULT " + json.dumps(r))


main(sys.argv)
