#!/usr/bin/env python3
"""Rewrite the glyph bytes of firmware/font.py from the art in its comments.

    python tools/gen_font.py            # rewrite firmware/font.py in place
    python tools/gen_font.py --check    # exit 1 if the bytes do not match the art

The art is the source: each section ("# BIG (10 rows):", "# SMALL (5 rows):",
"# MED (7 rows):", "# SUIT (5 rows) ...") holds blocks of glyphs, a line of quoted labels, then one line
per row, '#' for a lit pixel. A glyph's columns become bytes (bit y = row y, as
MONO_VLSB); BIG takes two bytes a column. tests/firmware/test_view_screens.py checks that the
bytes are the art.
"""
import re
import sys
from pathlib import Path

FONT = Path(__file__).resolve().parent.parent / "firmware" / "font.py"


def parse(text, section):
    """{label: [row strings]} in the order the labels appear."""
    start = text.index("# %s (" % section)
    lines = text[start:].split("\n")[1:]
    glyphs = {}
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        head = lines[i][4:]
        if not head.strip():
            i += 1
            continue
        if not head.lstrip().startswith(("'", '"')):
            break
        labels = [(m.start(), m.group(0)[1:-1]) for m in re.finditer(r"'[^']*'|\"[^\"]*\"", head)]
        body = []
        i += 1
        while i < len(lines) and lines[i].startswith("#   ") and lines[i][4:].strip():
            body.append(lines[i][4:])
            i += 1
        for pos, ch in labels:
            glyphs[ch] = [(r[pos:].split(" ")[0] if pos < len(r) else "") for r in body]
    return glyphs


def columns(rows):
    w = len(rows[0])
    if any(len(r) != w for r in rows):
        raise ValueError("ragged glyph: %r" % (rows,))
    out = []
    for x in range(w):
        v = 0
        for y, r in enumerate(rows):
            if r[x] == "#":
                v |= 1 << y
        out.append(v)
    return out


def _bytes_literal(data, indent="    "):
    parts = ["\\x%02x" % b for b in data]
    lines = []
    for k in range(0, len(parts), 20):
        lines.append("%sb'%s'" % (indent, "".join(parts[k:k + 20])))
    return "(\n" + "\n".join(lines) + "\n)"


def build(text):
    out = {}
    for section, prefix, two in (("BIG", "BIG", True), ("SMALL", "SMALL", False),
                                 ("MED", "MED", False)):
        glyphs = parse(text, section)
        chars = "".join(glyphs)
        ofs, widths, data = [], [], []
        col = 0
        for ch in chars:
            cols = columns(glyphs[ch])
            ofs.append(col)
            widths.append(len(cols))
            col += len(cols)
            for v in cols:
                data += [v & 0xFF, v >> 8] if two else [v]
        out[prefix + "_CHARS"] = repr(chars)
        out[prefix + "_OFS"] = repr(bytes(ofs))
        out[prefix + "_W"] = repr(bytes(widths))
        out[prefix + "_COLS"] = _bytes_literal(data)
    suits = parse(text, "SUIT")
    data = []
    for ch in "CDHS":
        data += columns(suits[ch])
    out["SUIT_COLS"] = _bytes_literal(data)
    return out


def rewrite(text):
    for name, value in build(text).items():
        pat = re.compile(r"^%s = (\([^)]*\)|[^\n]*)$" % name, re.M)
        if not pat.search(text):
            raise ValueError("no %s in font.py" % name)
        text = pat.sub(lambda m: "%s = %s" % (name, value), text, count=1)
    return text


def main(argv):
    text = FONT.read_text()
    new = rewrite(text)
    if "--check" in argv:
        if new != text:
            print("firmware/font.py: the bytes do not match the art (run tools/gen_font.py)")
            return 1
        return 0
    FONT.write_text(new)
    print("rewrote %s" % FONT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
