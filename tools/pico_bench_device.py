# Runs ON the emulated Pico (tools/bench_pico.py puts it on the board's filesystem and
# calls it through the raw REPL). Measures the firmware's own parts on the chip; the
# host schedules the button edges at exact guest times and reads the lines printed here.
#
#   races(pins, trials, window_us)   the capture and the arbiter deciding P0 against P1
#                                    (kind="pio": the PIO capture instead of the GPIO IRQ)
#   play(seconds, seed)              the app on the real ports, P0 pressed by the host,
#                                    P1 the CPU: frame times and where they go, stamps,
#                                    the firmware's own collections, saves
#   linked(seconds)                  the game firmware in a linked game (two chips, the
#                                    host presses both): frames, and each press taken with
#                                    the frame that shows it
#   irq_off(kind, windows)           presses while interrupts are off for 20 ms
#   storm(kind, storms)              50-edge bounce storms with a clean press inside
#   cpu(kind, ms)                    CPU time the capture takes per edge and per frame
#
# Output lines: "R trial winner reason t0 t1" per race; play() prints its own at the
# end (see there); "DONE" at the end.

import time

from shared_rules.arbiter import Arbiter
from shared_rules.game import Game
from shared_rules.pad import Pad, TWO_BUTTON, B

WINDOW_US = 2000
SLOW_US = 16000                        # a linked frame over it: its parts are kept (the frame goal)


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


def _zeros(n, kind="i"):
    # One allocation: MicroPython's array() takes a bytearray's bytes as they are.
    from array import array
    return array(kind, bytearray(n * (4 if kind == "i" else 2 if kind == "H" else 1)))


def _us16(us):
    return 0 if us < 0 else us if us < 65535 else 65535


