"""Out of heap in a linked game (R43): a MemoryError anywhere in a step of link play, on
either handheld, loses nothing of the game and takes nothing twice. Both end with the
same transcript, as with plenty of heap (tests/firmware/test_link_game.py).

Each test starves one place of one device on a fixed schedule (every `every`-th call
from `start` on fails `run` times in a row, so that a step of the app fails on its
retry too), for the whole game."""
import pytest

from desktop_emulator import framebuf
from firmware.link.play import PLAYING
from host.rig import BotHand
from host.simlink import LinkedPair, start_linked_game
from tests.firmware.test_link_game import finish, restart_mid_game


class Starve:
    """Wrap a callable so that some of its calls raise MemoryError before doing
    anything, as an allocation that finds no block would."""

    def __init__(self, fn, every, run=1, start=1):
        self.fn = fn
        self.every = every
        self.run = run
        self.start = start
        self.calls = 0
        self.failed = 0

    def __call__(self, *args):
        self.calls += 1
        k = self.calls - self.start
        if k >= 0 and k % self.every < self.run:
            self.failed += 1
            raise MemoryError("memory allocation failed")
        return self.fn(*args)


def _starve(obj, name, every, run=1, start=1):
    s = Starve(getattr(obj, name), every, run, start)
    setattr(obj, name, s)
    return s


# (which device, what fails): the places a step of link play allocates.
PLACES = [
    ("guest", "app._draw"),           # a step of the game, after its events, twice
    ("guest", "app._collect"),        # a step of the game, before its events, twice
    ("guest", "log.append"),          # the kept stream takes a message
    ("guest", "link.send"),           # the guest's presses and its T
    ("guest", "link.recv"),
    ("host", "app._draw"),
    ("host", "app._collect"),
    ("host", "log.append"),
    ("host", "link.send"),            # the stream, a Q
    ("host", "lp._record"),           # a record (E, F, a round's digest D) into the stream
]


def _target(dev, what):
    lp = dev.app.linkplay
    owner, name = what.split(".")
    return {"app": dev.app, "log": lp.log, "link": lp.link, "lp": lp}[owner], name


@pytest.mark.parametrize("who,what", PLACES, ids=["%s-%s" % p for p in PLACES])
def test_r43_out_of_heap_anywhere_in_a_linked_step_loses_nothing(who, what):
    pair = LinkedPair(framebuf, seed=3)
    host = start_linked_game(pair, seed=3)
    guest = pair.devs[1 - pair.devs.index(host)]
    dev = host if who == "host" else guest
    obj, name = _target(dev, what)
    run = 2 if name in ("_draw", "_collect") else 1
    s = _starve(obj, name, every=23, run=run, start=5)
    made = _count_presses(guest)
    a, b = finish(pair)
    assert s.failed > 20                                  # it did run out, often
    assert dev.app.mem_errors >= s.failed // run
    assert a.app.game.phase == b.app.game.phase == "over"
    # Every button event of the guest's reached the host's game, once.
    assert made[0] > 50 and host.app.linkplay.presses_in == made[0]
    # Every round's digest (at its start), and the game's at its end, reached the
    # guest (R43's check).
    last = host.app.game.round
    assert _digests(guest.app.linkplay.log) == list(range(1, last + 1)) + [last]


def _count_presses(dev):
    """How many button events the device's own player made in the game (from now)."""
    lp = dev.app.linkplay
    local = lp._local
    made = [0]

    def counted(now):
        out = local(now)
        made[0] += len(out)
        return out

    lp._local = counted
    return made


def _digests(log):
    """The round of each digest record (D) in a kept stream, in order: the stream's
    records read by their lengths (firmware/link/play.py)."""
    size = {69: 8, 70: 7, 72: 7, 68: 6, 87: 2}
    out = []
    for m in log:
        i = 0
        while i < len(m) and m[i] in size:
            if m[i] == 68:
                out.append((m[i + 1] << 8) | m[i + 2])
            i += size[m[i]]
    return out


REJOINS = [
    ("guest", "fresh", "app._draw"),   # the restarted guest steps the game so far at once
    ("guest", "fresh", "log.append"),
    ("authority", "fresh", "app._draw"),   # the restarted host, now the guest, catching up
    ("authority", "other", "lp._record"),  # the guest taking the game over (W, its frames)
]


@pytest.mark.parametrize("restarts,on,what", REJOINS, ids=["-".join(r) for r in REJOINS])
def test_r43_a_rejoin_out_of_heap_reaches_the_same_game(restarts, on, what):
    """A restarted handheld steps the whole game so far at once (the heaviest moment
    for its heap), and a guest whose host restarted takes the game over: out of heap
    then, both still end in the same game."""
    pair, fresh, other, me = restart_mid_game(restarts)
    pair.run_until(lambda: fresh.app.linkplay is not None, 5000)
    obj, name = _target(fresh if on == "fresh" else other, what)
    # (The takeover's first record is its W: that one fails.)
    s = _starve(obj, name, every=11, run=2 if name == "_draw" else 1,
                start=1 if name == "_record" else 3)
    lead = other.app.linkplay
    pair.run_until(lambda: fresh.app.linkplay.mode == PLAYING and
                   len(fresh.app.linkplay.log) == len(lead.log) and
                   not lead.link.pending() and lead.leading and
                   fresh.app.linkplay._msg is None, 60000)
    assert s.failed >= 1
    assert fresh.app.game.snapshot() == other.app.game.snapshot()
    assert fresh.app.linkplay.me == me
    pair.hands.append(BotHand(fresh.app, me, "hard", 99, fresh.pad))
    finish(pair)
    assert s.failed > 5
