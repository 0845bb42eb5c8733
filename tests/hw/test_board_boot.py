"""The board's start-up (firmware/hw/board.py) on fakes of the chip: how long the
pull-ups are given before a held button is looked for, and every way the link cable's
UART can fail to be claimed, each one a handheld that plays alone with one line that
says why."""
import sys

import pytest

from firmware.hw import board as hw_board
from tests.hw.test_link_uart import FakeMachine

PINS = [(2, 0, "A"), (3, 0, "B"), (14, 1, "A"), (15, 1, "B")]


class SlowRcPads:
    """A machine whose pads read pressed (0) until `settle_ms` after their pull-up is
    switched on, as a pad with an RC debounce does; sleep_ms() moves its clock."""

    def __init__(self, settle_ms):
        self.now_ms = 0
        self.up_at = {}
        rc = self

        class Pin:
            IN, PULL_UP = 0, 1

            def __init__(self, n, mode=None, pull=None):
                self.n = n
                if pull == Pin.PULL_UP:
                    rc.up_at[n] = rc.now_ms

            def value(self):
                return 1 if rc.now_ms - rc.up_at[self.n] >= settle_ms else 0
        self.Pin = Pin

    def sleep_ms(self, ms):
        self.now_ms += ms


def test_the_pullups_get_the_20_ms_firmware_md_names_and_no_more():
    # A pad that takes the whole 20 ms to charge still boots into the game ...
    pads = SlowRcPads(settle_ms=20)
    assert hw_board.held_at_boot(pads, PINS, sleep_ms=pads.sleep_ms) is False
    # ... and the boot waits exactly that long.
    assert pads.now_ms == 20
    # One that needs longer reads as a held button (the self-test's way in).
    slower = SlowRcPads(settle_ms=21)
    assert hw_board.held_at_boot(slower, PINS, sleep_ms=slower.sleep_ms) is True


class RaisingUartMachine(FakeMachine):
    def __init__(self, error):
        FakeMachine.__init__(self)
        self.error = error

    def UART(self, uart_id, **kw):
        raise self.error


@pytest.mark.parametrize("error", [OSError(16, "EBUSY"), ValueError("bad pins"),
                                   AttributeError("no UART")])
def test_a_uart_that_cannot_be_claimed_means_no_link_and_one_line(error):
    link, why = hw_board.build_link(RaisingUartMachine(error))
    assert link is None
    assert why == "%s: %s" % (type(error).__name__, error)
    assert "\n" not in why


def test_a_firmware_without_the_link_driver_means_no_link(monkeypatch):
    # A build that leaves link_uart out: the import fails, the game plays alone.
    monkeypatch.setitem(sys.modules, "firmware.hw.link_uart", None)
    link, why = hw_board.build_link(FakeMachine())
    assert link is None
    assert why.startswith("ImportError: ") or why.startswith("ModuleNotFoundError: ")


def test_a_fault_that_is_not_a_claim_failure_is_not_hidden():
    # Only the ways a claim fails are caught: a bug in the driver still raises.
    with pytest.raises(ZeroDivisionError):
        hw_board.build_link(RaisingUartMachine(ZeroDivisionError("a bug")))
