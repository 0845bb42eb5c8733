"""The browser engine's Python (web/spitweb/), without a browser: the ports (clock from
performance.now(), stamped input, display spans, tones, localStorage in the device's
format), the query, the state line's digest, and whole sessions on a fake page bridge
-- under CPython, and the same code under the real `micropython` binary."""
import hashlib
import json
import subprocess

import pytest

from tests.helpers import MICROPYTHON, ROOT
from tests.web_helpers import FakeBridge, desktop_state

from desktop_emulator import framebuf as fb_standin
from shared_rules.game import Game, Rules
from host import state as digest
from spitweb import ports, session
from spitweb.ports import TICKS_PERIOD, GAP_CAP_US

pytestmark = pytest.mark.web

STORE_KEY = "spit-handheld/spit.json"


def web(search="", store=None, now_ms=1000.0, **kw):
    b = FakeBridge(store=store, **kw)
    return session.Web(b, search, now_ms, fb_module=fb_standin), b


def step_frames(w, t_ms, n, dt_ms=16.0):
    for _ in range(n):
        t_ms += dt_ms
        w.frame(t_ms)
    return t_ms


# ---------------------------------------------------------------- the digest

@pytest.mark.parametrize("n", [0, 1, 55, 56, 63, 64, 65, 119, 1000, 4099])
def test_pure_sha1_matches_hashlib(n):
    data = bytes((i * 37 + 11) & 255 for i in range(n))
    assert digest.sha1_pure(data) == hashlib.sha1(data).hexdigest()


def test_sorted_dump_matches_cpython_json_for_snapshots_through_a_game():
    g = Game(seed=11, rules=Rules(points=True))
    seen = 0
    for k in range(400):
        snap = g.snapshot()
        assert digest.dumps_sorted(snap) == json.dumps(snap, sort_keys=True)
        seen += 1
        if g.phase == "over":
            break
        acts = g.legal_actions(k % 2) or g.legal_actions(1 - k % 2)
        if not acts:
            break
        g.apply(acts[0])
    assert seen > 50


def test_sorted_dump_escapes_like_cpython_and_refuses_floats():
    odd = {"b": ['q"uote', "back\\slash", "tab\t", "nl\n", "\x01", "é", "\U0001F600"],
           "a": [None, True, False, -7, (1, 2)], "c": {}}
    assert digest.dumps_sorted(odd) == json.dumps(odd, sort_keys=True)
    with pytest.raises(TypeError):
        digest.dumps_sorted({"x": 1.5})


# ---------------------------------------------------------------- the clock

def test_clock_reads_performance_now_in_us_folded_to_the_wrap():
    c = ports.WebClock(500.0)
    assert c.ticks_us() == 0
    assert c.frame(516.667) == 16667
    near = ports.WebClock(0.0, start=TICKS_PERIOD - 10000)
    assert near.frame(0.016) == TICKS_PERIOD - 9984
    assert near.frame(50.0) == 40000          # past the 2**30 wrap: small again
    assert near.elapsed_us() == 50000


def test_clock_caps_a_long_gap_and_never_runs_backwards():
    c = ports.WebClock(0.0)
    c.frame(16.0)
    c.frame(16.0 + 600000.0)                  # ten minutes hidden
    assert c.elapsed_us() == 16000 + GAP_CAP_US
    assert c.capped == 1
    c.frame(10.0)                             # a stamp from before the last frame
    assert c.elapsed_us() == 16000 + GAP_CAP_US


def test_a_capped_gap_keeps_presses_in_order_and_their_real_spacing():
    c = ports.WebClock(0.0)
    inp = ports.WebInput(c)
    c.frame(10.0)
    # Nothing animated for 5 s, then two keys 15 ms apart, then the next frame.
    inp.key("KeyZ", True, False, 4980.0, 5000.0)
    inp.key("KeyN", True, False, 4995.0, 5000.0)
    now = c.frame(5010.0)
    assert now == 10000 + GAP_CAP_US + 10000           # the gap lost all but the cap
    evs = inp.drain()
    assert [e[1] for e in evs] == [0, 1]
    assert evs[1][0] - evs[0][0] == 15000
    assert now - evs[1][0] == 15000
    # A stamp from inside the lost stretch lands at its start: never after a later one.
    assert c.stamp(2000000) == 10000


def test_frozen_clock_stands_still():
    c = ports.WebClock(0.0)
    c.frame(20.0)
    c.frozen = True
    c.frame(5000.0)
    c.frozen = False
    assert c.frame(5016.0) == 36000


