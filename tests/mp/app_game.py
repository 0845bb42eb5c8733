# Runs unchanged under CPython and MicroPython: one game of the firmware app on fake
# ports (a scripted player 0 through the input port, the CPU seat as player 1), then
# prints digests of the final table, the recording and the screen. The two
# interpreters must print the same lines (tests/firmware/test_app_replay.py).
# usage: app_game.py SEED LEVEL
import sys
from binascii import crc32

try:
    import framebuf
except ImportError:
    from desktop_emulator import framebuf

from host.rig import Rig
from firmware.app import OVER_SCREEN
from shared_rules.game import Rules
from shared_rules.transcript import describe


def main(seed, level):
    r = Rig(framebuf, start=(1 << 30) - 20000000 + seed)
    r.frames(2)
    r.app.start_game(seed, Rules(points=seed % 2 == 1), (None, level), r.clock.now)
    r.add_bots(("hard", "hard"), seed=seed, players=(0,))
    n = r.until(lambda a: a.screen == OVER_SCREEN)
    a = r.app
    print("frames %d busy %d shows %d pages %d bytes %d" % (n, a.busy_frames, a.shows, a.pages_sent, a.bytes_sent))
    print("table " + describe(a.game))
    print("stats %r" % (a.stats.to_list(),))
    c = 0
    for rec in a.replay.records:                   # line by line: format() needs 40 KB
        c = crc32(repr(rec).encode(), c)
    print("replay %d %08x" % (len(a.replay.records), c & 0xFFFFFFFF))
    print("screen %08x" % (crc32(r.disp.buf) & 0xFFFFFFFF))
    print("sounds %d %s" % (len(r.sound.played), " ".join(r.sound.played[-5:])))


main(int(sys.argv[1]), int(sys.argv[2]))
