# The arbiter of a linked game (R43), in its own module so that a host replaying a
# linked game's recording gets it without the rest of link play.

from shared_rules.arbiter import Arbiter, _player


class LinkArbiter(Arbiter):
    """The remote player's presses carry the bound of their converted stamps (R43),
    which the owner sets before each frame (`remote`, `bound_us`). note(player, us),
    if given, hears each change of the bound a press was queued with (a bound of 0
    names nobody), so the recording can hold it: replayed, the same presses tie."""

    def __init__(self, game, window_us, remote, note=None):
        Arbiter.__init__(self, game, window_us)
        self.remote = remote
        self.bound_us = 0
        self.note = note
        self._noted = 0          # the bound last told to note(), and whose it was
        self._noted_p = remote

    def reach_us(self, player):
        # A press of the remote player will carry the bound in force (R43).
        reach = Arbiter.reach_us(self, player)
        if player == self.remote and self.bound_us > reach:
            reach = self.bound_us
        return reach

    def press(self, action, t_us, bound_us=0):
        if not bound_us and _player(action) == self.remote:
            bound_us = self.bound_us
            if self.note is not None and (bound_us != self._noted or
                                          (bound_us and self.remote != self._noted_p)):
                self._noted = bound_us
                self._noted_p = self.remote
                self.note(self.remote, bound_us)
        Arbiter.press(self, action, t_us, bound_us)
