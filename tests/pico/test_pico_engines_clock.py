"""Both engines agree whatever the board's clock does: a board that takes longer to
start (its button sampling at another phase against its µs timer) and a round played
across the µs timer's 2**30 wrap replay exactly on the app engine. (A file of their
own: the suite's files are shared out over the cores, and these are long.)"""
import pytest

from desktop_emulator import replays
from desktop_emulator.clock import ticks_diff, TICKS_PERIOD
from tests.pico.engines import run_cli, state_of, presses

pytestmark = pytest.mark.pico


@pytest.fixture(autouse=True)
def _needs_pico(pico_firmware):
    return pico_firmware


def test_a_replay_does_not_depend_on_how_long_the_board_takes_to_start(tmp_path,
                                                                       pico_firmware):
    # The board spins a while before its game starts, as a firmware that costs more at
    # start-up would: its button sampling then runs at another phase against its µs
    # timer. Every press must still get its recorded stamp, to the µs, and the round end
    # as on the app engine. This round has a press made just as a fumble's dead time
    # ended (a CPU presses as soon as its buttons come back): one µs early, it is lost.
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.pico.engine import PicoMachine
    rec = tmp_path / "app.txt"
    code, app = run_cli("--headless", "--p0", "normal", "--p1", "hard", "--seed", "8",
                        "--until", "round", "--record", str(rec), "--print-state")
    assert code == 0
    loaded = replays.load_replay(str(rec))
    fumble_us = loaded.replay.played_conduct().fumble_us
    pressed = presses(loaded)
    on_the_edge = [(dt, p, b) for dt, p, b in pressed
                   if any(p2 == p and dt - dt2 == fumble_us for dt2, p2, _b in pressed)]
    assert on_the_edge
    text = rec.read_text()
    dt, p, b = on_the_edge[0]
    early = text.replace("button %d %d %d 1\n" % (loaded.start_t + dt, p, b),
                         "button %d %d %d 1\n" % (loaded.start_t + dt - 1, p, b), 1)
    (tmp_path / "early.txt").write_text(early)
    code, moved = run_cli("--replay", str(tmp_path / "early.txt"), "--headless",
                          "--until", "round", "--print-state")
    # One µs decides this round: the replay says it diverged from its recording (R40).
    assert code == 3 and state_of(moved) != state_of(app)
    # 7 turns: a phase at which, with contacts closing on the µs boundaries, that press
    # was stamped early (others are; which ones depends on the firmware's start-up).
    m = PicoMachine(pico_firmware, wall_limit_s=600, start_spin=7)
    try:
        m.attach(FrameDisplay()).boot()
        m.start_replay(loaded)
        reason = m.run_headless(until="round")
        pico = m.state_line()
        board = replays.parse_replay(m.replay_text(), "the board's recording")
    finally:
        m.close()
    assert presses(board) == pressed
    assert reason == "round"
    assert pico == state_of(app)


def test_a_game_across_the_tick_wrap_agrees(tmp_path):
    # The chip's µs timer starts 3.5 s before its 2**30 wrap: the round is played across
    # it, stamped by the board's own ticks, and the app engine replays it exactly.
    rec = tmp_path / "wrap.txt"
    code, pico = run_cli("--engine", "pico", "--headless", "--p0", "hard", "--p1", "hard",
                         "--seed", "2", "--until", "round", "--start-near-wrap",
                         "--record", str(rec), "--print-state")
    assert code == 0, pico
    loaded = replays.load_replay(str(rec))
    assert loaded.start_t > TICKS_PERIOD - 4_000_000
    times = [t for t, _evs in loaded.frames]
    assert min(times) < 1_000_000_000 < max(times)          # stamps on both sides
    assert all(ticks_diff(b, a) >= 0 for a, b in zip(times, times[1:]))
    code, app = run_cli("--replay", str(rec), "--headless", "--until", "round",
                        "--print-state")
    assert code == 0
    assert state_of(app) == state_of(pico)
