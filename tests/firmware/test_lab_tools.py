"""The lab's data out: tools/lab_csv.py (from a board through mpremote, from the
emulator's file, from a copied lab.json) and tools/lab_plot.py (the data preparation
without a plotting library; the plot itself when matplotlib is there). Runs are made
by the app itself, through the REACTION LAB screen, into real files."""
import os
import subprocess
import sys

import pytest

from desktop_emulator import framebuf
from desktop_emulator.storage import FileStorage as DesktopStorage
from firmware import lab, lab_store
from firmware.hw.storage import FileStorage, Flash
from host.rig import Rig
from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import lab_csv  # noqa: E402
import lab_plot  # noqa: E402
import deploy  # noqa: E402
sys.path.pop(0)

MS = 1000


def make_runs(path, runs=((lab.SIMPLE, lab.VISUAL), (lab.CHOICE, lab.SOUND)), trials=6):
    """Run the lab in the app with its file at `path` (the device's format); each
    run's subject answers 180 ms + 9 ms a trial, with one false start and one too early."""
    r = Rig(framebuf, start=5000, storage=FileStorage(os.path.join(os.path.dirname(path),
                                                                  "spit.json"), fs=Flash()))
    r.frames(1)
    r.menu(["U", "B"])
    scr = r.app.cur
    for n, (task, signal) in enumerate(runs):
        scr.task, scr.signal, scr.trials, scr.practice = task, signal, trials, 1
        scr.start_run(100 + n, r.clock.now)
        k = 0
        while scr.mode == 1:                         # RUN
            run = scr.run
            r.until(lambda a: run.state in (lab.WAITING, lab.SIGNAL, lab.DONE) or scr.mode != 1)
            if scr.mode != 1:
                break
            k += 1
            if run.state == lab.WAITING and k == 3:
                r.inp.press(run.start + 200 * MS, 0, "A", 30000)
            else:
                r.until(lambda a: run.state == lab.SIGNAL)
                rt = 70 * MS if k == 5 else (180 + 9 * k) * MS
                r.inp.press(run.onset + rt, 0, "A" if run.target == 0 else "B", 30000)
            r.until(lambda a: run.state != lab.SIGNAL and run.state != lab.WAITING
                    or scr.mode != 1)
        r.frames(40)
        r.tap(0, "B", frames=2)                      # results -> the lab's menu
    return lab_store.Store(FileStorage(path, fs=Flash())).runs()


@pytest.fixture
def lab_file(tmp_path):
    path = tmp_path / "lab.json"
    runs = make_runs(str(path))
    assert len(runs) == 2 and path.exists()
    return path, runs


def test_lab_csv_from_a_lab_file_gives_every_saved_row(lab_file, tmp_path, capsys):
    path, runs = lab_file
    out = tmp_path / "out.csv"
    assert lab_csv.main([str(path), "-o", str(out)]) == 0
    rows, problems = lab_store.parse_csv(out.read_text())
    assert problems == []
    want = []
    for n, cond, status, rs in runs:
        for x in rs:
            want.append((n, x[0] + 1, cond, x[1], x[2], x[3], lab.FLAGS[x[4]]))
    assert rows == want and len(rows) >= 14
    assert {r[6] for r in rows} >= {"ok", "false-start", "anticipation"}
    err = capsys.readouterr().err
    assert err.strip() == "lab_csv: 2 runs, %d rows from %s -> %s" % (len(rows), path, out)


