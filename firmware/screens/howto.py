# "How to play", from the menu: a few pages in the device's own words and font, with
# cards drawn as the game draws them. B: the next page (the last one goes back to
# the menu), A: the page before (the first one goes back to the menu). A menu-side
# screen: the app unloads it when it is left, words and all.

from firmware import sound, texts
from firmware.view import W, SLOT_PITCH
from firmware.screens import HOWTO, TITLE, B, PAUSE_BUTTON, back

HINT = "A: BACK  B: NEXT"
LAST_HINT = "A: BACK  B: DONE"

# One page a bytes constant (not a string: the text stays out of the interned
# strings, which are never freed): the heading, then up to five lines of the medium
# font (three above a row of cards). "%s" is the fumble time of the settings.
PAGES = (
    b"HOW TO PLAY\n"
    b"SPIT IS A RACE FOR TWO.\n"
    b"NO TURNS: BOTH PLAY AT\n"
    b"ONCE, AS FAST AS YOU SEE.\n"
    b"FIRST TO GET RID OF ALL\n"
    b"THEIR CARDS WINS.",
    b"WHAT FITS\n"
    b"PLAY A CARD ONE ABOVE OR\n"
    b"ONE BELOW A PILE'S TOP:\n"
    b"6 OR 8 ON A 7.\n"
    b"SUITS NEVER MATTER.",
    b"THE WRAP\n"
    b"A SITS BETWEEN K AND 2:\n"
    b"BOTH FIT ON IT.",
    b"YOUR BUTTONS\n"
    b"A: LIFT YOUR NEXT CARD.\n"
    b"B: PLAY IT ONTO A PILE\n"
    b"   IT FITS. NO FIT, BUT\n"
    b"   AN EMPTY SLOT? B MOVES\n"
    b"   THE CARD THERE.",
    b"LOOK, THEN PRESS\n"
    b"A B THAT FITS NOWHERE IS\n"
    b"A FUMBLE: YOUR BUTTONS\n"
    b"GO DEAD FOR %s.\n"
    b"BEATEN TO A PILE BY THE\n"
    b"OTHER? NO FUMBLE.",
    b"NOBODY CAN PLAY?\n"
    b"BOTH PRESS A OR B: SPIT!\n"
    b"A NEW CARD FROM EACH\n"
    b"SPIT STACK (THE CARD\n"
    b"BACK ON YOUR RIGHT)\n"
    b"TURNS UP ONTO THE PILES.",
    b"SLAP!\n"
    b"A LAST CARD ENDS THE\n"
    b"ROUND. AT THE SLAP! SIGN,\n"
    b"SLAP THE SMALLER PILE:\n"
    b"A = LEFT, B = RIGHT. THE\n"
    b"FIRST SLAP TAKES IT.",
    b"WINNING\n"
    b"EACH DEALS AGAIN FROM\n"
    b"THE CARDS THEY HOLD.\n"
    b"HOLD NONE AND YOU WIN.\n"
    b"POINTS GAME: CARDS LEFT\n"
    b"SCORE, LOWEST AT 100 WINS.",
    b"PAUSE\n"
    b"HOLD A AND B OF YOUR PAD\n"
    b"FOR A SECOND: RESUME OR\n"
    b"QUIT THE GAME.",
)
CARDS = (None, None, (46, 51, 1), None, None, None, None, None, None)   # KH AS 2D: the wrap


def page(k, fumble_ms):
    """(heading, lines, cards) of page k, in the device's words."""
    lines = str(PAGES[k], "ascii").split("\n")
    shown = []
    for s in lines[1:]:
        if "%s" in s:
            s = s % texts.fumble_time(fumble_ms)
        shown.append(s)
    return lines[0], shown, CARDS[k]


class HowToScreen:
    kind = HOWTO

    def __init__(self, app):
        self.app = app
        self.page = 0

    def enter(self, t):
        self.page = 0

    def press(self, t, p, code):
        if code == PAUSE_BUTTON:
            return
        app = self.app
        app.want(sound.CLICK)
        if code == B or (code != 0 and not back(code)):
            self.page += 1
        else:
            self.page -= 1
        if self.page < 0 or self.page >= len(PAGES):
            app.go(TITLE, t)
            return
        app.touch()

    def tick(self, now):
        return False

    def draw(self, view, key):
        # Upright, in the medium font: a heading with the page number (small, a
        # secondary number), up to five lines (three above a row of cards), the
        # buttons at the foot.
        if not view.begin_text(HOWTO, key):
            return False
        head, lines, cards = page(self.page, self.app.settings["fumble"])
        n = len(PAGES)
        view.med(head, 1, 0, 1, 0)
        pg = "%d/%d" % (self.page + 1, n)
        view.text(pg, W - 1 - view.width(pg), 1, 1, 0)
        view.hline(0, 8, W, 1, 0)
        y = 11
        for s in lines:
            view.med(s, 1, y, 1, 0)
            y += 8
        if cards:
            x = (W - len(cards) * SLOT_PITCH + 1) // 2
            for c in cards:
                view.card(c, x, 36, 0)
                x += SLOT_PITCH
        view.hline(0, 55, W, 1, 0)
        view.med_centred(LAST_HINT if self.page == n - 1 else HINT, 57, 1, 0)
        return True


SCREEN = HowToScreen
