"""The replay format: text round trip, clear errors, and rules-level playback."""
import pytest

from shared_rules.conduct import Conduct
from hypothesis import given
from hypothesis import strategies as st

from shared_rules.game import Game, Rules
from shared_rules.replay import Replay, format_action, parse, parse_action, run

actions = st.one_of(
    st.tuples(st.just("spit"), st.integers(0, 1)),
    st.tuples(st.sampled_from(["play", "fill"]), st.integers(0, 1), st.integers(0, 4),
              st.integers(0, 4)),
    st.tuples(st.sampled_from(["flip", "slap"]), st.integers(0, 1), st.integers(0, 4)),
)
ticks = st.integers(0, 2**30 - 1)
records = st.one_of(
    st.tuples(st.just("press"), ticks, actions),
    st.tuples(st.sampled_from(["settle", "frame"]), ticks),
    st.tuples(st.just("button"), ticks, st.integers(0, 1), st.integers(0, 5), st.integers(0, 1)),
    st.tuples(st.just("digest"), ticks, st.integers(1, 99), st.integers(0, 0xFFFFFF)),
    st.tuples(st.just("bound"), ticks, st.integers(0, 1), st.integers(0, 0xFFFF)),
)


@given(seed=st.integers(0, 2**30 - 1), points=st.booleans(), mf=st.booleans(),
       target=st.integers(1, 500), recs=st.lists(records, max_size=30))
def test_replay_text_round_trips(seed, points, mf, target, recs):
    rp = Replay(seed, Rules(points, mf, target), list(recs))
    text = rp.format()
    assert parse(text) == rp
    assert parse(text).format() == text


def test_action_text_round_trips():
    for a in [("spit", 1), ("play", 0, 2, 1), ("fill", 1, 4, 0), ("slap", 0, 1), ("flip", 1, 3)]:
        assert parse_action(format_action(a)) == a


@pytest.mark.parametrize("text,where", [
    ("", "empty"),
    ("hello 1\n", "line 1"),
    ("spit-replay 2\n", "version"),
    ("spit-replay 1\nseed x\n", "line 2"),
    ("spit-replay 1\nseed 1\nrules colour=1\n", "line 3"),
    ("spit-replay 1\npress 10 play 0 1\n", "line 2"),
    ("spit-replay 1\npress 10 jump 0\n", "line 2"),
    ("spit-replay 1\npress -3 spit 0\n", "line 2"),
    ("spit-replay 1\npress 1073741824 spit 0\n", "tick"),
    ("spit-replay 1\nbutton 5 2 0 1\n", "line 2"),
    ("spit-replay 1\nwhat 5\n", "unknown"),
])
def test_malformed_replays_raise_value_error_naming_the_problem(text, where):
    with pytest.raises(ValueError) as e:
        parse(text)
    assert where in str(e.value)


def test_comments_and_blank_lines_are_ignored():
    rp = parse("# a game\n\nspit-replay 1\nseed 3\n# note\nsettle 5\n")
    assert rp.seed == 3 and rp.records == [("settle", 5)]


def test_a_rules_level_replay_reproduces_the_game():
    rp = Replay(seed=4)
    g = Game(seed=4)
    t = 1000
    # Record a game by pressing the first legal action of alternating players.
    from shared_rules.arbiter import Arbiter
    arb = Arbiter(g)
    for n in range(300):
        acts = g.legal_actions(n % 2) or g.legal_actions(1 - n % 2)
        if not acts:
            break
        rp.press(t, acts[0])
        arb.press(acts[0], t)
        t += 700
        if n % 3 == 2:
            rp.settle(t)
            arb.settle(t)
    replayed, results = run(parse(rp.format()))
    assert replayed.snapshot() == g.snapshot()
    assert len(results) > 0


def test_a_press_record_needs_a_time_and_an_action():
    from shared_rules.replay import parse
    with pytest.raises(ValueError) as e:
        parse("spit-replay 1\nseed 1\npress 100\n")
    assert "line 3" in str(e.value) and "unknown record" in str(e.value)


