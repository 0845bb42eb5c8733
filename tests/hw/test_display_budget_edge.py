"""The display port's send budget at its edge (firmware/hw/display.py): changes of
exactly SEND_BUDGET bytes go out in one call, one byte more leaves the last pair of
pages owed to the next call. On a fake driver, under CPython."""
from desktop_emulator import framebuf
from firmware.hw.display import Display, SEND_BUDGET
from tests.hw.test_display_budget import _port, _spans
from tests.hw.test_hw_hardening import FakeDriver


def _owed_after_one_call(extra):
    # Pages 3 and 4 (the first pair sent) and 6 and 1 (the second): four spans of a
    # quarter of the budget each, the last `extra` bytes longer.
    d, drv = _port()
    quarter = SEND_BUDGET // 4
    s = _spans((3, 4, 6, 1), 0, quarter - 1)
    s[2 * 1 + 1] = quarter - 1 + extra
    d.show_spans(s)
    return d, drv


def test_changes_of_exactly_the_budget_go_out_in_one_call():
    d, drv = _owed_after_one_call(0)
    assert not d.behind
    assert [p for p, _n in drv.sent] == [3, 4, 6, 1]
    assert sum(n for _p, n in drv.sent) == SEND_BUDGET


def test_one_byte_over_the_budget_leaves_the_second_pair_for_the_next_call():
    d, drv = _owed_after_one_call(1)
    assert d.behind and [p for p, _n in drv.sent] == [3, 4]
    d.flush()
    assert not d.behind and [p for p, _n in drv.sent] == [3, 4, 6, 1]
    assert sum(n for _p, n in drv.sent) == SEND_BUDGET + 1


class _BytesLog(FakeDriver):
    def __init__(self):
        FakeDriver.__init__(self)
        self.data = []

    def write_data(self, buf):
        self.data.append(bytes(buf))


def test_a_panel_of_another_width_gets_each_pages_own_bytes():
    # A 72x64 panel (eight pages of 72 columns): the bytes sent for a span are that
    # page's, at that page's offset in the picture.
    drv = _BytesLog()
    d = Display(None, width=72, height=64, driver=drv, framebuf_module=framebuf)
    for k in range(len(d.buffer)):
        d.buffer[k] = k % 251
    s = bytearray([255, 0] * 8)
    s[2 * 3], s[2 * 3 + 1] = 10, 20                 # page 3, columns 10..20
    d.show_spans(s)
    assert drv.data == [bytes(d.buffer[3 * 72 + 10:3 * 72 + 21])]