# ---------------------------------------------------------------- input

def test_keys_by_code_stamped_from_timestamp_and_drained_in_stamp_order():
    c = ports.WebClock(0.0)
    inp = ports.WebInput(c)
    assert inp.key("KeyM", True, False, 50.25, 51.0)
    assert inp.key("KeyZ", True, False, 50.125, 51.0)     # touched first, arrived second
    assert not inp.key("KeyQ", True, False, 50.5, 51.0)   # not a pad key
    c.frame(51.0)
    assert inp.drain() == [(50125, 0, "A", True), (50250, 1, "B", True)]


def test_auto_repeat_and_stray_keyups_are_not_presses():
    c = ports.WebClock(0.0)
    inp = ports.WebInput(c)
    inp.key("KeyX", True, False, 5.0, 5.0)
    inp.key("KeyX", True, True, 40.0, 40.0)      # e.repeat
    inp.key("KeyX", True, False, 45.0, 45.0)     # a repeat the browser did not flag
    inp.key("KeyN", False, False, 46.0, 46.0)    # released, never pressed here
    inp.key("KeyX", False, False, 50.0, 50.0)
    c.frame(60.0)
    assert inp.drain() == [(5000, 0, "B", True), (50000, 0, "B", False)]


def test_a_stamp_off_the_page_timeline_is_taken_on_arrival():
    c = ports.WebClock(0.0)
    inp = ports.WebInput(c)
    inp.key("KeyZ", True, False, 1.7e12, 80.0)    # an epoch time, not performance.now()
    c.frame(90.0)
    assert inp.drain()[0][0] == 80000


def test_a_key_and_a_finger_on_one_button_make_one_press():
    c = ports.WebClock(0.0)
    inp = ports.WebInput(c)
    inp.key("KeyN", True, False, 10.0, 10.0)
    assert inp.pad(1, "A", True, 7, 12.0, 12.0)
    assert inp.pressed() == [(1, "A")]
    inp.pad(1, "A", False, 7, 20.0, 20.0)
    inp.key("KeyN", False, False, 30.0, 30.0)
    assert not inp.pad(2, "A", True, 8, 31.0, 31.0)
    c.frame(40.0)
    assert inp.drain() == [(10000, 1, "A", True), (30000, 1, "A", False)]
    assert inp.pressed() == []


def test_losing_focus_releases_every_held_button():
    c = ports.WebClock(0.0)
    inp = ports.WebInput(c)
    inp.key("KeyZ", True, False, 1.0, 1.0)
    inp.pad(0, "B", True, 3, 2.0, 2.0)
    inp.release_all(9.0)
    c.frame(10.0)
    evs = inp.drain()
    assert [e[1:] for e in evs] == [(0, "A", True), (0, "B", True), (0, "A", False),
                                    (0, "B", False)]
    assert evs[-1][0] == 9000


def test_stamps_order_across_the_wrap_and_wait_for_the_frame():
    c = ports.WebClock(0.0, start=TICKS_PERIOD - 1000)
    inp = ports.WebInput(c)
    inp.key("KeyZ", True, False, 1.25, 1.5)       # after the wrap: ticks 250
    inp.key("KeyN", True, False, 0.5, 1.5)        # before it: ticks 2**30 - 500
    assert inp.drain() == []                      # the clock has not reached them yet
    c.frame(2.0)
    assert inp.drain() == [(TICKS_PERIOD - 500, 1, "A", True), (250, 0, "A", True)]


def test_a_full_ring_counts_what_it_drops():
    c = ports.WebClock(0.0)
    inp = ports.WebInput(c, ring=4)
    for k in range(3):
        inp.key("KeyZ", True, False, 1.0 + k, 10.0)
        inp.key("KeyZ", False, False, 1.5 + k, 10.0)
    assert len(inp.queue) == 4
    assert inp.dropped == 2


# ---------------------------------------------------------------- display, sound, storage

def test_display_sends_only_the_spans_to_the_panel():
    d = ports.WebDisplay(fb_standin)
    d.dirty = False
    d.fb.fill_rect(0, 0, 20, 16, 1)
    spans = bytearray([0, 9, 255, 0] + [255, 0] * 6)     # page 0 cols 0-9 only
    d.show_spans(spans)
    assert d.dirty
    assert bytes(d.panel[0:10]) == b"\xff" * 10 and d.panel[10] == 0 and d.panel[128] == 0
    d.show()
    assert d.panel == d.buf


