# Boot on the device (`make deploy` copies this file to the board's /main.py).
# Builds the ports from the board's pin map, then steps the app at FRAME_US a frame
# while a watchdog makes sure a hang resets the board. Holding any button at power-up
# enters the self-test instead (selftest.py). Importing this module touches no
# hardware: run() does everything.

import time

from firmware.boards import pico as board
from shared_rules.pad import SIX_BUTTON, TWO_BUTTON

FRAME_US = 33333          # 30 frames a second (a typical frame sends <= 4 pages)
WDT_MS = 4000             # longest a frame, a flash save or the boot may take
STORAGE_PATH = "/spit.json"


def button_pins():
    """The buttons in use: the board's BUTTONS (or ACTIVE_BUTTONS if it names another
    set) and the pad scheme they make."""
    pins = getattr(board, "ACTIVE_BUTTONS", board.BUTTONS)
    six = False
    for _gpio, _player, name in pins:
        if name not in ("A", "B"):
            six = True
    return pins, (SIX_BUTTON if six else TWO_BUTTON)


def held_at_boot(machine, pins):
    for gpio, _player, _name in pins:
        if machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
            return True
    return False


def build_hardware(machine, pins):
    from firmware.hw.display import Display
    from firmware.hw.buttons import ButtonCapture
    from firmware.hw.buzzer import Buzzer
    i2c = machine.I2C(board.I2C_ID, sda=machine.Pin(board.I2C_SDA),
                      scl=machine.Pin(board.I2C_SCL), freq=board.I2C_FREQ)
    display = Display(i2c, board.OLED_ADDR, board.OLED_WIDTH, board.OLED_HEIGHT)
    buttons = ButtonCapture(pins, board.DEBOUNCE_US).start(machine)
    buzzer = Buzzer(board.BUZZER, machine)
    return display, buttons, buzzer


def run():
    import machine
    pins, scheme = button_pins()
    time.sleep_ms(50)                     # let the pull-ups settle before reading
    if held_at_boot(machine, pins):
        from firmware import selftest
        selftest.main()
        return
    display, buttons, buzzer = build_hardware(machine, pins)
    from firmware.app import App, Ports
    from firmware.hw.storage import FileStorage
    from firmware.hw.clock import Clock
    app = App(Ports(buttons, display, buzzer, FileStorage(STORAGE_PATH), Clock()),
              scheme=scheme, now_us=time.ticks_us())
    wdt = machine.WDT(timeout=WDT_MS)
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    ticks_add = time.ticks_add
    next_frame = ticks_us()
    while True:
        now = ticks_us()
        if ticks_diff(now, next_frame) >= 0:
            app.step(now)
            next_frame = ticks_add(next_frame, FRAME_US)
            if ticks_diff(now, next_frame) >= 0:      # fell behind: don't try to catch up
                next_frame = ticks_add(now, FRAME_US)
        buzzer.step(ticks_us())
        wdt.feed()
        time.sleep_ms(1)


if __name__ == "__main__":
    run()
