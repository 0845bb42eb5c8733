# The link probe: a small program for two boards joined by the link cable, run on both
# (role 0 asks, role 1 answers), to measure the cable and its edge stamps before the
# link protocol runs on it. Not part of the firmware: `make bench-link` and the tests in
# tests/pico/test_pico_link*.py put it on two emulated Picos; on real boards copy it with
# the firmware and call run(role) from the REPL of each.
#
# One exchange (NTP's four stamps, R43): the asker sends "Q" (t1 its start bit, on its
# clock), the answerer reads it (t2) and sends "R" (t3), the asker reads that (t4); the
# answerer then sends "D" with its t2, t3. Each stamp is taken twice: by the PIO edge
# capture (hw: the start bit on the wire) and in software (sw: ticks_us() where the loop
# writes or finds the byte), so the two ways can be compared. The asker prints one line
# per exchange:
#   S <k> <hw t1 t2 t3 t4> <sw t1 t2 t3 t4>
# A press on GP2 (a button, in the firmware's own button capture) on either board: the answerer sends its stamp in "P"; the
# asker converts it with its latest estimate (offset and drift fitted over the recent
# exchanges) and decides as R43 says (earlier wins; a tie within the bound):
#   P <own t> <peer t converted, half µs> <own t, half µs> <bound, half µs> <verdict 0|1|T>
# At the end: E <exchanges> <lost> <cpu p50> <cpu p99> <cpu max> <edge drops> <tx drops>
#   cpu: µs per pass of the loop spent in the link (readinto, write, edge stamps);
#   p50 and p99 to the 4 µs bucket's upper edge

import struct
import time
from array import array

import machine

from firmware.hw.capture import ticks_us, ticks_diff
from firmware.hw.buttons import start_capture
from firmware.hw.link_uart import UartLink, LinkEdges, QUIET_US

BUTTON = 2
GAP_US = 4 * QUIET_US       # idle line kept around every probe frame
ANSWER_US = 5000            # an exchange not answered within this is lost
FIT_N = 16
BUCKET_US = 4               # the link's CPU time per pass, as a histogram (a list of every
BUCKETS = 512               # pass ran out of heap in a few seconds)


def _fit(samples):
    # Least squares of offset (half µs) on the asker's time -> (m0, base, icpt, slope):
    # offset at time t ~ base + icpt + slope * ticks_diff(t, m0). The sums are ints
    # (exact) and the floats stay small: MicroPython's rp2 floats are 32-bit, which
    # cannot hold an offset of 6e8 half-µs to the µs.
    n = len(samples)
    m0 = samples[-1][0]
    base = samples[-1][1]
    sx = sy = sxx = sxy = 0
    for m, o in samples:
        x = ticks_diff(m, m0)
        y = o - base
        sx += x
        sy += y
        sxx += x * x
        sxy += x * y
    d = n * sxx - sx * sx
    slope = (n * sxy - sx * sy) / d if n > 1 and d else 0.0
    icpt = (sy - slope * sx) / n
    return m0, base, icpt, slope


def _note(hist, us, most):
    k = us // BUCKET_US
    hist[k if k < BUCKETS else BUCKETS - 1] += 1
    return us if us > most else most


def _pct(hist, frac):
    total = sum(hist)
    want = total * frac
    seen = 0
    for k in range(BUCKETS):
        seen += hist[k]
        if seen > want:
            return (k + 1) * BUCKET_US          # the bucket's upper edge
    return 0


