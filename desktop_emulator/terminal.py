"""The screen in a terminal: Unicode half blocks, two OLED rows per text row.

128x64 pixels become 32 lines of 128 characters: upper pixel only ``▀``, lower only
``▄``, both ``█``, neither a space. ``make demo`` uses it to show a CPU-vs-CPU game
at real speed, over SSH too: only the lines that changed are rewritten (ANSI cursor
moves), at most ``max_fps`` times a second.
"""

import os
import sys
import time

from desktop_emulator.display import H, W, pixel_rows

ROWS = H // 2
_HALF = str.maketrans("\x00\x01\x02\x03", " \u2580\u2584\u2588")

HIDE_CURSOR = "\x1b[?25l"
SHOW_CURSOR = "\x1b[?25h"
CLEAR = "\x1b[2J"
RESET = "\x1b[0m"


def half_block_lines(buf):
    """The frame as 32 strings of 128 characters from ' ▀▄█'."""
    rows = pixel_rows(buf)
    out = []
    for r in range(ROWS):
        upper = rows[(2 * r) * W:(2 * r + 1) * W]
        lower = rows[(2 * r + 1) * W:(2 * r + 2) * W]
        # Bytes are 0/1, so upper + 2 * lower is 0..3 in every byte: no carries.
        both = (int.from_bytes(upper, "big") + 2 * int.from_bytes(lower, "big")).to_bytes(W, "big")
        out.append(both.decode("latin-1").translate(_HALF))
    return out


def render_text(buf):
    return "\n".join(half_block_lines(buf))


class TerminalScreen:
    """Draws frames in place. ``draw(buf, status)`` rewrites only changed lines."""

    def __init__(self, out=None, columns=None, top=1):
        self.out = out if out is not None else sys.stdout
        self.columns = columns
        self.top = top
        self._lines = [None] * ROWS
        self._status = None
        self.started = False

    def start(self):
        self.out.write(HIDE_CURSOR + CLEAR)
        self.started = True

    def _clip(self, s):
        return s if self.columns is None or self.columns >= len(s) else s[:self.columns]

    def draw(self, buf, status=""):
        if not self.started:
            self.start()
        parts = []
        for r, line in enumerate(half_block_lines(buf)):
            if line != self._lines[r]:
                self._lines[r] = line
                parts.append("\x1b[%d;1H%s" % (self.top + r, self._clip(line)))
        if status != self._status:
            self._status = status
            parts.append("\x1b[%d;1H\x1b[2K%s" % (self.top + ROWS, self._clip(status)))
        if parts:
            self.out.write("".join(parts))
            self.out.flush()
        return len(parts)

    def stop(self, message=""):
        if self.started:
            self.out.write("\x1b[%d;1H%s\n" % (self.top + ROWS + 1, RESET + SHOW_CURSOR))
        if message:
            self.out.write(message + "\n")
        self.out.flush()


class QuitKeys:
    """While the demo runs, read the keyboard without a line buffer and without
    turning Ctrl-C into a signal: Ctrl-C, q or Esc end the demo cleanly. (A SIGINT
    would also reach `make`, which then reports "Interrupt" and fails.) Restores the
    terminal on exit. Where stdin is not a terminal, it only sleeps, and Ctrl-C is the
    usual KeyboardInterrupt."""

    QUIT = (b"\x03", b"q", b"Q", b"\x1b")

    def __init__(self, stdin=None):
        self.stdin = stdin if stdin is not None else sys.stdin
        self._saved = None
        self._fd = None

    def __enter__(self):
        try:
            import termios
            fd = self.stdin.fileno()
            if os.isatty(fd):
                self._saved = termios.tcgetattr(fd)
                new = termios.tcgetattr(fd)
                new[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG)
                new[6][termios.VMIN] = 0
                new[6][termios.VTIME] = 0
                termios.tcsetattr(fd, termios.TCSANOW, new)
                self._fd = fd
        except (ImportError, OSError, ValueError, AttributeError):
            self._fd = None
        return self

    def __exit__(self, *exc):
        if self._fd is not None and self._saved is not None:
            import termios
            try:
                termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)
            except OSError:
                pass
        return False

    def sleep(self, seconds):
        """Wait up to `seconds`; KeyboardInterrupt if a quit key was pressed."""
        if self._fd is None:
            time.sleep(seconds)
            return
        import select
        end = time.perf_counter() + seconds
        while True:
            left = end - time.perf_counter()
            r, _, _ = select.select([self._fd], [], [], max(0.0, left))
            if r:
                data = os.read(self._fd, 64)
                if any(q in data for q in self.QUIT):
                    raise KeyboardInterrupt
            if left <= 0 or not r:
                return
