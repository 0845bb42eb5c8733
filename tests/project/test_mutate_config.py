"""`make mutate`'s configuration (tools/mutate.toml) and its list of equivalent mutants
(tools/mutate_equivalents.toml) are well-formed and point at code that exists, so a
stale entry is caught by `make test`, not by a mutation run an hour later."""
import ast
import os
import re
import sys
import tomllib

import pytest

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
try:
    import mutate
finally:
    sys.path.pop(0)

DEFAULTS, FILES = mutate.load_config()
EQUIVALENTS = mutate.load_equivalents()


def test_defaults_are_complete_and_sane():
    assert "seed" not in DEFAULTS        # each run draws its own seed (--seed repeats one)
    assert isinstance(DEFAULTS["sample"], int) and DEFAULTS["sample"] > 0
    assert 0 < DEFAULTS["goal"] <= 100
    assert DEFAULTS["timeout_factor"] >= 2 and DEFAULTS["min_timeout"] >= 10


def test_every_configured_file_is_a_target_and_its_tests_exist():
    targets = set(mutate.target_files())
    assert FILES, "tools/mutate.toml lists no file"
    for path, entry in FILES.items():
        assert path in targets, "%s is not a module of %s" % (path, mutate.TARGET_DIRS)
        assert set(entry) <= {"sample", "tests"}, path
        assert isinstance(entry.get("sample", 0), int) and entry.get("sample", 0) >= 0
        assert entry["tests"], path
        for t in entry["tests"]:
            assert re.fullmatch(r"tests/(\w+/)?test_\w+\.py", t) and (ROOT / t).is_file(), (path, t)


def test_every_module_of_the_core_and_the_hardware_layer_gets_tests():
    # A module missing from tools/mutate.toml is mutated against the tests that import it.
    for path in mutate.target_files():
        assert mutate.tests_for(path, FILES), "no test imports %s" % path


def test_each_run_draws_a_fresh_seed_unless_one_is_given(monkeypatch):
    draws = iter([b"\x00\x00\x00\x07", b"\x12\x34\x56\x78"])
    monkeypatch.setattr(mutate.os, "urandom", lambda n: next(draws))
    assert mutate.pick_seed() == "7"
    assert mutate.pick_seed() == str(0x12345678)
    assert mutate.pick_seed("2026") == "2026"       # SEED= / --seed: that run again


def test_the_copy_links_node_modules_instead_of_leaving_them_out(tmp_path, monkeypatch):
    # Without rp2040js in the copy the emulated-Pico tests skip there and kill no mutant.
    root = tmp_path / "repo"
    (root / "desktop_emulator" / "pico" / "node_modules" / "rp2040js").mkdir(parents=True)
    (root / "desktop_emulator" / "pico" / "harness.mjs").write_text("//\n")
    (root / "desktop_emulator" / "pico" / "__pycache__").mkdir()
    monkeypatch.setattr(mutate, "ROOT", root)
    monkeypatch.setattr(mutate, "COPY", ("desktop_emulator", "missing"))
    dest = tmp_path / "build" / "tree0"
    mutate.make_tree(dest)
    pico = dest / "desktop_emulator" / "pico"
    assert (pico / "harness.mjs").is_file()
    assert (pico / "node_modules").is_symlink()
    assert (pico / "node_modules").resolve() == (root / "desktop_emulator" / "pico" / "node_modules")
    assert (pico / "node_modules" / "rp2040js").is_dir()
    assert not (pico / "__pycache__").exists()


def test_a_seed_draws_the_same_sample_and_another_seed_another():
    items = list(range(500))
    a = mutate.draw_sample(items, 20, "7", "shared_rules/pad.py")
    assert len(set(a)) == 20 and set(a) <= set(items)
    assert mutate.draw_sample(items, 20, "7", "shared_rules/pad.py") == a
    assert mutate.draw_sample(items, 20, "8", "shared_rules/pad.py") != a
    assert mutate.draw_sample(items, 20, "7", "shared_rules/game.py") != a
    assert mutate.draw_sample(items, None, "7", "x.py") == items
    assert mutate.draw_sample(items, 900, "7", "x.py") == items


