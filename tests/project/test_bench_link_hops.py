"""bench-link's account of where a linked press's time goes (tools/bench_link.py): each
hop is the difference of two stamps the chips took, in the order the press takes them,
and the hops one handheld does not take are summed per press. On made-up stamps (one
µs tick = 1 µs of true time on both chips), so every figure is known."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import bench_link  # noqa: E402

US = 1000


class _Chip:
    def guest_ns(self, ticks):
        return ticks * US


class _Pair:
    chips = (_Chip(), _Chip())

    def true_ns(self, i, local_ns):
        return local_ns

    def ticks_us(self, i, t_true):
        return t_true // US


def _lines(host_me=0):
    none = {k: [] for k in ("F", "P", "O", "C", "S", "R", "Q", "T")}
    host, guest = dict(none, B=(0, host_me, 1)), dict(none, B=(0, 1 - host_me, 0))
    return [host, guest]


def test_a_guests_press_is_split_into_its_five_hops():
    got = _lines()
    host, guest = got
    edge = 1_000_000 * US
    guest["S"] = [(1_000_000, 1_003_000)]             # on the cable 3 ms after the edge
    host["R"] = [(1_000_000, 1_010_000)]              # read by the host 7 ms later
    host["P"] = [(1_000_000, 1, 5, 0)]                # queued in frame 5 ...
    host["O"] = [(1_000_000, 6)]                      # ... decided in frame 6
    host["T"] = [(5, 1_012_000), (6, 1_020_000)]      # frame 6's outcome on the cable
    hops = {}
    bench_link._press_hops(_Pair(), got, 0, 1, edge, 1_000_000, 1_025_000,
                           1_040_000 * US, hops)
    assert hops == {"edge_to_cable": [3.0], "cable_to_host": [7.0], "host_decides": [10.0],
                    "back_to_guest": [5.0], "guest_draws": [15.0], "link_only": [22.0]}


def test_a_hosts_press_waits_for_the_guests_word_only_when_it_asked():
    got = _lines()
    host = got[0]
    host["Q"] = [(2_002_000, 2_010_000)]
    hops = {}
    bench_link._press_hops(_Pair(), got, 0, 0, 2_000_000 * US, 2_000_000, 2_012_000,
                           2_030_000 * US, hops)
    assert hops == {"host_draws": [18.0], "edge_to_step": [12.0], "edge_to_ask": [2.0],
                    "ask_to_answer": [8.0], "answer_to_step": [2.0], "link_only": [8.0]}
    # A press the guest's last word had already passed: no question, counted as such.
    bench_link._press_hops(_Pair(), got, 0, 0, 3_000_000 * US, 3_000_000, 3_004_000,
                           3_020_000 * US, hops)
    assert hops["edge_to_step"] == [12.0, 4.0] and hops["not_asked"] == [1]
    assert hops["link_only"] == [8.0]


def test_a_hop_with_a_stamp_missing_is_left_out_not_guessed():
    got = _lines()
    got[1]["S"] = [(1_000_000, 1_003_000)]            # the host never read it (the run ended)
    hops = {}
    bench_link._press_hops(_Pair(), got, 0, 1, 1_000_000 * US, 1_000_000, 1_025_000,
                           1_040_000 * US, hops)
    assert hops == {"edge_to_cable": [3.0], "guest_draws": [15.0]}


def test_the_table_says_which_goal_is_missed_and_what_the_link_hops_take():
    chip = {"_hops": {"edge_to_cable": [3.0, 5.0], "cable_to_host": [7.0, 9.0],
                      "host_decides": [10.0, 12.0], "back_to_guest": [5.0, 5.0],
                      "guest_draws": [15.0, 16.0], "link_only": [22.0, 26.0]}}
    hops = bench_link._hop_figures([chip], bench_link.GUEST_HOPS)
    assert hops["link_only"]["n"] == 2 and hops["link_only"]["max"] == 26.0
    role = {"frame_ms": {"p50": 3.0, "p99": 20.0, "max": 22.0}, "frames": 100,
            "press_to_pixels_ms": {"p50": 40.0, "p99": 44.0, "max": 45.0},
            "presses": 4, "presses_taken": 2, "presses_shown": 2, "gc_pause_ms_max": 9.0}
    res = {"game_frames": {
        "seconds_per_seed": 1, "seeds": [1],
        "host": dict(role, hops_ms=bench_link._hop_figures([{"_hops": {}}],
                                                           bench_link.HOST_HOPS)),
        "guest": dict(role, hops_ms=hops),
        "single_handheld": {"frame_ms": {"p50": 3, "p99": 18, "max": 20},
                            "press_to_pixels_ms": {"p50": 14, "p99": 34.6, "max": 40}}}}
    text = bench_link.table(res)
    assert "* cable, host busy -> host read it" in text
    assert "handheld does not take; --hops)" in text
    res["game_frames"]["hops_from"] = {"seed": 1, "seconds": 20}       # the default run's
    assert "a session of its own with the hop stamps, seed 1, 20 s)" in bench_link.table(res)
    assert ("goal guest press_to_pixels p99 <= single handheld's: MISSED (44.0 against "
            "34.6 ms; the * hops alone take 22.0 ms at p50)") in text
    assert "goal host frame_ms p99 <= single handheld's: MISSED (20.0 against 18 ms)" in text


def test_without_the_stamps_no_hop_table_and_no_guessed_share():
    role = {"frame_ms": {"p50": 3.0, "p99": 20.0, "max": 22.0}, "frames": 100,
            "press_to_pixels_ms": {"p50": 40.0, "p99": 44.0, "max": 45.0},
            "presses": 4, "presses_taken": 2, "presses_shown": 2, "gc_pause_ms_max": 9.0}
    empty = {"host": bench_link.HOST_HOPS, "guest": bench_link.GUEST_HOPS}
    res = {"game_frames": dict(
        {r: dict(role, hops_ms=bench_link._hop_figures(
            [{"_hops": {"guest_draws": [15.0], "host_draws": [17.0]}}], empty[r]))
         for r in ("host", "guest")},
        seconds_per_seed=1, seeds=[1],
        single_handheld={"frame_ms": {"p99": 21.0}, "press_to_pixels_ms": {"p99": 34.6}})}
    text = bench_link.table(res)
    assert "where a linked press's time goes" not in text and "needed no question" not in text
    assert ("goal guest press_to_pixels p99 <= single handheld's: MISSED (44.0 against "
            "34.6 ms)") in text
    assert "goal guest frame_ms p99 <= single handheld's: met (20.0 against 21.0 ms)" in text
    assert "not judged" not in text
    del res["game_frames"]["single_handheld"]              # bench-pico not run before
    text = bench_link.table(res)
    assert "goal" not in text.replace("goals against one handheld's", "")
    assert ("goals against one handheld's frame_ms and press_to_pixels_ms p99: not judged, "
            "no build/pico-bench.json (make bench-pico writes it)") in text
    res["game_frames"]["hops_failed"] = "no title on both chips within 5000 guest ms"
    assert ("the session with the hop stamps did not run: no title on both chips within "
            "5000 guest ms") in bench_link.table(res)


def test_a_collection_is_counted_in_the_frames_it_fell_inside():
    # Frames (start, end) in µs ticks; collections (start, end, marked again) in ns.
    frames = [(1_000, 3_000, 1, 0), (34_000, 50_000, 1, 0), (67_000, 70_000, 1, 0)]
    watched = {"spans": [(3_500 * US, 16_000 * US, 0, 24),      # the loop's, between frames
                         (40_000 * US, 52_000 * US, 0, 1040),   # inside the second, past its end
                         (69_000 * US, None, 0, 16)]}           # still going: not counted
    got = bench_link._collections_in_frames(_Chip(), frames, watched)
    assert got == [0.0, 10.0, 0.0]
    assert bench_link._collections_in_frames(_Chip(), frames, None) is None
    assert bench_link._asked_in_frames(_Chip(), frames, watched) == [1040]
    chips = [{"_frame_ms": [2.0, 16.0, 3.0], "_frame_gc_ms": got, "_asked": [1040]}]
    f = bench_link._frames_and_collections(chips)
    assert f["frames_with_a_collection"] == 1
    assert f["collection_in_frame_ms"] == {"p50": 10.0, "max": 10.0}
    assert f["frame_ms_without_them"]["max"] == 3.0
    assert f["collection_in_frame_asked_bytes"] == {"p50": 1040, "max": 1040}


def test_a_slow_frames_parts_are_what_the_probe_timed_and_the_rest_is_the_remainder():
    frames = [(0, 0, 1, 0), (0, 0, 2, 0), (0, 0, 1, 0)]          # the second: not the game's
    lines = [(0, 20_000, 6_000, 3_000, 4_000, 1_000), (1, 30_000, 1, 1, 1, 1),
             (2, 18_000, 2_000, 0, 0, 500), (7, 17_000, 0, 0, 0, 0)]   # (7: no such frame)
    got = bench_link._slow_frame_parts(lines, frames)
    assert got == [{"frame": 20.0, "draw": 6.0, "face": 3.0, "panel": 4.0, "link": 1.0,
                    "rest": 6.0},
                   {"frame": 18.0, "draw": 2.0, "face": 0.0, "panel": 0.0, "link": 0.5,
                    "rest": 15.5}]
    s = bench_link._slow_frames([{"_slow": got}])
    assert s["slow_frames"] == 2
    assert s["slow_frame_parts_ms"]["rest"] == {"p50": 6.0, "max": 15.5}