def test_a_button_record_stores_down_as_0_or_1_and_reads_back():
    rp = Replay(seed=2)
    rp.button(1500, 1, 3, True)
    rp.button(1800, 0, 5, False)
    assert rp.records == [("button", 1500, 1, 3, 1), ("button", 1800, 0, 5, 0)]
    text = rp.format()
    assert "button 1500 1 3 1\n" in text and "button 1800 0 5 0\n" in text
    assert parse(text) == rp


@pytest.mark.parametrize("ms", [0, 1, 500, 60000])
def test_r41_a_fumble_time_from_0_off_to_60_s_is_read(ms):
    rp = parse("spit-replay 1\nseed 1\nfumble %d\n" % ms)
    # A recording from before R41's escalation and R44: a flat fumble, no signal.
    assert rp.conduct == Conduct.legacy(ms) == rp.played_conduct()
    assert rp.conduct.fumble_us == ms * 1000 and rp.conduct.repeat_us == 0
    assert rp.conduct.signal == 0
    assert parse(rp.format()) == rp


@pytest.mark.parametrize("ms", [-1, 60001])
def test_r41_a_fumble_time_outside_0_to_60_s_is_refused_naming_the_line(ms):
    with pytest.raises(ValueError) as e:
        parse("spit-replay 1\nseed 1\nfumble %d\n" % ms)
    assert "line 3" in str(e.value) and "fumble time %d ms" % ms in str(e.value)


@pytest.mark.parametrize("line", ["fumble 500 7", "fumble 500 500", "fumble"])
def test_r41_a_fumble_line_holds_exactly_one_number(line):
    # A second number is no part of the format: refused, not read as the first alone.
    with pytest.raises(ValueError) as e:
        parse("spit-replay 1\nseed 1\n%s\n" % line)
    assert "line 3" in str(e.value) and "unknown record" in str(e.value)


def test_a_replay_without_a_fumble_line_has_no_fumble_time():
    rp = parse("spit-replay 1\nseed 1\n")
    assert rp.conduct is None and "conduct" not in rp.format()
    assert rp.played_conduct() == Conduct.legacy(0)


def test_r19_run_settles_a_press_once_the_device_window_of_2000_us_has_passed():
    # run() plays a replay with the device's first-touch window (the arbiter's 2000 us):
    # a settle 1999 us after the touch leaves the press queued, one at 2000 us applies it.
    early = run(parse("spit-replay 1\nseed 4\npress 1000 spit 0\nsettle 2999\n"))[1]
    assert early == []
    game, results = run(parse("spit-replay 1\nseed 4\npress 1000 spit 0\nsettle 3000\n"))
    assert results == [(("spit", 0), 1000, None)]
    assert game.said[0]
    # Other records (buttons, frames) are the app's business: run() skips them.
    game, results = run(parse("spit-replay 1\nseed 4\nbutton 900 0 1 1\nframe 950\n"
                              "press 1000 spit 0\nframe 2000\nsettle 3000\n"))
    assert results == [(("spit", 0), 1000, None)]


# ---- every header field checked as the command line checks its options (R40) ------------

@pytest.mark.parametrize("line,why", [
    ("seed -7", "seed -7 is not 0 .. 2**30-1"),
    ("seed -1", "seed -1 is not 0 .. 2**30-1"),
    ("seed 4294967296", "is not 0 .. 2**30-1"),
    ("seed 123456789012345678901234567890123456", "is not 0 .. 2**30-1"),
    ("rules points=2 manual_flip=0 target=100", "points must be 0 or 1"),
    ("rules points=1 points=0", "bad rule option"),
    ("rules points=0 manual_flip=0 target=0", "target"),
    ("digest 100 0 00ff00", "bad digest record"),
    ("digest 100 2 xyz", "not a hex number"),
])
def test_r40_a_replays_header_fields_are_checked_like_the_command_lines_options(line, why):
    with pytest.raises(ValueError) as e:
        parse("spit-replay 1\n%s\n" % line)
    assert "line 2" in str(e.value) and why in str(e.value)


