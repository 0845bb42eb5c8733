"""docs/LAB.md says what the lab does: its CSV header and flags are the code's, its
make targets exist, and the apparatus's delay the device states is the one
docs/BENCHMARKS.md measured on the emulated Pico."""
import re

from firmware import lab, lab_store
from firmware.screens import lab as lab_screen
from tests.helpers import ROOT

DOC = (ROOT / "docs" / "LAB.md").read_text(encoding="utf-8")
BENCH = (ROOT / "docs" / "BENCHMARKS.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def bench_row(start):
    section = BENCH.split("## On the emulated Pico", 1)[1]
    for line in section.splitlines():
        if line.startswith(start):
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError("no row %r in BENCHMARKS.md's emulated-Pico section" % start)


def test_the_stated_stamp_latency_is_the_pio_captures_measured_one():
    section = BENCH.split("## On the emulated Pico", 1)[1]
    assert "PIO capture: stamp − edge 0.0 µs (p50, p99 and max)" in section.replace("\n", " ")
    assert lab.APPARATUS[0] == "PRESS STAMP: 0 US (PIO)"
    p50, p99 = re.search(r"GPIO capture, edge → stamp.*?p50 ([\d.]+), p99 ([\d.]+)", section,
                         re.S).groups()
    assert "%s µs p50, %s µs p99" % (p50, p99) in DOC


def test_the_stated_screen_delay_is_the_measured_frame_that_sends_up_to_256_bytes():
    row = bench_row("| 129 – 256 |")
    p50, p99 = re.match(r"([\d.]+) / ([\d.]+) /", row[2]).groups()
    assert lab.APPARATUS[1] == "SCREEN +%s MS (P99 %s)" % (p50, p99)
    assert lab_screen.apparatus_line(lab.Run(1, lab.SIMPLE, lab.VISUAL)).endswith(p50 + " MS")
    assert "**%s ms p50, %s ms p99**" % (p50, p99) in DOC
    assert lab_screen.BOX_W * (lab_screen.BOX_H // 8) == 256          # the signal's bytes


def test_the_csv_header_flags_and_conditions_in_the_doc_are_the_codes():
    assert "```\n" + lab_store.HEADER + "\n" in DOC
    for flag in lab.FLAGS:
        assert "`%s`" % flag in DOC
    for cond in lab_store.CONDITIONS:
        assert "`%s`" % cond in DOC


def test_the_docs_make_targets_exist_and_the_menu_item_has_its_name():
    for target in ("lab-csv", "lab-plot"):
        assert re.search(r"^%s:" % target, MAKEFILE, re.M)
        assert "make %s" % target in DOC
    assert "**REACTION LAB**" in DOC


def test_the_docs_bounds_are_the_codes():
    assert lab_store.MAX_RUNS == 8 and lab.MAX_ROWS == 126
    assert "at most 126 rows" in DOC and "at most 8 runs" in DOC
    assert lab.PRACTICE == 3 and lab.TRIALS == 20
    assert lab.WAIT_MIN_MS == 1000 and lab.WAIT_MIN_MS + lab.WAIT_SPAN_MS == 4000
