# The reaction lab's saved runs and their CSV. The runs live in a file of their own
# ("lab.json" beside the game's "spit.json", through the same atomic, checksummed
# storage: firmware/hw/storage.py), so a lab file can never cost a saved game, and
# the other way round. The lab saves only between trials and after a run, never while a
# signal is awaited (a flash erase stalls the interrupts that stamp presses).
#
# Bounded: at most MAX_RUNS runs (the oldest goes when another starts) of at most
# lab.MAX_ROWS rows, each row a short text, so the file stays a few KB and loads in
# a few KB of heap.
#
# The stored dict: {"v": 1, "next": <the next run's number>, "runs": [run, ...]}, a run
# {"run": n, "cond": "simple-visual", "seed": s, "trials": 20, "status": "done" |
# "stopped" | "open", "rows": "p,trial,wait_ms,reaction_us,flag;..."} with the player
# 0/1, the reaction empty when there was none, the flag lab.FLAGS' index. A run still
# "open" when the file is loaded was cut short by a power cut: its finished trials are
# kept ("cut").
#
# The CSV (one row per trial and player): HEADER, players numbered 1 and 2, flags by
# name. It runs on MicroPython too: the browser makes its download with it.

from firmware import lab

VERSION = 1
FILE_NAME = "lab.json"
MAX_RUNS = 8
HEADER = "run,player,condition,trial,wait_ms,reaction_us,flag"
STATUSES = ("done", "stopped", "open", "cut")
CONDITIONS = []
for _t in lab.TASKS:
    for _s in lab.SIGNALS:
        CONDITIONS.append(_t + "-" + _s)


class LabDataError(ValueError):
    """Lab data that cannot be used; its text is one line for the person reading it."""


def port(ports):
    """The lab's storage port for the app's ports: `ports.lab` if a host gives one,
    else a file beside the game's save in the same storage (the device's flash, the
    desktop's data folder, the browser's localStorage), else None (runs kept in
    memory only)."""
    st = getattr(ports, "lab", None)
    if st is not None:
        return st
    st = ports.storage
    if st is None:
        return None
    sibling = getattr(st, "sibling", None)
    if sibling is not None:
        return sibling(FILE_NAME)
    path = getattr(st, "path", None)
    fs = getattr(st, "fs", None)
    if path is None or fs is None:
        return None
    cut = path.rfind("/")
    try:
        return type(st)(path[:cut + 1] + FILE_NAME, fs=fs)
    except (TypeError, ValueError):
        return None                      # a storage this module cannot copy: memory only


def empty():
    return {"v": VERSION, "next": 1, "runs": []}


def _int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def pack_rows(rows):
    parts = []
    for r in rows:
        parts.append("%d,%d,%d,%s,%d" % (r[0], r[1], r[2], "" if r[3] is None else "%d" % r[3],
                                         r[4]))
    return ";".join(parts)


def unpack_rows(text):
    """The rows of a stored run; LabDataError if any is not a row this version makes."""
    rows = []
    if not text:
        return rows
    for part in text.split(";"):
        f = part.split(",")
        if len(f) != 5:
            raise LabDataError("a row with %d fields" % len(f))
        try:
            p = int(f[0])
            trial = int(f[1])
            wait = int(f[2])
            rt = int(f[3]) if f[3] else None
            flag = int(f[4])
        except ValueError:
            raise LabDataError("a row that is not numbers")
        if p not in (0, 1) or not 0 <= flag < len(lab.FLAGS) or trial == 0 or \
                (rt is None) != (flag == lab.MISS):
            raise LabDataError("a row out of range")
        rows.append([p, trial, wait, rt, flag])
    return rows


def run_record(number, run, status):
    return {"run": number, "cond": run.condition(), "seed": run.seed, "trials": run.trials,
            "status": status, "rows": pack_rows(run.rows)}


def parse_run(rec):
    """A stored run -> (number, condition, status, rows); LabDataError if it is bad."""
    if not isinstance(rec, dict):
        raise LabDataError("a run that is not a record")
    n = rec.get("run")
    cond = rec.get("cond")
    status = rec.get("status")
    rows = rec.get("rows")
    if not _int(n) or n < 1 or cond not in CONDITIONS or status not in STATUSES or \
            not isinstance(rows, str):
        raise LabDataError("a run record with bad fields")
    return n, cond, status, unpack_rows(rows)


