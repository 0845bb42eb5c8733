"""The emulator's desktop ports (DESIGN.md "ports"): clock, keyboard input, storage,
sound, display, and the terminal renderer. No window is needed except where pygame
itself is the port (SDL's dummy drivers, set by conftest)."""

import io
import os

import pygame
import pytest

from desktop_emulator import clock as clk
from desktop_emulator import display, framebuf, keyboard, loops, sound, storage, terminal
from desktop_emulator.clock import PerfClock, SimClock, TICKS_PERIOD, ticks_diff

# ---------------------------------------------------------------- clock


class FakeNs:
    def __init__(self, t=5_000_000_000):
        self.t = t

    def __call__(self):
        return self.t


def test_perf_clock_folds_nanoseconds_to_microsecond_ticks():
    ns = FakeNs()
    c = PerfClock(now_ns=ns)
    assert c.ticks_us() == 0
    ns.t += 1_234_567          # 1234.567 us
    assert c.ticks_us() == 1234
    ns.t += (TICKS_PERIOD - 1234) * 1000
    assert c.ticks_us() == 0   # wrapped at 2**30, like MicroPython's ticks_us
    assert c.elapsed_us() == TICKS_PERIOD


def test_start_near_wrap_reads_just_below_2_30_then_wraps():
    ns = FakeNs()
    c = PerfClock(start_near_wrap=True, now_ns=ns)
    t0 = c.ticks_us()
    assert TICKS_PERIOD - 10_000_000 < t0 < TICKS_PERIOD
    ns.t += clk.NEAR_WRAP_LEAD_US * 1000 + 5_000_000
    t1 = c.ticks_us()
    assert t1 == 5000
    assert ticks_diff(t1, t0) == clk.NEAR_WRAP_LEAD_US + 5000
    s = SimClock(start_near_wrap=True)
    assert s.ticks_us() == t0
    s.advance(clk.NEAR_WRAP_LEAD_US)
    assert s.ticks_us() == 0


def test_frozen_perf_clock_loses_the_paused_time():
    ns = FakeNs()
    c = PerfClock(now_ns=ns)
    ns.t += 1_000_000
    c.freeze()
    ns.t += 60_000_000_000     # a minute in the pause
    assert c.ticks_us() == 1000
    c.thaw()
    ns.t += 2_000_000
    assert c.ticks_us() == 3000


def test_sim_clock_moves_only_forward_and_across_the_wrap():
    s = SimClock(TICKS_PERIOD - 10)
    assert s.advance(25) == 15
    assert s.elapsed_us() == 25
    s.advance_to_ticks(100)
    assert s.ticks_us() == 100
    with pytest.raises(ValueError):
        s.advance(-1)
    with pytest.raises(ValueError):
        s.advance_to_ticks(50)


def test_ticks_diff_matches_the_rules_core():
    from shared_rules.arbiter import ticks_diff as core
    for a, b in ((0, TICKS_PERIOD - 1), (5, 3), (3, 5), (TICKS_PERIOD - 1, 0), (0, 1 << 29)):
        assert ticks_diff(a, b) == core(a, b)


# ---------------------------------------------------------------- keyboard


def K(name):
    return keyboard.key_code(name)


def test_default_keys_are_z_x_for_player_0_and_n_m_for_player_1():
    km = keyboard.default_keymap()
    assert km == {K("z"): (0, "A"), K("x"): (0, "B"), K("n"): (1, "A"), K("m"): (1, "B")}
    assert keyboard.keys_of(km, 1) == {"A": "N", "B": "M"}


def test_keys_can_be_remapped_per_player():
    km = keyboard.parse_keys(["p0=a,s", "p1=left,right"])
    assert km[K("a")] == (0, "A") and km[K("s")] == (0, "B")
    assert km[K("left")] == (1, "A") and km[K("right")] == (1, "B")
    km = keyboard.parse_keys(["p1=comma,period"])     # p0 keeps Z/X
    assert km[K("z")] == (0, "A") and km[K(",")] == (1, "A")
    assert keyboard.parse_keys(["p0=z,x p1=n,m"]) == keyboard.default_keymap()


