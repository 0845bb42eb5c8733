# Under the real MicroPython (tests/mp/test_link_mp.py): what the kept stream of a
# linked game (firmware/link/stream.py) costs the heap. 3,000 stream messages of 7
# bytes (a frame record each, as a long game sends) into a small heap: each append
# tried with the heap locked first, so the lines say which appends allocated (only
# those that opened a new block), how much heap the whole stream holds, and that every
# message comes back in order. Then (with a folder as argument) the same stream spilled
# to a file as between rounds: what the heap still holds, and all of it read back.
import gc
import sys

import micropython

from firmware.link.stream import StreamLog
from firmware.hw.storage import FileStorage

N = 3000


def message(k):
    return bytes((70, k >> 8 & 0xFF, k & 0xFF, 0, 0, 0, 16))


def main():
    gc.collect()
    before = gc.mem_alloc()
    log = StreamLog()
    allocated = 0
    refused_unchanged = True
    for k in range(N):
        m = message(k)
        count = log.count
        micropython.heap_lock()
        try:
            log.append(m)
            micropython.heap_unlock()
        except MemoryError:
            micropython.heap_unlock()
            if log.count != count:
                refused_unchanged = False
            allocated += 1
            log.append(m)
    gc.collect()
    held = gc.mem_alloc() - before
    print("messages", log.count, "bytes", log.nbytes)
    print("appends that allocated", allocated, "blocks", len(log._blocks))
    print("refused appends left the log unchanged", refused_unchanged)
    print("heap held", held, "per message x100", held * 100 // N)
    print("read back %d in order %s" % read_back(log))
    if len(sys.argv) > 1:
        spill(log, sys.argv[1])


def spill(log, folder):
    log.store = FileStorage(folder + "/s.json")
    gc.collect()
    before = gc.mem_alloc()
    written = log.spill()
    gc.collect()
    print("spilled", written, "heap blocks", len(log._blocks), "freed over 20000",
          before - gc.mem_alloc() > 20000)
    print("read back %d in order %s" % read_back(log), "errors", log.read_errors)


def read_back(log):
    k = 0
    same = True
    for m in log:
        if m != message(k):
            same = False
        k += 1
    return k, same


main()
