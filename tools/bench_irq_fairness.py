#!/usr/bin/env python3
"""Who wins a close race? A model of the rp2 port's GPIO interrupt dispatch.

Prints a table (a benchmark, not a test):  python tools/bench_irq_fairness.py [--races N]

The model (MicroPython rp2, ports/rp2/machine_pin.c gpio_irq): when the GPIO interrupt
is taken, the pending pins are serviced one by one in ascending pin order, one Python
hard-IRQ handler call each, roughly HANDLER_US apiece. The first press finds the CPU at
a random point of other work (the bounce of an earlier edge, another handler, a masked
section), so dispatch starts LATENCY_US = U(1, HANDLER_US + 1) after it. Two players
press GAP_US = U(0, 40) apart, either one first.

  naive : one handler per pin, each stamps ticks_us() for ITS OWN pin when serviced.
          Both presses pending at dispatch -> the lower pin is stamped first and wins,
          even when it was pressed later.
  ours  : firmware/hw/buttons.py ButtonCapture (the real class, fake `machine`): the
          first handler stamps once and reads GPIO_IN once, seeing every press that has
          happened by then; those get the SAME stamp, a tie (R21), broken by alternating
          priority (the loser of the previous tie wins the next; first tie by the seed).

Every press is decided by stamp: the earlier stamp wins. "later won" counts races won by
the player who pressed second; a fair scheme keeps each player's share at 50% whichever
pin they sit on.
"""

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.hw.buttons import ButtonCapture  # noqa: E402
from firmware.hw.capture import ticks_diff30  # noqa: E402

HANDLER_US = 20  # one MicroPython hard-IRQ handler call on an RP2040 at 125 MHz
STAMP_AT = 4  # us from handler start to its ticks_us() call
READ_AT = 6  # us from handler start to its mem32[GPIO_IN] read (ours)
MAX_GAP = 40
LOW_PIN, HIGH_PIN = 2, 14  # the board's P0_A and P1_A
PERIOD = 1 << 30
RACE_EVERY = 100_000  # us between races (presses released and settled in between)


class FakeBoard:
    """The fake `machine` the real ButtonCapture is started with."""

    def __init__(self):
        self.reg = 0x3FFFFFFF
        self.now = 0
        self.handlers = {}
        self.pins = {}
        board = self

        class Pin:
            IN, PULL_UP, IRQ_FALLING, IRQ_RISING = 0, 1, 4, 8

            def __init__(self, gpio, mode=-1, pull=-1):
                self.gpio = gpio
                board.pins[gpio] = self

            def irq(self, handler=None, trigger=12, hard=False):
                board.handlers[self.gpio] = handler

        class Mem:
            def __getitem__(self, addr):
                return board.reg

        class Machine:
            pass

        Machine.Pin = Pin
        Machine.mem32 = Mem()
        self.machine = Machine

    def ticks(self):
        return self.now % PERIOD

    def fire(self, gpio, stamp_at, levels):
        self.now = stamp_at
        self.reg = levels
        self.handlers[gpio](self.pins[gpio])


def levels_at(t, presses):
    """GPIO_IN at time t: a pressed button reads 0."""
    v = 0x3FFFFFFF
    for pin, tp in presses:
        if tp <= t:
            v &= ~(1 << pin)
    return v


def dispatch(presses, t_first, latency, on_handler):
    """rp2 gpio_irq: service pending pins lowest first, HANDLER_US each, until none left."""
    done = set()
    now = t_first + latency
    while len(done) < len(presses):
        pending = sorted(pin for pin, tp in presses if tp <= now and pin not in done)
        if not pending:  # idle until the next edge; then a short entry latency
            now = min(tp for pin, tp in presses if pin not in done) + 1
            continue
        pin = pending[0]
        done.add(pin)  # acknowledged as its handler is called
        on_handler(pin, now)
        now += HANDLER_US


class TieBreak:
    """R21: alternating priority; the first tie of the game goes by the seed."""

    def __init__(self, rng):
        self.next = rng.randrange(2)

    def __call__(self):
        w = self.next
        self.next = 1 - w
        return w