def play(seconds, seed, cpu_level=3, max_frames=0, max_presses=0, heap=False):
    """The app on the board's real ports for `seconds` of play: P0 human (the host
    presses its pins), P1 the CPU, stepped by firmware.main's own loop. The probe only
    reads clocks and counters into preallocated arrays; the firmware collects its
    garbage itself (firmware.main.collect). Everything is printed at the end:
    "F start end screen draw show bytes cpu save" a frame, "E t player button frame" a
    press, "C frame pause_us" a collection, then DONE."""
    import machine
    from firmware import main as fm
    from firmware.hw import board
    from firmware.app import App, Ports
    from firmware.hw.storage import FileStorage
    from firmware.hw.clock import Clock
    from shared_rules.game import Rules
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    # 17 bytes a frame (start ticks; durations in µs up to 65,535, saves in 4 µs units):
    # about 13 KB of heap for 20 s of play, said in the docs.
    n = max_frames or seconds * 36 + 60
    m = max_presses or seconds * 4 + 20
    f_start = _zeros(n)
    f_end, f_draw, f_show, f_bytes, f_cpu, f_save = [_zeros(n, "H") for _ in range(6)]
    f_screen = _zeros(n, "B")
    e_t, e_code, e_frame = _zeros(m), _zeros(m, "B"), _zeros(m, "H")
    g_frame, g_us = _zeros(64, "H"), _zeros(64, "H")
    h_alloc = _zeros(n) if heap else None
    k = [0, 0, 0, 0]                   # frames, presses, collections, runs seen
    acc = [0, 0, 0, 0]                 # this frame: show us, cpu us, save us, in a draw
    pins, scheme = board.button_pins()
    display, buttons, buzzer = board.build_hardware(machine, pins)
    storage = FileStorage(fm.STORAGE_PATH)
    save = storage.save

    def timed_save(d):
        t0 = ticks_us()
        save(d)
        acc[2] += ticks_diff(ticks_us(), t0)
    storage.save = timed_save
    show_spans = display.show_spans

    def timed_show(spans, budget=None):
        t0 = ticks_us()
        r = show_spans(spans) if budget is None else show_spans(spans, budget)
        acc[0] += ticks_diff(ticks_us(), t0)
        return r
    display.show_spans = timed_show
    drain = buttons.drain
    codes = "ABLRUD"

    def logged_drain(out=None, poll=True):
        j = len(out) if out is not None else 0
        got = drain(out, poll)
        for e in got[j:]:
            if e[3] and k[1] < m and e[1] < 2:
                i = k[1]
                e_t[i] = e[0]
                e_code[i] = e[1] * 8 + codes.find(e[2]) if isinstance(e[2], str) else \
                    e[1] * 8 + e[2]
                e_frame[i] = k[0]
                k[1] = i + 1
        return got
    buttons.drain = logged_drain
    app = App(Ports(buttons, display, buzzer, storage, Clock()), scheme=scheme,
              now_us=ticks_us())
    step = app.step
    draw = app._draw

    def timed_draw():
        t0 = ticks_us()
        s0 = acc[0]
        r = draw()
        f_draw[k[0]] = _us16(ticks_diff(ticks_us(), t0) - (acc[0] - s0))
        return r
    app._draw = timed_draw
    bytes0 = [display.bytes_sent]

    def timed_step(now):
        i = k[0]
        f_start[i] = now
        f_draw[i] = 0
        return step(now)
    app.step = timed_step
    wrapped = [None, None, None]      # the table and the seats whose poll is timed

    def wrap_cpu():
        # Each round has new seats (Table.make_seats): their polls are timed too.
        tb = app.table
        wrapped[0] = tb
        if tb is None:
            return
        wrapped[1] = tb.seats[0]
        wrapped[2] = tb.seats[1]
        for seat in tb.seats:
            if not seat.human:
                poll = seat.poll

                def timed_poll(now_us, out, poll=poll):
                    t0 = ticks_us()
                    poll(now_us, out)
                    acc[1] += ticks_diff(ticks_us(), t0)
                seat.poll = timed_poll
    t = ticks_us()
    print("START %d" % t)
    app.start_game(seed, Rules(), (None, cpu_level), t)
    wrap_cpu()
    acc[2] = 0                         # the first deal's save came before any frame
    end = time.ticks_add(t, seconds * 1000000)

    def probe(_app):
        i = k[0]
        t_end = ticks_us()
        f_end[i] = _us16(ticks_diff(t_end, f_start[i]))
        f_screen[i] = app.screen
        f_show[i] = _us16(acc[0])
        f_cpu[i] = _us16(acc[1])
        f_save[i] = _us16(acc[2] >> 2)
        b = display.bytes_sent
        f_bytes[i] = b - bytes0[0]
        bytes0[0] = b
        acc[0] = acc[1] = acc[2] = 0
        if getattr(fm, "gc_runs", 0) != k[3] and k[2] < 64:
            k[3] = fm.gc_runs
            g_frame[k[2]] = i
            g_us[k[2]] = _us16(fm.gc_last_us)
            k[2] += 1
        if heap:
            import gc
            h_alloc[i] = gc.mem_alloc()
        k[0] = i + 1
        tb = app.table
        if tb is not wrapped[0] or (tb is not None and (tb.seats[0] is not wrapped[1] or
                                                        tb.seats[1] is not wrapped[2])):
            wrap_cpu()
        if k[0] >= n or ticks_diff(t_end, end) >= 0:
            raise _Done()
    t_gc = getattr(fm, "gc_runs", 0)     # (a firmware that collects nothing itself: 0)
    failed = 0
    try:
        fm.loop(app, display, buttons, buzzer, _NoWatchdog(), False, probe)
    except _Done:
        pass
    except MemoryError:
        # The heap could not give a block (fragmented): the session ends here and says
        # so; the frames so far are kept.
        failed = k[0] + 1
    buttons.stop()
    buzzer.stop()
    if getattr(fm, "gc_runs", 0) != k[3] and k[2] < 64:   # after the last frame
        g_frame[k[2]] = k[0]
        g_us[k[2]] = _us16(fm.gc_last_us)
        k[2] += 1
    for i in range(k[0]):
        print("F %d %d %d %d %d %d %d %d" % (f_start[i], (f_start[i] + f_end[i]) & 0x3FFFFFFF,
                                             f_screen[i],
                                             f_draw[i], f_show[i], f_bytes[i], f_cpu[i],
                                             f_save[i] << 2))
    for i in range(k[1]):
        print("E %d %d %s %d" % (e_t[i], e_code[i] >> 3, codes[e_code[i] & 7], e_frame[i]))
    for i in range(k[2]):
        print("C %d %d" % (g_frame[i], g_us[i]))
    if heap:
        for i in range(k[0]):
            print("H %d %d" % (i, h_alloc[i]))
    if failed:
        print("X MemoryError %d" % (failed - 1))
    print("DONE %d %d %d" % (k[0], getattr(fm, "gc_runs", 0) - t_gc, getattr(fm, "gc_max_us", 0)))


