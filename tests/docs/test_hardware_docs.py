"""hardware/: the wiring docs are generated from the ONE pin map and match it.

- `tools/gen_wiring.py --check` passes (the checked-in WIRING.md and wiring.svg are
  exactly what the pin map gives today);
- WIRING.md's table puts every button, I2C and buzzer GPIO on its correct physical pin;
- wiring.svg is well-formed XML and names every GPIO of the pin map;
- the generator's GPIO -> physical pin table agrees with known facts of the official
  Pico pinout, and with an independent formula for every GPIO;
- the hand-written docs in hardware/ never pair a GPIO with the wrong physical pin.
"""
import importlib.util
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "hardware"
GEN = ROOT / "tools" / "gen_wiring.py"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _load("gen_wiring_under_test", GEN)
board = _load("board_pinmap_under_test", ROOT / "firmware" / "boards" / "pico.py")


def physical_pin(gpio):
    """Independent of the generator: the official Pico header puts a ground every fifth
    pin from pin 3, GP0-GP15 on pins 1-20, GP16-GP22 on pins 21-29, GP26-28 on 31, 32, 34."""
    if 0 <= gpio <= 15:
        return gpio + 1 + (gpio + 2) // 4
    if 16 <= gpio <= 22:
        return gpio + 5 + (gpio - 14) // 4
    return {26: 31, 27: 32, 28: 34}[gpio]


def pin_map_gpios():
    gpios = {board.I2C_SDA, board.I2C_SCL, board.BUZZER}
    gpios |= {g for g, _p, _n in board.BUTTONS}
    gpios |= {g for g, _p, _n in getattr(board, "BUTTONS_SIX", ())}
    return gpios


def test_check_mode_passes():
    p = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True,
                       timeout=120, cwd=str(ROOT))
    assert p.returncode == 0, (
        "hardware/WIRING.md or hardware/wiring.svg is stale: run "
        "`python tools/gen_wiring.py`\n" + p.stdout + p.stderr)


def test_check_mode_catches_a_stale_file(tmp_path, monkeypatch):
    """--check compares bytes: a doc generated from another pin map is reported."""
    other = tmp_path / "other.py"
    other.write_text((ROOT / "firmware" / "boards" / "pico.py").read_text()
                     .replace("BUZZER = const(16)", "BUZZER = const(17)"))
    monkeypatch.setattr(gen, "OUT_MD", tmp_path / "WIRING.md")
    monkeypatch.setattr(gen, "OUT_SVG", tmp_path / "wiring.svg")
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main([]) == 0  # writes the docs of the real pin map into tmp_path
    assert gen.main(["--check"]) == 0
    assert gen.main(["--check", "--board", str(other)]) == 1


