"""The Makefile says each thing once: one rule a target, one .PHONY that lists every
target, a line in `make help` for each, the venv's programs through VENV_BIN (Windows
keeps them in Scripts\\), and the test tiers `make test-fast` leaves out registered as
pytest markers."""
import configparser
import re

from tests.helpers import ROOT

TEXT = (ROOT / "Makefile").read_text(encoding="utf-8")
LOGICAL = TEXT.replace("\\\n", " ")          # continuation lines joined


def rules():
    """[(target, rest of the line)] of every rule whose target is a plain name."""
    out = []
    for line in LOGICAL.splitlines():
        m = re.match(r"^([a-z][a-z-]*)\s*:(?!=)(.*)$", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def phony():
    lines = [line for line in LOGICAL.splitlines() if line.startswith(".PHONY:")]
    assert len(lines) == 1, "one .PHONY line lists every target"
    return lines[0].split(":", 1)[1].split()


def test_every_target_has_one_rule():
    names = [t for t, _ in rules()]
    twice = sorted({t for t in names if names.count(t) > 1})
    assert twice == [], "targets with more than one rule: %s" % twice
    assert "bench" in names


def test_phony_lists_exactly_the_named_targets():
    assert sorted(phony()) == sorted(t for t, _ in rules())


def test_every_target_has_a_help_line_and_help_is_the_default():
    missing = [t for t, rest in rules() if "## " not in rest]
    assert missing == [], "no `## what it does` for %s" % missing
    assert re.search(r"^\.DEFAULT_GOAL := help$", TEXT, re.M)


def test_the_venv_programs_go_through_venv_bin():
    assert not re.search(r"\$\(VENV\)/(bin|Scripts)/", TEXT)


def test_test_fast_leaves_out_exactly_the_registered_slow_tiers():
    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    markers = {line.split(":")[0].strip() for line in ini["pytest"]["markers"].splitlines()
               if line.strip()}
    m = re.search(r'^test-fast:.*\n\t.*-m "([^"]+)"', TEXT, re.M)
    assert m, "test-fast selects by marker"
    assert set(re.findall(r"not (\w+)", m.group(1))) == markers
    assert "--strict-markers" in ini["pytest"]["addopts"]


def test_golden_regenerates_the_transcripts_and_the_screens():
    m = re.search(r"^golden:.*\n\t(.*)$", TEXT, re.M)
    assert m and "--regen-golden" in m.group(1)
    assert "tests/rules/test_golden.py" in m.group(1) and "tests/emulator/test_emulator_golden.py" in m.group(1)
