"""The lab's saved runs and CSV (firmware/lab_store.py): a file of its own beside the
game's save, atomic and bounded; bad input (no runs, a full flash, another version's
file, a broken run, a run cut short, a CSV from another version or with a broken row)
gives a one-line message and loses nothing that was saved; the CSV round-trips."""
import json

import pytest

from firmware import lab, lab_store
from firmware.hw.storage import FileStorage, encode
from host.ports import MemoryStorage


def a_run(seed=4, task=lab.SIMPLE, signal=lab.VISUAL, trials=4, practice=1):
    """A finished run with an OK, a false start, an anticipation, a miss and a wrong
    button (choice) among its rows."""
    run = lab.Run(seed, task, signal, trials, practice)
    now = 10 ** 6
    k = 0
    while run.state != lab.DONE:
        run.tick(now)
        if run.state == lab.WAITING and k == 1:
            run.press(run.start + 10, 0, lab.A)
            k += 1
        elif run.state == lab.SIGNAL:
            k += 1
            if k == 4:
                now = run.onset + lab.MISS_US
                continue
            rt = 50000 if k == 3 else 180000 + 1000 * k
            for p in run.players:
                run.press(run.onset + rt + p, p, run.target)
        now += 20000
    return run


class FailingStorage(MemoryStorage):
    def __init__(self, text=None):
        super().__init__(text)
        self.full = True

    def save(self, d):
        if self.full:
            raise OSError(28)                 # ENOSPC: the flash is full
        super().save(d)


class Files:
    """The storage's file operations on a dict, with the device's semantics."""

    def __init__(self):
        self.files = {}

    def read(self, name):
        return self.files.get(name)

    def write(self, name, data):
        self.files[name] = bytes(data)

    def rename(self, a, b):
        self.files[b] = self.files.pop(a)

    def remove(self, name):
        self.files.pop(name, None)


def test_rows_pack_and_unpack_unchanged():
    run = a_run()
    flags = {r[4] for r in run.rows}
    assert flags == {lab.OK, lab.FALSE_START, lab.ANTICIPATION, lab.MISS}
    assert lab_store.unpack_rows(lab_store.pack_rows(run.rows)) == run.rows
    assert lab_store.unpack_rows("") == []


def test_the_csv_round_trips_write_read_same_rows():
    runs = []
    for n, (task, signal) in enumerate(((lab.SIMPLE, lab.VISUAL), (lab.CHOICE, lab.SOUND),
                                        (lab.DUEL, lab.VISUAL)), 1):
        run = a_run(seed=n, task=task, signal=signal)
        runs.append((n, run.condition(), "done", run.rows))
    text = lab_store.csv_text(runs)
    assert text.startswith(lab_store.HEADER + "\r\n")
    rows, problems = lab_store.parse_csv(text)
    assert problems == []
    want = []
    for n, cond, _, rs in runs:
        for r in rs:
            want.append((n, r[0] + 1, cond, r[1], r[2], r[3], lab.FLAGS[r[4]]))
    assert rows == want
    assert lab_store.csv_text(runs) == text                       # and again the same


def test_the_csv_names_players_1_and_2_and_flags_by_name_with_a_miss_empty():
    run = a_run(task=lab.DUEL)
    lines = lab_store.csv_rows([(3, "duel-visual", "done", run.rows)])
    assert {line.split(",")[1] for line in lines} == {"1", "2"}
    miss = [line for line in lines if line.endswith(",miss")]
    assert miss and all(line.split(",")[5] == "" for line in miss)
    assert any(line.endswith(",false-start") for line in lines)
    assert any(line.endswith(",anticipation") for line in lines)


def test_a_spreadsheets_csv_reads_too_bom_crlf_and_blank_lines():
    text = "\ufeff" + lab_store.HEADER.upper() + "\r\n1,1,simple-visual,1,2000,250000,ok\r\n\r\n"
    rows, problems = lab_store.parse_csv(text)
    assert rows == [(1, 1, "simple-visual", 1, 2000, 250000, "ok")] and problems == []


def test_blank_lines_before_the_header_are_no_rows():
    rows, problems = lab_store.parse_csv("\n" + lab_store.HEADER + "\n1,2,duel-sound,3,1000,200000,ok\n")
    assert rows == [(1, 2, "duel-sound", 3, 1000, 200000, "ok")] and problems == []