@pytest.mark.parametrize("spec", ["p0=z", "p0=z,x,c", "p2=a,b", "p0:z,x", "p0=z,nosuchkey",
                                  "p0=z,z", "p0=n,x", "p0=escape,x", "p1=f11,m",
                                  "p0=z,x p0=a,s", "p0=,x"])
def test_bad_key_specs_are_one_line_errors(spec):
    with pytest.raises(keyboard.KeySpecError) as e:
        keyboard.parse_keys([spec])
    assert "\n" not in str(e.value)


def test_key_events_are_stamped_on_arrival_with_the_clock_port():
    c = SimClock(1000)
    kb = keyboard.KeyboardInput(c)
    assert kb.key(K("x"), True)
    c.advance(500)
    assert kb.key(K("n"), True)
    c.advance(70)
    assert kb.key(K("x"), False)
    assert not kb.key(K("q"), True)            # not a pad key
    assert kb.drain() == [(1000, 0, "B", True), (1500, 1, "A", True), (1570, 0, "B", False)]
    assert kb.drain() == []


def test_drain_appends_to_the_apps_list_like_the_device_ring():
    c = SimClock(7)
    kb = keyboard.KeyboardInput(c)
    kb.key(K("z"), True)
    out = ["already"]
    assert kb.drain(out) is out and out == ["already", (7, 0, "A", True)]


def test_events_in_one_batch_keep_queue_order_never_a_fake_tie():
    c = SimClock(TICKS_PERIOD - 1)
    kb = keyboard.KeyboardInput(c)
    kb.key(K("z"), True)
    kb.key(K("n"), True)                       # same clock reading
    kb.key(K("m"), True)
    ts = [e[0] for e in kb.drain()]
    assert ts == [TICKS_PERIOD - 1, 0, 1]      # strictly later, across the wrap


def test_key_repeat_is_not_a_press_and_focus_loss_releases():
    c = SimClock()
    kb = keyboard.KeyboardInput(c)
    kb.key(K("z"), True)
    kb.key(K("z"), True)                       # auto-repeat
    kb.key(K("m"), True)
    assert kb.pressed == {(0, "A"), (1, "B")}
    kb.handle(pygame.event.Event(pygame.WINDOWFOCUSLOST))
    evs = kb.drain()
    assert [(e[1], e[2], e[3]) for e in evs] == [
        (0, "A", True), (1, "B", True), (0, "A", False), (1, "B", False)]
    assert kb.pressed == set()
    kb.key(K("x"), False)                      # released a key pressed before focus
    assert kb.drain() == []


def test_pygame_key_events_reach_the_port():
    kb = keyboard.KeyboardInput(SimClock(42))
    assert kb.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_m))
    assert kb.handle(pygame.event.Event(pygame.KEYUP, key=pygame.K_m))
    assert not kb.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q))
    assert [e[1:] for e in kb.drain()] == [(1, "B", True), (1, "B", False)]


# ---------------------------------------------------------------- storage


