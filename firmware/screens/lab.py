# The REACTION LAB, from the title menu: a menu of its own (task, signal, trials), the
# run (a random wait, the signal, the response, its result), a pause, and the results
# (median, mean, SD, a histogram, a duel's wins and margin, the device's own delay).
# The experiment itself is firmware/lab.py; its saved runs firmware/lab_store.py.
#
# Buttons: on the lab's menu and results, A = next, B = choose (as on the title); in a
# run A and B are the responses (a choice trial's signal says which). Pause: the pause
# button, or hold A and B of a pad for a second (a press before the signal is still a
# false start). A menu-side screen: the app unloads it, run and all, when it is left.

from shared_rules.arbiter import ticks_diff
from shared_rules.compat import const
from firmware import sound, lab, lab_store
from firmware.view import W
from firmware.screens import LAB, TITLE, A, B, PAUSE_BUTTON, back

MENU = const(0)
RUN = const(1)
PAUSED = const(2)
RESULTS = const(3)

HOLD_US = const(1000000)           # hold A+B this long to pause (as in a game)
RESULTS_MIN_US = const(1000000)    # a late response does not skip the results
_RUN_KIND = const(108)             # the run's own picture, drawn region by region

HINT = "A: NEXT  B: CHOOSE"
TASK_NAMES = ("SIMPLE REACTION", "CHOICE REACTION", "DUEL: 2 PLAYERS")
SIGNAL_NAMES = ("SIGNAL: SCREEN", "SIGNAL: SOUND")
TASK_SHORT = ("SIMPLE", "CHOICE", "DUEL")
SIGNAL_SHORT = ("SCREEN", "SOUND")
# The lab's menu.
TASK = const(0)
SIGNAL = const(1)
TRIALS = const(2)
START = const(3)
BACK = const(4)
ITEMS = (START, TASK, SIGNAL, TRIALS, BACK)
_SHOWN = const(5)

# The signal: a box in the middle of the screen (x 32-95, rows 16-47: pages 2-5, 256
# bytes to send), filled when the signal comes; a choice signal shows its letter in it.
BOX_X = const(32)
BOX_Y = const(16)
BOX_W = const(64)
BOX_H = const(32)
# The beeps: one for a simple signal; a choice's A is high, its B low.
GO_TUNE = ("lab-go", 1760, 150)
A_TUNE = ("lab-a", 2093, 150)
B_TUNE = ("lab-b", 523, 150)
# 5x7 letters drawn three times their size in the box (the big font has no B).
LETTERS = ((0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11),      # A
           (0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E))      # B
_SCALE = const(3)


