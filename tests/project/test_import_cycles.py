"""No import circles among the device's modules (firmware/, shared_rules/).

A module that imports one that imports it back half-works: whichever is imported first
sees the other half-built, so which names exist depends on who imported first. Every
import counts, also those inside functions (the device imports lazily to save RAM, and
a lazy import back is still a circle: the code only works while the first import has
already finished)."""
import ast
from pathlib import Path

from tests.helpers import ROOT

PACKAGES = ("firmware", "shared_rules")


def modules(root):
    """{dotted name: path} of every .py under the packages (a package is its __init__)."""
    out = {}
    for pkg in PACKAGES:
        for p in sorted((Path(root) / pkg).rglob("*.py")):
            if "__pycache__" in p.parts:
                continue
            parts = list(p.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = p
    return out


def imports_of(name, path, known):
    """The known modules `name` imports anywhere in its file (top level or in a function)."""
    is_pkg = path.name == "__init__.py"
    got = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known:
                    got.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_pkg else name.split(".")[:-1]
                here = here[:len(here) - (node.level - 1)]
                base = ".".join(here + ([base] if base else []))
            for a in node.names:
                sub = base + "." + a.name
                if sub in known:          # from pkg import module
                    got.add(sub)
                elif base in known:       # from module import name
                    got.add(base)
    got.discard(name)
    return got


def graph(root=ROOT):
    known = modules(root)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(g):
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def test_no_module_of_firmware_or_shared_rules_imports_itself_back():
    found = cycles(graph())
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_graph_sees_imports_inside_functions_and_from_packages():
    g = graph()
    assert "firmware.hw.buttons_pio" in g["firmware.hw.buttons"]   # inside start_capture()
    assert "firmware.hw.board" in g["firmware.selftest"]            # inside main()
    assert "firmware.hw" in g["firmware.hw.buttons_pio"]            # from firmware.hw import chip_name
    assert "shared_rules.arbiter" in g["firmware.hw.capture"]


def test_a_circle_through_a_function_local_import_is_found(tmp_path):
    (tmp_path / "firmware" / "hw").mkdir(parents=True)
    (tmp_path / "shared_rules").mkdir()
    (tmp_path / "firmware" / "__init__.py").write_text("")
    (tmp_path / "firmware" / "hw" / "__init__.py").write_text("")
    (tmp_path / "firmware" / "hw" / "a.py").write_text("from firmware.hw.b import x\n")
    (tmp_path / "firmware" / "hw" / "b.py").write_text(
        "x = 1\n\ndef f():\n    from . import c\n")
    (tmp_path / "firmware" / "hw" / "c.py").write_text("import firmware.hw.a\n")
    (tmp_path / "shared_rules" / "d.py").write_text("import firmware.hw.a\n")
    assert cycles(graph(tmp_path)) == [["firmware.hw.a", "firmware.hw.b", "firmware.hw.c"]]
