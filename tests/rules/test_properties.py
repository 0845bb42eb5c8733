"""Property-based tests: random action streams against the invariants of the core."""
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared_rules.game import OVER, Game, Rules
from tests.helpers import all_cards

rules_st = st.builds(Rules, points=st.booleans(), manual_flip=st.booleans(),
                     target=st.integers(min_value=20, max_value=120))

# Any tuple a confused or malicious caller could hand to apply().
junk_action = st.one_of(
    st.tuples(st.sampled_from(["play", "fill", "flip", "slap", "spit", "x", ""]),
              st.integers(-2, 3)),
    st.tuples(st.sampled_from(["play", "fill", "flip", "slap", "spit"]),
              st.integers(-1, 2), st.integers(-2, 7)),
    st.tuples(st.sampled_from(["play", "fill", "flip", "slap", "spit"]),
              st.integers(-1, 2), st.integers(-2, 7), st.integers(-2, 7)),
    st.tuples(st.just("play"), st.sampled_from([0, 1, None, "0", 1.0, True]),
              st.sampled_from([0, None, "a", 2.5]), st.sampled_from([0, 1, None])),
)

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def walk(g, choices, junk=()):
    """Drive g with choices (indices into the legal actions of both players),
    interleaving junk actions; yield after every step."""
    junk = list(junk)
    for n, k in enumerate(choices):
        if g.phase == OVER:
            return
        if junk and n % 3 == 0:
            bad = junk.pop()
            before = g.snapshot()
            reason = g.apply(bad)
            if reason is not None:
                assert isinstance(reason, str)
                assert g.snapshot() == before, "refused action changed the state"
            yield "junk", bad, reason
        acts = g.legal_actions(0) + g.legal_actions(1)
        assert acts, "no legal action and not over"
        a = acts[k % len(acts)]
        reason = g.apply(a)
        yield "legal", a, reason


@SETTINGS
@given(seed=st.integers(0, 2**31), rules=rules_st,
       choices=st.lists(st.integers(0, 1000), min_size=50, max_size=600),
       junk=st.lists(junk_action, max_size=60))
def test_r29_conservation_and_r39_refusals_under_random_streams(seed, rules, choices, junk):
    g = Game(seed=seed, rules=rules)
    for kind, action, reason in walk(g, choices, junk):
        if kind == "legal":
            assert reason is None, "legal_actions offered %r, apply refused: %s" % (action, reason)
        assert sorted(all_cards(g)) == list(range(52))


@SETTINGS
@given(seed=st.integers(0, 2**31), rules=rules_st,
       choices=st.lists(st.integers(0, 1000), min_size=20, max_size=400),
       tail=st.lists(st.integers(0, 1000), min_size=1, max_size=200))
def test_snapshot_json_restore_continues_identically(seed, rules, choices, tail):
    g = Game(seed=seed, rules=rules)
    for _ in walk(g, choices):
        pass
    d = json.loads(json.dumps(g.snapshot()))
    h = Game.restore(d)
    assert h.snapshot() == g.snapshot()
    log_g = [(a, r) for _, a, r in walk(g, tail)]
    log_h = [(a, r) for _, a, r in walk(h, tail)]
    assert log_g == log_h
    assert h.snapshot() == g.snapshot()


@SETTINGS
@given(seed=st.integers(0, 2**31), choices=st.lists(st.integers(0, 1000), max_size=300))
def test_legal_actions_are_exactly_the_actions_why_not_accepts(seed, choices):
    g = Game(seed=seed)
    for _ in walk(g, choices):
        pass
    for p in (0, 1):
        listed = set(g.legal_actions(p))
        candidates = [("spit", p)] + [("slap", p, j) for j in range(3)]
        for i in range(6):
            candidates.append(("flip", p, i))
            for j in range(6):
                candidates.append(("play", p, i, j))
                candidates.append(("fill", p, i, j))
        accepted = {a for a in candidates if g.why_not(a) is None}
        assert accepted == listed
