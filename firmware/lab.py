# The reaction lab's experiment, without a screen: one run of trials (simple reaction,
# choice reaction, or a duel of two players at once), its rows, and the figures shown
# after it. Pure Python for CPython and MicroPython (the tests run it on both); the
# screen (firmware/screens/lab.py) routes presses and ticks here and draws what it says.
#
# Timing is the game's (R19): a response is the press's touch stamp, taken by the
# button capture when the contact closed, never the frame that read it; the signal's
# onset is the frame in which it is drawn (and the beep started). So a reaction time
# is stamp - onset, exact to the stamp, and a duel's winner and margin are exact too:
# equal stamps are a tie (R21). The device's own delay between that frame and light
# or sound is stated beside the results (APPARATUS, from docs/BENCHMARKS.md).
#
# All figures are integer microseconds (no floats on the device).

from shared_rules.rng import Rng
from shared_rules.arbiter import ticks_diff, ticks_add
from shared_rules.pad import A, B
from shared_rules.compat import const

# Tasks and signals (a run's condition is the pair, e.g. "choice-sound").
SIMPLE = const(0)        # one player: any button as soon as the signal comes
CHOICE = const(1)        # one player: the signal says A or B; the other button is an error
DUEL = const(2)          # both players at once, simple reaction: who is first, by how much
TASKS = ("simple", "choice", "duel")
VISUAL = const(0)
SOUND = const(1)
SIGNALS = ("visual", "sound")

# Row flags: only OK rows of counted trials enter the figures.
OK = const(0)
FALSE_START = const(1)   # pressed before the signal: the trial is run again
ANTICIPATION = const(2)  # under ANTICIPATION_US after it: too fast to be a reaction
ERROR = const(3)         # the wrong button of a choice trial
MISS = const(4)          # no press within MISS_US
FLAGS = ("ok", "false-start", "anticipation", "error", "miss")

WAIT_MIN_MS = const(1000)      # the random wait before each signal: 1.0-4.0 s
WAIT_SPAN_MS = const(3000)
ANTICIPATION_US = const(100000)
MISS_US = const(2000000)
FEEDBACK_US = const(1500000)   # the trial's result stays this long before the next wait
PRACTICE = const(3)            # practice trials (numbered -3, -2, -1), then the counted ones
TRIALS = const(20)
TRIAL_CHOICES = (20, 30, 40, 10)
MAX_TRIALS = const(40)
# A run keeps at most this many rows (every counted and practice trial of both players,
# with room for false starts); a run that reaches it ends there, so a saved run has a
# bounded size however long someone keeps false-starting.
MAX_ROWS = const(2 * (MAX_TRIALS + PRACTICE) + 40)

# Histogram bins on the results screen: from 100 ms, 50 ms wide; the last is open.
HIST_FROM_US = const(100000)
HIST_STEP_US = const(50000)
HIST_BINS = const(8)


