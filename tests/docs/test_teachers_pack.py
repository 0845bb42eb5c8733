"""docs/teachers/, the teacher's pack: every relative link (and its #anchor) resolves,
the README points to the pack, each lesson states its objectives, age, time, what to
prepare and what can go wrong, the costs are the BOM's, every study cited has its DOI,
and the pupils' path is true of the code as it is: the house file parses to what it
says, the hook example is the file in tools/variants, the outputs shown are what
check_variant prints, and step 3's two edits fail and then pass the check as shown."""
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "docs" / "teachers"
PAGES = sorted(PACK.glob("*.md"))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    s = heading.strip().lower()
    s = re.sub(r"[`*_]", "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    out = set()
    fenced = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


def links(path):
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return LINK.findall(text)


def test_the_pack_has_its_pages():
    names = {p.name for p in PAGES}
    assert {"README.md", "LESSONS.md", "CHECKLIST.md", "BROWSER.md", "WORKSHEET.md",
            "REACTION_NORMS.md", "CHANGING_THE_GAME.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue                                  # https:, mailto:
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        assert dest.exists(), "%s links to %s, which does not exist" % (page.name, target)
        if anchor and dest.suffix == ".md":
            assert anchor in anchors(dest), "%s links to %s: no such heading" % (
                page.name, target)


def test_the_readme_points_to_the_pack():
    targets = links(ROOT / "README.md")
    assert "docs/teachers/README.md" in targets
    for page in PAGES:
        if page.name != "README.md":
            assert page.name in links(PACK / "README.md"), page.name


def test_the_lab_is_named_not_linked():
    # The reaction lab's page is another part of the project; the pack names it and
    # its commands exactly as they are called.
    text = "".join(p.read_text() for p in PAGES)
    for name in ("REACTION LAB", "make lab-csv", "make lab-plot", "docs/LAB.md"):
        assert name in text


def sections(text, level="## "):
    parts = re.split(r"^%s" % re.escape(level), text, flags=re.M)
    return {p.splitlines()[0]: p for p in parts[1:]}


def test_every_lesson_states_objectives_age_time_preparation_and_what_can_go_wrong():
    lessons = {k: v for k, v in sections((PACK / "LESSONS.md").read_text()).items()
               if k.startswith("Lesson ")}
    assert len(lessons) == 4
    for name, body in lessons.items():
        for words in ("**Age**", "**Time**", "**Learning objectives.**", "**Prepare.**",
                      "**What can go wrong.**"):
            assert words in body, (name, words)
    exp = lessons["Lesson 3: the reaction experiment"]
    for words in ("**independent**", "**dependent**", "**controlled**"):
        assert words in exp


def test_the_costs_are_the_boms():
    bom = (ROOT / "hardware" / "BOM.md").read_text()
    readme = (PACK / "README.md").read_text()
    core = re.search(r"Core kit total: about (\d+–\d+)", bom).group(1)
    packs = re.search(r"about (\d+) when bought in class", bom).group(1)
    boxed = re.search(r"With batteries and a box: about (\d+–\d+)", bom).group(1)
    row = re.search(r"single parts from hobby shops \| about (\d+)–(\d+) \| about (\d+)–(\d+)",
                    readme)
    assert "%s–%s" % row.group(1, 2) == core
    assert (int(row.group(3)), int(row.group(4))) == (15 * int(row.group(1)),
                                                      15 * int(row.group(2)))
    assert "class packs | about %s | about %d" % (packs, 15 * int(packs)) in readme
    assert "with a battery holder and a box | about %s" % boxed in readme


def test_every_study_cited_has_its_doi():
    text = (PACK / "REACTION_NORMS.md").read_text()
    refs = re.findall(r"\(\d{4}\)\. [^*]+\*[^*]+\*[^\n]*(?:\n  [^\n]*)*", text)
    assert len(refs) >= 8
    for ref in refs:
        assert "https://doi.org/10." in ref, ref
    assert "Der, G., & Deary, I. J. (2006)" in text and "*Psychology\n  and Aging" in text


def test_the_worksheet_prints_on_paper():
    text = (PACK / "WORKSHEET.md").read_text()
    for line in text.splitlines():
        assert len(line) <= 100, line                 # no line runs off an A4 page
    for words in ("Independent variable", "Dependent variable", "Control variable",
                  "median", "latency"):
        assert words in text


# ---- the pupils' path is true of the code ------------------------------------------------

GUIDE = (PACK / "CHANGING_THE_GAME.md").read_text()


def blocks(kind):
    return re.findall(r"```%s\n(.*?)```" % kind, GUIDE, flags=re.S)


def tool():
    spec = importlib.util.spec_from_file_location("check_variant_doc",
                                                  ROOT / "tools/check_variant.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_step_1_the_house_file_shown_is_valid_and_means_what_it_says():
    from firmware import house
    got = house.parse(blocks("ini")[0])
    assert got == {"points": 1, "target": 30, "flip": 0, "fumble": 1000, "signal": 1,
                   "sound": 1, "mode": 1, "link_cpu": 0}
    with pytest.raises(house.HouseRulesError) as e:
        house.parse("rules = points\ntarget = thirty\n")
    assert ("house rules ignored: %s" % e.value) in GUIDE
    assert e.value.note in GUIDE


def test_step_2_the_hook_example_is_the_file_and_passes():
    example = (ROOT / "tools/variants/same_rank.py").read_text()
    snapshot = blocks("python")[0]
    assert snapshot.strip() in example
    lines = []
    assert tool().main(["--variant", "tools/variants/same_rank.py", "--games", "3"],
                       out=lines.append) == 0
    shown = [x for x in blocks("text") if "its own fits()" in x and "PASS" in x][0]
    assert shown.splitlines()[-1] == lines[-1]


@pytest.mark.slow
def test_step_2_the_output_shown_is_what_the_check_prints():
    # The default 60 games: about 47,000 actions (6 s of CPU, more on a busy machine).
    lines = []
    assert tool().main(["--variant", "tools/variants/same_rank.py"], out=lines.append) == 0
    shown = [x for x in blocks("text") if "its own fits()" in x and "PASS" in x][0]
    assert shown.splitlines()[1:] == lines[1:]


def fork(tmp_path):
    """A copy of the rules core and the tools to edit as a pupil would."""
    for d in ("shared_rules", "tools", "firmware"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def check_fork(root, *args):
    p = subprocess.run([sys.executable, str(root / "tools/check_variant.py")] + list(args),
                       capture_output=True, text=True, timeout=300, cwd=str(root))
    return p.returncode, p.stdout.splitlines()


def test_step_3_the_core_edit_fails_where_shown_then_passes_with_the_second(tmp_path):
    root = fork(tmp_path)
    cards = root / "shared_rules/cards.py"
    old = "    return d == 1 or d == -1 or d == 12 or d == -12\n"
    assert old in cards.read_text()
    new = [b for b in blocks("python") if "def adjacent" in b][0].splitlines()[-1] + "\n"
    cards.write_text(cards.read_text().replace(old, new))
    code, lines = check_fork(root, "--seed", "1", "--games", "1")
    shown = [x for x in blocks("text") if "a stall was called" in x][0].splitlines()
    assert code == 1 and lines == shown

    game = root / "shared_rules/game.py"
    old = "if d == 1 or d == -1 or d == 12 or d == -12:"
    assert game.read_text().count(old) == 2           # the two lines step 3 shows
    edit = [b for b in blocks("python") if "d = r - t0" in b][0]
    assert edit.count("if d == 0 or d == 1 or d == -1 or d == 12 or d == -12:") == 2
    game.write_text(game.read_text().replace(old, "if d == 0 or d == 1 or d == -1 or d == 12 "
                                                  "or d == -12:"))
    code, lines = check_fork(root, "--games", "6")
    assert code == 0 and lines[-1] == "PASS: it keeps all 52 cards and refuses illegal plays."


def test_the_burned_card_example_fails_as_shown(tmp_path):
    hook = (ROOT / "tools/variants/same_rank.py").read_text()
    burn = [b for b in blocks("python") if "def apply" in b][0]
    path = tmp_path / "my_variant.py"
    path.write_text(hook + "\n" + burn)
    lines = []
    assert tool().main(["--variant", str(path)], out=lines.append) == 1
    shown = [x for x in blocks("text") if "51 cards" in x][0].splitlines()
    assert lines[1:3] == shown[:2]
    assert lines[3] == shown[2].replace("my_variant.py", str(path))