class Store:
    """The saved runs, as loaded: `data` (the dict saved back, bad runs included as
    they were, so a save never drops what it cannot read), `message` (one line for
    the screen, or ""), `locked` (a file of another version: never written over)."""

    def __init__(self, storage):
        self.storage = storage
        self.message = ""
        self.locked = False
        self.save_errors = 0
        self.data = empty()
        self.load()

    def load(self):
        st = self.storage
        d = None
        if st is not None:
            try:
                d = st.load()
            except Exception:
                d = None
                self.message = "LAB DATA UNREADABLE"
            if d is None and getattr(st, "message", None):
                self.message = "LAB DATA CORRUPT: NEW FILE"
        if d is None:
            return
        if not isinstance(d, dict) or d.get("v") != VERSION or not _int(d.get("next")) or \
                not isinstance(d.get("runs"), list):
            # Another version's file (or not ours): keep it, save nothing over it.
            self.locked = True
            self.message = "LAB FILE OF ANOTHER VERSION"
            return
        self.data = d
        bad = 0
        for rec in d["runs"]:
            try:
                parse_run(rec)
            except LabDataError:
                bad += 1
                continue
            if rec["status"] == "open":
                rec["status"] = "cut"      # the power went while it ran
                self.message = "RUN %d WAS CUT SHORT" % rec["run"]
        if bad:
            self.message = "%d LAB RUN%s UNREADABLE" % (bad, "" if bad == 1 else "S")

    def runs(self):
        """The readable runs: [(number, condition, status, rows)], oldest first."""
        out = []
        for rec in self.data["runs"]:
            try:
                out.append(parse_run(rec))
            except LabDataError:
                pass
        return out

    def count(self):
        return len(self.data["runs"])

    def open_run(self):
        """A number for a new run; the oldest run goes if MAX_RUNS are kept."""
        d = self.data
        n = d["next"]
        for rec in d["runs"]:
            # Above every number kept, readable or not, so no run is written over.
            k = rec.get("run") if isinstance(rec, dict) else None
            if _int(k) and k >= n:
                n = k + 1
        d["next"] = n + 1
        while len(d["runs"]) >= MAX_RUNS:
            d["runs"].pop(0)
        return n

    def put(self, rec):
        """Keep (or update) a run's record and save the file; False if it could not be
        saved (the run stays in memory and goes with the next save that works)."""
        runs = self.data["runs"]
        for k in range(len(runs)):
            if isinstance(runs[k], dict) and runs[k].get("run") == rec["run"]:
                runs[k] = rec
                break
        else:
            runs.append(rec)
        return self.save()

    def save(self):
        st = self.storage
        if st is None:
            return True
        if self.locked:
            self.save_errors += 1
            self.message = "LAB FILE OF ANOTHER VERSION"
            return False
        try:
            st.save(self.data)
        except Exception:
            self.save_errors += 1
            self.message = "LAB: COULD NOT SAVE"
            return False
        if self.message == "LAB: COULD NOT SAVE":
            self.message = ""
        return True


# ---- CSV ------------------------------------------------------------------------------
def csv_rows(runs):
    """CSV lines (no header) of runs as Store.runs() gives them."""
    out = []
    for n, cond, status, rows in runs:
        for r in rows:
            out.append("%d,%d,%s,%d,%d,%s,%s" % (n, r[0] + 1, cond, r[1], r[2],
                                                "" if r[3] is None else "%d" % r[3],
                                                lab.FLAGS[r[4]]))
    return out


def csv_text(runs):
    """The whole CSV of runs (Store.runs()), header first, lines ending in CRLF as
    spreadsheets expect."""
    lines = [HEADER]
    lines.extend(csv_rows(runs))
    return "\r\n".join(lines) + "\r\n"


def parse_csv(text):
    """A lab CSV -> (rows, problems): rows as (run, player 1/2, condition, trial,
    wait_ms, reaction_us or None, flag name); a broken row is left out and said in
    problems ("line 7: ..."). LabDataError if it is no lab CSV of this version."""
    if text.startswith("\ufeff"):
        text = text[1:]                  # a byte-order mark from a spreadsheet
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    k = 0
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k == len(lines):
        raise LabDataError("an empty file, not a lab CSV")
    head = lines[k].strip().replace(" ", "").lower()
    if head != HEADER:
        raise LabDataError("not a lab CSV of version %d (its first line is %r, expected %r)"
                           % (VERSION, lines[k].strip()[:60], HEADER))
    rows = []
    problems = []
    for i in range(k + 1, len(lines)):
        line = lines[i].strip()
        if not line:
            continue
        try:
            rows.append(_csv_row(line))
        except LabDataError as e:
            problems.append("line %d: %s" % (i + 1, e))
    return rows, problems


def _csv_row(line):
    f = line.split(",")
    if len(f) != 7:
        raise LabDataError("%d fields, expected 7" % len(f))
    for k in range(len(f)):
        f[k] = f[k].strip()
    try:
        run = int(f[0])
        player = int(f[1])
        trial = int(f[3])
        wait = int(f[4])
        rt = int(f[5]) if f[5] else None
    except ValueError:
        raise LabDataError("a number field that is not a whole number")
    cond = f[2]
    flag = f[6]
    if run < 1 or player not in (1, 2) or trial == 0 or wait < 0:
        raise LabDataError("run, player, trial or wait out of range")
    if cond not in CONDITIONS:
        raise LabDataError("unknown condition %r" % cond[:30])
    if flag not in lab.FLAGS:
        raise LabDataError("unknown flag %r" % flag[:30])
    if (rt is None) != (flag == "miss"):
        raise LabDataError("a reaction time must be empty exactly for a miss")
    return (run, player, cond, trial, wait, rt, flag)
