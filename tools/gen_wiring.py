#!/usr/bin/env python3
"""Generate the wiring docs of the reference kit from the ONE board pin map.

    python tools/gen_wiring.py            # (re)write hardware/WIRING.md and hardware/wiring.svg
    python tools/gen_wiring.py --check    # exit 1 if the checked-in files are stale
    python tools/gen_wiring.py --board firmware/boards/other.py --out-dir build/other

Reads firmware/boards/pico.py (plain constants; CPython can import it), checks that the
pin choices make electrical sense on a Raspberry Pi Pico / Pico 2 (pins on the header,
no pin used twice, I2C pins belong to the I2C block named by I2C_ID, buttons within
GPIO 0-15), and writes:

- hardware/WIRING.md: a wiring table (part, part pin, Pico physical pin, GPIO, wire
  colour, notes), the pins used, the optional six-button pads and the whole header;
- hardware/wiring.svg: a diagram (the Pico seen from above with every header pin
  labelled, the OLED, the two pads at opposite ends, the buzzer, coloured wires).

Standard library only. The output is deterministic, so `--check` can compare bytes: CI
catches a pin-map change that was not followed by a regeneration. A pin map that makes
no electrical sense is reported (exit 2), never drawn.
"""
import argparse
import importlib.util
import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))          # the pin map imports shared_rules.compat
BOARD_FILE = ROOT / "firmware" / "boards" / "pico.py"
OUT_MD = ROOT / "hardware" / "WIRING.md"
OUT_SVG = ROOT / "hardware" / "wiring.svg"
REGEN = "python tools/gen_wiring.py"

# --- the Raspberry Pi Pico 40-pin header --------------------------------------------
# Physical pin -> name, from the official Pico pinout (Pico-R3-A4-Pinout, Pico datasheet
# section 1.4). Pico W, Pico 2 and Pico 2 W have the same header. Pins 1-20 run down
# one long edge (pin 1 next to the USB connector), pins 21-40 back up the other edge
# (pin 40, VBUS, opposite pin 1). The ground pins are every fifth pin from 3: 3, 8, 13,
# 18, 23, 28, 33 (AGND, the ADC's quiet ground, tied to GND on the board) and 38.
PICO_HEADER = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3",
    6: "GP4", 7: "GP5", 8: "GND", 9: "GP6", 10: "GP7",
    11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
    16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15",
    21: "GP16", 22: "GP17", 23: "GND", 24: "GP18", 25: "GP19",
    26: "GP20", 27: "GP21", 28: "GND", 29: "GP22", 30: "RUN",
    31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28", 35: "ADC_VREF",
    36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}
# GPIO number -> physical pin (GP23, GP24, GP25 and GP29 are not on the header: on the
# Pico they drive the power supply mode, sense VBUS, light the LED and measure VSYS; on
# the Pico W they talk to the radio).
GPIO_TO_PIN = {int(n[2:]): p for p, n in PICO_HEADER.items() if n.startswith("GP")}
GND_PINS = tuple(sorted(p for p, n in PICO_HEADER.items() if n in ("GND", "AGND")))
PIN_3V3 = 36
# Extra words for the header table.
PIN_NOTES = {
    30: "reset when pulled low",
    31: "ADC0", 32: "ADC1", 34: "ADC2",
    33: "analogue ground (is ground)",
    35: "ADC reference",
    36: "3.3 V out, up to 300 mA",
    37: "pull low to switch the 3.3 V supply off",
    39: "power in, 1.8-5.5 V",
    40: "USB 5 V",
}


def verify_header():
    """Structural facts of the official pinout; a typo in the table above fails here."""
    assert sorted(PICO_HEADER) == list(range(1, 41))
    assert GND_PINS == tuple(range(3, 40, 5))
    assert sorted(GPIO_TO_PIN) == list(range(0, 23)) + [26, 27, 28]
    # GP0..GP15 fill pins 1..20 in order, skipping the grounds; GP16..GP22 pins 21..29.
    assert [GPIO_TO_PIN[g] for g in range(16)] == [p for p in range(1, 21) if p not in GND_PINS]
    assert [GPIO_TO_PIN[g] for g in range(16, 23)] == [p for p in range(21, 30) if p not in GND_PINS]
    assert (GPIO_TO_PIN[26], GPIO_TO_PIN[27], GPIO_TO_PIN[28]) == (31, 32, 34)
    assert (PICO_HEADER[36], PICO_HEADER[39], PICO_HEADER[40]) == ("3V3(OUT)", "VSYS", "VBUS")


def header_column(p):
    """(column, row) with the USB end at row 0: column 0 = pins 1-20, 1 = pins 21-40."""
    return (0, p - 1) if p <= 20 else (1, 40 - p)


def pin_distance(a, b):
    ca, ra = header_column(a)
    cb, rb = header_column(b)
    return abs(ra - rb) + (0 if ca == cb else 100)


def nearest_gnd(*pins):
    """The ground pin closest (along the same edge) to the given pins."""
    return min((g for g in GND_PINS if PICO_HEADER[g] == "GND"),
               key=lambda g: (min(pin_distance(g, p) for p in pins), g))


# --- the pin map ----------------------------------------------------------------
class PinMapError(Exception):
    pass


