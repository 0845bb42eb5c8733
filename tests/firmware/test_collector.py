"""The loop's garbage collections (firmware/collector.py): made with a chain of the
loaded modules, in an order where each comes after what it imports, so that MicroPython's
collector marks the heap once (the chain's why: docs/BENCHMARKS.md, make bench-gc; that
it does on the chip: tests/pico/test_pico_collector.py)."""
import ast
import gc
import sys

import pytest

from firmware import collector
from tests.helpers import ROOT

PACKAGES = ("shared_rules", "firmware")


def _device_modules():
    mods = {}
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = p
    return mods


def _imports(path, known):
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(node.module + "." + a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out & set(known)


def test_the_order_names_every_device_module_once():
    mods = _device_modules()
    order = collector._ORDER
    assert len(order) == len(set(order))
    assert set(order) == set(mods) - {"firmware.collector"}


def test_the_order_puts_every_module_after_the_modules_it_imports_and_packages_last():
    mods = _device_modules()
    rank = {m: i for i, m in enumerate(collector._ORDER)}
    packages = {m for m in mods if any(o.startswith(m + ".") for o in mods)}
    for m, path in mods.items():
        if m not in rank:
            continue
        for dep in _imports(path, mods) - packages - {m, "firmware.collector"}:
            assert rank[dep] < rank[m], "%s imports %s: it must come later" % (m, dep)
    for p in packages:
        for m in mods:
            if m.startswith(p + ".") and m in rank:
                assert rank[m] < rank[p], "package %s names %s: it must come later" % (p, m)


def _links(chain):
    out = []
    while chain is not None:
        chain, m = chain
        out.append(m)
    return out


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(collector, "_chain", None)
    monkeypatch.setattr(collector, "_count", -1)
    monkeypatch.setattr(collector, "_age", 0)
    seen = []
    monkeypatch.setattr(gc, "collect", lambda: seen.append(collector._chain))
    return seen


def test_a_collection_marks_the_loaded_modules_in_order_from_its_chain(fresh):
    collector.collect()
    assert len(fresh) == 1
    chain = fresh[0]
    # The outermost pair is marked first: the first loaded module of the order.
    want = [sys.modules[m] for m in collector._ORDER if m in sys.modules]
    assert _links(chain) == want
    assert sys.modules["firmware.collector"] not in _links(chain)


def test_the_chain_is_kept_while_the_modules_stay_and_made_again_when_they_change(
        fresh, monkeypatch):
    collector.collect()
    collector.collect()
    assert fresh[1] is fresh[0]                     # no ~3.5 ms of pairs again
    # A screen's module unloaded: the next collection's chain no longer holds it.
    name = next(m for m in reversed(collector._ORDER) if m in sys.modules and "." in m)
    gone = sys.modules[name]
    monkeypatch.delitem(sys.modules, name)
    collector.collect()
    assert fresh[2] is not fresh[1]
    assert gone not in _links(fresh[2]) and gone in _links(fresh[1])


def test_the_chain_is_made_again_every_refresh_collections_even_with_as_many_modules(
        fresh):
    for _ in range(collector._REFRESH):
        collector.collect()
    assert all(c is fresh[0] for c in fresh)
    collector.collect()
    assert fresh[-1] is not fresh[0] and _links(fresh[-1]) == _links(fresh[0])


def test_out_of_heap_for_the_chain_the_collection_is_made_all_the_same(fresh, monkeypatch):
    real = collector._links

    def no_heap(modules):
        raise MemoryError("memory allocation failed, allocating 16 bytes")
    monkeypatch.setattr(collector, "_links", no_heap)
    collector.collect()
    assert fresh == [None]
    monkeypatch.setattr(collector, "_links", real)
    collector.collect()                   # tried again at the next collection
    assert fresh[1] is not None
