# The title screen: the menu (CONTINUE of a saved game, START, the settings, HOW TO PLAY,
# REACTION LAB).
# After a while with no press it shows the attract mode (a CPU game) to whoever walks
# by; any press brings the menu back.

from shared_rules.arbiter import ticks_diff
from shared_rules.game import Rules
from firmware import sound, texts, savegame
from firmware.view import W
from firmware.screens import TITLE, HOWTO, ATTRACT, LAB, B, PAUSE_BUTTON, back

from shared_rules.compat import const

IDLE_US = const(20000000)     # this long without a press on the menu: attract mode
_SHOWN = const(5)             # menu lines on the screen at a time (medium font)

MODE_NAMES = ("2 PLAYERS", "VS CPU EASY", "VS CPU NORMAL", "VS CPU HARD")
HINT = "A: NEXT  B: CHOOSE"

# Menu items.
CONTINUE = const(0)
MODE = const(1)
RULES = const(2)
FLIP = const(3)
FUMBLE = const(4)
SOUND = const(5)
HOWTO_ITEM = const(6)
START = const(7)
SIGNAL = const(8)
LINK = const(9)
LAB_ITEM = const(10)
_SETTINGS = (MODE, RULES, FLIP, FUMBLE, SIGNAL, SOUND)


class TitleScreen:
    kind = TITLE

    def __init__(self, app):
        self.app = app
        self.sel = 0
        self.since = 0          # the last press (or arrival): the attract mode waits

    def enter(self, t):
        self.sel = 0
        self.since = t

    def items(self):
        out = []
        if self.app.saved is not None:
            out.append(CONTINUE)
        # START first: the obvious first press starts a game (a saved game's CONTINUE
        # comes before it).
        for it in (START, MODE, RULES, FLIP, FUMBLE, SIGNAL, SOUND, HOWTO_ITEM, LAB_ITEM):
            out.append(it)
        if getattr(self.app.ports, "link", None) is not None:
            out.insert(out.index(START) + 1, LINK)    # a cable port: play on two handhelds
        return out

    def text(self, item):
        app = self.app
        s = app.settings
        if item == CONTINUE:
            # The saved game's own seats, not the menu's mode: CONTINUE resumes it.
            return "CONTINUE " + seats_name(app.saved["cpu"])
        if item == MODE:
            return MODE_NAMES[s["mode"]]
        if item == RULES:
            return "POINTS GAME" if s["points"] else "STANDARD GAME"
        if item == FLIP:
            return "MANUAL FLIP" if s["flip"] else "AUTO FLIP"
        if item == FUMBLE:
            return "FUMBLE " + texts.fumble_time(s["fumble"])
        if item == SIGNAL:
            return "SLAP SIGNAL ON" if s["signal"] else "SLAP SIGNAL OFF"
        if item == SOUND:
            return "SOUND ON" if s["sound"] else "SOUND OFF"
        if item == HOWTO_ITEM:
            return "HOW TO PLAY"
        if item == LINK:
            return "LINK PLAY"
        if item == LAB_ITEM:
            return "REACTION LAB"
        return "START"

    def press(self, t, p, code):
        if code == PAUSE_BUTTON:
            return
        app = self.app
        self.since = t
        items = self.items()
        n = len(items)
        app.touch()
        if code == B:
            self._choose(items[self.sel % n], t)
            return
        if back(code):
            self.sel = (self.sel - 1) % n
        else:
            self.sel = (self.sel + 1) % n
        app.want(sound.CLICK)

    def _choose(self, item, t):
        app = self.app
        s = app.settings
        app.want(sound.CLICK)
        if item == MODE:
            s["mode"] = (s["mode"] + 1) % savegame.MODES
        elif item == RULES:
            s["points"] ^= 1
        elif item == FLIP:
            s["flip"] ^= 1
        elif item == FUMBLE:
            s["fumble"] = savegame.next_fumble(s["fumble"])
        elif item == SIGNAL:
            s["signal"] ^= 1
        elif item == SOUND:
            s["sound"] ^= 1
        if item in _SETTINGS:
            app.save_settings()
        elif item == HOWTO_ITEM:
            app.go(HOWTO, t)
        elif item == LINK:
            app.link_play(t)
        elif item == LAB_ITEM:
            app.go(LAB, t)
        elif item == START:
            rules = Rules(points=bool(s["points"]), manual_flip=bool(s["flip"]),
                          target=app.target)
            cpu = (None, s["mode"]) if s["mode"] else (None, None)
            app.new_series()
            app.start_game(t & 0x3FFFFFFF, rules, cpu, t)
        elif item == CONTINUE:
            sv = app.saved
            app.new_series()
            app.start_game(sv["game"].seed, sv["game"].rules, sv["cpu"], t,
                           snapshot=sv["game"].snapshot(), stats=sv["stats"])

    def tick(self, now):
        if ticks_diff(now, self.since) >= IDLE_US:
            self.app.go(ATTRACT, now)
        return False

    def draw(self, view, key):
        """Title and menu, upright (whoever sets up the game reads it), in the medium
        font read at arm's length. Five items show at a time; the list scrolls to keep
        the selected one in view, with a mark where more items are; the buttons' hint
        at the foot."""
        if not view.begin_text(TITLE, key):
            return False
        app = self.app
        items = self.items()
        n = len(items)
        sel = self.sel % n
        view.big_centred("SPIT", 0, 1, 0)
        top = 0
        if n > _SHOWN:
            top = min(max(sel - 2, 0), n - _SHOWN)
        y = 12
        for k in range(top, min(n, top + _SHOWN)):
            fg = 1
            if k == sel:
                view.fill_rect(0, y - 1, W - 6, 9, 1, 0)
                fg = 0
            view.med(self.text(items[k]), 3, y, fg, 0, W - 7)
            y += 9
        if top > 0:
            _arrow(view, 12, -1)
        if top + _SHOWN < n:
            _arrow(view, 50, 1)
        view.med_centred(app.note or app.hint or HINT, 57, 1, 0)
        return True


def seats_name(cpu):
    """Who plays a game with these seats ([level or None] * 2), as the menu says it."""
    if cpu[0] and cpu[1]:
        return "CPU VS CPU"
    lv = cpu[0] or cpu[1]
    return MODE_NAMES[lv] if lv else MODE_NAMES[0]


def _arrow(view, y, d):
    # A small triangle at the right edge pointing up (d=-1) or down (d=1): more items.
    for k in range(3):
        view.hline(W - 5 + k, y + (k if d > 0 else 2 - k), 5 - 2 * k, 1, 0)


SCREEN = TitleScreen