def test_check_mode_rejects_an_electrically_wrong_pin_map(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text((ROOT / "firmware" / "boards" / "pico.py").read_text()
                   .replace("I2C_SDA = const(4)", "I2C_SDA = const(6)"))
    p = subprocess.run([sys.executable, str(GEN), "--check", "--board", str(bad)],
                       capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert p.returncode == 2
    assert "SDA" in p.stderr


def wiring_rows():
    """The 'Wires' table of WIRING.md as dicts keyed by its header."""
    text = (HW / "WIRING.md").read_text(encoding="utf-8")
    section = text.split("## Wires", 1)[1].split("\n## ", 1)[0]
    lines = [ln.strip() for ln in section.splitlines() if ln.strip().startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        rows.append(dict(zip(header, cells)))
    return header, rows


def test_wiring_table_has_the_expected_columns():
    header, rows = wiring_rows()
    assert header == ["Part", "Part pin", "Pico pin", "GPIO", "Wire colour", "Notes"]
    assert len(rows) >= 10


@pytest.mark.parametrize("what,gpio", [
    ("I2C_SDA", board.I2C_SDA),
    ("I2C_SCL", board.I2C_SCL),
    ("BUZZER", board.BUZZER),
] + [("P%d_%s" % (p, n), g) for g, p, n in board.BUTTONS])
def test_every_pin_map_gpio_is_wired_to_its_physical_pin(what, gpio):
    _header, rows = wiring_rows()
    hits = [r for r in rows if r["GPIO"] == "GP%d" % gpio]
    assert hits, "%s (GP%d) is missing from WIRING.md" % (what, gpio)
    for r in hits:
        assert int(r["Pico pin"]) == physical_pin(gpio), r


def test_parts_pins_match_the_pin_map():
    _header, rows = wiring_rows()
    by = {(r["Part"], r["Part pin"]): r for r in rows}
    assert by[("OLED (SSD1306)", "SDA")]["GPIO"] == "GP%d" % board.I2C_SDA
    assert by[("OLED (SSD1306)", "SCL")]["GPIO"] == "GP%d" % board.I2C_SCL
    assert by[("OLED (SSD1306)", "VCC")]["Pico pin"] == "36"  # 3V3(OUT), never 5 V
    assert by[("Piezo buzzer (passive)", "+")]["GPIO"] == "GP%d" % board.BUZZER
    for g, p, n in board.BUTTONS:
        assert by[("Player %d pad" % p, "button %s, leg 1" % n)]["GPIO"] == "GP%d" % g


def test_every_ground_wire_goes_to_a_ground_pin():
    _header, rows = wiring_rows()
    grounds = [r for r in rows if r["GPIO"] == "GND"]
    assert len(grounds) >= 4  # OLED, two pads, buzzer
    for r in grounds:
        assert int(r["Pico pin"]) in (3, 8, 13, 18, 23, 28, 38), r


def test_six_button_rows_use_the_right_physical_pins():
    text = (HW / "WIRING.md").read_text(encoding="utf-8")
    for g, p, n in getattr(board, "BUTTONS_SIX", ()):
        if (g, p, n) in board.BUTTONS:
            continue
        assert re.search(r"\| %d \| GP%d \|" % (physical_pin(g), g), text), (g, p, n)


def test_svg_is_well_formed_and_names_every_gpio():
    raw = (HW / "wiring.svg").read_text(encoding="utf-8")
    root = ET.fromstring(raw.encode("utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for gpio in sorted(pin_map_gpios()):
        assert re.search(r"\bGP%d\b" % gpio, texts), "GP%d not named in wiring.svg" % gpio
    # every wire of the kit is drawn: one coloured polyline (plus its white halo) each
    lines = [e for e in root.iter("{http://www.w3.org/2000/svg}polyline")
             if e.get("stroke") != "#ffffff"]
    assert len(lines) >= len(gen.connections(board))


def test_header_table_known_facts():
    t = gen.GPIO_TO_PIN
    assert t[0] == 1 and t[1] == 2 and t[2] == 4 and t[3] == 5 and t[4] == 6
    assert t[5] == 7 and t[6] == 9 and t[15] == 20 and t[16] == 21 and t[22] == 29
    assert t[26] == 31 and t[27] == 32 and t[28] == 34
    assert gen.GND_PINS == (3, 8, 13, 18, 23, 28, 33, 38)
    for p in gen.GND_PINS:
        assert gen.PICO_HEADER[p] in ("GND", "AGND")
    h = gen.PICO_HEADER
    assert (h[30], h[35], h[36], h[37], h[39], h[40]) == (
        "RUN", "ADC_VREF", "3V3(OUT)", "3V3_EN", "VSYS", "VBUS")
    assert not {23, 24, 25, 29} & set(t)  # not on the header
    gen.verify_header()


def test_header_table_matches_the_independent_formula():
    for gpio, pin in gen.GPIO_TO_PIN.items():
        assert pin == physical_pin(gpio), gpio


def test_pin_map_comments_agree_with_the_header():
    """pico.py's comments say 'GPn, Pico pin m'; they must be right too."""
    text = (ROOT / "firmware" / "boards" / "pico.py").read_text()
    pairs = re.findall(r"GP(\d+),\s+Pico pin (\d+)", text)
    assert pairs
    for g, p in pairs:
        assert physical_pin(int(g)) == int(p), (g, p)


def test_hand_written_hardware_docs_pair_gpios_with_the_right_pins():
    """BUILD_GUIDE.md etc. mention 'GPn (pin m)' now and then; never a wrong pair."""
    for doc in sorted(HW.glob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for g, p in re.findall(r"\bGP(\d+) \((?:Pico )?pin (\d+)\)", text):
            assert physical_pin(int(g)) == int(p), (doc.name, g, p)


def test_hand_written_docs_exist_and_link_the_generated_ones():
    for name in ("BOM.md", "BUILD_GUIDE.md", "OTHER_BOARDS.md", "ENCLOSURE.md"):
        assert (HW / name).is_file(), name
    guide = (HW / "BUILD_GUIDE.md").read_text(encoding="utf-8")
    assert "WIRING.md" in guide and "wiring.svg" in guide