def test_sound_port_sends_tones_as_text():
    from firmware import sound
    b = FakeBridge()
    s = ports.WebSound(b)
    s.play(sound.ILLEGAL)
    s.play(sound.ILLEGAL)
    assert b.tones == ["196,90,0,40,165,140"] * 2
    assert s.played == ["illegal", "illegal"]


def test_storage_keeps_the_device_format_in_local_storage():
    from firmware.hw.storage import decode
    b = FakeBridge()
    st = ports.web_storage(b)
    st.save({"a": 1})
    assert list(b.store) == [STORE_KEY]                  # the temporary item is renamed
    assert decode(b.store[STORE_KEY].encode()) == {"a": 1}
    assert st.load() == {"a": 1} and st.message is None
    b.store[STORE_KEY] = "SPIT1 00000000 3\n{}x"
    assert st.load() is None and st.message == "SAVED DATA CORRUPT"
    assert ports.web_storage(FakeBridge(storage_ok=False)) is None
    with pytest.raises(OSError):
        ports.web_storage(FakeBridge(writable=False)).save({"a": 1})


# ---------------------------------------------------------------- the query

def test_query_values_are_parsed():
    o = session.parse_query("?seed=42&p0=hard&p1=easy&rules=points&until=round&fast=1&flip=1")
    assert (o["seed"], o["p0"], o["p1"], o["rules"], o["until"], o["fast"], o["flip"]) == (
        42, "hard", "easy", "points", "round", True, True)
    assert session.parse_query("")["seed"] is None
    assert session.parse_query("?replay=spit-replay+1%0Aseed+3")["replay"] == \
        "spit-replay 1\nseed 3"


@pytest.mark.parametrize("query,words", [
    ("?colour=red", "unknown parameter 'colour'"),
    ("?seed=abc", "seed=abc: not a whole number"),
    ("?seed=1073741824", "seed=1073741824: must be 0 to 1073741823"),
    ("?p0=expert", "p0=expert: must be one of human, easy, normal, hard"),
    ("?rules=fast", "rules=fast: must be one of standard, points"),
    ("?until=forever", "until=forever"),
    ("?fast=yes", "fast=yes: must be 0 or 1"),
    ("?seed=1&seed=2", "'seed' given twice"),
    ("?fast=1&p1=human", "fast=1 has no keyboard"),
    ("?fast=1", None),
    ("?replay=", "replay= is empty"),
    ("?replay=x&seed=3", "seed= cannot be used with replay="),
    ("?frames=0", "frames=0: must be 1 to"),
    ("?upright=yes", "upright=yes: must be 0 or 1"),
])
def test_bad_query_is_one_clear_line(query, words):
    if words is None:
        session.parse_query(query)
        return
    with pytest.raises(session.QueryError) as e:
        session.parse_query(query)
    assert words in str(e.value)
    assert "\n" not in str(e.value)


def test_upright_shows_player_1s_half_turned_back_and_the_panel_stays_the_devices():
    from host import upright as turn
    assert session.parse_query("")["upright"] is False
    assert session.parse_query("?upright=1")["upright"] is True
    # A fast run to the first round's summary: player 1's half is turned back in the
    # picture the canvas draws; the panel and the state line are the device's.
    w, b = web("?seed=3&p0=hard&p1=easy&until=round&fast=1&upright=1")
    while not w.run_fast(500):
        pass
    assert w.frame(0) & session.REDRAW
    assert w.app.screen_name() == "summary"
    panel = bytes(w.display.panel)
    assert bytes(w.picture) == bytes(turn.upright(panel, turn.HALF)) != panel
    assert w.picture_hex() == bytes(w.picture).hex()
    assert b.finished_lines[-1][1] == desktop_state("--seed", "3", "--p0", "hard", "--p1",
                                                    "easy", "--until", "round")
    w.set_upright(False)                          # the page's control
    assert bytes(w.picture) == panel
    w.set_upright(True)
    assert bytes(w.picture) == bytes(turn.upright(panel, turn.HALF))
    # Without the option the picture is the panel.
    w, b = web("?seed=3&p0=hard&p1=easy&until=round&fast=1")
    while not w.run_fast(500):
        pass
    w.frame(0)
    assert bytes(w.picture) == bytes(w.display.panel)