class LabScreen:
    kind = LAB

    def __init__(self, app):
        self.app = app
        self.mode = MENU
        self.sel = 0
        self.task = lab.SIMPLE
        self.signal = lab.VISUAL
        self.trials = lab.TRIALS
        self.practice = lab.PRACTICE
        self.store = lab_store.Store(lab_store.port(app.ports))
        self.run = None
        self.number = 0                  # the run's number in the store
        self.since = 0
        self.page = 0
        self.pages = ()
        self._saved = True               # the run's last trial is saved
        self._shown = False              # its result is on screen (the save waits for it)
        self._run_key = 0
        self._box = -1                   # what the run's regions last drew
        self._halves = [None, None]

    def enter(self, t):
        self.mode = MENU
        self.sel = 0
        self.since = t

    # ---- presses ------------------------------------------------------------------------
    def press(self, t, p, code):
        mode = self.mode
        if mode == RUN:
            if code == PAUSE_BUTTON:
                self._pause(t)
                return
            if self.run.press(t, p, code):
                self._after_run_change()
            return
        app = self.app
        if mode == PAUSED:
            app.touch()
            if code == A or code == PAUSE_BUTTON:      # Esc again resumes, as in a game
                self._resume(t)
            elif code == B:
                self._stop(t, "stopped")
            return
        if code == PAUSE_BUTTON:
            return
        if mode == RESULTS:
            if ticks_diff(t, self.since) < RESULTS_MIN_US:
                return
            app.want(sound.CLICK)
            app.touch()
            if code == B:
                self.mode = MENU
            else:
                self.page = (self.page + 1) % len(self.pages)
            return
        app.want(sound.CLICK)
        app.touch()
        if code == B:
            self._choose(ITEMS[self.sel], t, p)
        elif back(code):
            self.sel = (self.sel - 1) % len(ITEMS)
        else:
            self.sel = (self.sel + 1) % len(ITEMS)

    def _choose(self, item, t, p):
        if item == TASK:
            self.task = (self.task + 1) % len(lab.TASKS)
        elif item == SIGNAL:
            self.signal = 1 - self.signal
        elif item == TRIALS:
            ch = lab.TRIAL_CHOICES
            k = 0
            while k < len(ch) and ch[k] != self.trials:
                k += 1
            self.trials = ch[(k + 1) % len(ch)]
        elif item == START:
            self.start_run(t & 0x3FFFFFFF, t, p)
        else:
            self.app.go(TITLE, t)

    def start_run(self, seed, t, player=0):
        """Begin a run of the menu's task, signal and trials (a test or tool may call
        this with its own seed). Saved at once (a run cut short keeps its trials)."""
        self.run = lab.Run(seed, self.task, self.signal, self.trials, self.practice, player)
        self.number = self.store.open_run()
        self.store.put(lab_store.run_record(self.number, self.run, "open"))
        self._saved = True
        self.mode = RUN
        self.since = t
        self._fresh_picture()
        app = self.app
        for q in (0, 1):
            # Buttons still held from the menu must be let go before a hold pauses.
            app.hold_used[q] = app.down[q] & 3 == 3

    def _after_run_change(self):
        st = self.run.state
        if st == lab.FEEDBACK or st == lab.DONE:
            self._saved = False
            self._shown = False
            r = self.run.last_rows()
            if r and r[0][4] == lab.FALSE_START:
                self.app.want(sound.ILLEGAL)

    def _pause(self, t):
        self.run.abandon(t)
        self.mode = PAUSED
        self.app.want(sound.PAUSE)
        self.app.touch()

    def _resume(self, t):
        self.mode = RUN
        self.app.want(sound.RESUME)
        self._fresh_picture()
        app = self.app
        for q in (0, 1):
            app.hold_used[q] = app.down[q] & 3 == 3

    def _stop(self, t, status):
        """The run is over (done, or stopped from the pause): saved, then its results."""
        self._save(status)
        self.mode = RESULTS
        self.since = t
        self.page = 0
        self.pages = result_pages(self.run, self.number)
        self.app.touch()

    def _save(self, status):
        self.store.put(lab_store.run_record(self.number, self.run, status))
        self._saved = True

    # ---- time ---------------------------------------------------------------------------
    def tick(self, now):
        if self.mode != RUN:
            return False
        run = self.run
        changed = run.tick(now)
        if run.signalled and run.signal == lab.SOUND:
            # The stimulus itself: played now, before this frame draws, whatever the
            # menu's sound setting (that is for the game's clicks and tunes).
            snd = self.app.ports.sound
            if snd is not None:
                snd.play(_tune(run))
        if changed:
            self._after_run_change()
        if run.state == lab.DONE:
            self._stop(now, "done")
            return True
        if not self._saved and self._shown and run.state == lab.FEEDBACK:
            # Between trials, once the result is shown: nothing is being timed, and a
            # flash write (which stalls everything) no longer delays the result.
            self._save("open")
        if self._held(now):
            self._pause(now)
            return True
        return changed

    def _held(self, now):
        app = self.app
        for p in self.run.players:
            if app.down[p] & 3 == 3 and not app.hold_used[p]:
                dt = app.down_t[p]
                t_both = dt[0] if ticks_diff(dt[0], dt[1]) > 0 else dt[1]
                if ticks_diff(now, t_both) >= HOLD_US:
                    app.hold_used[p] = True
                    return True
        return False

    # ---- drawing ------------------------------------------------------------------------
    def _fresh_picture(self):
        self._run_key += 1
        self._box = -1
        self._halves[0] = self._halves[1] = None

    def draw(self, view, key):
        if self.mode == RUN:
            return self._draw_run(view)
        if not view.begin_text(LAB, key):
            return False
        if self.mode == MENU:
            self._draw_menu(view)
        elif self.mode == PAUSED:
            view.med_centred("PAUSED", 16, 1, 0)
            view.med_centred("THIS TRIAL STARTS AGAIN", 28, 1, 0)
            view.med_centred("A: GO ON  B: STOP RUN", 57, 1, 0)
        else:
            head, lines, bars = self.pages[self.page]
            view.med(head, 1, 0, 1, 0)
            pg = "%d/%d" % (self.page + 1, len(self.pages))
            view.text(pg, W - 1 - view.width(pg), 1, 1, 0)
            view.hline(0, 8, W, 1, 0)
            y = 11
            for s in lines:
                view.med(s, 1, y, 1, 0)
                y += 8
            if bars is not None:
                draw_histogram(view, bars, 11)
            view.hline(0, 55, W, 1, 0)
            view.med_centred("A: MORE  B: DONE", 57, 1, 0)
        return True

    def _draw_menu(self, view):
        view.med("REACTION LAB", 1, 0, 1, 0)
        n = self.store.count()
        saved = "%d RUN%s" % (n, "" if n == 1 else "S")
        view.text(saved, W - 1 - view.width(saved), 1, 1, 0)
        view.hline(0, 8, W, 1, 0)
        y = 11
        for k in range(len(ITEMS)):
            fg = 1
            if k == self.sel:
                view.fill_rect(0, y - 1, W, 9, 1, 0)
                fg = 0
            view.med(self.text(ITEMS[k]), 3, y, fg, 0)
            y += 9
        view.med_centred(self.store.message or HINT, 57, 1, 0)

    def text(self, item):
        if item == TASK:
            return TASK_NAMES[self.task]
        if item == SIGNAL:
            return SIGNAL_NAMES[self.signal]
        if item == TRIALS:
            return "%d TRIALS + %d PRACTICE" % (self.trials, self.practice)
        if item == START:
            return "START"
        return "BACK TO MENU"

    def _draw_run(self, view):
        run = self.run
        drew = False
        if view.begin_text(_RUN_KIND, self._run_key):
            view.rect(BOX_X - 1, BOX_Y, BOX_W + 2, BOX_H, 1, 0)
            drew = True
        # The box: only its inside changes when the signal comes (256 bytes to send).
        box = 0
        if run.state == lab.SIGNAL and run.signal == lab.VISUAL:
            box = 1 + (run.target if run.task == lab.CHOICE else 2)
        if box != self._box:
            self._box = box
            view.fill_rect(BOX_X, BOX_Y + 1, BOX_W, BOX_H - 2, 1 if box else 0, 0)
            if box == 1 or box == 2:
                _letter(view, LETTERS[box - 1], run.players[0])
            view.mark(BOX_X, BOX_Y, BOX_W, BOX_H, 0)
            drew = True
        for p in run.players:
            lines = half_lines(run, p)
            if lines != self._halves[p]:
                self._halves[p] = lines
                # Player p's band at the foot of their side (player 1's turned round).
                view.fill_rect(0, 48, W, 16, 0, p)
                view.med_centred(lines[0], 49, 1, p)
                view.med_centred(lines[1], 57, 1, p)
                view.mark(0, 48, W, 16, p)
                drew = True
        if run.state == lab.FEEDBACK:
            self._shown = True
        return drew


