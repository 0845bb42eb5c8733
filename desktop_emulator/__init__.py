"""The desktop emulator of the Spit handheld.

It runs ``firmware``'s app unchanged through desktop stand-ins for the hardware ports
(DESIGN.md "ports"):

=========  ===========================================================
module     what it is
=========  ===========================================================
clock      ``PerfClock`` (perf_counter_ns folded to 2**30-wrapping µs
           ticks) and ``SimClock`` (headless runs, replays, tests)
keyboard   the input port: key events -> stamped button events
display    the display port: ``fb`` + ``show()``, the window, the skin,
           PNG screenshots
sound      the sound port: the firmware's tunes as square waves
storage    the storage port: an atomic JSON file in the user's data dir
framebuf   a byte-exact pure-Python stand-in for MicroPython's framebuf
terminal   the screen drawn with Unicode half blocks (``make demo``)
session    the app wired to the ports; window/headless/terminal loops;
           replays; the ``--print-state`` line
screens    the key screens, reached by a real game on a simulated
           clock (golden PNGs, MicroPython parity, docs)
cli        ``python -m desktop_emulator``
pico/      ``--engine pico``: the real firmware on an emulated RP2040
           (rp2040js under Node, driven from Python)
=========  ===========================================================

See docs/EMULATOR.md.
"""

import os

# pygame-ce greets on import; the command line's output is for the game.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