def ms(us):
    """Microseconds as milliseconds with one decimal, for the screen: "243.5"."""
    if us is None:
        return "-"
    sign = ""
    if us < 0:
        sign = "-"
        us = -us
    return "%s%d.%d" % (sign, us // 1000, (us % 1000) // 100)


# The apparatus's own delay, from docs/BENCHMARKS.md ("On the emulated Pico", the run of
# 2026-12-01, guest time): the PIO button capture stamps a press 0.0 us after its edge
# (p50, p99 and max; the GPIO-interrupt capture 13 us p50, 15 us p99); a frame that
# sends 129-256 bytes to the panel (the lab's signal box is 256) takes 20.3 ms p50 and
# 32.5 ms p99 from the frame's start to the end of the I2C transfer, drawing included.
# The sound signal starts before the frame draws (not measured there).
SCREEN_P50_US = const(20300)
SCREEN_P99_US = const(32500)
APPARATUS = ("PRESS STAMP: 0 US (PIO)",
             "SCREEN +%s MS (P99 %s)" % (ms(SCREEN_P50_US), ms(SCREEN_P99_US)),
             "BEEP: BEFORE THE DRAWING",
             "EMULATED PICO FIGURES,",
             "DOCS/BENCHMARKS.MD")

# States of a run.
READY = const(0)         # made, not begun
WAITING = const(1)       # the random wait: a press is a false start
SIGNAL = const(2)        # the signal is on: presses are responses
FEEDBACK = const(3)      # between trials: the last trial's result is shown
DONE = const(4)


def condition(task, signal):
    return TASKS[task] + "-" + SIGNALS[signal]


class Run:
    """One run of the lab. rows: [player, trial, wait_ms, reaction_us or None, flag] in
    the order they happened; practice trials have negative numbers. press(t, p, code)
    and tick(now) return True when something changed on screen; `signalled` is set by
    the tick that turned the signal on (the screen beeps or draws it then)."""

    def __init__(self, seed, task, signal, trials=TRIALS, practice=PRACTICE, player=0):
        if task not in (SIMPLE, CHOICE, DUEL) or signal not in (VISUAL, SOUND):
            raise ValueError("bad task or signal")
        if not 1 <= trials <= MAX_TRIALS or not 0 <= practice <= PRACTICE:
            raise ValueError("bad number of trials")
        self.seed = seed
        self.rng = Rng(seed)
        self.task = task
        self.signal = signal
        self.trials = trials
        self.practice = practice
        self.players = (0, 1) if task == DUEL else (player,)
        self.rows = []
        self.trial = -practice if practice else 1
        self.state = READY
        self.start = 0           # when this trial's wait began
        self.wait_ms = 0
        self.due = 0             # when its signal is due
        self.onset = 0           # when its signal was shown
        self.target = A          # a choice trial's button
        self.answered = [False, False]
        self.first = 0           # this trial's first row
        self.until = 0           # the end of the feedback
        self.rerun = False       # the trial ended on a false start: run it again
        self.signalled = False
        self.full = False        # ended at MAX_ROWS

    def condition(self):
        return condition(self.task, self.signal)

    def begin(self, now):
        """Start the current trial's wait: a fresh wait (and target) from the PRNG."""
        self.wait_ms = WAIT_MIN_MS + self.rng.below(WAIT_SPAN_MS + 1)
        if self.task == CHOICE:
            self.target = A if self.rng.below(2) == 0 else B
        self.start = now
        self.due = ticks_add(now, self.wait_ms * 1000)
        self.answered[0] = self.answered[1] = False
        self.first = len(self.rows)
        self.rerun = False
        self.state = WAITING

    def last_rows(self):
        """The rows of the trial just ended (for its feedback)."""
        return self.rows[self.first:]

    def press(self, t, p, code):
        if p not in self.players or (code != A and code != B):
            return False
        st = self.state
        if st == WAITING:
            if ticks_diff(t, self.start) < 0:
                return False             # touched before this trial began
            self._false_start(t, p)
            return True
        if st != SIGNAL or self.answered[p]:
            return False
        rt = ticks_diff(t, self.onset)
        if rt < 0:
            # Touched before the signal, read after it: still a false start (R19).
            self._false_start(t, p)
            return True
        if self.task == CHOICE and code != self.target:
            flag = ERROR
        elif rt < ANTICIPATION_US:
            flag = ANTICIPATION
        else:
            flag = OK
        self._row(p, rt, flag)
        self.answered[p] = True
        done = True
        for q in self.players:
            if not self.answered[q]:
                done = False
        if done:
            self._end(t)
        return True

    def _false_start(self, t, p):
        # How early, against the moment the signal was due.
        self._row(p, ticks_diff(t, self.due), FALSE_START)
        self.rerun = True
        self._end(t)

    def _row(self, p, rt, flag):
        self.rows.append([p, self.trial, self.wait_ms, rt, flag])

    def _end(self, t):
        self.state = FEEDBACK
        self.until = ticks_add(t, FEEDBACK_US)

    def tick(self, now):
        self.signalled = False
        st = self.state
        if st == READY:
            self.begin(now)
            return True
        if st == WAITING:
            if ticks_diff(now, self.due) >= 0:
                self.onset = now
                self.state = SIGNAL
                self.signalled = True
                return True
            return False
        if st == SIGNAL:
            if ticks_diff(now, self.onset) >= MISS_US:
                for q in self.players:
                    if not self.answered[q]:
                        self._row(q, None, MISS)
                self._end(now)
                return True
            return False
        if st == FEEDBACK:
            if ticks_diff(now, self.until) < 0:
                return False
            if len(self.rows) >= MAX_ROWS - len(self.players):
                self.full = True
                self.state = DONE
                return True
            if not self.rerun:
                self.trial += 1
                if self.trial == 0:
                    self.trial = 1
                if self.trial > self.trials:
                    self.state = DONE
                    return True
            self.begin(now)
            return True
        return False

    def abandon(self, now):
        """A pause: the trial under way is dropped (with a duel's response already
        taken) and starts afresh, with a fresh wait, on resume."""
        if self.state == WAITING or self.state == SIGNAL:
            del self.rows[self.first:]
            self.state = READY


# ---- the figures --------------------------------------------------------------------------
def valid(rows, player):
    """Reaction times (us) of a player's counted trials flagged OK."""
    out = []
    for r in rows:
        if r[0] == player and r[1] > 0 and r[4] == OK:
            out.append(r[3])
    return out


def flag_counts(rows, player):
    """How many of each flag a player's counted trials got: a list by flag."""
    n = [0] * len(FLAGS)
    for r in rows:
        if r[0] == player and r[1] > 0:
            n[r[4]] += 1
    return n


def isqrt(n):
    """The integer square root (floor) of n >= 0, by Newton's method."""
    if n < 2:
        return n
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


def summary(values):
    """(n, median, mean, sd) in integer us, rounded down; the sample SD (n - 1); None
    for what too few values cannot give (no values: all None; one: no SD)."""
    n = len(values)
    if n == 0:
        return (0, None, None, None)
    v = sorted(values)
    h = n // 2
    median = v[h] if n % 2 else (v[h - 1] + v[h]) // 2
    total = 0
    for x in v:
        total += x
    mean = total // n
    if n < 2:
        return (n, median, mean, None)
    # Sum of squares about the exact mean, scaled by n to stay in integers:
    # n * sum((x - total/n)^2) = sum((n*x - total)^2) / n.
    ss = 0
    for x in v:
        d = n * x - total
        ss += d * d
    sd = isqrt(ss // (n * n * (n - 1)))
    return (n, median, mean, sd)


def histogram(values, start=HIST_FROM_US, step=HIST_STEP_US, bins=HIST_BINS):
    """Counts per bin [start + k*step, start + (k+1)*step); the last bin is open above,
    the first takes anything below start."""
    out = [0] * bins
    for x in values:
        k = (x - start) // step
        if k < 0:
            k = 0
        elif k >= bins:
            k = bins - 1
        out[k] += 1
    return out


def duel(rows):
    """A duel's counted trials: (wins of player 0, wins of player 1, ties, mean margin
    us or None, trials with a margin). A trial where both reacted (OK) goes to the
    earlier stamp, by the exact difference (equal stamps: a tie, R21); where only one
    did, that one wins with no margin; where neither did, nobody."""
    per = {}
    for r in rows:
        if r[1] > 0 and r[4] != FALSE_START:
            got = per.get(r[1])
            if got is None:
                got = [None, None]
                per[r[1]] = got
            if r[4] == OK:
                got[r[0]] = r[3]
    wins = [0, 0]
    ties = 0
    margin = 0
    n = 0
    for trial in per:
        a, b = per[trial]
        if a is not None and b is not None:
            n += 1
            margin += a - b if a > b else b - a
            if a < b:
                wins[0] += 1
            elif b < a:
                wins[1] += 1
            else:
                ties += 1
        elif a is not None:
            wins[0] += 1
        elif b is not None:
            wins[1] += 1
    return (wins[0], wins[1], ties, margin // n if n else None, n)
