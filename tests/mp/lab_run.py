# Runs unchanged under CPython and MicroPython: the REACTION LAB of the firmware app on
# fake ports, reached through the title menu, with scripted subjects pressing through
# the input port (their reaction times a fixed pattern, a false start and an
# anticipation among them), then prints the saved rows, the CSV and the results
# screens' lines. The two interpreters must print the same lines
# (tests/firmware/test_lab_app.py).
# usage: lab_run.py TASK SIGNAL SEED   (TASK 0 simple, 1 choice, 2 duel; SIGNAL 0/1)
import sys
from binascii import crc32

try:
    import framebuf
except ImportError:
    from desktop_emulator import framebuf

from host.rig import Rig
from firmware import lab, lab_store
from firmware.screens import lab as lab_screen


class Subject:
    """A scripted person: for each trial attempt, a press `rt` us after the signal
    (the pattern's next value), or a press during the wait (a false start) where the
    pattern says -1; in a choice trial the wrong button where it says -2."""

    def __init__(self, rig, player, pattern):
        self.rig = rig
        self.player = player
        self.pattern = pattern
        self.k = 0
        self.seen = None

    def pump(self, now):
        app = self.rig.app
        if app.screen_name() != "lab" or app.cur.mode != lab_screen.RUN:
            return
        run = app.cur.run
        key = (run.trial, run.start)
        if run.state not in (lab.WAITING, lab.SIGNAL) or key == self.seen:
            return
        v = self.pattern[self.k % len(self.pattern)]
        if v == -1 and run.state == lab.WAITING:
            self.seen = key
            self.k += 1
            self.rig.inp.press(run.start + 400000, self.player, "A", 50000)
        elif v != -1 and run.state == lab.SIGNAL:
            self.seen = key
            self.k += 1
            button = "A" if run.target == 0 else "B"
            if v == -2:
                button = "B" if button == "A" else "A"
                v = 300000
            self.rig.inp.press(run.onset + v, self.player, button, 50000)


def main(task, signal, seed):
    r = Rig(framebuf, start=(1 << 30) - 30000000 + seed)
    r.frames(2)
    app = r.app
    # The title's last item is REACTION LAB: A until it is lit, then B.
    while app.menu_text(app.menu_items()[app.title.sel]) != "REACTION LAB":
        r.menu(["A"])
    r.menu(["B"])
    scr = app.cur
    scr.task = task
    scr.signal = signal
    scr.trials = 10
    scr.start_run(seed, r.clock.now, 0)
    r.hands.append(Subject(r, 0, (250000, 231000, -1, 95000, 412000, 188000, -2, 263000,
                                  2100000, 307000, 199000)))
    if task == lab.DUEL:
        r.hands.append(Subject(r, 1, (262000, 231000, 240000, -1, 301000, 177000)))
    n = r.until(lambda a: a.cur.mode == lab_screen.RESULTS, 20000)
    print("frames %d shows %d pages %d" % (n, app.shows, app.pages_sent))
    runs = scr.store.runs()
    print("runs %d status %s" % (len(runs), runs[-1][2]))
    for row in runs[-1][3]:
        print("row %r" % (row,))
    text = lab_store.csv_text(runs)
    print("csv %d %08x" % (len(text), crc32(text.encode()) & 0xFFFFFFFF))
    for head, lines, bars in scr.pages:
        print("page %s | %s | %r" % (head, " / ".join(lines), bars))
    print("screen %08x" % (crc32(r.disp.buf) & 0xFFFFFFFF))
    print("sounds %s" % " ".join(r.sound.played))


main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
