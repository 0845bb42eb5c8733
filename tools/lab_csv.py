"""The REACTION LAB's saved runs as a CSV file (docs/LAB.md).

    python tools/lab_csv.py                         # from a board on USB (mpremote finds it)
    python tools/lab_csv.py board --port COM3       # that board (Windows: COMn)
    python tools/lab_csv.py emulator                # from the desktop emulator's lab file
    python tools/lab_csv.py path/to/lab.json        # from a lab file copied off a board
    python tools/lab_csv.py emulator -o class.csv   # to a file (default: lab.csv; - is stdout)

`make lab-csv` runs it (FROM=board|emulator|FILE, PORT=, OUT=). Plain Python and
mpremote's own command line, no shell: it works the same on Windows, macOS, Linux and
a Raspberry Pi. Every problem is one line on stderr and exit status 1; a lab file is
only ever read, never changed.
"""
import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from firmware import lab_store  # noqa: E402
from firmware.hw.storage import FileStorage, Flash  # noqa: E402

BOARD_FILE = ":lab.json"            # beside the game's /spit.json (firmware/main.py)


class LabCsvError(Exception):
    pass


class Loaded:
    """A storage port holding one dict already read (for lab_store.Store)."""

    def __init__(self, d, message=None):
        self.d = d
        self.message = message

    def load(self):
        return self.d


def read_file(path):
    """The lab file at path (the device's format: a checksummed header, then JSON) ->
    a lab_store.Store; LabCsvError if there is none or it cannot be read."""
    if not os.path.exists(path):
        raise LabCsvError("no saved runs: there is no %s (run the REACTION LAB first)" % path)
    if os.path.isdir(path):
        raise LabCsvError("%s is a folder, not a lab file" % path)
    st = FileStorage(path, fs=Flash())
    try:
        d = st.load()
    except OSError as e:
        raise LabCsvError("cannot read %s: %s" % (path, e.strerror or e))
    if d is None:
        raise LabCsvError("%s is not a whole lab file (cut short or corrupt): nothing to "
                          "export" % path)
    return lab_store.Store(Loaded(d))


def read_board(port, tmp_dir):
    """Copy the board's lab file with mpremote (which stops a running game first)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import deploy
    finally:
        sys.path.pop(0)
    local = os.path.join(tmp_dir, "lab.json")
    try:
        deploy.mpremote(port, "fs", "cp", BOARD_FILE, local, timeout=60)
    except deploy.DeployError as e:
        text = str(e)
        if "ENOENT" in text or "No such file" in text or "no such file" in text:
            raise LabCsvError("no saved runs on the board (it has no lab.json: run the "
                              "REACTION LAB first)")
        raise LabCsvError(text.replace("make deploy", "make lab-csv"))
    return read_file(local)


def emulator_file():
    from desktop_emulator.storage import data_dir
    return os.path.join(data_dir(), lab_store.FILE_NAME)


def export(store, out):
    """Write the store's runs as CSV to out ('-': stdout); -> (runs, rows)."""
    runs = store.runs()
    if not runs:
        raise LabCsvError("no saved runs to export")
    text = lab_store.csv_text(runs)
    if out == "-":
        sys.stdout.write(text.replace("\r\n", "\n"))
    else:
        try:
            with open(out, "w", newline="", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise LabCsvError("cannot write %s: %s" % (out, e.strerror or e))
    return len(runs), sum(len(r[3]) for r in runs)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/lab_csv.py",
                                 description="The REACTION LAB's saved runs as CSV.")
    ap.add_argument("source", nargs="?", default="board",
                    help="board (default), emulator, or the path of a lab.json")
    ap.add_argument("--port", default="", help="the board's port for mpremote (e.g. COM3, "
                    "/dev/ttyACM0); empty: the first board found")
    ap.add_argument("-o", "--out", default="lab.csv", help="the CSV to write ('-': stdout)")
    a = ap.parse_args(argv)
    try:
        if a.source == "board":
            with tempfile.TemporaryDirectory() as tmp:
                store = read_board(a.port, tmp)
            where = "the board"
        elif a.source == "emulator":
            path = emulator_file()
            store = read_file(path)
            where = path
        else:
            store = read_file(a.source)
            where = a.source
        if store.locked:
            raise LabCsvError("%s holds lab data of another version: update this tool "
                              "(git pull) to read it" % where)
        if store.message:
            print("lab_csv: %s: %s" % (where, store.message.lower()), file=sys.stderr)
        runs, rows = export(store, a.out)
    except LabCsvError as e:
        print("lab_csv: %s" % e, file=sys.stderr)
        return 1
    if a.out != "-":
        print("lab_csv: %d run%s, %d rows from %s -> %s" % (
            runs, "" if runs == 1 else "s", rows, where, a.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
