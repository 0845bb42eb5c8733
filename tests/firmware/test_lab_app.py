"""The REACTION LAB in the app on simulated ports (firmware/screens/lab.py): reached from
the title menu; the signal's frame sends only the box (the 256 bytes whose delay is
stated); the sound signal plays in its frame whatever the menu's sound setting; saves
come only between trials; a pause, a power cut, a full flash and another version's
file lose nothing saved; the results screens; and the replay: the same seed and
presses give the same results on CPython and the unix MicroPython."""
import json
import os
import subprocess
import sys

import pytest

from desktop_emulator import framebuf
from firmware import lab, lab_store
from firmware.hw.storage import FileStorage
from firmware.screens import lab as lab_screen, PAUSE_BUTTON
from host.ports import MemoryStorage
from host.rig import Rig
from tests.helpers import MICROPYTHON, ROOT, run_micropython

MS = 1000


def to_lab(r):
    app = r.app
    r.frames(1)
    r.menu(["U", "B"])                        # back from START: REACTION LAB, the last item
    assert app.screen_name() == "lab"
    return app.cur


def lab_rig(labport=None, **kw):
    r = Rig(framebuf, start=kw.pop("start", 5000), **kw)
    r.app.ports.lab = labport if labport is not None else MemoryStorage()
    return r


def start(r, task=lab.SIMPLE, signal=lab.VISUAL, trials=3, seed=9, player=0, practice=0):
    scr = to_lab(r)
    scr.practice = practice
    scr.task = task
    scr.signal = signal
    scr.trials = trials
    scr.start_run(seed, r.clock.now, player)
    r.frames(1)
    return scr


def until_state(r, scr, state, limit=400):
    r.until(lambda a: scr.run.state == state, limit)