def load_board(path=BOARD_FILE):
    spec = importlib.util.spec_from_file_location("board_pinmap", str(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def i2c_role(gpio):
    """RP2040/RP2350 I2C function of a GPIO: (block, 'SDA' | 'SCL'). The pattern repeats
    every 4 GPIOs: GP0 I2C0 SDA, GP1 I2C0 SCL, GP2 I2C1 SDA, GP3 I2C1 SCL, GP4 I2C0 SDA..."""
    return (gpio >> 1) & 1, ("SDA" if gpio % 2 == 0 else "SCL")


def uart_role(gpio):
    """RP2040/RP2350 UART function of a GPIO: (block, 'TX' | 'RX' | 'CTS' | 'RTS'). GP0-3
    are UART0, GP4-11 UART1, GP12-19 UART0, GP20-27 UART1, GP28-29 UART0; within each
    group of four: TX, RX, CTS, RTS."""
    return ((gpio + 4) >> 3) & 1, ("TX", "RX", "CTS", "RTS")[gpio % 4]


def pwm_channel(gpio):
    """RP2040 PWM slice and channel of a GPIO (GPIO 0-29; the same on the RP2350A)."""
    return (gpio >> 1) & 7, ("A" if gpio % 2 == 0 else "B")


def validate(board):
    """Electrical sanity of the pin map; raises PinMapError listing every problem."""
    errors = []

    def on_header(gpio, what):
        if gpio not in GPIO_TO_PIN:
            errors.append("%s is GP%s, which is not on the Pico header" % (what, gpio))

    on_header(board.I2C_SDA, "I2C_SDA")
    on_header(board.I2C_SCL, "I2C_SCL")
    on_header(board.BUZZER, "BUZZER")
    if board.I2C_ID not in (0, 1):
        errors.append("I2C_ID must be 0 or 1, not %r" % (board.I2C_ID,))
    if i2c_role(board.I2C_SDA) != (board.I2C_ID, "SDA"):
        errors.append("GP%d cannot be SDA of I2C%s (it is %s of I2C%d)" % (
            board.I2C_SDA, board.I2C_ID, i2c_role(board.I2C_SDA)[1], i2c_role(board.I2C_SDA)[0]))
    if i2c_role(board.I2C_SCL) != (board.I2C_ID, "SCL"):
        errors.append("GP%d cannot be SCL of I2C%s (it is %s of I2C%d)" % (
            board.I2C_SCL, board.I2C_ID, i2c_role(board.I2C_SCL)[1], i2c_role(board.I2C_SCL)[0]))
    if board.OLED_ADDR not in (0x3C, 0x3D):
        errors.append("OLED_ADDR 0x%02X: an SSD1306 answers at 0x3C or 0x3D" % board.OLED_ADDR)
    link = getattr(board, "LINK_TX", None) is not None
    if link:
        on_header(board.LINK_TX, "LINK_TX")
        on_header(board.LINK_RX, "LINK_RX")
        for gpio, role in ((board.LINK_TX, "TX"), (board.LINK_RX, "RX")):
            if uart_role(gpio) != (board.LINK_UART, role):
                errors.append("GP%d cannot be %s of UART%s (it is %s of UART%d)" % (
                    gpio, role, board.LINK_UART, uart_role(gpio)[1], uart_role(gpio)[0]))
        if len({board.I2C_SDA, board.I2C_SCL, board.BUZZER, board.LINK_TX,
                board.LINK_RX}) != 5:
            errors.append("LINK_TX and LINK_RX must differ from each other and from I2C_SDA, "
                          "I2C_SCL and BUZZER")
    if len({board.I2C_SDA, board.I2C_SCL, board.BUZZER}) != 3:
        errors.append("I2C_SDA, I2C_SCL and BUZZER must be three different pins")
    for scheme in ("BUTTONS", "BUTTONS_SIX"):
        buttons = getattr(board, scheme, ())
        users = {board.I2C_SDA: "I2C_SDA", board.I2C_SCL: "I2C_SCL", board.BUZZER: "BUZZER"}
        if link:
            users[board.LINK_TX] = "LINK_TX"
            users[board.LINK_RX] = "LINK_RX"
        seen = set()
        for gpio, player, name in buttons:
            what = "%s player %s button %s" % (scheme, player, name)
            on_header(gpio, what)
            if not 0 <= gpio <= 15:
                errors.append("%s is GP%d: buttons must stay within GPIO 0-15 (one 16-bit "
                              "read of GPIO_IN sees them all)" % (what, gpio))
            if gpio in users:
                errors.append("%s is GP%d, already used by %s" % (what, gpio, users[gpio]))
            if (player, name) in seen:
                errors.append("%s appears twice" % what)
            seen.add((player, name))
            users[gpio] = what
            if player not in (0, 1):
                errors.append("%s: player must be 0 or 1" % what)
    if any(n not in ("A", "B") for _g, _p, n in board.BUTTONS):
        errors.append("BUTTONS must be the two-button pads (A and B per player); name "
                      "other buttons in BUTTONS_SIX")
    if errors:
        raise PinMapError("\n".join(errors))


# --- what connects to what ----------------------------------------------------------
# Suggested wire colours: name -> colour drawn in the SVG (dark enough on white).
COLOURS = {
    "red": "#d62728", "black": "#222222", "blue": "#1f5fd6", "yellow": "#d9a400",
    "green": "#2ca02c", "purple": "#8e44ad", "orange": "#f07f0e", "brown": "#8c564b",
    "grey": "#7f7f7f", "white": "#bbbbbb", "pink": "#e377c2", "cyan": "#139fb0",
}
BUTTON_COLOURS = {(0, "A"): "green", (0, "B"): "purple", (1, "A"): "orange", (1, "B"): "brown"}


class Wire:
    def __init__(self, part, part_pin, pin, colour, notes, terminal, alternatives=()):
        self.part = part  # part name, as in the table
        self.part_pin = part_pin
        self.pin = pin  # Pico physical pin
        self.name = PICO_HEADER[pin]  # GPxx / GND / 3V3(OUT)
        self.colour = colour
        self.notes = notes
        self.terminal = terminal  # (part id, terminal id) in the SVG
        # equivalent ends (same part, same side of it): [(part_pin, terminal), ...];
        # the layout picks the one that draws best
        self.options = [(part_pin, terminal)] + list(alternatives)

    def choose(self, k):
        self.part_pin, self.terminal = self.options[k]


def button_of(board, player, name):
    for gpio, p, n in board.BUTTONS:
        if p == player and n == name:
            return gpio
    return None


def connections(board):
    """The wires of the reference kit, in the order a builder adds them."""
    wires = []
    sda, scl = GPIO_TO_PIN[board.I2C_SDA], GPIO_TO_PIN[board.I2C_SCL]
    oled_gnd = nearest_gnd(PIN_3V3)
    oled = "OLED (SSD1306)"
    wires.append(Wire(oled, "GND", oled_gnd, "black",
                      "ground; check the order printed on YOUR module", ("oled", "GND")))
    wires.append(Wire(oled, "VCC", PIN_3V3, "red",
                      "3.3 V supply; never VBUS/VSYS (5 V could reach the I2C lines)",
                      ("oled", "VCC")))
    wires.append(Wire(oled, "SCL", scl, "yellow",
                      "I2C%d SCL, %d kHz; the module's own pull-ups are enough" % (
                          board.I2C_ID, board.I2C_FREQ // 1000), ("oled", "SCL")))
    wires.append(Wire(oled, "SDA", sda, "blue",
                      "I2C%d SDA; address 0x%02X" % (board.I2C_ID, board.OLED_ADDR),
                      ("oled", "SDA")))
    for player in (0, 1):
        pad = "Player %d pad" % player
        gpios = [g for g, p, _n in board.BUTTONS if p == player]
        for gpio, p, name in board.BUTTONS:
            if p != player:
                continue
            side = "left" if name == "A" else "right"
            role = {"A": "moves the cursor, slaps the left pile",
                    "B": "plays the card, slaps the right pile"}.get(name, "")
            wires.append(Wire(pad, "button %s, leg 1" % name, GPIO_TO_PIN[gpio],
                              BUTTON_COLOURS.get((player, name), "white"),
                              "on the player's own %s: %s; internal pull-up, pressed reads 0"
                              % (side, role), ("pad%d" % player, name + ".sig")))
        if gpios:
            # The pad's ground goes to leg 2 of either button (the drawing picks); a
            # short black jumper joins the two ground legs.
            gnd = nearest_gnd(*[GPIO_TO_PIN[g] for g in gpios])
            ends = [("button %s, leg 2" % b, ("pad%d" % player, b + ".gnd")) for b in "AB"]
            wires.append(Wire(pad, ends[0][0], gnd, "black",
                              "ground; a jumper joins it to the other button's leg 2",
                              ends[0][1], ends[1:]))
    buz = GPIO_TO_PIN[board.BUZZER]
    slice_, chan = pwm_channel(board.BUZZER)
    wires.append(Wire("Piezo buzzer (passive)", "+", buz, "grey",
                      "PWM slice %d channel %s; a 220 ohm resistor in series is optional for a "
                      "piezo, required for a magnetic buzzer (BOM.md)" % (slice_, chan),
                      ("buzzer", "+")))
    wires.append(Wire("Piezo buzzer (passive)", "-", nearest_gnd(buz), "black",
                      "ground", ("buzzer", "-")))
    if getattr(board, "LINK_TX", None) is not None:
        cable = "Link cable (optional)"
        tx, rx = GPIO_TO_PIN[board.LINK_TX], GPIO_TO_PIN[board.LINK_RX]
        wires.append(Wire(cable, "TX", tx, "pink",
                          "UART%d TX, %d baud: to the OTHER handheld's GP%d (its RX); crossed"
                          % (board.LINK_UART, board.LINK_BAUD, board.LINK_RX), ("link", "TX")))
        wires.append(Wire(cable, "RX", rx, "cyan",
                          "UART%d RX: from the other handheld's GP%d (its TX); internal "
                          "pull-up, so an unplugged cable reads idle" % (
                              board.LINK_UART, board.LINK_TX), ("link", "RX")))
        wires.append(Wire(cable, "GND", nearest_gnd(tx, rx), "black",
                          "to the other handheld's ground: the signals need a common "
                          "ground", ("link", "GND")))
    return wires


def jumpers(board):
    """Short links on the pads: (part id, from terminal, to terminal)."""
    out = []
    for player in (0, 1):
        if any(p == player for _g, p, _n in board.BUTTONS):
            out.append(("pad%d" % player, "A.gnd", "B.gnd"))
    return out


# --- WIRING.md ----------------------------------------------------------------------
def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def render_md(board, wires, source):
    used = {}
    for w in wires:
        used.setdefault(w.pin, []).append("%s %s" % (w.part, w.part_pin))
    mask = 0
    for gpio, _p, _n in board.BUTTONS:
        mask |= 1 << gpio
    slice_, chan = pwm_channel(board.BUZZER)
    L = []
    a = L.append
    a("# Wiring of the reference kit")
    a("")
    a("<!-- GENERATED by tools/gen_wiring.py from %s. Do not edit by" % source)
    a("     hand: change the pin map, then run `%s`. CI runs it with --check. -->" % REGEN)
    a("")
    a("Raspberry Pi Pico or Pico 2 (same header), SSD1306 128x64 OLED on I2C, two "
      "two-button pads, a passive piezo. Diagram: [wiring.svg](wiring.svg). Build steps: "
      "[BUILD_GUIDE.md](BUILD_GUIDE.md). Parts: [BOM.md](BOM.md).")
    a("")
    a("*Pico pin* is the physical pin number on the 40-pin header: pin 1 is next to the "
      "USB connector (it has a square pad), pins 1-20 run down that edge, pins 21-40 come "
      "back up the other edge, so pin 40 sits opposite pin 1. *GPIO* is the name the "
      "firmware uses (`GP4` = GPIO 4 = `Pin(4)`). Wire colours are only suggestions; "
      "what matters is that every wire goes to the pin in its row.")
    a("")
    a("## Wires")
    a("")
    rows = [(w.part, w.part_pin, w.pin, w.name, w.colour, w.notes) for w in wires]
    a(md_table(("Part", "Part pin", "Pico pin", "GPIO", "Wire colour", "Notes"), rows))
    a("")
    for player in (0, 1):
        a("- Player %d pad: a short black jumper joins leg 2 of button A and leg 2 of "
          "button B." % player)
    a("- Tactile switches have four legs in two joined pairs. Use two legs that sit "
      "**diagonally opposite**: those are always on different sides of the switch.")
    a("- Players sit face to face: player 0's pad at the USB end of the Pico, player 1's "
      "at the far end. Each player's **A** is on *their own* left.")
    a("")
    a("## Pico pins used")
    a("")
    rows = [(p, PICO_HEADER[p], "; ".join(used[p])) for p in sorted(used)]
    a(md_table(("Pico pin", "Name", "Goes to"), rows))
    a("")
    a("## What the pin map says")
    a("")
    a("| Setting | Value | Why |")
    a("| --- | --- | --- |")
    a("| `I2C_ID`, `I2C_SDA`, `I2C_SCL` | I2C%d, GP%d (pin %d), GP%d (pin %d) | "
      "these GPIOs are SDA/SCL of I2C%d on the RP2040 and RP2350 |" % (
          board.I2C_ID, board.I2C_SDA, GPIO_TO_PIN[board.I2C_SDA], board.I2C_SCL,
          GPIO_TO_PIN[board.I2C_SCL], board.I2C_ID))
    a("| `I2C_FREQ` | %d Hz | a full 128x64 frame is about 23 ms at 400 kHz |" % board.I2C_FREQ)
    a("| `OLED_ADDR` | 0x%02X | most modules; some answer at 0x3D (see the build guide) |"
      % board.OLED_ADDR)
    a("| `BUZZER` | GP%d (pin %d) | PWM slice %d, channel %s |" % (
        board.BUZZER, GPIO_TO_PIN[board.BUZZER], slice_, chan))
    a("| `BUTTONS` | %s | all within GPIO 0-15: one read of the GPIO input register "
      "(mask 0x%04X) sees every button at the same instant |" % (
          ", ".join("P%d %s = GP%d" % (p, n, g) for g, p, n in board.BUTTONS), mask))
    a("| `DEBOUNCE_US` | %d us | the first edge is the touch; bounce after it is "
      "ignored for this long |" % board.DEBOUNCE_US)
    if getattr(board, "LINK_TX", None) is not None:
        a("| `LINK_UART`, `LINK_TX`, `LINK_RX` | UART%d, GP%d (pin %d), GP%d (pin %d) | "
          "TX and RX of UART%d on the RP2040 and RP2350; optional: only for link play |" % (
              board.LINK_UART, board.LINK_TX, GPIO_TO_PIN[board.LINK_TX], board.LINK_RX,
              GPIO_TO_PIN[board.LINK_RX], board.LINK_UART))
        a("| `LINK_BAUD` | %d | exact at both chips' clocks; 10 us a byte (firmware/boards/"
          "pico.py says why) |" % board.LINK_BAUD)
    a("")
    if getattr(board, "LINK_TX", None) is not None:
        a("## The link cable (optional)")
        a("")
        a("Two handhelds play one game over three wires (RULES.md R43), **crossed**: this "
          "board's TX (GP%d, pin %d) to the other board's RX (GP%d, pin %d), its RX to the "
          "other's TX, and ground to ground. Both boards are wired the same way, so the "
          "cable is the same seen from either end." % (
              board.LINK_TX, GPIO_TO_PIN[board.LINK_TX], board.LINK_RX,
              GPIO_TO_PIN[board.LINK_RX]))
        a("")
        a("- Three female-female jumper wires up to about 1 m, or a 3.5 mm TRRS lead "
          "with a socket on each handheld: tip = TX, ring 1 = RX, sleeve = GND (ring 2 "
          "unused). A TRRS lead is straight through, so cross TX and RX inside ONE of "
          "the two sockets' wiring, or use a crossed lead; BUILD_GUIDE.md says how to "
          "check.")
        a("- A 220 ohm resistor in series with each TX (at the board) is cheap insurance: "
          "a cable wired TX to TX then shorts two outputs through 440 ohm, not directly.")
        a("- Cable self-test (loopback): one wire from GP%d (pin %d) to GP%d (pin %d) "
          "on ONE board sends the board its own bytes; the link screen's self-test "
          "checks that what it sends comes back." % (
              board.LINK_TX, GPIO_TO_PIN[board.LINK_TX], board.LINK_RX,
              GPIO_TO_PIN[board.LINK_RX]))
        a("")
    six = [b for b in getattr(board, "BUTTONS_SIX", ()) if b not in board.BUTTONS]
    if six:
        a("## Optional: six-button pads")
        a("")
        a("Not part of the reference kit. For a D-pad + A + B per player (DESIGN.md "
          "\"Controls\"), add these buttons to the ones above, each between its GPIO and "
          "a ground pin, exactly like A and B.")
        a("")
        rows = []
        for gpio, player, name in six:
            pin = GPIO_TO_PIN[gpio]
            rows.append(("Player %d pad (six-button)" % player, "button %s, leg 1" % name,
                         pin, "GP%d" % gpio, "any",
                         "leg 2 to ground (pin %d)" % nearest_gnd(pin)))
        a(md_table(("Part", "Part pin", "Pico pin", "GPIO", "Wire colour", "Notes"), rows))
        a("")
    a("## The whole header")
    a("")
    a("Seen from above with the USB connector at the top (the diagram shows it turned "
      "round, USB at the bottom). Pins this kit uses are in bold.")
    a("")
    rows = []
    for r in range(20):
        cells = []
        for p in (r + 1, 40 - r):
            b = "**" if p in used else ""
            cells += ["%s%d%s" % (b, p, b), "%s%s%s" % (b, PICO_HEADER[p], b),
                      PIN_NOTES.get(p, "")]
        rows.append(cells)
    a(md_table(("Pin", "Name", "Note", "Pin", "Name", "Note"), rows))
    a("")
    return "\n".join(L)


# --- wiring.svg ---------------------------------------------------------------------
# The Pico is drawn seen from above, turned so the USB end points DOWN, towards player
# 0: pin 1 is bottom right, pins 1-20 go up the right edge, pins 21-40 down the left.
W, H = 1000, 1120
PX0, PX1 = 380, 620  # Pico body
PY0 = 300
PITCH = 22
PIN_Y0 = PY0 + 21
PY1 = PIN_Y0 + 19 * PITCH + 21


def pin_xy(p):
    if p <= 20:
        return PX1, PIN_Y0 + (20 - p) * PITCH
    return PX0, PIN_Y0 + (p - 21) * PITCH


class Part:
    def __init__(self, pid, box):
        self.pid = pid
        self.box = box  # x0, y0, x1, y1 (keep-out for nothing but layout)
        self.terms = {}  # terminal id -> (x, y, dir) dir -1: wire comes from above, +1: below

    @property
    def side(self):
        return -1 if (self.box[0] + self.box[2]) / 2 < (PX0 + PX1) / 2 else 1


BTN = 50  # tactile switch body
LEG = 17  # leg offset from the centre


def make_parts():
    parts = {}
    # player 1's pad, top right; player 1 faces down, so their left is the picture's right
    p1 = Part("pad1", (725, 100, 945, 232))
    for name, cx in (("B", 785), ("A", 885)):
        cy = 166
        p1.terms[name + ".sig"] = (cx - LEG, cy + BTN // 2 + 8, 1)
        p1.terms[name + ".gnd"] = (cx + LEG, cy - BTN // 2 - 8, -1)
        p1.terms[name + ".c"] = (cx, cy, 0)
    parts["pad1"] = p1
    # player 0's pad, bottom right; A on the picture's left (player 0's left)
    p0 = Part("pad0", (725, 842, 945, 974))
    for name, cx in (("A", 785), ("B", 885)):
        cy = 908
        p0.terms[name + ".sig"] = (cx - LEG, cy - BTN // 2 - 8, -1)
        p0.terms[name + ".gnd"] = (cx + LEG, cy + BTN // 2 + 8, 1)
        p0.terms[name + ".c"] = (cx, cy, 0)
    parts["pad0"] = p0
    oled = Part("oled", (725, 440, 945, 590))
    for i, name in enumerate(("GND", "VCC", "SCL", "SDA")):
        oled.terms[name] = (775 + 40 * i, 440, -1)
    parts["oled"] = oled
    buz = Part("buzzer", (150, 120, 310, 250))
    buz.terms["-"] = (215, 240, 1)
    buz.terms["+"] = (245, 240, 1)
    buz.terms["c"] = (230, 190, 0)
    parts["buzzer"] = buz
    link = Part("link", (725, 760, 945, 834))
    for i, name in enumerate(("TX", "RX", "GND")):
        link.terms[name] = (775 + 40 * i, 760, -1)
    parts["link"] = link
    return parts


def approach_y(part, term, level):
    x, y, d = part.terms[term]
    return y + d * (14 + 10 * level)


class Layout:
    """Manhattan routes: pin -> lane beside the Pico -> approach level -> terminal. A wire
    may instead run straight out to a far lane beyond the parts (to reach the far side
    of a part), and a wire whose part is on the other side of the Pico goes round its
    bottom or top end and up or down a far lane. The orders of lanes and levels, those
    choices and the choice between equivalent terminals are made to cross as few wires
    as possible (deterministic hill climbs from a few fixed starts)."""

    def __init__(self, wires, parts):
        self.wires = wires
        self.parts = parts
        n = len(wires)
        self.side = []
        self.cross = []
        for w in wires:
            part = parts[w.terminal[0]]
            s = 1 if w.pin <= 20 else -1
            self.side.append(s)
            self.cross.append(s != part.side)
        self.lanes = {s: [i for i in range(n) if self.side[i] == s] for s in (-1, 1)}
        self.groups = {}
        for i, w in enumerate(wires):
            self.groups.setdefault(self._group_key(i), []).append(i)
        self.far = list(range(n))
        self.round_bottom = [True] * n
        self.via_far = [False] * n
        self.choice = [0] * n

    def _group_key(self, i):
        pid, term = self.wires[i].options[0][1]
        return pid, self.parts[pid].terms[term][2]

    def route(self, i):
        w = self.wires[i]
        pid, term = w.options[self.choice[i]][1]
        part = self.parts[pid]
        tx, ty, d = part.terms[term]
        sx, sy = pin_xy(w.pin)
        s = self.side[i]
        lane = self.lanes[s].index(i)
        lx = (PX1 + 16 + 10 * lane) if s > 0 else (PX0 - 16 - 10 * lane)
        ay = approach_y(part, term, self.groups[self._group_key(i)].index(i))
        far_side = part.side
        if not (self.cross[i] or self.via_far[i]):
            return [(sx, sy), (lx, sy), (lx, ay), (tx, ay), (tx, ty)]
        # k = 0 is the outermost far lane and detour level, so nested detours do not cross
        k = [j for j in self.far if (self.cross[j] or self.via_far[j])
             and self.parts[self.wires[j].terminal[0]].side == far_side].index(i)
        fx = (W - 15 - 10 * k) if far_side > 0 else (15 + 10 * k)
        if not self.cross[i]:
            return [(sx, sy), (fx, sy), (fx, ay), (tx, ay), (tx, ty)]
        ry = (H - 30 - 10 * k) if self.round_bottom[i] else (64 + 10 * k)
        return [(sx, sy), (lx, sy), (lx, ry), (fx, ry), (fx, ay), (tx, ay), (tx, ty)]

    def segments(self):
        segs = []
        for i in range(len(self.wires)):
            pts = self.route(i)
            segs.append([(pts[j], pts[j + 1]) for j in range(len(pts) - 1)])
        return segs

    def cost(self):
        """crossings * 10000 + total length. Segments are axis-parallel: (horizontal,
        fixed coordinate, low end, high end); touching ends do not count as a crossing,
        running along the same line does."""
        norm = []
        length = 0
        for pts in (self.route(i) for i in range(len(self.wires))):
            segs = []
            for (ax, ay), (bx, by) in zip(pts, pts[1:]):
                if ay == by:
                    segs.append((True, ay, min(ax, bx), max(ax, bx)))
                else:
                    segs.append((False, ax, min(ay, by), max(ay, by)))
                length += abs(ax - bx) + abs(ay - by)
            norm.append(segs)
        crossings = 0
        for i in range(len(norm)):
            for j in range(i + 1, len(norm)):
                for h1, c1, lo1, hi1 in norm[i]:
                    for h2, c2, lo2, hi2 in norm[j]:
                        if h1 != h2:
                            if lo1 < c2 < hi1 and lo2 < c1 < hi2:
                                crossings += 1
                        elif c1 == c2 and min(hi1, hi2) > max(lo1, lo2):
                            crossings += 1
        return crossings * 10000 + length

    def crossings(self):
        return self.cost() // 10000

    def optimise(self):
        key = lambda i: pin_xy(self.wires[i].pin)[1]  # noqa: E731
        best = None
        for flip_left in (False, True):
            for flip_right in (False, True):
                for flip_far in (False, True):
                    self.lanes[-1].sort(key=key, reverse=flip_left)
                    self.lanes[1].sort(key=key, reverse=flip_right)
                    self.far.sort(key=key, reverse=flip_far)
                    for group in self.groups.values():
                        group.sort()
                    n = len(self.wires)
                    self.round_bottom = [True] * n
                    self.via_far = [False] * n
                    self.choice = [0] * n
                    c = self._climb()
                    if best is None or c < best[0]:
                        best = (c, {s: list(v) for s, v in self.lanes.items()},
                                {k: list(v) for k, v in self.groups.items()}, list(self.far),
                                list(self.round_bottom), list(self.via_far), list(self.choice))
        (_c, self.lanes, self.groups, self.far, self.round_bottom, self.via_far,
         self.choice) = best
        for i, w in enumerate(self.wires):
            w.choose(self.choice[i])
        return best[0]

    def _climb(self):
        best = self.cost()

        def keep(c):
            nonlocal best
            if c < best:
                best = c
                return True
            return False

        improved = True
        while improved:
            improved = False
            for seq in list(self.lanes.values()) + list(self.groups.values()) + [self.far]:
                for a in range(len(seq)):
                    for b in range(a + 1, len(seq)):
                        seq[a], seq[b] = seq[b], seq[a]
                        if keep(self.cost()):
                            improved = True
                        else:
                            seq[a], seq[b] = seq[b], seq[a]
            for i in range(len(self.wires)):
                flags = [self.round_bottom] if self.cross[i] else [self.via_far]
                for f in flags:
                    f[i] = not f[i]
                    if keep(self.cost()):
                        improved = True
                    else:
                        f[i] = not f[i]
                old = self.choice[i]
                for k in range(len(self.wires[i].options)):
                    if k == old:
                        continue
                    self.choice[i] = k
                    if keep(self.cost()):
                        improved = True
                        old = k
                    else:
                        self.choice[i] = old
        return best


def fmt(v):
    return ("%.1f" % v).rstrip("0").rstrip(".")


class Svg:
    def __init__(self):
        self.out = []

    def add(self, s):
        self.out.append(s)

    def text(self, x, y, s, size=12, anchor="start", fill="#222", weight=None, extra=""):
        w = ' font-weight="%s"' % weight if weight else ""
        self.add('<text x="%s" y="%s" font-size="%s" text-anchor="%s" fill="%s"%s%s>%s</text>'
                 % (fmt(x), fmt(y), size, anchor, fill, w, extra, escape(s)))

    def rect(self, x0, y0, x1, y1, fill="none", stroke="#222", sw=1.5, rx=0, extra=""):
        self.add('<rect x="%s" y="%s" width="%s" height="%s" rx="%s" fill="%s" stroke="%s" '
                 'stroke-width="%s"%s/>' % (fmt(x0), fmt(y0), fmt(x1 - x0), fmt(y1 - y0), rx,
                                            fill, stroke, sw, extra))

    def circle(self, x, y, r, fill="none", stroke="#222", sw=1.5):
        self.add('<circle cx="%s" cy="%s" r="%s" fill="%s" stroke="%s" stroke-width="%s"/>'
                 % (fmt(x), fmt(y), fmt(r), fill, stroke, sw))

    def line(self, pts, stroke, sw, extra=""):
        d = " ".join("%s,%s" % (fmt(x), fmt(y)) for x, y in pts)
        self.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="%s" '
                 'stroke-linejoin="round" stroke-linecap="round"%s/>' % (d, stroke, sw, extra))


def pin_fill(name):
    if name in ("GND", "AGND"):
        return "#222222"
    if name in ("3V3(OUT)", "VSYS", "VBUS"):
        return "#d62728"
    if name.startswith("GP"):
        return "#3a9a4a"
    return "#999999"


def render_svg(board, wires, layout, source):
    parts = layout.parts
    used = {w.pin: w for w in wires}
    g = Svg()
    a = g.add
    a('<?xml version="1.0" encoding="UTF-8"?>')
    a('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
      'font-family="DejaVu Sans, Arial, Helvetica, sans-serif">' % (W, H, W, H))
    a("<title>Spit handheld: wiring of the reference kit</title>")
    a("<desc>Generated by tools/gen_wiring.py from %s; do not edit by hand.</desc>"
      % escape(source))
    g.rect(0, 0, W, H, fill="#ffffff", stroke="none", sw=0)
    g.text(20, 30, "Spit handheld: wiring of the reference kit", 20, weight="bold")
    g.text(20, 50, "Generated from " + source + " by tools/gen_wiring.py. "
           "Table: hardware/WIRING.md", 11, fill="#555")

    # --- the Pico
    g.rect(PX0, PY0, PX1, PY1, fill="#e9f5ec", stroke="#2f6b3a", sw=2, rx=10)
    g.rect(470, PY1 - 4, 530, PY1 + 16, fill="#c8c8c8", stroke="#555", sw=1.5, rx=3)
    g.text(500, PY1 + 32, "USB (towards player 0)", 11, "middle", "#555")
    g.rect(468, PY1 - 60, 500, PY1 - 36, fill="#ffffff", stroke="#555", sw=1.2, rx=3)
    g.text(484, PY1 - 66, "BOOTSEL", 9, "middle", "#555")
    cx, cy = (PX0 + PX1) / 2, (PY0 + PY1) / 2 - 60
    g.text(cx, cy, "Raspberry Pi Pico / Pico 2 (top view)", 14, "middle", "#2f6b3a",
           weight="bold", extra=' transform="rotate(-90 %s %s)"' % (fmt(cx), fmt(cy)))
    for p in range(1, 41):
        x, y = pin_xy(p)
        name = PICO_HEADER[p]
        inward = -1 if p <= 20 else 1
        ring = "#000" if p in used else "#555"
        if p == 1:
            g.rect(x - 6, y - 6, x + 6, y + 6, fill=pin_fill(name), stroke=ring,
                   sw=2.5 if p in used else 1)
        else:
            g.circle(x, y, 6, fill=pin_fill(name), stroke=ring, sw=2.5 if p in used else 1)
        g.text(x + inward * 12, y + 4, str(p), 10, "end" if inward < 0 else "start", "#666")
        g.text(x + inward * 32, y + 4, name, 11, "end" if inward < 0 else "start",
               "#000" if p in used else "#555", weight="bold" if p in used else None)

    # --- parts
    _draw_pad(g, parts["pad1"], board, 1)
    _draw_pad(g, parts["pad0"], board, 0)
    _draw_oled(g, parts["oled"], board)
    _draw_buzzer(g, parts["buzzer"], board)
    if "link" in {w.terminal[0] for w in wires}:
        _draw_link(g, parts["link"], board)

    # --- jumpers and wires: a white halo under each wire keeps crossings readable
    for pid, t0, t1 in jumpers(board):
        part = parts[pid]
        x0, y0, d = part.terms[t0]
        x1, y1, _ = part.terms[t1]
        jy = y0 + d * 8
        g.line([(x0, y0), (x0, jy), (x1, jy), (x1, y1)], "#222222", 3)
    for i, w in enumerate(wires):
        pts = layout.route(i)
        g.line(pts, "#ffffff", 8)
        g.line(pts, COLOURS[w.colour], 3.5)
        for x, y in (pts[0], pts[-1]):
            g.circle(x, y, 3.2, fill=COLOURS[w.colour], stroke="#000", sw=0.8)

    # --- legend
    lx, ly = 20, 800
    g.rect(lx - 8, ly - 22, 322, ly + 16 * len(wires) + 58, fill="#fafafa", stroke="#bbb",
           sw=1, rx=6)
    g.text(lx, ly - 4, "Wires (Pico pin: part)", 13, weight="bold")
    for i, w in enumerate(wires):
        y = ly + 16 + 16 * i
        g.line([(lx, y - 4), (lx + 26, y - 4)], COLOURS[w.colour], 4)
        g.text(lx + 34, y, "pin %d %s: %s %s" % (w.pin, w.name, _short(w.part), w.part_pin),
               11)
    y = ly + 16 * len(wires) + 30
    g.text(lx, y, "Black links on each pad join the", 11, fill="#555")
    g.text(lx, y + 14, "two buttons' ground legs.", 11, fill="#555")
    extra = [g_ for g_, _p, _n in getattr(board, "BUTTONS_SIX", ()) if
             (g_, _p, _n) not in board.BUTTONS]
    if extra:
        g.text(20, H - 14, "Optional six-button pads (not drawn): %s, see WIRING.md" % ", ".join(
            "GP%d" % x for x in extra), 10, fill="#555")
    a("</svg>")
    return "\n".join(g.out) + "\n"


def _short(part):
    return {"OLED (SSD1306)": "OLED", "Piezo buzzer (passive)": "piezo",
            "Link cable (optional)": "link"}.get(part, part)


def _gpio_for_term(board, pid, term):
    if pid.startswith("pad"):
        player = int(pid[3:])
        name = term.split(".")[0]
        return button_of(board, player, name)
    return None


def _draw_pad(g, part, board, player):
    x0, y0, x1, y1 = part.box
    g.rect(x0, y0, x1, y1, fill="none", stroke="#999", sw=1, rx=8,
           extra=' stroke-dasharray="5,4"')
    # the title sits outside the frame, at the end of the table the player sits at
    g.text(x1 - 6, y0 - 8 if player == 1 else y1 + 18,
           "PLAYER %d pad (sits at this end, faces %s)" % (player, "down" if player == 1 else "up"),
           12, "end", weight="bold")
    h = BTN / 2
    for name in ("A", "B"):
        if name + ".c" not in part.terms:
            continue
        cx, cy, _ = part.terms[name + ".c"]
        for sx in (-LEG, LEG):  # the four legs
            for sy in (-1, 1):
                g.rect(cx + sx - 2, cy + sy * h - (6 if sy < 0 else 0), cx + sx + 2,
                       cy + sy * h + (6 if sy > 0 else 0), fill="#aaa", stroke="#777", sw=0.8)
        g.rect(cx - h, cy - h, cx + h, cy + h, fill="#2b2b2b", stroke="#111", sw=1.5, rx=4)
        g.circle(cx, cy, 15, fill="#d8d8d8", stroke="#888", sw=1.5)
        g.text(cx, cy + 6, name, 16, "middle", "#222", weight="bold")
        gpio = _gpio_for_term(board, part.pid, name + ".sig")
        _sx, sy, d = part.terms[name + ".sig"]
        # beside the signal leg, between the switch body and the leg's end
        g.text(cx - h - 3, sy - 1 if d > 0 else sy + 10,
               "GP%d" % gpio if gpio is not None else "-", 10, "end", "#333")
    # the ground link between the two ground legs is drawn with the wires; label it
    ax, ay, ad = part.terms["A.gnd"]
    bx, _by, _bd = part.terms["B.gnd"]
    g.text((ax + bx) / 2, ay - 12 if ad < 0 else ay + 23, "GND link", 10, "middle", "#333")


def _draw_oled(g, part, board):
    x0, y0, x1, y1 = part.box
    g.rect(x0, y0, x1, y1, fill="#1d3f8a", stroke="#0e2356", sw=2, rx=6)
    for name, (x, y, _d) in part.terms.items():
        g.rect(x - 5, y, x + 5, y + 12, fill="#e0c060", stroke="#806000", sw=1)
        g.text(x, y + 26, name, 11, "middle", "#ffffff", weight="bold")
    g.rect(x0 + 18, y0 + 40, x1 - 18, y1 - 14, fill="#050505", stroke="#000", sw=1)
    g.text((x0 + x1) / 2, y0 + 80, "SSD1306 128x64", 12, "middle", "#7fd0ff")
    g.text((x0 + x1) / 2, y0 + 98, "I2C 0x%02X" % board.OLED_ADDR, 11, "middle", "#7fd0ff")
    g.text((x0 + x1) / 2, y0 + 116, "pin order varies: read yours!", 10, "middle", "#ffcf5f")
    g.text(x1, y1 + 16, "OLED (header towards player 1)", 12, "end", weight="bold")


def _draw_buzzer(g, part, board):
    cx, cy, _ = part.terms["c"]
    for t in ("-", "+"):
        x, y, _d = part.terms[t]
        g.rect(x - 2, cy + 30, x + 2, y, fill="#aaa", stroke="#777", sw=0.8)
    g.circle(cx, cy, 42, fill="#222", stroke="#000", sw=1.5)
    g.circle(cx, cy, 6, fill="#555", stroke="#000", sw=1)
    for t, label in (("-", "-"), ("+", "+")):
        x, y, _d = part.terms[t]
        g.text(x, cy + 24, label, 14, "middle", "#fff", weight="bold")
    g.text(cx, cy - 52, "Passive piezo (GP%d, PWM)" % board.BUZZER, 12, "middle",
           weight="bold")


def _draw_link(g, part, board):
    x0, y0, x1, y1 = part.box
    g.rect(x0, y0, x1, y1, fill="none", stroke="#999", sw=1, rx=8,
           extra=' stroke-dasharray="5,4"')
    for name, (x, y, _d) in part.terms.items():
        g.rect(x - 6, y, x + 6, y + 14, fill="#333", stroke="#000", sw=1)
        g.text(x, y + 28, name, 11, "middle", "#222", weight="bold")
    g.text(x0 + 8, y1 - 22, "LINK cable (optional), crossed:", 10, "start",
           "#222", weight="bold")
    g.text(x0 + 8, y1 - 8, "TX to its GP%d, RX to its GP%d, GND to GND" % (
        board.LINK_RX, board.LINK_TX), 10, "start", "#333")


# --- main ---------------------------------------------------------------------------
def generate(board_path=BOARD_FILE):
    verify_header()
    board = load_board(board_path)
    validate(board)
    source = _rel(board_path)
    wires = connections(board)
    layout = Layout(wires, make_parts())
    layout.optimise()  # also picks which equivalent leg each pad's ground wire goes to
    return {OUT_MD: render_md(board, wires, source),
            OUT_SVG: render_svg(board, wires, layout, source)}


def _rel(path):
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if the checked-in files differ from what would be generated")
    ap.add_argument("--board", default=str(BOARD_FILE), help="pin map file (default: %(default)s)")
    ap.add_argument("--out-dir", help="write (or check) WIRING.md and wiring.svg in this "
                    "folder instead of hardware/, e.g. for another board's pin map")
    args = ap.parse_args(argv)
    try:
        files = generate(Path(args.board))
    except PinMapError as e:
        print("gen_wiring: the pin map has electrical problems; fix the pin map "
              "(or report it to its owner):\n" + str(e), file=sys.stderr)
        return 2
    if args.out_dir:
        files = {Path(args.out_dir) / p.name: t for p, t in files.items()}
    if args.check:
        stale = []
        for path, text in files.items():
            try:
                have = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                have = None
            if have != text:
                stale.append(_rel(path))
        if stale:
            print("gen_wiring: out of date: %s\nrun `%s` and commit the result" % (
                ", ".join(str(s) for s in stale), REGEN), file=sys.stderr)
            return 1
        print("gen_wiring: %s match the pin map" % " and ".join(_rel(p) for p in files))
        return 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        print("wrote %s" % _rel(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