def linked(seconds, max_frames=0, max_presses=0, hops=False):
    """The game firmware as shipped (firmware.main.run, its loop and its collections),
    linked from its menu by the host; from the first frame of linked play on, for
    `seconds`: each frame, and each press of either player the game took (its game
    time, and the frame that shows it: the cursor's move, or the frame its outcome was
    decided in). Only clocks and counters into preallocated arrays; printed at the end:
    "F start end screen bytes" a frame, "P t player frame moved" a press taken,
    "O t frame" an outcome, "C frame pause_us" a collection, "B base me authority",
    "L resends bad good foreign dropped_tx" the link's counts, then DONE. With hops,
    where a linked press's time goes, each hop stamped with this chip's clock: "S stamp
    at" a press of this device's player put on the cable (the guest), "R stamp at" one
    read from it (the host), "Q asked answered" the host's question for the guest's
    "T" and when its answer was read, "T frame at" when the frame's outcome went on the
    cable (the host's F; to 1/4 ms, after the frame's start). Their arrays take ~3 KB
    of a heap the linked firmware has little of to spare, and its frames are longer
    with them (likely collections inside frames): not the firmware's as shipped."""
    import machine
    from firmware import main as fm
    from firmware.table import Table
    from shared_rules import match as M
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    n = max_frames or seconds * 64 + 60
    m = max_presses or seconds * 12 + 40
    f_start, f_end = _zeros(n), _zeros(n, "H")
    f_bytes = _zeros(n, "H")
    f_screen = _zeros(n, "B")
    p_t, p_frame, p_who = _zeros(m), _zeros(m, "H"), _zeros(m, "B")
    o_t, o_frame = _zeros(m), _zeros(m, "H")
    g_frame, g_us = _zeros(64, "H"), _zeros(64, "H")
    k = [0, 0, 0, 0, 0]                # frames, presses, outcomes, collections, runs seen
    on = [False, 0, 0]                 # recording, its end, the panel's bytes so far
    # (The app and the panel are held apart from `on`: the wrappers put into classes
    # below hold `on`, and a class is marked with its module, before the app's own
    # module. Reached from there, the app's ~60 attributes overflow the collector's
    # 64-entry mark stack and every collection marks the heap twice: the firmware as
    # shipped does not.)
    held = [None, None]                # the app, the panel
    # Where a slow frame's time went (over SLOW_US; at most 96 of them, a few hundred
    # bytes): drawing, the face's turn of the picture for its player, the panel's
    # transfer, the link's poll; the rest is the rules and link play's own.
    part = [0, 0, 0, 0, False]         # this frame: draw, face, panel, link µs; in a step
    w_at = _zeros(96, "H")
    w_parts = [_zeros(96, "H") for _ in range(5)]   # frame, draw, face, panel, link
    press = M.Match.press
    outcome = Table.on_outcome
    from firmware.link import link as LL
    from firmware.link.frame import HEAD
    from firmware.link.play import LinkPlay
    send, frame, tell = LL.Link._send, LL.Link._frame, LinkPlay._tell
    # (Allocated when the firmware has set itself up, before the first recorded frame:
    # the linked firmware's own buffers first, as on a board without this probe.)
    hop = {}
    x = [0, 0, 0, False, 0]            # sent, read, questions, a question open, slow frames

    def hop_arrays():
        # (Small: the linked firmware leaves little heap. A chip's presses are 150-600
        # ms apart; a frame's outcome goes out within 64 ms of its start, in 1/4 ms.)
        m2 = seconds * 3 + 8
        for name in ("s_stamp", "s_at", "r_stamp", "r_at", "q_at", "a_at"):
            hop[name] = _zeros(m2)
        hop["m"] = m2
        hop["f_tell"] = _zeros(n, "B")

    def _u32(b, i):
        return (b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]

    def logged_send(self, kind, seq, payload):
        send(self, kind, seq, payload)
        if on[0] and kind == 5 and payload:
            j = 0
            while j + 7 <= len(payload) and payload[j] == 80:        # P
                if payload[j + 6] and x[0] < hop["m"]:
                    hop["s_stamp"][x[0]] = _u32(payload, j + 1)
                    hop["s_at"][x[0]] = ticks_us()
                    x[0] += 1
                j += 7
            if payload[0] == 81 and not x[3] and x[2] < hop["m"]:  # Q
                hop["q_at"][x[2]] = ticks_us()
                x[3] = True

    def logged_frame(self, version, kind, seq, ack, raw, end):
        if on[0] and kind == 5 and seq == self._rx_expect:      # (not a resend's copy)
            j = HEAD
            while j + 7 <= end and raw[j] == 80:
                if raw[j + 6] and x[1] < hop["m"]:
                    hop["r_stamp"][x[1]] = _u32(raw, j + 1)
                    hop["r_at"][x[1]] = ticks_us()
                    x[1] += 1
                j += 7
            if x[3] and j + 5 <= end and raw[j] == 84:             # the T asked for
                hop["a_at"][x[2]] = ticks_us()
                x[2] += 1
                x[3] = False
        return frame(self, version, kind, seq, ack, raw, end)

    def logged_tell(self, changed):
        tell(self, changed)
        ft = hop.get("f_tell")
        if on[0] and self._framed and k[0] < n and not ft[k[0]]:
            q = (ticks_diff(ticks_us(), f_start[k[0]]) >> 8) + 1   # (0: none)
            ft[k[0]] = q if q < 255 else 255

    def logged_press(self, t, p, code):
        what = press(self, t, p, code)
        i = k[1]
        if on[0] and i < m and (what == M.MOVED or what == M.QUEUED):
            p_t[i] = t
            p_frame[i] = k[0]
            p_who[i] = p * 2 + (1 if what == M.MOVED else 0)
            k[1] = i + 1
        return what

    def logged_outcome(self, kind, p, action, t, reason, now):
        outcome(self, kind, p, action, t, reason, now)
        i = k[2]
        if on[0] and i < m:
            o_t[i] = t
            o_frame[i] = k[0]
            k[2] = i + 1

    def timed_step(now):
        i = k[0]
        if on[0] and i < n:
            f_start[i] = now
        part[0] = part[1] = part[2] = part[3] = 0
        part[4] = True
        try:
            return held[0]._real_step(now)
        finally:
            part[4] = False

    def timed(fn, j):
        def call(*args):
            t0 = ticks_us()
            try:
                return fn(*args)
            finally:
                if part[4]:
                    part[j] += ticks_diff(ticks_us(), t0)
        return call

    def time_parts(app, lp):
        # Instance attributes only (a class's would be marked with its module, ahead of
        # the app: see `held`).
        app._draw = timed(app._draw, 0)
        face = app.ports.display
        face.show_spans = timed(face.show_spans, 1)
        held[1].show_spans = timed(held[1].show_spans, 2)
        lp.link.poll = timed(lp.link.poll, 3)

    def probe(app):
        if held[0] is None:
            if hops:
                hop_arrays()
            held[0] = app
            app._real_step = app.step
            app.step = timed_step
            k[4] = getattr(fm, "gc_runs", 0)
            return
        t_end = ticks_us()
        lp = app.linkplay
        if not on[0]:
            if lp is not None and lp.mode == 1 and app.screen == 1:   # PLAYING, GAME
                on[0] = True
                on[1] = time.ticks_add(t_end, seconds * 1000000)
                d = app.ports.display
                held[1] = getattr(d, "display", d)   # the panel's driver (link play faces it)
                on[2] = held[1].bytes_sent
                time_parts(app, lp)
            return
        i = k[0]
        f_end[i] = _us16(ticks_diff(t_end, f_start[i]))
        f_screen[i] = app.screen
        b = held[1].bytes_sent
        f_bytes[i] = _us16(b - on[2])
        on[2] = b
        if getattr(fm, "gc_runs", 0) != k[4] and k[3] < 64:
            k[4] = fm.gc_runs
            g_frame[k[3]] = i
            g_us[k[3]] = _us16(fm.gc_last_us)
            k[3] += 1
        if f_end[i] >= SLOW_US and x[4] < 96:
            j = x[4]
            w_at[j] = i
            w_parts[0][j] = f_end[i]
            # (the face's time holds the panel's; drawing holds both)
            w_parts[1][j] = _us16(part[0] - part[1])
            w_parts[2][j] = _us16(part[1] - part[2])
            w_parts[3][j] = _us16(part[2])
            w_parts[4][j] = _us16(part[3])
            x[4] = j + 1
        k[0] = i + 1
        if k[0] >= n or ticks_diff(t_end, on[1]) >= 0:
            fm.stop_watchdog(machine)
            raise _Done()

    M.Match.press = logged_press
    Table.on_outcome = logged_outcome
    if hops:
        LL.Link._send, LL.Link._frame, LinkPlay._tell = logged_send, logged_frame, logged_tell
    try:
        fm.run(probe=probe)
    except _Done:
        pass
    finally:
        M.Match.press = press
        Table.on_outcome = outcome
        LL.Link._send, LL.Link._frame, LinkPlay._tell = send, frame, tell
    app = held[0]
    lp = app.linkplay
    print("B %d %d %d" % (lp.base, lp.me, 1 if lp.link.authority else 0))
    lk = lp.link
    print("L %d %d %d %d %d" % (lk.resends, lk.dec.bad, lk.dec.good, lk.foreign,
                                getattr(lk.port, "dropped_tx", 0)))
    for i in range(k[0]):
        print("F %d %d %d %d" % (f_start[i], (f_start[i] + f_end[i]) & 0x3FFFFFFF,
                                 f_screen[i], f_bytes[i]))
    for i in range(k[1]):
        print("P %d %d %d %d" % (p_t[i], p_who[i] >> 1, p_frame[i], p_who[i] & 1))
    for i in range(k[2]):
        print("O %d %d" % (o_t[i], o_frame[i]))
    for i in range(k[3]):
        print("C %d %d" % (g_frame[i], g_us[i]))
    for i in range(x[0]):
        print("S %d %d" % (hop["s_stamp"][i], hop["s_at"][i]))
    for i in range(x[1]):
        print("R %d %d" % (hop["r_stamp"][i], hop["r_at"][i]))
    for i in range(x[2]):
        print("Q %d %d" % (hop["q_at"][i], hop["a_at"][i]))
    for i in range(k[0] if hops else 0):
        if hop["f_tell"][i]:
            print("T %d %d" % (i, (f_start[i] + ((hop["f_tell"][i] - 1) << 8) + 128)
                               & 0x3FFFFFFF))
    for j in range(x[4]):
        print("W %d %d %d %d %d %d" % (w_at[j], w_parts[0][j], w_parts[1][j], w_parts[2][j],
                                       w_parts[3][j], w_parts[4][j]))
    print("DONE %d %d %d" % (k[0], k[1], k[2]))


