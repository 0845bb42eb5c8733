"""The kept stream of a linked game (firmware/link/stream.py): every message back, in
order, whatever the block boundaries; one length byte a message; bad sizes refused.
Its heap on the real MicroPython: tests/mp/test_link_mp.py."""
import pytest
from hypothesis import given, strategies as st

from firmware.link.stream import StreamLog


def test_messages_come_back_in_order_across_blocks():
    log = StreamLog(block=16)
    msgs = [bytes([k]) * (1 + k % 15) for k in range(1, 40)]
    for m in msgs:
        log.append(m)
    assert list(log) == msgs
    assert len(log) == log.count == 39
    assert log.nbytes == sum(len(m) for m in msgs)


def test_read_walks_the_log_by_position_and_stops_past_the_last():
    log = StreamLog(block=8)
    for m in (b"abc", b"defg", b"h", b"ijklmno"):
        log.append(m)
    pos = 0
    got = []
    while True:
        m, nxt = log.read(pos)
        if m is None:
            assert nxt == pos
            break
        assert nxt > pos
        got.append(m)
        pos = nxt
    assert got == [b"abc", b"defg", b"h", b"ijklmno"]
    assert log.read(pos) == (None, pos)       # and it stays there
    log.append(b"pq")                         # a later message is read from there
    assert log.read(pos)[0] == b"pq"


def test_a_message_that_fills_a_block_exactly_is_followed_by_the_next_block():
    log = StreamLog(block=8)
    log.append(b"1234567")                    # 1 + 7: the whole block
    log.append(b"x")
    assert list(log) == [b"1234567", b"x"]
    assert len(log._blocks) == 2


def test_one_length_byte_a_message_and_a_block_only_when_the_last_is_full():
    log = StreamLog(block=1024)
    for _ in range(128):
        log.append(b"F\x00\x01\x02\x03\x00\x10")  # 8 bytes kept each: 128 fill 1024
    assert len(log._blocks) == 1
    log.append(b"F\x00\x01\x02\x03\x00\x10")
    assert len(log._blocks) == 2


def test_an_empty_message_is_not_kept_and_one_too_long_is_refused():
    log = StreamLog(block=64)
    log.append(b"")
    assert log.count == 0 and list(log) == []
    with pytest.raises(ValueError, match="stream message of 64 bytes"):
        log.append(bytes(64))                 # with its length byte it fits no block
    with pytest.raises(ValueError, match="stream message of 256 bytes"):
        StreamLog(block=1024).append(bytes(256))
    log.append(bytes(63))
    assert list(log) == [bytes(63)]


def test_clear_forgets_everything():
    log = StreamLog(block=16)
    for k in range(10):
        log.append(b"abcde")
    log.clear()
    assert log.count == 0 and log.nbytes == 0 and list(log) == []
    log.append(b"z")
    assert list(log) == [b"z"]


def test_a_message_is_copied_when_kept():
    log = StreamLog()
    b = bytearray(b"abc")
    log.append(b)
    b[0] = ord("z")
    assert list(log) == [b"abc"]


@given(st.lists(st.binary(min_size=1, max_size=200), max_size=60),
       st.integers(min_value=201, max_value=700))
def test_any_messages_come_back_as_kept(msgs, block):
    log = StreamLog(block=block)
    for m in msgs:
        log.append(m)
    assert list(log) == msgs and log.count == len(msgs)


# ---- between rounds to flash (StreamLog.spill) ---------------------------------------
class MemoryStore:
    """The storage port's stream file, in memory."""
    recording = True

    def __init__(self):
        self.file = None
        self.news = 0
        self.fail_write = False
        self.fail_read = False

    def link_new(self):
        self.file = bytearray()
        self.news += 1

    def link_add(self, blocks):
        if self.fail_write:
            raise OSError(28)                      # the flash is full
        for b in blocks:
            self.file.extend(b)

    def link_read(self, offset, buf):
        if self.fail_read or offset + len(buf) > len(self.file):
            raise OSError(5)
        buf[:] = self.file[offset:offset + len(buf)]


def _messages(n, seed=1):
    out = []
    x = seed
    for k in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(bytes([70 + k % 3]) + bytes((x >> s) & 0xFF for s in range(x % 40 + 1)))
    return out


def test_spilled_blocks_leave_the_heap_and_come_back_in_order():
    st = MemoryStore()
    log = StreamLog(block=64, store=st)
    want = _messages(300)
    for m in want[:200]:
        log.append(m)
    heap_blocks = len(log._blocks)
    written = log.spill()
    assert written == (heap_blocks - 1) * 64 == len(st.file) and st.news == 1
    assert len(log._blocks) == 1                   # the block being filled stays
    for m in want[200:]:
        log.append(m)
    assert log.spill() > 0 and st.news == 1        # appended to the same file
    assert list(log) == want and log.count == 300
    assert log.nbytes == sum(len(m) for m in want)


def test_nothing_to_spill_writes_nothing_and_a_new_game_replaces_the_file():
    st = MemoryStore()
    log = StreamLog(block=64, store=st)
    log.append(b"S1")
    assert log.spill() == 0 and st.file is None    # one block, still being filled
    for m in _messages(100):
        log.append(m)
    log.spill()
    log.clear()                                    # a new game
    want = _messages(100, seed=9)
    for m in want:
        log.append(m)
    log.spill()
    assert st.news == 2 and list(log) == want


def test_a_store_that_fails_a_write_keeps_the_stream_in_the_heap():
    st = MemoryStore()
    st.fail_write = True
    log = StreamLog(block=64, store=st)
    want = _messages(120)
    for m in want[:60]:
        log.append(m)
    assert log.spill() == 0 and log.spill_errors == 1
    st.fail_write = False
    for m in want[60:]:
        log.append(m)
    assert log.spill() == 0                        # not used again
    assert list(log) == want


def test_a_spilled_block_that_cannot_be_read_ends_the_stream_and_is_counted():
    st = MemoryStore()
    log = StreamLog(block=64, store=st)
    for m in _messages(100):
        log.append(m)
    log.spill()
    st.fail_read = True
    assert log.read(0) == (None, 0) and log.read_errors == 1
    st.fail_read = False
    assert len(list(log)) == 100                   # read again once the store answers


def test_the_file_storage_keeps_a_linked_stream_beside_the_recording(tmp_path):
    from firmware.hw.storage import FileStorage
    st = FileStorage(str(tmp_path / "s.json"))
    log = StreamLog(block=128, store=st)
    want = _messages(400, seed=4)
    for m in want:
        log.append(m)
    log.spill()
    assert (tmp_path / "s.lnk").stat().st_size == log._gone * 128 > 0
    assert not (tmp_path / "s.rec").exists()
    assert list(log) == want