@pytest.mark.parametrize("line", ["!seed 4", '"seed 4', "aaa 100 0 5", "b 100 0 5", "bouncy 100 0 5",
                                  "zzz 100 0 1 1"])
def test_a_line_that_is_no_record_is_one_clear_error_not_skipped(line):
    # Only "#" starts a comment; a record's name is one of the replay's, exactly (a line
    # that sorts before "#" or before "bound" is no comment and no bound record).
    with pytest.raises(ValueError, match=r"^replay line 3: unknown record"):
        parse("spit-replay 1\nseed 4\n%s\n" % line)


def test_r40_digest_records_round_trip():
    rp = Replay(5)
    rp.frame(10)
    rp.digest(20, 2, 0xABCDEF)
    text = rp.format()
    assert "digest 20 2 abcdef\n" in text
    assert parse(text) == rp


def test_r40_a_replay_that_stops_short_of_a_recorded_round_end_has_diverged():
    from host.replays import LoadedReplay, divergence
    loaded = LoadedReplay(None, 0, [], None, {}, [(1, 0x111111), (2, 0x222222)])
    assert divergence(loaded, [(1, 0x111111), (2, 0x222222)], True) is None
    assert divergence(loaded, [(1, 0x111111)], False) is None       # not played to its end
    why = divergence(loaded, [(1, 0x111111)], True)
    assert "never reached the end of round 2" in why
    why = divergence(loaded, [(1, 0x111112)], False)
    assert "at the end of round 1" in why and "111111" in why and "111112" in why


def test_r40_digest_and_seed_records_at_their_edges():
    top = parse("spit-replay 1\nseed %d\ndigest 5 1 ffffff\n" % ((1 << 30) - 1))
    assert top.seed == (1 << 30) - 1 and top.records == [("digest", 5, 1, 0xFFFFFF)]
    for line in ("digest 5 1 1000000", "digest 5 1", "digest 5 1 00ff00 extra",
                 "digest 5 1 -1"):
        with pytest.raises(ValueError) as e:
            parse("spit-replay 1\n%s\n" % line)
        assert "line 2" in str(e.value), line


def test_r40_replays_are_equal_only_with_the_same_seed_rules_conduct_and_records():
    def rp(seed=5, **rules):
        r = parse("spit-replay 1\nseed %d\npress 100 play 0 0 0\n" % seed)
        if rules:
            r.rules = Rules.from_dict(rules)
        return r
    assert rp() == rp() and not rp() != rp()
    for a, b in ((rp(4), rp(5)), (rp(5), rp(6)), (rp(points=1), rp()),
                 (rp(target=50, points=1), rp(target=100, points=1))):
        assert a != b and b != a
        assert not a == b and not b == a
    other = rp()
    other.records.append(("settle", 200))
    assert other != rp() and rp() != other
    other = rp()
    other.conduct = Conduct()
    assert other != rp() and rp() != other
    assert rp() != "spit-replay 1\nseed 5\n"


@pytest.mark.parametrize("line", ["settle 100 7", "frame 100 100", "settle", "frame"])
def test_r40_a_settle_or_frame_record_holds_exactly_one_time(line):
    with pytest.raises(ValueError) as e:
        parse("spit-replay 1\nseed 1\n%s\n" % line)
    assert "line 3" in str(e.value) and "unknown record" in str(e.value)


