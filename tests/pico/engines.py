"""What the engine tests share: the desktop emulator's command line run in-process,
the state line it prints, a recording's presses."""
import io

from desktop_emulator import cli
from desktop_emulator.clock import ticks_diff


def run_cli(*argv):
    out = io.StringIO()
    code = cli.main(list(argv), stdout=out)
    lines = out.getvalue().strip().splitlines()
    return code, lines


def state_of(lines):
    assert lines and lines[-1].startswith("state "), lines
    return lines[-1]


def presses(loaded):
    """A recording's presses: (µs after its start, player, button)."""
    return [(ticks_diff(t, loaded.start_t), p, b)
            for _f, evs in loaded.frames for t, p, b, down in evs if down]