def test_the_report_names_its_seed(capsys):
    row = {"file": "shared_rules/pad.py", "mutants": 3, "sampled": 2, "killed": 2,
           "timeouts": 0, "equivalent": 0, "survived": 0, "errors": 0, "score": 100.0,
           "survivors": [], "stale": []}
    assert mutate.print_report([row], 95.0, 10.0, 1, "4242")
    assert "seed 4242 (repeat this sample: SEED=4242" in capsys.readouterr().out


def test_the_default_run_samples_at_least_300_mutants():
    total = sum(mutate.sample_size(p, FILES, DEFAULTS, None) for p in mutate.target_files())
    assert total >= 300


def functions_of(path):
    """{name: [(first line, last line), ...]} of every def and class in the file."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    spans = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            spans.setdefault(node.name, []).append((node.lineno, node.end_lineno))
    return spans


@pytest.mark.parametrize("entry", EQUIVALENTS,
                         ids=["%s:%s" % (e.get("file"), e.get("before", "")[:30]) for e in EQUIVALENTS])
def test_each_equivalent_mutant_names_existing_code_and_says_why(entry):
    assert set(entry) == {"file", "function", "operator", "before", "after", "reason"}, entry
    path = entry["file"]
    assert path in mutate.target_files(), path
    assert re.fullmatch(r"core/\w+", entry["operator"]), entry["operator"]
    assert entry["before"] != entry["after"]
    assert len(entry["reason"].split()) >= 5, "say why no test can tell it apart"
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    # The mutated line is still in the file, inside the named function (or at top level).
    hits = [n for n, line in enumerate(lines, 1) if line.strip() == entry["before"].split(" / ")[0]]
    assert hits, ("%s no longer has the line %r: update or delete this entry of "
                  "tools/mutate_equivalents.toml" % (path, entry["before"]))
    if entry["function"]:
        spans = functions_of(path).get(entry["function"], [])
        assert spans, "%s has no def or class %s" % (path, entry["function"])
        assert any(a <= n <= b for n in hits for a, b in spans), entry


def test_equivalent_operators_are_cosmic_rays_when_it_is_installed():
    plugins = pytest.importorskip("cosmic_ray.plugins")
    names = set(plugins.operator_names())
    for e in EQUIVALENTS:
        assert e["operator"] in names, e["operator"]


def test_no_mutant_is_listed_twice():
    keys = [(e["file"], e["function"], e["operator"], e["before"], e["after"]) for e in EQUIVALENTS]
    assert len(keys) == len(set(keys))


# ---- the matching itself ----------------------------------------------------------------

DIFF = """--- mutation diff ---
--- ashared_rules/arbiter.py
+++ bshared_rules/arbiter.py
@@ -140,7 +140,7 @@
         best = -1
-        if rec[3] == rnd:
+        if rec[3] is rnd:
             pass
"""


class FakeMutation:
    definition_name = "_lost_race"
    operator_name = "core/ReplaceComparisonOperator_Eq_Is"


def test_a_survivor_matches_its_entry_by_content_not_by_line_number():
    key = mutate.mutant_key("shared_rules/arbiter.py", FakeMutation, DIFF)
    assert key == {"file": "shared_rules/arbiter.py", "function": "_lost_race",
                   "operator": "core/ReplaceComparisonOperator_Eq_Is",
                   "before": "if rec[3] == rnd:", "after": "if rec[3] is rnd:"}
    entry = dict(key, reason="r")
    assert mutate.is_equivalent(key, [entry]) is entry
    for field, other in [("file", "shared_rules/game.py"), ("function", "settle"),
                         ("operator", "core/ReplaceComparisonOperator_Eq_IsNot"),
                         ("after", "if rec[3] != rnd:")]:
        assert mutate.is_equivalent(key, [dict(entry, **{field: other})]) is None, field


def test_the_equivalents_file_is_toml_with_only_equivalent_tables():
    with open(mutate.EQUIVALENTS, "rb") as f:
        data = tomllib.load(f)
    assert set(data) <= {"equivalent"}


def test_a_worker_runs_the_mutants_tests_without_a_bytecode_cache(tmp_path, monkeypatch):
    # Two mutants of one length written within the same second would share a .pyc's
    # size and mtime check: the second would run the first one's code.
    import queue
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.chdir(tmp_path)
    q = queue.Queue()
    q.put(str(tmp_path))
    mutate._worker_init(q)
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1" and os.getcwd() == str(tmp_path)
