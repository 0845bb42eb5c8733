# Runs unchanged under CPython and MicroPython: a whole linked game (R43) between two
# firmware apps over the simulated cable (host/simlink.py), clocks 200 ppm apart and a
# noisy line, CPU hands on both devices; prints what both devices ended with. The two
# interpreters must print the same lines, and the two devices the same transcript
# (tests/mp/test_link_mp.py).
# usage: link_game.py SEED
import sys

try:
    import framebuf
except ImportError:
    from desktop_emulator import framebuf

from host.simlink import LinkedPair, start_linked_game
from shared_rules.transcript import describe


def main(seed):
    pair = LinkedPair(framebuf, seed=seed, ppm=(-200, 200))
    pair.wire.drop_per_k = 2
    pair.wire.flip_per_k = 2
    host = start_linked_game(pair, seed=seed)
    pair.run_until(lambda: all(d.app.screen_name() == "over" for d in pair.devs), 3000000)
    pair.step_ms(2000)               # what is still on the line arrives
    a, b = pair.devs
    print("authority", pair.devs.index(host), "players", a.app.linkplay.me, b.app.linkplay.me)
    print("same transcript", a.app.replay.records == b.app.replay.records,
          "records", len(a.app.replay.records))
    print("table", describe(a.app.game))
    print("same table", describe(a.app.game) == describe(b.app.game))
    print("diverged", a.app.linkplay.diverged, b.app.linkplay.diverged)
    print("late", host.app.linkplay.late, "presses in", host.app.linkplay.presses_in)
    print("resends", a.app.linkplay.link.resends, b.app.linkplay.link.resends)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