def run(role, duration_ms=1000, period_ms=20):
    btn = start_capture(((BUTTON, 0, "A"),), 10_000, machine)
    edges = LinkEdges(machine)
    link = UartLink(machine)
    presses = []
    buf = bytearray(64)
    rx = b""
    starts = []
    cpu = array("I", [0] * BUCKETS)
    cpu_max = 0
    k = 0
    lost = 0
    samples = []
    bound2 = 0
    t_end = time.ticks_add(time.ticks_ms(), duration_ms)
    next_q = time.ticks_add(ticks_us(), 1000)
    # asker: hw/sw stamps of the exchange in flight; answerer: of the question answered
    hw = [None, None, None, None]
    sw = [0, 0, 0, 0]
    phase = 0               # asker: 0 idle, 1 Q sent, 2 R seen; answerer: 0 idle, 1 R sent
    t_phase = 0
    my_press = []
    peer_press = []
    pending_p = []
    tx_last = ticks_us()
    tx_s = []               # frame starts seen on each pin since the exchange began
    rx_s = []
    while time.ticks_diff(t_end, time.ticks_ms()) > 0:
        c0 = ticks_us()
        n = link.readinto(buf)
        now_rx = ticks_us()
        if n:
            rx += bytes(buf[:n])
        starts.clear()
        edges.frame_starts(starts)
        cpu_max = _note(cpu, ticks_diff(ticks_us(), c0), cpu_max)
        for t, name in starts:
            (tx_s if name == "TX" else rx_s).append(t)
        presses.clear()
        btn.drain(presses)
        for t, _p, _name, down in presses:
            if down:
                (my_press if role == 0 else pending_p).append(t)
        # Messages: Q, R (one byte), D (1 + 8), P (1 + 4).
        while rx:
            b = rx[0]
            if b == 0x51 and role == 1:                     # Q
                tx_s.clear()
                sw[1] = now_rx
                sw[2] = ticks_us()
                c0 = ticks_us()
                link.write(b"R")
                cpu_max = _note(cpu, ticks_diff(ticks_us(), c0), cpu_max)
                tx_last = ticks_us()
                phase = 1
                rx = rx[1:]
            elif b == 0x52 and role == 0 and phase == 1:    # R
                sw[3] = now_rx
                phase = 2
                rx = rx[1:]
            elif b == 0x44 and role == 0:                   # D
                if len(rx) < 17:
                    break
                t2, t3, s2, s3 = struct.unpack("<IIII", rx[1:17])
                rx = rx[17:]
                if phase == 2 and tx_s:
                    hw[0] = tx_s[0]
                    later = [t for t in rx_s if ticks_diff(t, hw[0]) > 0]
                    hw[3] = later[0] if later else None
                if phase == 2 and hw[0] is not None and hw[3] is not None:
                    hw[1] = t2
                    hw[2] = t3
                    sw[1] = s2
                    sw[2] = s3
                    print("S", k, hw[0], t2, t3, hw[3], sw[0], s2, s3, sw[3])
                    off2 = ticks_diff(t2, hw[0]) + ticks_diff(t3, hw[3])
                    rtt = ticks_diff(hw[3], hw[0]) - ticks_diff(t3, t2)
                    mid = time.ticks_add(hw[0], ticks_diff(hw[3], hw[0]) // 2)
                    samples.append((mid, off2))
                    if len(samples) > FIT_N:
                        samples.pop(0)
                    # half the round trip, plus one µs of stamp quantisation each side
                    bound2 = max(rtt, 0) + 4
                    k += 1
                phase = 0
                hw = [None, None, None, None]
            elif b == 0x50 and role == 0:                   # P
                if len(rx) < 5:
                    break
                peer_press.append(struct.unpack("<I", rx[1:5])[0])
                rx = rx[5:]
                if phase:                                   # its start bit may be taken for R's
                    tx_s.clear()
            else:
                rx = rx[1:]                                  # noise: resynchronise
        now = ticks_us()
        if role == 0:
            if phase == 0 and ticks_diff(now, next_q) >= 0 and ticks_diff(now, tx_last) >= GAP_US:
                hw = [None, None, None, None]
                tx_s.clear()
                rx_s.clear()
                sw[0] = ticks_us()
                c0 = ticks_us()
                link.write(b"Q")
                cpu_max = _note(cpu, ticks_diff(ticks_us(), c0), cpu_max)
                tx_last = ticks_us()
                phase = 1
                t_phase = now
                next_q = time.ticks_add(now, period_ms * 1000)
            elif phase and ticks_diff(now, t_phase) > ANSWER_US:
                lost += 1
                print("L", k)
                phase = 0
            while my_press and peer_press and samples:
                a = my_press.pop(0)
                p = peer_press.pop(0)
                m0, base, icpt, slope = _fit(samples)
                # the peer's stamp on our clock, minus ours (half µs)
                p2 = (2 * ticks_diff(p, a) - base) - (icpt + slope * ticks_diff(a, m0))
                verdict = "T" if abs(p2) <= bound2 else ("0" if p2 > 0 else "1")
                print("P", a, p, int(p2), bound2, verdict)
        else:
            if phase == 1 and rx_s and tx_s:
                hw[1] = rx_s[-1]
                later = [t for t in tx_s if ticks_diff(t, hw[1]) > 0]
                hw[2] = later[0] if later else None
            if phase == 1 and hw[1] is not None and hw[2] is not None \
                    and ticks_diff(now, tx_last) >= GAP_US:
                c0 = ticks_us()
                link.write(b"D" + struct.pack("<IIII", hw[1], hw[2], sw[1], sw[2]))
                cpu_max = _note(cpu, ticks_diff(ticks_us(), c0), cpu_max)
                tx_last = ticks_us()
                phase = 0
                hw = [None, None, None, None]
                tx_s.clear()
                rx_s.clear()
            elif phase == 1 and ticks_diff(now, tx_last) > ANSWER_US:
                phase = 0
                hw = [None, None, None, None]
                tx_s.clear()
                rx_s.clear()
            elif phase == 0 and len(rx_s) > 1:
                del rx_s[:-1]                               # only the latest question counts
            if pending_p and phase == 0 and ticks_diff(now, tx_last) >= GAP_US:
                link.write(b"P" + struct.pack("<I", pending_p.pop(0)))
                tx_last = ticks_us()
    print("E", k, lost, _pct(cpu, 0.5), _pct(cpu, 0.99), cpu_max, edges.dropped,
          link.dropped_tx)
    edges.stop()
    btn.stop()
    link.deinit()