def _tune(run):
    if run.task == lab.CHOICE:
        return A_TUNE if run.target == A else B_TUNE
    return GO_TUNE


def _letter(view, rows, rot):
    # Dark on the lit box, turned to face the player who answers.
    x0 = BOX_X + (BOX_W - 5 * _SCALE) // 2
    y0 = BOX_Y + (BOX_H - 7 * _SCALE) // 2
    for j in range(7):
        bits = rows[j]
        for i in range(5):
            if bits & (0x10 >> i):
                view.fill_rect(x0 + i * _SCALE, y0 + j * _SCALE, _SCALE, _SCALE, 0, rot)


def _trial_name(run):
    if run.trial < 0:
        return "PRACTICE %d OF %d" % (run.practice + run.trial + 1, run.practice)
    return "TRIAL %d OF %d" % (run.trial, run.trials)


FEEDBACK_WORDS = ("", "FALSE START!", "TOO EARLY", "WRONG BUTTON", "MISSED")


def half_lines(run, p):
    """The two lines at the foot of player p's side during a run."""
    st = run.state
    if st == lab.FEEDBACK:
        mine = None
        for r in run.last_rows():
            if r[0] == p:
                mine = r
        if mine is None:
            if run.rerun:
                return ("THE OTHER", "FALSE STARTED")
            return (_trial_name(run), "")
        if mine[4] != lab.OK:
            first = FEEDBACK_WORDS[mine[4]]
            second = ""
            if mine[4] == lab.ANTICIPATION:
                second = "%s MS: NOT COUNTED" % lab.ms(mine[3])
            return (first, second)
        line = "%s MS" % lab.ms(mine[3])
        if run.task == lab.DUEL:
            return (line, _duel_word(run, p))
        return (line, _trial_name(run))
    # A sound signal changes nothing on screen: the beep alone is the stimulus.
    if run.task == lab.CHOICE:
        return (_trial_name(run), "A OR B? WAIT...")
    return (_trial_name(run), "WAIT FOR IT...")