def codec(n=40):
    """The link's frame codec on this chip (firmware/link/frame.py): µs to encode and
    to decode each of the frames a linked game sends most, as this version frames them
    (CRC-32 in C) and as version 1 did (CRC-16 in Python), and the bytes of garbage
    each leaves. Prints "K name enc_us dec_us v1_enc_us v1_dec_us bytes enc_garbage
    dec_garbage" per frame, then DONE."""
    import gc
    from firmware.link import frame as F
    from firmware.link.link import VERSION
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    dec = F.Decoder()
    got = [0]

    def taken(version, kind, seq, ack, raw, end):
        got[0] += 1
    cases = (("press_and_T", 5, b"P\x01\x02\x03\x04\x05\x01T\x01\x02\x03\x04"),
             ("clock_question", 3, b"\x01\x02\x03\x04" + b"\xff" * 38),
             ("clock_answer", 4, bytes((i * 73 + 5) & 0xFF for i in range(30)) + bytes(12)),
             ("game_data_150", 5, bytes((i * 29 + 1) & 0xFF for i in range(150))))
    for name, kind, p in cases:
        row = []
        for v in (VERSION, 1):
            t0 = ticks_us()
            for _ in range(n):
                enc = F.encode(v, kind, 1, 2, p)
            t1 = ticks_us()
            for _ in range(n):
                dec.feed(enc, len(enc), taken)
            t2 = ticks_us()
            row += [ticks_diff(t1, t0) // n, ticks_diff(t2, t1) // n, len(enc)]
        # The garbage each makes (a collection must sweep it): apart from the timed
        # loops, with collections held off so the count is whole.
        enc = F.encode(VERSION, kind, 1, 2, p)
        gc.collect()
        gc.disable()
        a0 = gc.mem_alloc()
        for _ in range(n):
            F.encode(VERSION, kind, 1, 2, p)
        a1 = gc.mem_alloc()
        for _ in range(n):
            dec.feed(enc, len(enc), taken)
        a2 = gc.mem_alloc()
        gc.enable()
        print("K %s %d %d %d %d %d %d %d" % (name, row[0], row[1], row[3], row[4], row[2],
                                             (a1 - a0) // n, (a2 - a1) // n))
    print("DONE %d %d" % (got[0], dec.bad))   # (each frame decoded 3n times)


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