def respond(r, scr, rt_us, player=0, button="A"):
    """Press rt_us after the signal's onset and let the app read it."""
    until_state(r, scr, lab.SIGNAL)
    r.inp.press(scr.run.onset + rt_us, player, button, 40000)
    r.frames(int(rt_us // 33333) + 2)


def test_the_title_menus_reaction_lab_opens_the_lab_and_back_leaves_it_unloaded():
    r = lab_rig()
    scr = to_lab(r)
    assert scr.mode == lab_screen.MENU
    assert [scr.text(i) for i in lab_screen.ITEMS] == [
        "START", "SIMPLE REACTION", "SIGNAL: SCREEN", "20 TRIALS + 3 PRACTICE", "BACK TO MENU"]
    r.menu(["A", "B", "A", "B", "A", "B"])       # choice, sound, 30 trials
    assert [scr.text(i) for i in lab_screen.ITEMS[1:4]] == [
        "CHOICE REACTION", "SIGNAL: SOUND", "30 TRIALS + 3 PRACTICE"]
    r.app.settings["mode"] = 3
    assert r.app.seat_levels() == (None, None)        # people at both pads, whatever the mode
    r.menu(["A", "B"])                            # BACK TO MENU
    assert r.app.screen_name() == "title"
    assert "firmware.screens.lab" not in sys.modules
    assert r.disp.span_errors == 0


def test_start_on_the_labs_menu_runs_the_trials_of_whoever_pressed():
    r = lab_rig()
    to_lab(r)
    r.menu(["B"], player=1)
    scr = r.app.cur
    assert scr.mode == lab_screen.RUN and scr.run.players == (1,)
    assert scr.run.trials == 20 and scr.run.trial == -3


def test_the_visual_signals_frame_sends_only_the_box_256_bytes():
    r = lab_rig()
    scr = start(r)
    until_state(r, scr, lab.WAITING)
    r.frames(1)
    r.until(lambda a: scr.run.state == lab.SIGNAL)
    # The frame that turned the signal on drew only the box's inside: pages 2-5, 64 wide.
    assert r.disp.last_widths == [64, 64, 64, 64]
    assert r.disp.stale_bytes() == 0 and r.disp.span_errors == 0
    lit = sum(bin(r.disp.panel[p * 128 + x]).count("1") for p in range(2, 6)
              for x in range(33, 95))
    assert lit > 62 * 28


def test_a_choice_signal_shows_its_letter_to_the_player():
    r = lab_rig()
    scr = start(r, task=lab.CHOICE, player=1)
    r.until(lambda a: scr.run.state == lab.SIGNAL)
    dark = sum(8 - bin(r.disp.panel[p * 128 + x]).count("1") for p in range(2, 6)
               for x in range(33, 95))
    assert dark > 40                               # the letter, dark on the lit box


def test_the_sound_signal_plays_in_its_frame_even_with_the_menus_sound_off():
    r = lab_rig()
    r.app.settings["sound"] = 0
    scr = start(r, signal=lab.SOUND)
    n = len(r.sound.played)
    while scr.run.state != lab.SIGNAL:
        shows = r.disp.shows
        r.frames(1)
    assert r.sound.played[n:] == ["lab-go"]
    assert r.disp.shows == shows           # nothing drawn in that frame: the beep alone


def test_choice_beeps_say_a_high_and_b_low():
    assert lab_screen.A_TUNE[1] > lab_screen.GO_TUNE[1] > lab_screen.B_TUNE[1]


class Watched(MemoryStorage):
    """Notes the run's state at every save."""

    def __init__(self, scr_of):
        super().__init__()
        self.scr_of = scr_of
        self.states = []

    def save(self, d):
        scr = self.scr_of()
        self.states.append(scr.run.state if scr is not None and scr.run else None)
        super().save(d)


def test_saves_come_only_between_trials_never_while_a_signal_is_awaited():
    st = Watched(None)
    r = lab_rig(st)
    st.scr_of = lambda: r.app.cur if r.app.screen_name() == "lab" else None
    scr = start(r, trials=2, practice=3)
    while scr.mode == lab_screen.RUN:
        respond(r, scr, 230 * MS)
        r.until(lambda a: scr.run.state != lab.FEEDBACK)
    assert scr.mode == lab_screen.RESULTS
    # Before the first trial, after each trial, and the finished run.
    assert st.states == [lab.READY] + [lab.FEEDBACK] * 5 + [lab.DONE]
    runs = lab_store.Store(st).runs()
    assert runs[0][2] == "done" and len(runs[0][3]) == 5


def test_a_trials_result_is_shown_before_it_is_saved():
    st = MemoryStorage()
    r = lab_rig(st)
    scr = start(r, trials=2)
    saves = st.saves
    until_state(r, scr, lab.SIGNAL)
    r.inp.press(scr.run.onset + 200 * MS, 0, "A", 40000)
    r.until(lambda a: scr.run.state == lab.FEEDBACK)
    shown = bytes(r.disp.panel)
    assert st.saves == saves                           # the frame that showed the result
    r.frames(1)
    assert st.saves == saves + 1 and bytes(r.disp.panel) == shown


def test_r19_the_reaction_time_is_the_press_stamp_not_the_frame_that_read_it():
    r = lab_rig()
    scr = start(r, trials=1)
    respond(r, scr, 234567)
    assert scr.run.rows[-1][3] == 234567


def test_the_feedback_says_the_time_then_false_starts_and_too_early():
    r = lab_rig()
    scr = start(r, trials=3)
    respond(r, scr, 250 * MS)
    assert lab_screen.half_lines(scr.run, 0)[0] == "250.0 MS"
    r.until(lambda a: scr.run.state == lab.WAITING)
    r.inp.press(r.clock.now + 100 * MS, 0, "B", 40000)
    r.frames(5)
    assert lab_screen.half_lines(scr.run, 0)[0] == "FALSE START!"
    assert r.sound.played[-1] == "illegal"
    r.until(lambda a: scr.run.state == lab.WAITING)
    respond(r, scr, 60 * MS)
    assert lab_screen.half_lines(scr.run, 0) == ("TOO EARLY", "60.0 MS: NOT COUNTED")


def test_a_duels_feedback_tells_each_player_their_margin():
    r = lab_rig()
    scr = start(r, task=lab.DUEL)
    until_state(r, scr, lab.SIGNAL)
    r.inp.press(scr.run.onset + 200 * MS, 0, "A", 40000)
    r.inp.press(scr.run.onset + 212345, 1, "B", 40000)
    r.frames(10)
    assert lab_screen.half_lines(scr.run, 0) == ("200.0 MS", "WIN BY 12.3 MS")
    assert lab_screen.half_lines(scr.run, 1) == ("212.3 MS", "BEATEN BY 12.3 MS")
    assert r.disp.span_errors == 0


def test_a_pause_mid_trial_then_resume_runs_that_trial_afresh():
    r = lab_rig()
    scr = start(r)
    until_state(r, scr, lab.WAITING)
    r.tap(0, PAUSE_BUTTON)
    assert scr.mode == lab_screen.PAUSED and scr.run.rows == []
    r.frames(30)
    r.tap(0, "A")
    assert scr.mode == lab_screen.RUN
    r.frames(2)
    assert scr.run.state == lab.WAITING and scr.run.trial == 1 and scr.run.rows == []


def test_the_pause_button_again_resumes_and_does_nothing_on_the_labs_menu():
    r = lab_rig()
    scr = start(r)
    r.tap(0, PAUSE_BUTTON)
    assert scr.mode == lab_screen.PAUSED
    r.tap(0, PAUSE_BUTTON)
    assert scr.mode == lab_screen.RUN
    r.tap(0, PAUSE_BUTTON)
    r.tap(0, "B")                                  # STOP RUN
    r.frames(40)
    r.tap(0, "B")                                  # the results -> the lab's menu
    assert scr.mode == lab_screen.MENU
    r.tap(0, PAUSE_BUTTON)
    assert scr.mode == lab_screen.MENU and scr.sel == 0


def test_holding_a_and_b_for_a_second_pauses():
    r = lab_rig()
    scr = start(r)
    respond(r, scr, 300 * MS)                     # in the feedback: no false start
    t = r.clock.now
    r.inp.press(t + 1000, 0, "A", 1300 * MS)
    r.inp.press(t + 2000, 0, "B", 1300 * MS)
    r.frames(20)
    assert scr.mode == lab_screen.RUN
    r.frames(20)
    assert scr.mode == lab_screen.PAUSED


def test_a_run_stopped_from_the_pause_is_saved_as_stopped_with_its_trials():
    st = MemoryStorage()
    r = lab_rig(st)
    scr = start(r, trials=5)
    respond(r, scr, 280 * MS)
    r.until(lambda a: scr.run.state == lab.WAITING)
    r.tap(0, PAUSE_BUTTON)
    r.tap(0, "B")
    assert scr.mode == lab_screen.RESULTS
    runs = lab_store.Store(st).runs()
    assert runs[0][2] == "stopped" and [row[3] for row in runs[0][3]] == [280 * MS]


def test_a_power_cut_mid_run_keeps_the_finished_trials_and_says_so():
    fs = {}

    class Files:
        def read(self, name):
            return fs.get(name)

        def write(self, name, data):
            fs[name] = bytes(data)

        def rename(self, a, b):
            fs[b] = fs.pop(a)

        def remove(self, name):
            fs.pop(name, None)

    game_save = FileStorage("/spit.json", fs=Files())
    r = Rig(framebuf, start=5000, storage=game_save)
    r.app.save_settings()
    scr = start(r, trials=5)
    respond(r, scr, 250 * MS)
    respond_after = r.clock.now
    r.until(lambda a: scr.run.state == lab.WAITING)
    assert "/lab.json" in fs and r.clock.now > respond_after
    spit = fs["/spit.json"]
    # The power goes mid-wait. At the next power-up:
    r2 = Rig(framebuf, start=5000, storage=FileStorage("/spit.json", fs=Files()))
    scr2 = to_lab(r2)
    assert scr2.store.message == "RUN 1 WAS CUT SHORT"
    runs = scr2.store.runs()
    assert runs[0][2] == "cut" and [row[3] for row in runs[0][3]] == [250 * MS]
    assert fs["/spit.json"] == spit                  # the game's save was never touched
    # And the next run is number 2, the cut one kept.
    scr2.start_run(1, r2.clock.now)
    assert [x[0] for x in scr2.store.runs()] == [1, 2]


class FullFlash(MemoryStorage):
    def save(self, d):
        raise OSError(28)


def test_a_full_flash_still_shows_the_results_and_says_it_could_not_save():
    r = lab_rig(FullFlash())
    scr = start(r, trials=1)
    respond(r, scr, 250 * MS)
    r.until(lambda a: scr.mode == lab_screen.RESULTS)
    assert scr.store.message == "LAB: COULD NOT SAVE"
    assert "MEDIAN 250.0 MS" in scr.pages[0][1]
    r.frames(40)
    r.tap(0, "B")                                    # back to the lab's menu, which says it
    assert scr.mode == lab_screen.MENU
    r.frames(2)
    assert r.disp.span_errors == 0


def test_a_lab_file_of_another_version_is_said_and_left_as_it_was():
    other = json.dumps({"v": 7, "runs": []})
    st = MemoryStorage(other)
    r = lab_rig(st)
    scr = start(r, trials=1)
    assert scr.store.message == "LAB FILE OF ANOTHER VERSION"
    respond(r, scr, 250 * MS)
    r.until(lambda a: scr.mode == lab_screen.RESULTS)
    assert st.text == other


def test_the_results_pages_draw_figures_histogram_duel_and_the_devices_delay():
    r = lab_rig()
    scr = start(r, task=lab.DUEL, trials=3)
    for rt in (220, 260, 240):
        until_state(r, scr, lab.SIGNAL)
        r.inp.press(scr.run.onset + rt * MS, 0, "A", 40000)
        r.inp.press(scr.run.onset + (rt + 15) * MS, 1, "A", 40000)
        r.until(lambda a: scr.run.state != lab.SIGNAL)
    r.until(lambda a: scr.mode == lab_screen.RESULTS)
    heads = [p[0] for p in scr.pages]
    assert heads == ["P1: RUN 1 DUEL SCREEN", "P2: RUN 1 DUEL SCREEN", "SPREAD P1 (MS)",
                     "SPREAD P2 (MS)", "DUEL", "THE DEVICE'S OWN DELAY"]
    assert scr.pages[0][1][:3] == ["COUNTED 3 OF 3 TRIALS", "MEDIAN 240.0 MS",
                                   "MEAN 240.0 SD 20.0"]
    assert scr.pages[0][1][-1] == "DEVICE: SCREEN +20.3 MS"
    assert scr.pages[4][1][:3] == ["P1 WINS 3  P2 WINS 0", "TIES 0", "MEAN MARGIN 15.0 MS"]
    assert scr.pages[2][2] == [0, 0, 2, 1, 0, 0, 0, 0]     # 220 240 | 260
    r.tap(0, "A")                                    # too soon after the run: ignored
    assert scr.page == 0
    r.frames(40)
    shown = []
    for _ in heads:
        shown.append(bytes(r.disp.panel))
        r.tap(0, "A", frames=2)
    assert len(set(shown)) == len(heads)             # each page its own picture
    r.tap(0, "A", frames=2)
    assert scr.page == 1                            # and round again
    r.frames(1)
    assert r.disp.span_errors == 0 and r.disp.stale_bytes() == 0


def test_the_histogram_page_lights_a_bar_per_filled_bin():
    r = lab_rig()
    scr = start(r, trials=2, practice=3)
    respond(r, scr, 120 * MS)
    respond(r, scr, 120 * MS)
    respond(r, scr, 120 * MS)
    respond(r, scr, 230 * MS)
    respond(r, scr, 460 * MS)
    r.until(lambda a: scr.mode == lab_screen.RESULTS)
    r.frames(40)
    r.tap(0, "A", frames=2)
    assert scr.page == 1 and scr.pages[1][2] == [0, 0, 1, 0, 0, 0, 0, 1]
    panel = r.disp.panel
    pitch = (128 - 8) // 8

    def column_lit(k):
        x = 4 + k * pitch + pitch // 2
        return sum((panel[(y >> 3) * 128 + x] >> (y & 7)) & 1 for y in range(18, 47))
    assert column_lit(2) > 20 and column_lit(7) > 20
    assert column_lit(0) == 0 and column_lit(4) == 0


def test_every_word_the_lab_shows_is_in_the_medium_font():
    from firmware import font
    r = lab_rig()
    scr = to_lab(r)
    texts = [scr.text(i) for i in lab_screen.ITEMS]
    for task in range(3):
        for signal in range(2):
            scr.task, scr.signal = task, signal
            texts += [scr.text(i) for i in lab_screen.ITEMS]
            run = lab.Run(task + 1, task, signal, 5, 0)
            run.rows = [[p, 1, 2000, rt, flag] for p in run.players
                        for rt, flag in ((250000, lab.OK), (-5000, lab.FALSE_START),
                                         (50000, lab.ANTICIPATION), (300000, lab.ERROR),
                                         (None, lab.MISS))]
            run.full = True
            for head, lines, _ in lab_screen.result_pages(run, 12):
                texts += [head] + lines
            for state in (lab.WAITING, lab.SIGNAL, lab.FEEDBACK):
                run.state = state
                for first in range(len(run.rows)):
                    run.first = first
                    for p in run.players:
                        texts += list(lab_screen.half_lines(run, p))
    texts += list(lab_screen.FEEDBACK_WORDS) + ["PAUSED", "THIS TRIAL STARTS AGAIN",
                                               "A: GO ON  B: STOP RUN", "A: MORE  B: DONE"]
    missing = {ch for s in texts for ch in s if ch not in font.MED_CHARS}
    assert missing == set()


def lab_script(interpreter, *args):
    script = ROOT / "tests/mp/lab_run.py"
    if interpreter == "cpython":
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        return subprocess.run([sys.executable, str(script)] + list(args), capture_output=True,
                              text=True, env=env, cwd=str(ROOT), timeout=300)
    return run_micropython(script, *args, heap="400K")


def test_the_same_seed_and_presses_give_the_same_lab_results_on_cpython_twice():
    a = lab_script("cpython", "2", "0", "5")
    b = lab_script("cpython", "2", "0", "5")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout and a.stdout.count("\nrow ") > 20


@pytest.mark.mp
@pytest.mark.skipif(not MICROPYTHON.exists(), reason="micropython binary missing (make setup)")
@pytest.mark.parametrize("args", [("0", "0", "1"), ("1", "1", "2"), ("2", "0", "3")])
def test_the_lab_replays_identically_on_micropython_and_cpython(args):
    cp = lab_script("cpython", *args)
    mp = lab_script("micropython", *args)
    assert cp.returncode == 0, cp.stderr
    assert mp.returncode == 0, mp.stderr + mp.stdout[-2000:]
    assert mp.stdout == cp.stdout
    lines = cp.stdout.splitlines()
    assert any(line.startswith("page ") for line in lines)
    assert sum(1 for line in lines if line.startswith("row ")) >= 12