def test_lab_csv_to_stdout(lab_file, capsys):
    path, _ = lab_file
    assert lab_csv.main([str(path), "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith(lab_store.HEADER + "\n1,1,simple-visual,-1,")


def test_lab_csv_from_the_emulators_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    folder = tmp_path / "spit-handheld"
    folder.mkdir()
    make_runs(str(folder / "lab.json"), runs=((lab.DUEL, lab.VISUAL),))
    out = tmp_path / "e.csv"
    assert lab_csv.main(["emulator", "-o", str(out)]) == 0
    rows, _ = lab_store.parse_csv(out.read_text())
    assert {r[1] for r in rows} == {1, 2} and {r[2] for r in rows} == {"duel-visual"}


def test_the_desktop_emulators_lab_file_sits_beside_its_save(tmp_path):
    class P:
        storage = DesktopStorage(str(tmp_path / "deep" / "spit.json"))
    st = lab_store.port(P())
    assert st.path == str(tmp_path / "deep" / "lab.json")
    s = lab_store.Store(st)
    run = lab.Run(1, lab.SIMPLE, lab.VISUAL, 1, 0)
    assert s.put(lab_store.run_record(s.open_run(), run, "done"))     # makes the folder
    assert (tmp_path / "deep" / "lab.json").exists()


def test_lab_csv_from_a_board_copies_its_lab_file_with_mpremote(lab_file, tmp_path, monkeypatch):
    path, runs = lab_file
    calls = []

    def fake(port, *args, timeout=600, capture=True):
        calls.append((port, args))
        with open(args[-1], "wb") as f:
            f.write(path.read_bytes())
        return ""
    monkeypatch.setattr(deploy, "mpremote", fake)
    out = tmp_path / "b.csv"
    assert lab_csv.main(["board", "--port", "COM3", "-o", str(out)]) == 0
    assert calls[0][0] == "COM3" and calls[0][1][:3] == ("fs", "cp", ":lab.json")
    assert len(lab_store.parse_csv(out.read_text())[0]) == sum(len(r[3]) for r in runs)


def no_file(port, *args, **kw):
    raise deploy.DeployError("mpremote fs failed: cp: :lab.json: OSError: [Errno 2] ENOENT")


def no_board(port, *args, **kw):
    raise deploy.DeployError(deploy.no_board("", "no device found"))


@pytest.mark.parametrize("fake, said", [
    (no_file, "no saved runs on the board (it has no lab.json: run the REACTION LAB first)"),
    (no_board, deploy.no_board("", "no device found").replace("make deploy", "make lab-csv"))])
def test_lab_csv_says_what_a_board_lacks_in_one_line(fake, said, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(deploy, "mpremote", fake)
    assert lab_csv.main(["board", "-o", str(tmp_path / "x.csv")]) == 1
    assert capsys.readouterr().err == "lab_csv: %s\n" % said
    assert not (tmp_path / "x.csv").exists()


def test_lab_csv_bad_inputs_are_one_line_and_change_nothing(tmp_path, capsys):
    missing = tmp_path / "lab.json"
    assert lab_csv.main([str(missing)]) == 1
    assert "no saved runs: there is no" in capsys.readouterr().err
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_bytes(b"SPIT1 00000000 3\n{}x")
    assert lab_csv.main([str(corrupt), "-o", str(tmp_path / "c.csv")]) == 1
    err = capsys.readouterr().err
    assert "not a whole lab file" in err and err.count("\n") == 1
    assert corrupt.read_bytes() == b"SPIT1 00000000 3\n{}x"
    other = tmp_path / "other.json"
    FileStorage(str(other), fs=Flash()).save({"v": 2, "runs": {}})
    before = other.read_bytes()
    assert lab_csv.main([str(other), "-o", str(tmp_path / "o.csv")]) == 1
    assert "lab data of another version" in capsys.readouterr().err
    assert other.read_bytes() == before
    empty = tmp_path / "empty.json"
    FileStorage(str(empty), fs=Flash()).save(lab_store.empty())
    assert lab_csv.main([str(empty), "-o", str(tmp_path / "e.csv")]) == 1
    assert capsys.readouterr().err == "lab_csv: no saved runs to export\n"
    assert lab_csv.main([str(tmp_path)]) == 1
    assert "is a folder" in capsys.readouterr().err


def test_lab_csv_says_a_run_was_cut_short_and_exports_its_trials(tmp_path, capsys):
    path = tmp_path / "lab.json"
    st = FileStorage(str(path), fs=Flash())
    s = lab_store.Store(st)
    run = lab.Run(1, lab.SIMPLE, lab.VISUAL, 2, 0)
    run.rows = [[0, 1, 2000, 250000, lab.OK]]
    s.put(lab_store.run_record(s.open_run(), run, "open"))
    assert lab_csv.main([str(path), "-o", str(tmp_path / "c.csv")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "lab_csv: %s: run 1 was cut short" % path
    assert lab_store.parse_csv((tmp_path / "c.csv").read_text())[0] == [
        (1, 1, "simple-visual", 1, 2000, 250000, "ok")]


def test_lab_csv_as_a_command_never_shows_a_traceback(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "tools/lab_csv.py"), str(tmp_path / "no.json")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1


# ---- the plot ---------------------------------------------------------------------------
def write_csv(path, lab_path):
    assert lab_csv.main([str(lab_path), "-o", str(path)]) == 0


def test_prepare_merges_devices_and_plots_only_counted_ok_trials(lab_file, tmp_path):
    path, runs = lab_file
    a = tmp_path / "kit1.csv"
    b = tmp_path / "kit2.csv"
    write_csv(a, path)
    write_csv(b, path)
    tagged, problems = lab_plot.read_csvs([str(a), str(b)])
    assert problems == []
    prep = lab_plot.prepare(tagged)
    assert sorted(prep["runs"]) == [("kit1", 1), ("kit1", 2), ("kit2", 1), ("kit2", 2)]
    ok = [x[3] / 1000.0 for _, cond, _, rs in runs for x in rs if x[1] > 0 and x[4] == lab.OK]
    assert sorted(prep["all_ms"]) == sorted(ok * 2)
    assert sorted(prep["conditions"]) == ["choice-sound", "simple-visual"]
    assert sum(len(v) for v in prep["conditions"].values()) == len(ok) * 2
    trials = [t for t, _ in prep["runs"][("kit1", 1)][1]]
    assert trials == sorted(trials) and min(trials) >= 1
    assert prep["left_out"].get("anticipation", 0) >= 2
    assert prep["bins"][0] == 100 and prep["bins"][1] - prep["bins"][0] == 50
    assert prep["bins"][-1] > max(prep["all_ms"])


def test_prepare_keeps_a_duels_players_apart():
    tagged = [("k", (3, 1, "duel-visual", 1, 2000, 250000, "ok")),
              ("k", (3, 2, "duel-visual", 1, 2000, 260000, "ok"))]
    prep = lab_plot.prepare(tagged)
    assert set(prep["runs"]) == {("k", 3), ("k", "3 P2")}


def test_same_named_files_from_two_folders_stay_apart(tmp_path):
    names = lab_plot._source_names([str(tmp_path / "a" / "lab.csv"), str(tmp_path / "b" / "lab.csv")])
    assert names == [os.path.join("a", "lab"), os.path.join("b", "lab")]


def test_the_plot_refuses_another_versions_csv_naming_the_file(tmp_path, capsys):
    bad = tmp_path / "old.csv"
    bad.write_text("run,player,time\n1,1,250\n")
    assert lab_plot.main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lab_plot: %s: not a lab CSV of version 1" % bad)
    assert err.count("\n") == 1


def test_the_plot_leaves_out_a_broken_row_and_says_so(tmp_path, capsys):
    f = tmp_path / "k.csv"
    f.write_text(lab_store.HEADER + "\n1,1,simple-visual,1,2000,250000,ok\n1,1,simple-visual,2,2000,x,ok\n")
    tagged, problems = lab_plot.read_csvs([str(f)])
    assert len(tagged) == 1
    assert problems == ["%s line 3: a number field that is not a whole number (left out)" % f]


def test_the_plot_says_when_there_is_nothing_to_plot(tmp_path, capsys):
    f = tmp_path / "k.csv"
    f.write_text(lab_store.HEADER + "\n1,1,simple-visual,1,2000,,miss\n")
    assert lab_plot.main([str(f)]) == 1
    assert "no counted trials to plot" in capsys.readouterr().err


def test_the_plot_says_how_to_install_matplotlib_when_it_is_missing(monkeypatch, lab_file, tmp_path):
    import builtins
    real = builtins.__import__

    def no_mpl(name, *a, **kw):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **kw)
    monkeypatch.setattr(builtins, "__import__", no_mpl)
    prep = lab_plot.prepare([("k", (1, 1, "simple-visual", 1, 2000, 250000, "ok"))])
    with pytest.raises(lab_plot.LabPlotError) as e:
        lab_plot.plot(prep, str(tmp_path / "x.png"))
    assert "requirements-lab.txt" in str(e.value)


def test_the_plot_of_real_runs_is_written(lab_file, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib absent (requirements-lab.txt)")
    path, _ = lab_file
    csv = tmp_path / "kit1.csv"
    write_csv(csv, path)
    out = tmp_path / "class.png"
    assert lab_plot.main([str(csv), str(csv), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20000