def test_a_csv_from_another_version_is_refused_in_one_line():
    with pytest.raises(lab_store.LabDataError) as e:
        lab_store.parse_csv("run,player,condition,trial,wait_ms,reaction_us,flag,device\n")
    assert "not a lab CSV of version 1" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(lab_store.LabDataError) as e:
        lab_store.parse_csv("")
    assert "empty" in str(e.value)


@pytest.mark.parametrize("row, why", [
    ("1,1,simple-visual,1,2000,abc,ok", "not a whole number"),
    ("1,1,simple-visual,1,2000,250000", "6 fields"),
    ("1,3,simple-visual,1,2000,250000,ok", "out of range"),
    ("1,1,simple-visual,0,2000,250000,ok", "out of range"),
    ("1,1,juggling-visual,1,2000,250000,ok", "unknown condition"),
    ("1,1,simple-visual,1,2000,250000,great", "unknown flag"),
    ("1,1,simple-visual,1,2000,,ok", "empty exactly for a miss"),
    ("1,1,simple-visual,1,2000,5,miss", "empty exactly for a miss"),
])
def test_a_broken_csv_row_is_left_out_and_said_the_rest_kept(row, why):
    good = "2,1,choice-sound,1,1500,301000,error"
    text = "\n".join([lab_store.HEADER, good, row, good])
    rows, problems = lab_store.parse_csv(text)
    assert len(rows) == 2
    assert len(problems) == 1 and problems[0].startswith("line 3: ") and why in problems[0]


def test_no_saved_runs_is_an_empty_store_without_a_message():
    s = lab_store.Store(MemoryStorage())
    assert s.runs() == [] and s.count() == 0 and s.message == ""
    assert lab_store.csv_text(s.runs()) == lab_store.HEADER + "\r\n"
    assert lab_store.Store(None).runs() == []


def test_a_run_is_saved_and_loads_again():
    st = MemoryStorage()
    s = lab_store.Store(st)
    run = a_run()
    n = s.open_run()
    assert s.put(lab_store.run_record(n, run, "done"))
    s2 = lab_store.Store(st)
    assert s2.runs() == [(1, "simple-visual", "done", run.rows)]
    assert s2.data["next"] == 2


def test_at_most_eight_runs_are_kept_the_oldest_goes():
    st = MemoryStorage()
    s = lab_store.Store(st)
    run = a_run()
    for _ in range(lab_store.MAX_RUNS + 3):
        s.put(lab_store.run_record(s.open_run(), run, "done"))
    numbers = [r[0] for r in lab_store.Store(st).runs()]
    assert numbers == list(range(4, 12))


def test_the_saved_file_is_bounded_in_size():
    st = MemoryStorage()
    s = lab_store.Store(st)
    big = lab.Run(1, lab.DUEL, lab.VISUAL, lab.MAX_TRIALS)
    big.rows = [[1, -3, 4000, -3999999, lab.FALSE_START]] * lab.MAX_ROWS
    for _ in range(lab_store.MAX_RUNS + 2):
        s.put(lab_store.run_record(s.open_run(), big, "done"))
    # The worst case: eight full runs of the longest rows.
    assert len(encode(json.loads(st.text))) < 28000


def test_a_run_still_open_at_load_was_cut_short_its_trials_kept():
    st = MemoryStorage()
    s = lab_store.Store(st)
    run = a_run()
    s.put(lab_store.run_record(s.open_run(), run, "open"))
    s2 = lab_store.Store(st)
    assert s2.message == "RUN 1 WAS CUT SHORT"
    assert s2.runs() == [(1, "simple-visual", "cut", run.rows)]


def test_a_full_flash_says_so_keeps_the_run_and_saves_it_with_the_next_save_that_works():
    st = FailingStorage()
    s = lab_store.Store(st)
    run = a_run()
    assert not s.put(lab_store.run_record(s.open_run(), run, "done"))
    assert s.message == "LAB: COULD NOT SAVE" and s.save_errors == 1
    assert s.runs()[0][3] == run.rows                        # still in memory
    st.full = False
    assert s.put(lab_store.run_record(s.open_run(), run, "done"))
    assert [r[0] for r in lab_store.Store(st).runs()] == [1, 2] and s.message == ""


def test_a_full_flash_never_costs_the_runs_already_saved():
    fs = Files()
    st = FileStorage("/lab.json", fs=fs)
    s = lab_store.Store(st)
    run = a_run()
    s.put(lab_store.run_record(s.open_run(), run, "done"))
    before = fs.files["/lab.json"]

    def full(name, data):
        raise OSError(28)
    fs.write = full
    assert not s.put(lab_store.run_record(s.open_run(), run, "done"))
    assert fs.files["/lab.json"] == before
    assert [r[0] for r in lab_store.Store(FileStorage("/lab.json", fs=fs)).runs()] == [1]