def run(scheme, p0_pin, p1_pin, races, seed):
    rng = random.Random(seed)
    pin_of = (p0_pin, p1_pin)
    board = FakeBoard()
    cap = None
    if scheme == "ours":
        buttons = ((p0_pin, 0, "A"), (p1_pin, 1, "A"))
        cap = ButtonCapture(buttons, size=16, ticks_us=board.ticks)
        cap.start(board.machine)
    tie = TieBreak(rng)
    wins = [0, 0]
    ties = later_won = 0
    by_gap = {}  # gap bucket -> [races, lower-pin wins]
    t0 = 1_000_000
    for _ in range(races):
        gap = rng.randint(0, MAX_GAP)
        first = rng.randrange(2)
        tp = [0, 0]
        tp[first] = t0
        tp[1 - first] = t0 + gap
        presses = [(pin_of[0], tp[0]), (pin_of[1], tp[1])]
        latency = rng.randint(1, HANDLER_US + 1)
        stamp = [None, None]

        if scheme == "naive":

            def handler(pin, start):
                stamp[pin_of.index(pin)] = start + STAMP_AT

            dispatch(presses, t0, latency, handler)
        else:

            def handler(pin, start):
                board.fire(pin, start + STAMP_AT, levels_at(start + READ_AT, presses))

            dispatch(presses, t0, latency, handler)
            for t_us, player, _button, down in cap.drain(poll=False):
                if down:
                    stamp[player] = t_us
            # Release both, let the lock-outs run out, and discard the releases.
            board.now = t0 + RACE_EVERY // 2
            board.reg = 0x3FFFFFFF
            for pin in sorted(pin_of):
                board.fire(pin, board.now, board.reg)
            board.now = t0 + RACE_EVERY - 1
            cap.drain()

        d = ticks_diff30(stamp[1] % PERIOD, stamp[0] % PERIOD)
        if d == 0:
            ties += 1
            w = tie()
        else:
            w = 0 if d > 0 else 1
        wins[w] += 1
        if gap and w != first:
            later_won += 1
        lower = 0 if p0_pin < p1_pin else 1
        b = by_gap.setdefault(min(gap // 10, 3), [0, 0])
        b[0] += 1
        b[1] += w == lower
        t0 += RACE_EVERY
    return {"wins": wins, "ties": ties, "later_won": later_won, "by_gap": by_gap,
            "dropped": cap.dropped if cap else 0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--races", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    n = a.races
    print("rp2 GPIO IRQ dispatch model: %d races per row, gap U(0,%d) us, handler %d us, "
          "dispatch latency U(1,%d) us" % (n, MAX_GAP, HANDLER_US, HANDLER_US + 1))
    print()
    head = "%-6s %-18s %8s %8s %11s %7s %9s %8s" % (
        "scheme", "layout", "P0 wins", "P1 wins", "lower pin", "ties", "later won", "bias")
    print(head)
    print("-" * len(head))
    rows = []
    for scheme in ("naive", "ours"):
        for p0, p1 in ((LOW_PIN, HIGH_PIN), (HIGH_PIN, LOW_PIN)):
            r = run(scheme, p0, p1, n, a.seed)
            w0, w1 = r["wins"]
            lower = w0 if p0 < p1 else w1
            layout = "P0 GP%d, P1 GP%d" % (p0, p1)
            bias = 100.0 * lower / n - 50.0
            print("%-6s %-18s %7.1f%% %7.1f%% %10.1f%% %6.1f%% %8.1f%% %+7.1f" % (
                scheme, layout, 100.0 * w0 / n, 100.0 * w1 / n, 100.0 * lower / n,
                100.0 * r["ties"] / n, 100.0 * r["later_won"] / n, bias))
            rows.append((scheme, layout, r))
            assert r["dropped"] == 0
    print()
    print("bias = lower pin's win share - 50 (percentage points); 0 is fair.")
    print("ties = presses caught by one interrupt (same stamp, R21); alternating priority")
    print("hands half of them to the player who pressed second, whichever pin they use;")
    print("naive stamping hands all of them to the lower pin.")
    print()
    print("lower pin's win share by gap between the presses:")
    head = "%-6s %-18s" % ("scheme", "layout") + "".join(
        "%10s" % ("%d-%d us" % (10 * k, 10 * k + 9) if k < 3 else "30-40 us") for k in range(4))
    print(head)
    print("-" * len(head))
    for scheme, layout, r in rows:
        cells = "".join("%9.1f%%" % (100.0 * r["by_gap"][k][1] / r["by_gap"][k][0])
                        for k in range(4))
        print("%-6s %-18s%s" % (scheme, layout, cells))


if __name__ == "__main__":
    main()
