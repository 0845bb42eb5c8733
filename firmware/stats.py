# What the game-over screen tells each player: plays, races won (R20), fumbles (R41)
# and the mean time between their plays. Gaps are measured only within one stretch of play (a
# stall, a new round or a pause starts a new stretch), with ticks_diff (ticks wrap).

from shared_rules.arbiter import ticks_diff


class Stats:
    def __init__(self):
        self.plays = [0, 0]
        self.races = [0, 0]      # races won
        self.gap_ms = [0, 0]     # sum of gaps between consecutive plays, in ms
        self.gaps = [0, 0]
        self.fumbles = [0, 0]
        self.false_starts = [0, 0]   # R44; counted like fumbles, not saved between rounds
        self._last = [None, None]

    def play(self, p, t):
        last = self._last[p]
        if last is not None:
            d = ticks_diff(t, last)
            if d > 0:
                self.gap_ms[p] += d // 1000
                self.gaps[p] += 1
        self._last[p] = t
        self.plays[p] += 1

    def won_race(self, p):
        self.races[p] += 1

    def fumble(self, p):
        self.fumbles[p] += 1

    def false_start(self, p):
        self.false_starts[p] += 1

    def new_stretch(self):
        self._last[0] = None
        self._last[1] = None

    def mean_gap_ms(self, p):
        return self.gap_ms[p] // self.gaps[p] if self.gaps[p] else -1

    def to_list(self):
        return [self.plays[0], self.plays[1], self.races[0], self.races[1],
                self.gap_ms[0], self.gap_ms[1], self.gaps[0], self.gaps[1],
                self.fumbles[0], self.fumbles[1]]

    @classmethod
    def from_list(cls, v):
        """From to_list(); a list of 8 (saved before fumbles were counted) has none."""
        s = cls()
        if isinstance(v, list) and (len(v) == 8 or len(v) == 10):
            ok = True
            for x in v:
                if not isinstance(x, int) or isinstance(x, bool) or x < 0:
                    ok = False
            if ok:
                s.plays = [v[0], v[1]]
                s.races = [v[2], v[3]]
                s.gap_ms = [v[4], v[5]]
                s.gaps = [v[6], v[7]]
                if len(v) == 10:
                    s.fumbles = [v[8], v[9]]
        return s