def _duel_word(run, p):
    got = [None, None]
    for r in run.last_rows():
        if r[4] == lab.OK:
            got[r[0]] = r[3]
    a = got[p]
    b = got[1 - p]
    if b is None:
        return "YOU WIN"
    if a == b:
        return "A TIE"
    if a < b:
        return "WIN BY %s MS" % lab.ms(b - a)
    return "BEATEN BY %s MS" % lab.ms(a - b)


def stats_lines(run, p):
    """Four lines of a player's figures (counted trials only)."""
    n, med, mean, sd = lab.summary(lab.valid(run.rows, p))
    f = lab.flag_counts(run.rows, p)
    done = 0
    for k in f:
        done += k
    done -= f[lab.FALSE_START]
    first = "COUNTED %d OF %d TRIALS" % (n, done)
    if run.full:
        first = "RUN FULL: %d COUNTED" % n
    return [first,
            "MEDIAN %s MS" % lab.ms(med),
            "MEAN %s SD %s" % (lab.ms(mean), lab.ms(sd)),
            "FALSE %d EARLY %d WRONG %d" % (f[lab.FALSE_START], f[lab.ANTICIPATION],
                                           f[lab.ERROR]),
            apparatus_line(run)]


def apparatus_line(run):
    """The device's own delay, beside the figures (lab.APPARATUS has the sources)."""
    if run.signal == lab.SOUND:
        return "DEVICE: SEE THE LAST PAGE"
    return "DEVICE: SCREEN +%s MS" % lab.ms(lab.SCREEN_P50_US)


def result_pages(run, number):
    """The results, a page each: (heading, lines, histogram counts or None)."""
    pages = []
    name = "RUN %d %s %s" % (number, TASK_SHORT[run.task], SIGNAL_SHORT[run.signal])
    for p in run.players:
        who = name if len(run.players) == 1 else "P%d: %s" % (p + 1, name)
        pages.append((who, stats_lines(run, p), None))
    for p in run.players:
        pages.append(("SPREAD P%d (MS)" % (p + 1), [], lab.histogram(lab.valid(run.rows, p))))
    if run.task == lab.DUEL:
        w0, w1, ties, margin, n = lab.duel(run.rows)
        pages.append(("DUEL", ["P1 WINS %d  P2 WINS %d" % (w0, w1),
                               "TIES %d" % ties,
                               "MEAN MARGIN %s MS" % lab.ms(margin),
                               "OVER %d TRIALS" % n,
                               "BOTH REACTED"], None))
    pages.append(("THE DEVICE'S OWN DELAY", list(lab.APPARATUS), None))
    return pages


def draw_histogram(view, bars, y0):
    """The spread: a bar per 50 ms from 100 ms (the last is 450 and over), the tallest
    30 rows, the counts above, the bins' edges below."""
    top = 0
    for b in bars:
        if b > top:
            top = b
    n = len(bars)
    pitch = (W - 8) // n
    base = y0 + 36
    for k in range(n):
        x = 4 + k * pitch
        h = (bars[k] * 30) // top if top else 0
        if bars[k] and h == 0:
            h = 1
        view.fill_rect(x + 1, base - h, pitch - 3, h, 1, 0)
        if bars[k]:
            s = "%d" % bars[k]
            view.text(s, x + (pitch - view.width(s)) // 2, base - h - 6, 1, 0)
    view.hline(2, base + 1, W - 4, 1, 0)
    for k in range(0, n - 1, 2):
        s = "%d" % ((lab.HIST_FROM_US + k * lab.HIST_STEP_US) // 1000)
        view.text(s, max(4 + k * pitch - view.width(s) // 2, 0), base + 3, 1, 0)
    s = "%d+" % ((lab.HIST_FROM_US + (n - 1) * lab.HIST_STEP_US) // 1000)
    view.text(s, W - 1 - view.width(s), base + 3, 1, 0)


SCREEN = LabScreen
