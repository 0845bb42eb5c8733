"""The display port sends at most SEND_BUDGET bytes a call (a write holds the chip for
the bus time): a whole screen goes out in shares, the pile area first, each page of
player 0's half with the same page of player 1's, and the panel ends with exactly the
picture; new changes join what is still owed. On a fake driver, under CPython."""
from desktop_emulator import framebuf
from firmware.hw.display import Display, SEND_BUDGET
from tests.hw.test_hw_hardening import FakeDriver


class PageLog(FakeDriver):
    def __init__(self):
        FakeDriver.__init__(self)
        self.sent = []                  # (page, bytes) per data write

    def write_data(self, buf):
        FakeDriver.write_data(self, buf)
        self.sent.append((self._page, len(buf)))


def _port():
    drv = PageLog()
    return Display(None, driver=drv, framebuf_module=framebuf), drv


def _spans(pages, x0=0, x1=127):
    s = bytearray([255, 0] * 8)
    for p in pages:
        s[2 * p] = x0
        s[2 * p + 1] = x1
    return s


def test_a_whole_screen_goes_out_in_shares_within_the_budget_and_arrives_whole():
    d, drv = _port()
    d.fb.fill(0)
    d.fb.fill_rect(3, 3, 50, 30, 1)
    d.fb.line(0, 63, 127, 0, 1)
    calls = 0
    d.show_spans(_spans(range(8)))
    calls += 1
    shares = [sum(n for _p, n in drv.sent)]
    while d.behind:
        k = len(drv.sent)
        d.flush()
        calls += 1
        shares.append(sum(n for _p, n in drv.sent[k:]))
        assert calls < 10
    # A pair of pages goes out whole (both players see a change at once), even when
    # it alone is more than the budget.
    assert max(shares) <= max(SEND_BUDGET, 256) and sum(shares) == 1024
    assert calls == 4
    assert drv.panel == d.buffer
    # The pile area first, then each band page with its mirror (R25's banners alike).
    assert [p for p, _n in drv.sent] == [3, 4, 6, 1, 7, 0, 5, 2]


def test_a_play_sends_its_card_in_its_call_and_its_stockpile_in_the_next():
    # 52 bytes of the pile's face (pages 3-4), 42 of the slot played from (pages 6-7):
    # at 64 bytes a call the card played goes first, alone (~1.5 ms of bus in the step
    # that decided it), and the slot 2 ms later on the device.
    d, drv = _port()
    s = _spans((3, 4), 36, 61)
    s[12], s[13] = 22, 42                          # page 6: the stockpile played from
    s[14], s[15] = 22, 42
    d.fb.fill_rect(36, 24, 26, 16, 1)
    d.fb.fill_rect(22, 48, 21, 16, 1)
    d.show_spans(s)
    assert d.behind and drv.sent == [(3, 26), (4, 26)]
    d.flush()
    assert not d.behind and drv.sent[2:] == [(6, 21), (7, 21)]
    assert drv.panel == d.buffer


def test_a_spit_is_sent_in_shares_of_at_most_the_budget_the_piles_first():
    # The spit: both piles' faces (pages 3-4, columns 36-91) and both spit stacks
    # (pages 6-7 and 0-1 at the right edge): 180 bytes, ~4.5 ms of bus. At 64 bytes a
    # call the piles go first (a pair of pages goes whole) and the bands in the next
    # calls (2 ms apart on the device), so no step holds the chip for all of it.
    d, drv = _port()
    s = _spans((3, 4), 36, 91)
    for p in (0, 1, 6, 7):
        s[2 * p], s[2 * p + 1] = 111, 127
    d.fb.fill_rect(36, 24, 56, 16, 1)
    d.fb.fill_rect(111, 0, 17, 16, 1)
    d.fb.fill_rect(111, 48, 17, 16, 1)
    d.show_spans(s)
    first = list(drv.sent)
    assert d.behind and [p for p, _n in first] == [3, 4]
    assert sum(n for _p, n in first) == 112 and SEND_BUDGET == 64
    calls = 1
    while d.behind:
        d.flush()
        calls += 1
    assert [p for p, _n in drv.sent] == [3, 4, 6, 1, 7, 0] and calls == 3
    assert drv.panel == d.buffer


def test_new_changes_join_what_is_still_owed():
    d, drv = _port()
    d.fb.fill(1)
    d.show_spans(_spans(range(8)))
    assert d.behind
    d.fb.fill_rect(0, 0, 128, 8, 0)                 # page 0 changes again meanwhile
    d.show_spans(_spans((0,)))
    while d.behind:
        d.flush()
    assert drv.panel == d.buffer
    assert sorted(p for p, _n in drv.sent) == list(range(8))   # each page sent once


def test_nothing_owed_sends_nothing():
    d, drv = _port()
    d.flush()
    d.show_spans(_spans(()))
    assert drv.sent == [] and not d.behind
