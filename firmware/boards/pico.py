# The board pin map of the reference kit: a Raspberry Pi Pico (RP2040) or Pico 2
# (RP2350), an SSD1306 128x64 OLED on I2C, two two-button pads and a piezo.
#
# This is the ONE place pins are named; the hardware layer, the self-test screen and
# the wiring guide all read it. Plain constants only: importing it touches no hardware,
# so CPython (tests, the emulator, the wiring generator) can import it too.
#
# Breadboard layout (Pico, USB at the top, pins 1-20 down the left edge):
#   pin 3  GND   pin 4  GP2  pin 5  GP3      player 0's pad (A, B), at the top end
#   pin 6  GP4   pin 7  GP5                  OLED SDA, SCL (I2C0)
#   pin 18 GND   pin 19 GP14 pin 20 GP15     player 1's pad (A, B), at the bottom end
#   pin 21 GP16                              piezo (other leg to GND, pin 23)
#   pin 1  GP0   pin 2  GP1   pin 3 GND      the link cable (UART0 TX, RX, ground)
# The players sit face to face, so each pad sits at its own end of the board, next to
# a ground pin. GP0/GP1 carry the link to a second handheld (R43), crossed: TX to the
# other's RX.
#
# Every button GPIO lies within GPIO 0-15, so ONE read of the SIO GPIO_IN register
# (masked to 16 bits) sees every button at the same instant: buttons caught in the same
# interrupt are a tie (RULES.md R21), never "lower pin first".
#
# Buttons: momentary switch between the GPIO and GND, internal pull-up, active low
# (pressed reads 0). No external parts are needed.

from shared_rules.compat import const


# --- display: SSD1306 over I2C0 -----------------------------------------------
I2C_ID = const(0)
I2C_SDA = const(4)  # GP4, Pico pin 6
I2C_SCL = const(5)  # GP5, Pico pin 7
I2C_FREQ = const(400_000)
OLED_ADDR = const(0x3C)
OLED_WIDTH = const(128)
OLED_HEIGHT = const(64)

# --- sound ------------------------------------------------------------------------
# Any RP2040/RP2350 GPIO can drive PWM; GP16 is slice 0 channel A.
BUZZER = const(16)  # GP16, Pico pin 21

# --- the link cable to a second handheld (optional; R43) ------------------------------
# Three wires, crossed: this board's TX to the other's RX, RX to its TX, GND to GND.
# 1,000,000 baud: exact at both chips' clocks (125 MHz / 16 / 7.8125 and 150 MHz / 16 /
# 9.375: the PL011's 1/64 fractional divider hits both), 10 µs a byte, so a 20-byte frame
# is on the line for 0.2 ms (the bounded delay the authority waits before settling a
# race, R43, stays far below a frame), and still slow enough for 3.3 V CMOS edges over a
# metre of jumper wire or a TRRS lead.
LINK_UART = const(0)
LINK_TX = const(0)  # GP0, Pico pin 1: to the other board's GP1
LINK_RX = const(1)  # GP1, Pico pin 2: from the other board's GP0
LINK_BAUD = const(1_000_000)

# --- the self-test's timing check (optional) ----------------------------------------
# A jumper wire from SELFTEST_OUT to SELFTEST_IN's pin: the self-test pulls it low at
# known ticks and shows how closely the button capture stamped those "presses".
SELFTEST_OUT = const(22)  # GP22, Pico pin 29 (spare); jumper to player 0's A (GP2, Pico pin 4)

# --- buttons: the reference two-button pads ------------------------------------------
P0_A = const(2)  # GP2,  Pico pin 4
P0_B = const(3)  # GP3,  Pico pin 5
P1_A = const(14)  # GP14, Pico pin 19
P1_B = const(15)  # GP15, Pico pin 20

SELFTEST_IN = P0_A  # the button pin SELFTEST_OUT's jumper goes to

# Debounce lock-out after an accepted edge, in microseconds (see hw/buttons.py).
DEBOUNCE_US = const(10_000)

# (gpio, player, button): what hw.buttons.ButtonCapture takes. Its events carry the
# player and the button name exactly as written here.
BUTTONS = (
    (P0_A, 0, "A"),
    (P0_B, 0, "B"),
    (P1_A, 1, "A"),
    (P1_B, 1, "B"),
)

# --- optional: the six-button scheme (D-pad + A + B per player) ----------------------
# Not part of the reference kit. It uses the twelve GPIOs left in 0-15 once the link
# (GP0/GP1) and I2C (GP4/GP5) are taken, so it keeps the one-register-read property.
# Button names: "A", "B", "L", "R", "U", "D" (DESIGN.md "Controls": left/right move the
# cursor, A/B play onto the left/right pile, up fills; down is spare).
P0_L = const(6)  # GP6,  Pico pin 9
P0_R = const(7)  # GP7,  Pico pin 10
P0_U = const(8)  # GP8,  Pico pin 11
P0_D = const(9)  # GP9,  Pico pin 12
P1_L = const(10)  # GP10, Pico pin 14
P1_R = const(11)  # GP11, Pico pin 15
P1_U = const(12)  # GP12, Pico pin 16
P1_D = const(13)  # GP13, Pico pin 17

BUTTONS_SIX = (
    (P0_A, 0, "A"),
    (P0_B, 0, "B"),
    (P0_L, 0, "L"),
    (P0_R, 0, "R"),
    (P0_U, 0, "U"),
    (P0_D, 0, "D"),
    (P1_A, 1, "A"),
    (P1_B, 1, "B"),
    (P1_L, 1, "L"),
    (P1_R, 1, "R"),
    (P1_U, 1, "U"),
    (P1_D, 1, "D"),
)
