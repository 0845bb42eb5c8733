"""The device's start-up builds the link cable's port (firmware/hw/board.py build_link,
firmware/main.py): a UART that cannot be claimed leaves the handheld playing alone with
one console line, and the console follows link play's state and role."""
from types import SimpleNamespace

from firmware import main
from firmware.hw.board import build_link
from firmware.hw.link_uart import UartLink
from firmware.link.link import LINKED, LOST
from tests.hw.test_link_uart import FakeMachine


class BusyUartMachine(FakeMachine):
    def UART(self, uart_id, **kw):
        raise ValueError("UART(%d) already in use" % uart_id)


class NoUartMachine:
    """A port of MicroPython without machine.UART."""
    class Pin:
        IN = 0
        PULL_UP = 1

        def __init__(self, n, *a):
            self.n = n


def test_the_board_builds_the_link_on_uart0():
    m = FakeMachine()
    link, why = build_link(m)
    assert isinstance(link, UartLink)
    # It asks for edge stamps (R43's sync); this fake has no PIO, so it links without,
    # and says why.
    assert link.edges is None and why == "no PIO on this board (no rp2 module)"
    assert link.uid == b"\x01\x02\x03\x04\x05\x06\x07\x08"
    assert m.uarts[0].kw["tx"].n == 0 and m.uarts[0].kw["rx"].n == 1


def test_a_uart_in_use_means_no_link_and_says_why_in_one_line():
    link, why = build_link(BusyUartMachine())
    assert link is None
    assert why == "ValueError: UART(0) already in use"


def test_a_machine_without_a_uart_means_no_link():
    link, why = build_link(NoUartMachine())
    assert link is None and why.startswith("AttributeError")
    assert "\n" not in why


def _app(state=None, authority=False):
    if state is None:
        return SimpleNamespace(linkplay=None)
    return SimpleNamespace(linkplay=SimpleNamespace(
        link=SimpleNamespace(state=state, authority=authority)))


def test_the_console_says_each_change_of_link_state_and_role_once(capsys):
    said = main.report_link(_app(), None)
    assert said is None and capsys.readouterr().out == ""
    said = main.report_link(_app(LINKED, False), said)
    said = main.report_link(_app(LINKED, False), said)
    assert capsys.readouterr().out == "spit: link LINKED host=0\n"
    said = main.report_link(_app(LINKED, True), said)
    said = main.report_link(_app(LOST, True), said)
    assert capsys.readouterr().out == "spit: link LINKED host=1\nspit: link LINK LOST host=1\n"
