# The menu listens on the cable: a handheld that restarted mid-game (or whose player
# has not chosen LINK PLAY yet) joins link play by itself when the other handheld
# calls. Only a whole, checked HELLO frame of this version and these rules counts, so a
# floating RX line or a peer at another baud rate (garbage) never takes the menu away,
# nor does a peer this handheld cannot play with, nor one its player has just left
# (`declined`: its id and start number; it counts again once it restarts).

from firmware.link import frame as F
from firmware.link.link import HELLO, VERSION, RULES_VERSION

from shared_rules.compat import const

_READS = const(4)


class Wake:
    def __init__(self):
        self.dec = F.Decoder()
        self._buf = bytearray(64)
        self._hello = False
        self.declined = None         # (uid, start number) of a peer the player left
        self.remembered = 0          # the start number the caller knows this device by

    def _frame(self, version, kind, seq, ack, raw, end):
        h = F.HEAD
        if kind != HELLO or version != VERSION or end - h < 10 or raw[h] != RULES_VERSION:
            return
        who = (bytes(raw[h + 10:end]), (raw[h + 5] << 8) | raw[h + 6])
        if who != self.declined:
            self._hello = True
            self.remembered = (raw[h + 7] << 8) | raw[h + 8]

    def heard(self, port):
        """Has a HELLO come over the cable since the last call? Never blocks."""
        self._hello = False
        for _ in range(_READS):
            n = port.readinto(self._buf)
            if not n:
                break
            self.dec.feed(self._buf, n, self._frame)
        return self._hello