def test_a_bad_query_shows_its_message_and_runs_nothing():
    w, b = web("?seed=x&p1=hard")
    assert b.failed == ["seed=x: not a whole number (0 to 1073741823)"]
    assert w.frame(2000.0) == session.DONE
    assert w.run_fast(10) is True
    w, b = web("?replay=spit-replay%201%0Aseed%203")
    assert b.failed and "no game in it" in b.failed[0]


# ---------------------------------------------------------------- sessions

def test_the_session_builds_the_app_as_the_desktop_machine_does():
    # Both hosts take these from the host floor: the very same objects, not copies.
    from desktop_emulator import session as desk, replays as desk_replays, loops
    from desktop_emulator.keyboard import default_keymap, title_hint
    for name in ("DESKTOP_DEFAULTS", "RECORD_LIMIT", "CPU_CODE", "CPU_NAME", "LEVELS"):
        assert getattr(session, name) is getattr(desk, name), name
    for name in ("parse_replay", "format_replay", "ReplayError"):
        assert getattr(session, name) is getattr(desk_replays, name), name
    assert session.MAX_SIM_US == loops.MAX_SIM_US
    assert session.HINT == title_hint(default_keymap())
    assert session.device_frame_us() == desk.device_frame_us()


@pytest.mark.parametrize("seed,p0,p1,rules", [(3, "hard", "easy", "standard"),
                                              (8, "normal", "hard", "points")])
def test_fast_mode_prints_the_desktop_state_line(seed, p0, p1, rules):
    w, b = web("?seed=%d&p0=%s&p1=%s&rules=%s&until=over&fast=1" % (seed, p0, p1, rules))
    while not w.run_fast(500):
        pass
    want = desktop_state("--seed", str(seed), "--p0", p0, "--p1", p1, "--rules", rules,
                         "--until", "over")
    assert b.finished_lines[-1][1] == want
    assert b.finished_lines[-1][0].startswith("screen=over ")


def test_the_test_mode_example_in_web_md_is_what_the_page_and_the_desktop_print():
    import re
    text = (ROOT / "docs" / "WEB.md").read_text(encoding="utf-8")
    m = re.search(r"```\n(\?[^\n]*)\n<pre id=\"summary\"> +([^\n]*)\n"
                  r"<pre id=\"state\"> +([^\n]*)\n```\n\nwhich `python -m desktop_emulator "
                  r"([^`]*)` prints too", text)
    assert m, "docs/WEB.md lost its test-mode example"
    query, summary, state, command = m.groups()
    w, b = web(query)
    while not w.run_fast(500):
        pass
    assert b.finished_lines[-1] == (summary, state), (
        "docs/WEB.md's example is stale; the page now shows %r" % (b.finished_lines[-1],))
    from tests.web_helpers import desktop_run
    code, lines = desktop_run(*command.split())
    assert code == 0 and lines == [summary, state]


def test_a_live_game_recorded_in_the_page_replays_on_the_desktop(tmp_path):
    w, b = web("?p0=human&p1=hard&seed=21&wrap=1")   # the clock wraps 2 s in
    t = 1000.0
    for k in range(160):              # about 10 s of play, pressing as a person would
        t += 16.0
        if k % 9 == 0:
            w.key("KeyX" if k % 18 else "KeyZ", True, False, t - 3.0, t)
        if k % 9 == 4:
            w.key("KeyX" if k % 18 != 4 else "KeyZ", False, False, t - 3.0, t)
            w.key("KeyZ", False, False, t - 2.0, t)
            w.key("KeyX", False, False, t - 2.0, t)
        w.frame(t)
    w.key("Escape", True, False, t, t)
    t = step_frames(w, t, 3)
    assert w.app.screen_name() == "pause"
    assert w.clock.ticks_us() < 2000000                 # past the 2**30 wrap
    text = w.replay_text()
    path = tmp_path / "web-game.txt"
    path.write_text(text)
    state = desktop_state("--replay", str(path)).split()[1]
    assert w.state_line().split()[1] == state
    assert "# desktop_emulator p0=human p1=hard engine=web" in text


def test_desktop_recording_replays_fast_in_the_page(tmp_path):
    from desktop_emulator import cli
    path = tmp_path / "desk.txt"
    assert cli.main(["--headless", "--p0", "easy", "--p1", "hard", "--seed", "5",
                     "--until", "round", "--record", str(path)],
                    stdout=__import__("io").StringIO()) == 0
    from urllib.parse import quote
    w, b = web("?fast=1&replay=" + quote(path.read_text()))
    while not w.run_fast(300):
        pass
    assert b.finished_lines[-1][1] == desktop_state("--replay", str(path))


