# The words on the screen: short, upper case, only characters of font.SMALL_CHARS.
# A player's message corner holds two lines of 8 characters.

from shared_rules import game as g

# Why a press was refused (R39), told apart from a lost race (R20, "BEATEN BY").
REASONS = {
    g.NO_FIT: ("DOESN'T", "FIT"),
    g.EMPTY: ("EMPTY", "PILE"),
    g.FACE_DOWN: ("FACE", "DOWN"),
    g.TOO_FEW: ("LONE", "CARD"),
    g.NOT_EMPTY: ("NO EMPTY", "SLOT"),
    g.SAME_SLOT: ("NO EMPTY", "SLOT"),
    g.ALREADY_UP: ("FACE UP", "ALREADY"),
    g.NO_MANUAL_FLIP: ("AUTO", "FLIP"),
}
NOT_ALLOWED = ("NOT", "ALLOWED")
QUIET = (g.ALREADY_SAID, g.NOT_NOW)

PRESS_SPIT = ("PRESS", "SPIT!")
SPIT_AGAIN = ("SPIT", "AGAIN!")
WAITING = ("READY", "WAIT...")
SLAP = ("SLAP!", "A=L B=R")
TOO_LATE = ("TOO", "LATE")
INPUT_LOST = ("INPUT", "LOST!")
BLANK = ("", "")

MODE_NAMES = ("2 PLAYERS", "VS CPU EASY", "VS CPU NORMAL", "VS CPU HARD")
HINT = "A: NEXT   B: CHOOSE"


def beaten(us):
    """A lost race (R20): by how much, from the arbiter's beaten_by_us."""
    if us <= 0:
        return ("BEATEN", "IN A TIE")
    if us < 1000:
        return ("BEATEN", "BY <1 MS")
    ms = us // 1000
    return ("BEATEN", ("BY %d MS" if ms < 100 else "BY %dMS") % ms)


def standing(game, p):
    """The message a player sees when nothing new has happened."""
    ph = game.phase
    if ph == g.READY:
        if game.said[p]:
            return WAITING
        return SPIT_AGAIN if game.piles else PRESS_SPIT
    if ph == g.SLAP:
        return SLAP
    return BLANK


def summary(game, p, note):
    """Round summary for player p (R25-R27, R30, R33, R36, R38)."""
    lr = game.last_round
    took = lr["took"]
    slap = lr["slap"]
    if took[0] and took[1]:
        # Two piles: the first slapper took the pile they slapped, the other the other.
        s, j = slap[0], slap[1]
        mine = j if p == s else 1 - j
        side = "LEFT" if mine == (0 if p == 0 else 1) else "RIGHT"
        who = "YOU SLAPPED FIRST" if p == s else "THEY SLAPPED FIRST"
        if note == "NOBODY SLAPPED":
            who = note
            note = ""
        head = "ROUND %d: %s" % (lr["round"], who)
        line = "YOU TOOK %s PILE: %d" % (side, took[p])
    else:
        head = "ROUND %d OVER" % lr["round"]
        line = "YOU TOOK THE PILE: %d" % took[p] if took[p] else "YOU WENT OUT FIRST"
    lines = [head, line, "YOU HOLD %d CARDS" % lr["cards"][p]]
    if game.rules.points:
        lines.append("POINTS +%d = %d" % (lr["points"][p], game.scores[p]))
    if lr.get("redeal"):
        lines.append("NEW DEAL: 26 EACH")
    lines.append(note or "PRESS ANY BUTTON")
    return lines[:5]


def game_over(game, stats, p):
    w = game.winner
    if w is None:
        head = "DRAW"
    else:
        head = "YOU WIN!" if w == p else "YOU LOSE"
    gap = stats.mean_gap_ms(p)
    lines = [head, "PLAYS %d  RACES WON %d" % (stats.plays[p], stats.races[p]),
             ("%d MS BETWEEN PLAYS" % gap) if gap >= 0 else "NO TWO PLAYS IN A ROW"]
    if game.rules.points:
        lines.append("POINTS %d : %d" % (game.scores[p], game.scores[1 - p]))
    else:
        lines.append("%d ROUNDS" % game.round)
    lines.append("PRESS FOR MENU")
    return lines


PAUSE_ITEMS = ("RESUME", "QUIT GAME")


def pause(sel):
    return ["PAUSED", PAUSE_ITEMS[0], PAUSE_ITEMS[1], "", "A: NEXT  B: CHOOSE"], 1 + sel