def test_r43_a_replay_ties_presses_within_the_recorded_bound():
    # Seed 1: after both say Spit, each player's first stockpile card fits pile 1, and
    # only one can go there. Player 1's press came over the cable with a 5 ms bound
    # (the "bound" record), 3 ms after player 0's: one instant (R43), a tie (R21) that
    # player 1's priority wins. Without the bound the earlier press would.
    def replay_with(bound_us):
        recs = [("press", 1000, ("spit", 0)), ("press", 1000, ("spit", 1)),
                ("settle", 10_000), ("bound", 10_000, 1, bound_us),
                ("press", 20_000, ("play", 0, 0, 1)), ("press", 23_000, ("play", 1, 0, 1)),
                ("settle", 40_000)]
        return run(parse(Replay(1, Rules(), recs).format()))
    game, results = replay_with(5000)
    assert game.tie_priority == 0                    # player 1 had it, and used it
    assert [(a, r) for a, t, r in results[2:]] == [(("play", 1, 0, 1), None),
                                                   (("play", 0, 0, 1), "beaten")]
    game, results = replay_with(0)
    assert [(a, r) for a, t, r in results[2:]] == [(("play", 0, 0, 1), None),
                                                   (("play", 1, 0, 1), "beaten")]


def _tie_replay(presses, bound=None):
    # Seed 1 as above: both say Spit, then the presses; player 1 holds the tie priority.
    recs = [("press", 1000, ("spit", 0)), ("press", 1000, ("spit", 1)), ("settle", 10_000)]
    if bound is not None:
        recs.append(("bound", 10_000, 1, bound))
    recs += [("press", t, a) for t, a in presses] + [("settle", 60_000)]
    game, results = run(parse(Replay(1, Rules(), recs).format()))
    return [(a, r) for a, t, r in results[2:] if a[0] == "play" and a[2] == 0]


def test_r43_the_recorded_bound_is_the_remote_players_only():
    # Player 1 is remote (5 ms bound). Player 0's own presses 5 ms apart are two
    # instants: the first goes alone; the second ties with player 1's press 4 ms after
    # it. Had player 0's presses the bound too, all three would be one instant, and
    # player 1's priority would take the pile.
    got = _tie_replay([(14_000, ("play", 0, 0, 1)), (19_000, ("flip", 0, 3)),
                       (23_000, ("play", 1, 0, 1))], bound=5000)
    assert got == [(("play", 0, 0, 1), None), (("play", 1, 0, 1), "beaten")]


def test_r21_before_any_bound_record_same_stamp_presses_are_one_instant():
    # No linked peer recorded: presses at one µs are one instant (R21) whoever made
    # them, so player 1's priority takes the pile from player 0's press of that µs,
    # also with another press of player 0's at the same µs between them.
    got = _tie_replay([(20_000, ("play", 0, 0, 1)), (20_000, ("flip", 0, 3)),
                       (20_000, ("play", 1, 0, 1))])
    assert got == [(("play", 1, 0, 1), None), (("play", 0, 0, 1), "beaten")]


def test_r19_before_any_bound_record_a_press_1_us_earlier_wins():
    got = _tie_replay([(20_000, ("play", 0, 0, 1)), (20_001, ("play", 1, 0, 1))])
    assert got == [(("play", 0, 0, 1), None), (("play", 1, 0, 1), "beaten")]


def test_a_bound_record_for_no_such_player_is_one_clear_error():
    text = Replay(1, Rules(), [("bound", 10, 0, 5)]).format().replace("bound 10 0 5", "bound 10 2 5")
    with pytest.raises(ValueError, match=r"^replay line \d+: bound: player 2 is not 0 or 1$"):
        parse(text)


def test_the_edges_of_a_replays_records_and_its_first_seed():
    # A digest may be 000000 and a bound 65535 µs (its 16-bit field), not 65536; a
    # Replay made with no seed is seed 0, and its text says so.
    rp = parse("spit-replay 1\nseed 4\ndigest 100 1 000000\nbound 200 1 65535\n")
    assert rp.records == [("digest", 100, 1, 0), ("bound", 200, 1, 65535)]
    with pytest.raises(ValueError, match=r"^replay line 3: bound 65536 us is not 0 \.\. 65535$"):
        parse("spit-replay 1\nseed 4\nbound 200 1 65536\n")
    assert Replay().seed == 0 and parse(Replay().format()).seed == 0
