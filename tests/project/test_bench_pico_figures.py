"""bench-pico's play figures (tools/bench_pico.py play_figures) on made-up sessions: the
collection goal counts every collection the emulator saw, MicroPython's own inside
frames too, and their time is a part of the frame of its own, not the rules'."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import bench_pico  # noqa: E402


def _row(ms, gc=0.0):
    return {"ms": ms, "screen": bench_pico.GAME_SCREEN, "draw": 1.0, "show": 0.0,
            "bus": 0.0, "bytes": 0, "cpu": 0.0, "save": 0.0, "gc": gc,
            "rules": ms - 1.0 - gc}


def _session(rows, loop_us, every_ms):
    return {"seed": 1, "rows": rows, "latency": [5.0], "to_pixels": [20.0],
            "gc_us": loop_us, "gc_every_ms": every_ms, "presses": 1, "presses_seen": 1,
            "memory_error_at_frame": [], "seconds": 1}


def test_a_collection_inside_a_frame_misses_the_pause_goal_the_loops_alone_meet():
    rows = [_row(3.0), _row(22.0, gc=13.0), _row(4.0)]
    got = bench_pico.play_figures([_session(rows, [4000, 4500], [4.0, 4.5, 13.0])])
    assert got["gc_pause_ms"]["max"] == 4.5                 # the loop's, between frames
    assert got["gc_pause_ms_every"] == {"p50": 4.5, "max": 13.0}
    assert got["gc_every_runs"] == 3 and got["frames_with_a_collection"] == 1
    assert got["frame_goals"]["gc_pause_ms"] is False
    assert got["frame_parts_ms"]["gc"]["max"] == 13.0
    assert got["frame_parts_ms"]["rules"]["max"] == 8.0     # 22 - 1 drawing - 13


def test_without_the_watch_the_goal_is_the_loops_collections():
    rows = [_row(3.0), _row(4.0)]
    got = bench_pico.play_figures([_session(rows, [4000, 4500], None)])
    assert got["gc_pause_ms_every"] is None and got["gc_every_runs"] is None
    assert got["frame_goals"]["gc_pause_ms"] is True


def test_collections_are_placed_in_the_frames_they_fell_inside():
    class Chip:
        def guest_ns(self, ticks):
            return ticks * 1000
    frames = [(1_000, 3_000), (34_000, 50_000), (67_000, 70_000)]
    spans = [(2_000_000, 2_500_000), (3_500_000, 16_000_000), (48_000_000, 52_000_000)]
    assert bench_pico.collections_in_frames(Chip(), frames, spans) == [0.5, 2.0, 0.0]
    assert bench_pico.collections_in_frames(Chip(), frames, None) is None