def test_storage_lives_in_the_users_data_dir():
    assert storage.default_path({"XDG_DATA_HOME": "/x/data", "HOME": "/h"}) == \
        "/x/data/spit-handheld/spit.json"
    assert storage.default_path({"HOME": "/h"}) == "/h/.local/share/spit-handheld/spit.json"
    assert storage.default_path({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == \
        "/h/.local/share/spit-handheld/spit.json"


def test_file_storage_round_trip_atomic_and_device_format(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    st = storage.FileStorage(stderr=io.StringIO())
    assert st.load() is None and st.message is None        # missing: defaults, silently
    st.save({"v": 1, "settings": {"mode": 2}})
    path = tmp_path / "spit-handheld" / "spit.json"
    raw = path.read_bytes()
    assert raw.startswith(b"SPIT1 ")                       # the handheld's own format
    assert sorted(os.listdir(path.parent)) == ["spit.json"]    # no temp file left
    assert storage.FileStorage(str(path)).load() == {"v": 1, "settings": {"mode": 2}}


def test_a_failed_save_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    st = storage.FileStorage(str(path))
    st.save({"a": 1})

    def boom(a, b):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "rename", boom)
    monkeypatch.setattr(os, "remove", lambda p: None)
    with pytest.raises(OSError):
        st.save({"a": 2})
    monkeypatch.undo()
    assert storage.FileStorage(str(path)).load() == {"a": 1}


@pytest.mark.parametrize("content", [b"garbage", b"", b"SPIT1 00000000 2\n{}",
                                     b"SPIT1 zz 2\n{}", b"\xff\xfe\x00"])
def test_corrupt_storage_gives_defaults_and_a_message(tmp_path, content):
    path = tmp_path / "s.json"
    path.write_bytes(content)
    err = io.StringIO()
    st = storage.FileStorage(str(path), stderr=err)
    assert st.load() is None
    if content:
        assert st.message and "corrupt" in err.getvalue().lower()


def test_the_app_starts_clean_on_a_corrupt_file_and_says_so(tmp_path):
    from desktop_emulator import session
    path = tmp_path / "s.json"
    path.write_bytes(b"SPIT1 12345678 3\nabc")
    m = session.AppEngine(SimClock(), session.QueueInput(), display.FrameDisplay(), None,
                        storage.FileStorage(str(path), stderr=io.StringIO()))
    m.step()
    assert m.app.screen_name() == "title"
    assert "CORRUPT" in m.app.note


def test_a_first_start_on_the_desktop_offers_a_game_against_the_normal_cpu(tmp_path):
    from desktop_emulator import session
    m = session.AppEngine(SimClock(), session.QueueInput(), display.FrameDisplay(), None,
                        storage.FileStorage(str(tmp_path / "none.json"), stderr=io.StringIO()))
    m.step()
    assert m.app.settings["mode"] == 2                    # vs CPU, normal
    assert "NORMAL" in " ".join(m.app.menu_text(i) for i in m.app.menu_items())


def test_memory_storage_is_json_like_a_file():
    st = storage.MemoryStorage()
    assert st.load() is None
    d = {"k": [1, 2]}
    st.save(d)
    d["k"].append(3)
    assert st.load() == {"k": [1, 2]}


# ---------------------------------------------------------------- sound


def test_tunes_become_square_waves_of_the_right_length():
    from firmware import sound as tunes
    rate = 8000
    s = sound.synth(("t", 1000, 10, 0, 5), rate, 1000)
    assert len(s) == 80 + 40
    body = s[20:60]                              # away from the fades (n // 4)
    assert set(body) == {1000, -1000}
    assert list(s[80:]) == [0] * 40              # the rest
    flips = sum(1 for i in range(1, 80) if (s[i] > 0) != (s[i - 1] > 0))
    assert 18 <= flips <= 21                     # 1 kHz for 10 ms: 10 periods
    for tune in tunes.ALL:
        n = len(sound.synth(tune, rate))
        assert n == sum(ms * rate // 1000 for _f, ms in sound.notes(tune))
    st = sound.synth(("t", 440, 5), rate, 100, channels=2)
    assert len(st) == 2 * 40 and st[0::2] == st[1::2]


def test_mixer_sound_plays_without_blocking_and_records():
    from firmware import sound as tunes
    snd = sound.MixerSound()
    for tune in tunes.ALL:
        snd.play(tune)
    assert snd.played == [t[0] for t in tunes.ALL]


def test_a_mixer_that_cannot_start_means_silence_not_a_crash(monkeypatch):
    def fail(*a, **k):
        raise pygame.error("no audio device")
    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", fail)
    snd = sound.MixerSound()
    assert not snd.ok and "silently" in snd.message
    snd.play(("x", 440, 10))
    assert snd.played == ["x"]


def test_a_machine_without_a_sound_card_is_silent_and_quiet(monkeypatch, capfd):
    # What SDL's ALSA back end does there: eight lines from C on file descriptor 2,
    # then the error. The game says one line and plays on in silence.
    def alsa(*a, **k):
        for _ in range(8):
            os.write(2, b"ALSA lib confmisc.c:855:(parse_card) cannot find card '0'\n")
        raise pygame.error("ALSA: Couldn't open audio device: No such file or directory")
    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", alsa)
    capfd.readouterr()
    snd = sound.MixerSound()
    err = capfd.readouterr().err
    assert "ALSA lib" not in err and err == ""
    assert not snd.ok and "\n" not in snd.message
    assert "Couldn't open audio device" in snd.message and "silently" in snd.message
    snd.play(("x", 440, 10))
    os.write(2, b"still here\n")                       # stderr is back
    assert capfd.readouterr().err == "still here\n"


# ---------------------------------------------------------------- display


def random_frame(seed):
    import random
    r = random.Random(seed)
    buf = bytearray(r.getrandbits(8) for _ in range(1024))
    return buf, framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)


def test_pixel_rows_follow_mono_vlsb():
    buf, fb = random_frame(1)
    rows = display.pixel_rows(buf)
    assert len(rows) == 128 * 64
    for y in range(64):
        for x in range(128):
            assert rows[y * 128 + x] == fb.pixel(x, y)


def test_png_round_trip_at_any_scale(tmp_path):
    buf, _fb = random_frame(2)
    for k in (1, 3):
        p = tmp_path / ("f%d.png" % k)
        display.save_png(buf, p, scale=k)
        assert pygame.image.load(str(p)).get_size() == (128 * k, 64 * k)
        assert display.load_png_pixels(p) == display.pixel_rows(buf)


def test_frame_display_is_the_port():
    seen = []
    d = display.FrameDisplay(on_show=lambda b: seen.append(bytes(b)))
    d.fb.fill_rect(0, 0, 8, 8, 1)
    d.show()
    assert d.shows == 1 and seen[0][:8] == b"\xff" * 8
    assert d.sha1() == display.frame_sha1(d.buf)


def test_scale_fits_the_window_with_square_pixels():
    assert display.fit_scale(768, 384, False) == 6
    assert display.fit_scale(1000, 384, False) == 6        # letterboxed, still x6
    assert display.fit_scale(64, 32, False) == 0.5
    uw, uh = display.layout_size(True)
    assert display.fit_scale(uw * 6, uh * 6, True) == 6


# ---------------------------------------------------------------- terminal


def test_half_blocks_pair_two_rows_per_line():
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    fb.pixel(0, 0, 1)            # upper only
    fb.pixel(1, 1, 1)            # lower only
    fb.pixel(2, 0, 1)
    fb.pixel(2, 1, 1)            # both
    fb.pixel(127, 63, 1)
    lines = terminal.half_block_lines(buf)
    assert len(lines) == 32 and all(len(s) == 128 for s in lines)
    assert lines[0][:4] == "\u2580\u2584\u2588 "
    assert lines[31][127] == "\u2584"
    assert set("".join(lines[1:31])) == {" "}


def test_half_blocks_agree_with_the_pixels():
    buf, fb = random_frame(3)
    lines = terminal.half_block_lines(buf)
    chars = " \u2580\u2584\u2588"
    for r in range(32):
        for x in range(128):
            assert lines[r][x] == chars[fb.pixel(x, 2 * r) + 2 * fb.pixel(x, 2 * r + 1)]


def test_terminal_screen_rewrites_only_changed_lines():
    out = io.StringIO()
    scr = terminal.TerminalScreen(out, columns=200)
    buf = bytearray(1024)
    assert scr.draw(buf, "status") == 33                  # everything, the first time
    buf[5] = 1                                            # row 0 of column 5
    first = len(out.getvalue())
    assert scr.draw(buf, "status") == 1
    assert "\u2580" in out.getvalue()[first:]
    assert scr.draw(buf, "status") == 0
    scr.stop()
    assert out.getvalue().endswith(terminal.RESET + terminal.SHOW_CURSOR + "\n")


def test_a_narrow_terminal_gets_clipped_lines_not_wrapped_ones():
    out = io.StringIO()
    terminal.TerminalScreen(out, columns=80).draw(bytes([255]) * 1024)
    assert "\u2588" * 81 not in out.getvalue()


def test_show_spans_sends_only_the_spans_like_the_oled():
    d = display.FrameDisplay()
    d.fb.fill_rect(0, 0, 128, 64, 1)
    spans = bytearray(16)
    for p in range(8):
        spans[2 * p], spans[2 * p + 1] = 255, 0        # nothing to send...
    spans[2 * 3], spans[2 * 3 + 1] = 10, 19            # ...but page 3, columns 10-19
    d.show_spans(spans)
    assert d.panel[3 * 128 + 10:3 * 128 + 20] == b"\xff" * 10
    assert sum(d.panel) == 255 * 10
    assert d.stale_bytes() == 1024 - 10                # the device would show stale pixels
    d.show()
    assert d.stale_bytes() == 0 and d.panel == d.buf


def test_the_apps_spans_leave_nothing_stale_in_a_whole_game():
    from desktop_emulator import session
    from shared_rules.game import Rules
    d = display.FrameDisplay()
    stale = []
    d.on_show = lambda panel: stale.append(d.stale_bytes())
    m = session.AppEngine(SimClock(), session.QueueInput(), d)
    m.start_game(("hard", "normal"), 6, Rules())
    loops.run_headless(m, session.device_frame_us(), until="over")
    assert len(stale) > 100 and not any(stale)


def test_the_title_hint_names_the_keys_of_both_players():
    from desktop_emulator.keyboard import parse_keys, title_hint
    assert title_hint(parse_keys([])) == "Z/N: NEXT  X/M: CHOOSE"
    assert title_hint(parse_keys(["p1=j,k"])) == "Z/J: NEXT  X/K: CHOOSE"


def test_the_app_shows_the_hosts_hint_on_the_title_screen():
    from desktop_emulator import session
    from firmware.view import med_width
    plain = session.AppEngine(SimClock(), session.QueueInput(), display.FrameDisplay())
    hinted = session.AppEngine(SimClock(), session.QueueInput(), display.FrameDisplay(),
                             hint="Z/N: NEXT  X/M: CHOOSE")
    plain.step()
    hinted.step()
    assert plain.app.hint != hinted.app.hint
    assert bytes(plain.display.buf) != bytes(hinted.display.buf)
    assert med_width("Z/N: NEXT  X/M: CHOOSE") <= 128


@pytest.mark.parametrize("boot_ns", [0, 1_000, 123_456_789, 7_999])
def test_the_emulated_picos_guest_time_of_a_tick_is_when_that_tick_begins(boot_ns):
    """Pico.guest_ns inverts Pico.ticks_us exactly, whatever the sub-µs phase of the
    chip's boot: a press aimed at a tick lands on it (the lab's board test presses a
    whole number of µs after a signal's stamp), not up to 1 µs before it."""
    from desktop_emulator.pico.device import Pico, TICKS_MASK, US
    pico = Pico.__new__(Pico)            # the clock's arithmetic only: no emulator
    pico.timer_start_us = 3_333
    pico.boot_ns = boot_ns
    pico.t_ns = boot_ns + 987_654_321
    for ticks in (pico.ticks_us(), pico.ticks_us() - 1, pico.ticks_us() - 300_001,
                  (pico.timer_start_us + 5) & TICKS_MASK):
        t = pico.guest_ns(ticks)
        assert t <= pico.t_ns
        assert pico.ticks_us(t) == ticks and pico.ticks_us(t - 1) == (ticks - 1) & TICKS_MASK
        assert pico.ticks_us(t + US - 1) == ticks
