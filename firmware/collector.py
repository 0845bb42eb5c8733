# The game's own garbage collections (the loop's, between frames), made from this module
# so that the collector marks the heap in a shallow order: on the chip a third to a half
# less pause wherever its heap would otherwise be marked twice.
#
# MicroPython marks live objects depth first with a stack of 64 entries (the stock rp2
# build). An object whose unmarked children do not fit on it is marked without them,
# and once marking is done every marked block of the heap is scanned again to find
# them: the pause more than doubles (make bench-gc, docs/BENCHMARKS.md). The stack fills
# along paths through wide objects, each pushed whole while the ones above it wait: a
# module's globals, a class's methods (each method leads to its module's globals), the
# app's attributes. The first roots the collector scans are the globals of the module
# whose code called gc.collect(): this module's, holding only a chain of pairs (rest,
# module), one per loaded module. Each module's code and data is then marked with one
# entry beneath it (the next pair), and in _ORDER, what a module imports before it, so
# that what it reaches of other modules is marked already when its turn comes.

import gc
import sys

from shared_rules.compat import const

# Every device module after the ones it imports, packages last (their globals name
# their submodules); tests/firmware/test_collector.py checks it against the sources.
_ORDER = (
    "firmware.crc", "firmware.hw.storage", "shared_rules.cards", "shared_rules.compat",
    "shared_rules.arbiter", "shared_rules.rng", "shared_rules.game",
    "shared_rules.conduct", "firmware.savegame", "firmware.house",
    "firmware.link.arbiter", "firmware.font", "firmware.view", "firmware.link.face",
    "firmware.link.frame", "firmware.link.sync", "firmware.link.link",
    "firmware.link.stream", "firmware.link.wake", "shared_rules.pad",
    "shared_rules.bot", "firmware.seats", "firmware.sound", "firmware.texts",
    "shared_rules.match", "firmware.table", "firmware.link.play", "shared_rules.replay",
    "firmware.records_read", "firmware.records", "firmware.screens.game",
    "firmware.stats", "firmware.app", "firmware.boards.pico", "firmware.hw.capture",
    "firmware.hw.pio_programs", "firmware.hw.buttons_pio", "firmware.hw.buttons",
    "firmware.hw.buzzer", "firmware.hw.display", "firmware.hw.link_uart",
    "firmware.hw.board", "firmware.hw.clock", "firmware.hw.jumper", "firmware.lab",
    "firmware.lab_store", "firmware.link.port", "firmware.selftest", "firmware.main",
    "firmware.screens.attract", "firmware.screens.howto", "firmware.screens.lab",
    "firmware.screens.over", "firmware.screens.pause", "firmware.screens.rematch",
    "firmware.screens.summary", "firmware.screens.title", "shared_rules.selfplay",
    "shared_rules.transcript", "firmware.screens", "firmware.link", "firmware.hw",
    "firmware.boards", "firmware", "shared_rules",
)

_REFRESH = const(16)       # collections at most between two chains (see collect)

_chain = None
_count = -1                    # len(sys.modules) when the chain was made
_age = 0                       # collections since


def collect():
    """A full collection, every loaded module marked from its own link of the chain.
    The chain costs ~3.5 ms to make on the chip, so it is kept while the same number of
    modules is loaded, and made again at least every _REFRESH collections: a module
    unloaded and another loaded in between is held until then, the new one marked
    without its link (as every module is without this)."""
    global _chain, _count, _age
    modules = sys.modules
    if len(modules) != _count or _age >= _REFRESH:
        _chain = None                  # (what the old one held may go in this collection)
        _age = 0
        try:
            _chain = _links(modules)
            _count = len(modules)
        except MemoryError:            # out of heap for ~1 KB of pairs: a plain collection
            _count = -1
    _age += 1
    gc.collect()


def _links(modules):
    # Made backwards: the last pair made is marked first. A module not in _ORDER (a
    # driver's) has no link: the collector reaches it from sys.modules, last.
    chain = None
    order = _ORDER
    for k in range(len(order) - 1, -1, -1):
        m = modules.get(order[k])
        if m is not None:
            chain = (chain, m)
    return chain
