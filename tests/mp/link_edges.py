# Runs unchanged under CPython and MicroPython: the link's clock sync on edge stamps
# (R43) between two links on a simulated 1 Mbaud cable whose ends stamp frame starts
# (host/simlink.SimEdges), the clocks 400 ppm apart. The two interpreters must print the
# same lines (tests/mp/test_link_ties_mp.py).
from firmware.link.link import Link, LINKED
from host.simlink import SimWire, DeviceClock, SimEdges

MASK = 0x3FFFFFFF


def run(ppm, edges, ms=4000):
    w = SimWire(seed=5, baud=1000000, latency_us=1)
    clocks = [DeviceClock(w, 1000, ppm[0]), DeviceClock(w, 600000000, ppm[1])]
    for k in (0, 1):
        if edges[k]:
            w.ends[k].edges = SimEdges(w, clocks[k])
    links = [Link(w.ends[k], clocks[k]) for k in (0, 1)]
    auth = links[1]
    worst_err = 0
    worst_bound = 0
    honest = True
    n = 0
    for i in range(ms * 4):
        w.now += 250
        for lk in links:
            lk.poll()
        if i % 4:
            continue
        t = i // 4
        if t % 33 == 0:
            for lk in links:
                if lk.state == LINKED:
                    lk.send(b"f")
        for lk in links:
            while lk.recv() is not None:
                pass
        if t > 1500 and t % 10 == 0 and auth.sync.synced():
            here = clocks[1].ticks_us()
            err = ((auth.sync.to_local(clocks[0].ticks_us()) - here + 0x20000000) & MASK) \
                - 0x20000000
            err = -err if err < 0 else err
            b = auth.sync.bound_at(here)
            honest = honest and err <= b
            worst_err = err if err > worst_err else worst_err
            worst_bound = b if b > worst_bound else worst_bound
            n += 1
    print("edges", edges[0], edges[1], "ppm", ppm[0], ppm[1], "n", n, "honest", honest,
          "err", worst_err, "bound", worst_bound, "edge_samples", auth.edge_samples)


run((-200, 200), (True, True))
run((200, -200), (True, True))
run((-200, 200), (True, False))
