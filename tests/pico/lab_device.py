# Runs ON the emulated Pico (tests/pico/test_pico_lab.py puts it on the board and calls
# it through the raw REPL): the REACTION LAB of the real app on the board's real ports
# (the display on I2C, the button capture the game uses, the buzzer, the flash), with
# the loop of firmware/main.py. The host presses the pins at exact guest times after
# each "SIGNAL <onset>" line; at the results this prints the saved rows and the heap.

import gc
import time


class Done(Exception):
    pass


class NoWatchdog:
    # A started machine.WDT cannot be stopped, and the REPL must live on after the run.
    def feed(self):
        pass


def run(trials, practice, task=0, seed=7):
    import machine
    from firmware import main
    from firmware.hw.board import button_pins, build_hardware
    from firmware.app import App, Ports
    from firmware.hw.storage import FileStorage
    from firmware.hw.clock import Clock
    from firmware.screens import LAB
    pins, scheme = button_pins()
    display, buttons, buzzer = build_hardware(machine, pins)
    app = App(Ports(buttons, display, buzzer, FileStorage(main.STORAGE_PATH), Clock()),
              scheme=scheme, now_us=time.ticks_us())
    app.go(LAB, time.ticks_us())
    scr = app.cur
    scr.task = task
    scr.trials = trials
    scr.practice = practice
    scr.start_run(seed, time.ticks_us())
    print("LAB input=%s" % buttons.kind)
    seen = [None]

    def probe(app):
        run = scr.run
        if run.state == 2 and seen[0] != run.onset:        # lab.SIGNAL
            seen[0] = run.onset
            print("SIGNAL %d" % run.onset)
        if scr.mode == 3:                                    # screens.lab.RESULTS
            raise Done()

    try:
        main.loop(app, display, buttons, buzzer, NoWatchdog(), False, probe)
    except Done:
        pass
    gc.collect()
    print("HEAP free=%d alloc=%d" % (gc.mem_free(), gc.mem_alloc()))
    for n, cond, status, rows in scr.store.runs():
        print("RUN %d %s %s" % (n, cond, status))
        for r in rows:
            print("ROW %d %d %d %s %d" % (r[0], r[1], r[2], r[3], r[4]))
    for line in scr.pages[0][1]:
        print("PAGE %s" % line)
    buzzer.stop()
