# The words of the table (the game screen), short, upper case, only characters of
# font.MED_CHARS (the medium font, read at arm's length). A player's message corner
# holds two lines of 34 pixels (about 7 letters); the buttons are called A and B, as
# printed on the pads. Each other
# screen keeps its own words in its module (firmware/screens/).

from shared_rules import game as g

# Why a press was refused (R39), told apart from a lost race (R20, "BEATEN BY"). With
# the fumble on (R41) a refused play shows FUMBLE instead.
REASONS = {
    g.NO_FIT: ("DOESN'T", "FIT"),
    g.EMPTY: ("NO CARD", "HERE"),        # the cursor on an empty slot: never a fumble
    g.FACE_DOWN: ("FACE", "DOWN"),
    g.TOO_FEW: ("LONE", "CARD"),
    g.NOT_EMPTY: ("NO SLOT", "FREE"),
    g.SAME_SLOT: ("NO SLOT", "FREE"),
    g.ALREADY_UP: ("FACE", "UP"),
    g.NO_MANUAL_FLIP: ("AUTO", "FLIP"),
}
NOT_ALLOWED = ("REFUSED", "")
QUIET = (g.ALREADY_SAID, g.NOT_NOW)

PRESS_SPIT = ("READY?", "SPIT: A/B")       # R9, R11: either button says "Spit!"
SPIT_AGAIN = ("NO PLAY", "SPIT: A/B")      # R23
WAITING = ("READY", "WAIT...")
FUMBLE = "FUMBLE!"                         # R41; the bar under it runs out
TOO_LATE = ("TOO", "LATE")
FALSE_START = ("FALSE", "START!")          # R44: a slap before the signal
INPUT_LOST = ("INPUT", "LOST!")
BLANK = ("", "")


def beaten(us):
    """A lost race (R20): by how much, from the arbiter's beaten_by_us."""
    if us <= 0:
        return ("BEATEN", "IN A TIE")
    if us < 1000:
        return ("BEATEN", "<1 MS")
    ms = us // 1000
    # Two lines of 34 pixels: "BY" only while it fits beside the figure.
    return ("BEATEN", ("BY %d MS" if ms < 10 else "%d MS") % ms)


def beaten_line(us):
    """A lost race (R20) on one line, for a screen as wide as the summary's."""
    if us <= 0:
        return "BEATEN IN A TIE"
    if us < 1000:
        return "BEATEN BY <1 MS"
    return "BEATEN BY %d MS" % (us // 1000)


def fumble_time(ms):
    """The fumble setting as the menu says it: OFF, 0.25 S, 0.5 S, 1 S, 1.5 S..."""
    if ms <= 0:
        return "OFF"
    s = "%d.%02d" % (ms // 1000, (ms % 1000) // 10)
    while s[-1] == "0":
        s = s[:-1]
    if s[-1] == ".":
        s = s[:-1]
    return s + " S"


def standing(game, p):
    """The message a player sees when nothing new has happened."""
    ph = game.phase
    if ph == g.READY:
        if game.said[p]:
            return WAITING
        return SPIT_AGAIN if game.piles else PRESS_SPIT
    return BLANK