def test_a_file_of_another_version_is_kept_and_never_written_over():
    other = {"v": 2, "runs": "something new"}
    st = MemoryStorage(json.dumps(other))
    s = lab_store.Store(st)
    assert s.locked and s.message == "LAB FILE OF ANOTHER VERSION" and s.runs() == []
    assert not s.put(lab_store.run_record(s.open_run(), a_run(), "done"))
    assert json.loads(st.text) == other and st.saves == 0


@pytest.mark.parametrize("d", [{"v": 1, "next": "2", "runs": []}, {"v": 1, "runs": []},
                               {"v": 1, "next": 2, "runs": {}}, {"v": 1, "next": 2},
                               {"next": 2, "runs": []}, [1, 2]])
def test_a_file_whose_frame_this_version_does_not_write_is_kept_and_never_written_over(d):
    st = MemoryStorage(json.dumps(d))
    s = lab_store.Store(st)
    assert s.locked and s.message == "LAB FILE OF ANOTHER VERSION"
    assert not s.save() and json.loads(st.text) == d


def test_two_broken_runs_are_said_in_the_plural():
    st = MemoryStorage()
    s = lab_store.Store(st)
    s.put(lab_store.run_record(s.open_run(), a_run(), "done"))
    d = json.loads(st.text)
    d["runs"] += [{"run": 2, "cond": "simple-visual", "status": "done", "rows": 5}, "junk"]
    st.text = json.dumps(d)
    assert lab_store.Store(st).message == "2 LAB RUNS UNREADABLE"


def test_a_broken_run_is_left_out_said_and_kept_as_it_was():
    st = MemoryStorage()
    s = lab_store.Store(st)
    s.put(lab_store.run_record(s.open_run(), a_run(), "done"))
    d = json.loads(st.text)
    d["runs"].append({"run": 2, "cond": "simple-visual", "status": "done", "rows": "0,1,x"})
    st.text = json.dumps(d)
    s2 = lab_store.Store(st)
    assert s2.message == "1 LAB RUN UNREADABLE"
    assert [r[0] for r in s2.runs()] == [1]
    s2.put(lab_store.run_record(s2.open_run(), a_run(), "done"))
    assert json.loads(st.text)["runs"][1]["rows"] == "0,1,x"        # still there


@pytest.mark.parametrize("rows", ["0,1,2000,250000", "2,1,2000,250000,0", "0,0,2000,1,0",
                                  "0,1,2000,,0", "0,1,2000,5,4", "0,1,2000,5,9", "a,1,2,3,0"])
def test_stored_rows_this_version_does_not_make_are_refused(rows):
    with pytest.raises(lab_store.LabDataError):
        lab_store.unpack_rows(rows)


def test_a_corrupt_file_is_said_and_a_new_one_started():
    fs = Files()
    fs.files["/lab.json"] = b"SPIT1 00000000 5\n{}{}{"
    s = lab_store.Store(FileStorage("/lab.json", fs=fs))
    assert s.message == "LAB DATA CORRUPT: NEW FILE" and s.runs() == []


def test_an_unreadable_port_is_said():
    class Broken:
        def load(self):
            raise OSError(5)
    s = lab_store.Store(Broken())
    assert s.message == "LAB DATA UNREADABLE" and s.runs() == []


def test_the_lab_file_sits_beside_the_games_save_in_the_same_storage():
    class P:
        storage = FileStorage("/spit.json", fs=Files())
    st = lab_store.port(P())
    assert isinstance(st, FileStorage) and st.path == "/lab.json" and st.fs is P.storage.fs

    class Q:
        storage = FileStorage("spit.json", fs=Files())
    assert lab_store.port(Q()).path == "lab.json"

    class Given:
        lab = MemoryStorage()
        storage = None
    assert lab_store.port(Given()) is Given.lab

    class Memory:
        storage = MemoryStorage()
    assert lab_store.port(Memory()) is None

    class Odd:
        def __init__(self, where):
            self.path = where
            self.fs = Files()

    class Other:
        storage = Odd("/spit.json")
    assert lab_store.port(Other()) is None          # no fs= to give it: memory only


def test_a_storage_with_a_sibling_method_gives_the_lab_file():
    class Desk:
        def sibling(self, name):
            return ("beside", name)

    class P:
        storage = Desk()
    assert lab_store.port(P()) == ("beside", "lab.json")