def test_menu_by_keys_then_esc_pauses_and_a_reload_offers_continue():
    store = {}
    w, b = web("", store=store)
    t = 1000.0
    t = step_frames(w, t, 2)
    assert w.app.screen_name() == "title"
    items = [w.app.menu_text(i) for i in w.app.menu_items()]
    assert items[0] == "START"                         # first: the obvious press starts
    w.key("KeyX", True, False, t, t)
    t = step_frames(w, t, 3)
    assert w.app.screen_name() == "game"
    assert w.app.cpu == [None, 2]                      # the desktop's first start: vs CPU
    w.key("Escape", True, False, t, t)
    w.key("Escape", False, False, t + 50, t + 50)
    t = step_frames(w, t, 2)
    assert w.app.screen_name() == "pause"
    w2, b2 = web("", store=store, now_ms=5.0)
    assert w2.app.menu_text(w2.app.menu_items()[0])== "CONTINUE VS CPU NORMAL"
    assert b2.statuses == []


def test_hiding_the_tab_pauses_the_game_and_the_gap_is_not_game_time():
    w, b = web("?p0=human&p1=normal&seed=4")
    t = step_frames(w, 1000.0, 5)
    w.key("KeyX", True, False, t, t)                   # held when the tab goes
    w.visibility(True, t + 5)
    assert w.app.screen_name() == "pause"
    assert w.keys.pressed() == []
    before = w.clock.elapsed_us()
    w.visibility(False, t + 600000.0)
    w.frame(t + 600016.0)
    assert w.clock.elapsed_us() - before <= GAP_CAP_US + 20000
    assert w.app.screen_name() == "pause"              # resumes only when a player says


def test_corrupt_local_storage_starts_clean_and_says_so():
    w, b = web("", store={STORE_KEY: "{not the device's format"})
    assert w.app.note == "SAVED DATA CORRUPT"
    assert len(b.statuses) == 1 and "starting clean" in b.statuses[0]
    assert w.app.menu_text(w.app.menu_items()[0]) != "CONTINUE"
    w, b = web("", storage_ok=False)
    assert "no storage" in b.statuses[0]
    w.frame(1020.0)


def test_a_cpu_press_lights_its_pad_and_names_show_the_seats():
    w, b = web("?p0=hard&p1=hard&seed=2")
    t = 1000.0
    lit = 0
    for _ in range(400):
        t += 16.0
        lit |= (w.frame(t) >> session.LIT_SHIFT) & 15
    assert lit & 3 and lit & 12                        # both CPUs pressed something
    assert b.names_shown == ("CPU HARD", "CPU HARD")


# ---------------------------------------------------------------- MicroPython

MP_SCRIPT = r"""
import sys
sys.path.insert(0, "web")
from host import state as digest
from spitweb import session
import framebuf

class Bridge:
    def __init__(self): self.out = []
    def fail(self, t): print("FAIL", t)
    def status(self, t): pass
    def finished(self, s, line): self.out.append(line)
    def names(self, a, b): pass
    def tone(self, t): pass

for q in ("?seed=3&p0=hard&p1=easy&fast=1", "?seed=9&p0=easy&p1=normal&rules=points&fast=1"):
    b = Bridge()
    w = session.Web(b, q, 0.0)
    while not w.run_fast(200):
        pass
    print(b.out[-1])
print(digest.sha1_pure(b"abc"), digest.sha1_hex(b"abc"))
"""


@pytest.mark.mp
@pytest.mark.skipif(not MICROPYTHON.exists(), reason="micropython binary missing")
def test_the_web_python_runs_on_micropython_with_the_same_state_lines(tmp_path):
    script = tmp_path / "web_mp.py"
    script.write_text(MP_SCRIPT)
    p = subprocess.run([str(MICROPYTHON), "-X", "heapsize=8M", str(script)], cwd=str(ROOT),
                       capture_output=True, text=True, timeout=300,
                       env={"MICROPYPATH": str(ROOT)})
    assert p.returncode == 0, p.stderr + p.stdout[-2000:]
    lines = p.stdout.splitlines()
    assert lines[0] == desktop_state("--seed", "3", "--p0", "hard", "--p1", "easy")
    assert lines[1] == desktop_state("--seed", "9", "--p0", "easy", "--p1", "normal",
                                     "--rules", "points")
    sha = hashlib.sha1(b"abc").hexdigest()
    assert lines[2] == "%s %s" % (sha, sha)
