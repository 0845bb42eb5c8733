# "How to play", from the menu: a few pages in the device's own words and font, with
# cards drawn as the game draws them. B: the next page (the last one goes back to
# the menu), A: the page before (the first one goes back to the menu). A menu-side
# screen: the app unloads it when it is left, words and all.

from firmware import sound, texts
from firmware.view import W, SLOT_PITCH
from firmware.screens import HOWTO, TITLE, B, PAUSE_BUTTON, back

HINT = "A: BACK   B: NEXT"
LAST_HINT = "A: BACK   B: DONE"

# One page a bytes constant (not a string: the text stays out of the interned
# strings, which are never freed): the heading, then its lines. "%s" is the fumble
# time of the settings.
PAGES = (
    b"HOW TO PLAY\n"
    b"SPIT IS A RACE FOR TWO.\n"
    b"NO TURNS: BOTH PLAY AT ONCE,\n"
    b"AS FAST AS YOU CAN SEE.\n"
    b"FIRST TO GET RID OF ALL\n"
    b"THEIR CARDS WINS.",
    b"WHAT FITS\n"
    b"PLAY A CARD ONE ABOVE OR ONE\n"
    b"BELOW A PILE: 6 OR 8 ON A 7.\n"
    b"SUITS NEVER MATTER.\n"
    b"A SITS BETWEEN K AND 2:",
    b"YOUR BUTTONS\n"
    b"A: LIFT YOUR NEXT CARD.\n"
    b"B: PLAY THE LIFTED CARD ONTO\n"
    b"   A PILE IT FITS.\n"
    b"NO FIT, BUT AN EMPTY SLOT?\n"
    b"   B MOVES THE CARD THERE.",
    b"LOOK, THEN PRESS\n"
    b"A B THAT FITS NOWHERE IS A\n"
    b"FUMBLE: YOUR BUTTONS GO DEAD\n"
    b"FOR %s (MENU: FUMBLE).\n"
    b"BEATEN TO A PILE BY THE OTHER\n"
    b"PLAYER? THAT IS NO FUMBLE.",
    b"NOBODY CAN PLAY?\n"
    b"WHEN NO CARD FITS, BOTH PRESS\n"
    b"A OR B: SPIT! A NEW CARD FROM\n"
    b"EACH SPIT STACK (THE CARD\n"
    b"BACK ON YOUR RIGHT) TURNS UP\n"
    b"ONTO THE PILES.",
    b"SLAP!\n"
    b"SOMEONE PLAYS THEIR LAST CARD:\n"
    b"THE ROUND IS OVER. SLAP THE\n"
    b"SMALLER PILE: A = LEFT, B =\n"
    b"RIGHT. FIRST SLAP TAKES IT,\n"
    b"THE OTHER PLAYER TAKES THE\n"
    b"OTHER PILE.",
    b"WINNING\n"
    b"EACH DEALS AGAIN FROM THE\n"
    b"CARDS THEY HOLD. HOLD NO CARDS\n"
    b"AT ALL AND YOU WIN. POINTS GAME:\n"
    b"CARDS LEFT SCORE, LOWEST AT\n"
    b"100 WINS. PAUSE: HOLD A+B 1 S.",
)
CARDS = (None, (46, 51, 1), None, None, None, None, None)     # KH AS 2D: the wrap


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
        # Upright: a heading with the page number, up to six lines (four above a row
        # of cards), the buttons at the foot.
        if not view.begin_text(HOWTO, key):
            return False
        head, lines, cards = page(self.page, self.app.settings["fumble"])
        n = len(PAGES)
        view.text(head, 1, 1, 1, 0)
        pg = "%d/%d" % (self.page + 1, n)
        view.text(pg, W - 1 - view.width(pg), 1, 1, 0)
        view.hline(0, 7, W, 1, 0)
        y = 10
        for s in lines:
            view.text(s, 1, y, 1, 0)
            y += 7
        if cards:
            x = (W - len(cards) * SLOT_PITCH + 1) // 2
            for c in cards:
                view.card(c, x, 39, 0)
                x += SLOT_PITCH
        view.hline(0, 56, W, 1, 0)
        view.centred(LAST_HINT if self.page == n - 1 else HINT, 58, 1, 0)
        return True


SCREEN = HowToScreen
