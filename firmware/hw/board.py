# The board's hardware, built from its pin map (firmware/boards/pico.py): which buttons
# are in use, whether one is held at power-up, and the display, button capture and
# buzzer ports. The game's boot (main.py) and the self-test (selftest.py) both start
# here, so neither imports the other. Importing this touches no hardware.

import time

from firmware.boards import pico as pinmap
from shared_rules.pad import SIX_BUTTON, TWO_BUTTON

PULLUP_SETTLE_MS = 20     # pull-ups (~50 kOhm) charging a pad's debounce capacitor


def button_pins():
    """The buttons in use: the board's BUTTONS (or ACTIVE_BUTTONS if it names another
    set) and the pad scheme they make."""
    pins = getattr(pinmap, "ACTIVE_BUTTONS", pinmap.BUTTONS)
    six = False
    for _gpio, _player, name in pins:
        if name not in ("A", "B"):
            six = True
    return pins, (SIX_BUTTON if six else TWO_BUTTON)


def held_at_boot(machine, pins, sleep_ms=None):
    """True if any button is held: every pin is switched to its pull-up first, then
    given time to settle, then read (a pad with an RC debounce reads low for a while)."""
    gpios = []
    for gpio, _player, _name in pins:
        gpios.append(machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP))
    (sleep_ms or time.sleep_ms)(PULLUP_SETTLE_MS)
    for p in gpios:
        if p.value() == 0:
            return True
    return False


def build_hardware(machine, pins):
    from firmware.hw.display import Display, free_bus
    from firmware.hw.buttons import start_capture
    from firmware.hw.buzzer import Buzzer
    free_bus(machine, pinmap.I2C_SDA, pinmap.I2C_SCL)  # a panel stuck mid-byte by a reset
    i2c = machine.I2C(pinmap.I2C_ID, sda=machine.Pin(pinmap.I2C_SDA),
                      scl=machine.Pin(pinmap.I2C_SCL), freq=pinmap.I2C_FREQ)
    display = Display(i2c, pinmap.OLED_ADDR, pinmap.OLED_WIDTH, pinmap.OLED_HEIGHT)
    buttons = start_capture(pins, pinmap.DEBOUNCE_US, machine)
    buzzer = Buzzer(pinmap.BUZZER, machine)
    return display, buttons, buzzer


def build_link(machine):
    """The link cable's port (UART0, firmware/hw/link_uart.py), or (None, why) when the
    UART or its pins cannot be claimed: one handheld's game never depends on the cable.
    The port stamps frame starts on its pins (PIO) for the clock sync (R43); without a
    free PIO it still links, on software stamps, and `why` says so."""
    try:
        from firmware.hw.link_uart import UartLink
        link = UartLink(machine, stamp_edges=True)
        return link, link.edges_why
    except (OSError, ValueError, ImportError, AttributeError) as e:
        return None, "%s: %s" % (type(e).__name__, e)
