# Tunes as data: (name, freq_hz, ms, freq_hz, ms, ...). A frequency of 0 is a rest.
# The app hands a tune to the sound port's play(); the port plays it without blocking
# (hw/buzzer.py on the device, the mixer in the emulator, a list in tests). Each tune
# is short and distinct by ear, so a player can tell what happened without looking:
# an illegal press ("doesn't fit") is a low double buzz, a fumble (R41) a long low
# drop as the buttons go dead, a lost race (R20) a quick falling run, and they never
# sound alike.

PLAY = ("play", 2093, 25)
MOVE = ("move", 1568, 8)
CLICK = ("click", 1760, 12)
ILLEGAL = ("illegal", 196, 90, 0, 40, 165, 140)
FUMBLE = ("fumble", 330, 60, 147, 260)
LOST = ("lost", 1760, 45, 1319, 45, 988, 45, 659, 90)
SAID = ("said", 1047, 40)
SPIT = ("spit", 784, 80, 0, 70, 784, 80, 0, 70, 1568, 220)     # the spit countdown
SLAP_NOW = ("slap-now", 2637, 60, 0, 30, 2637, 60)
SLAP = ("slap", 3136, 25, 1568, 60)
ROUND_OVER = ("round-over", 1047, 110, 1319, 110, 1568, 200)
WIN = ("win", 1047, 120, 1319, 120, 1568, 120, 2093, 380)
DRAW = ("draw", 1047, 150, 1047, 150)
PAUSE = ("pause", 1319, 60, 988, 90)
RESUME = ("resume", 988, 60, 1319, 90)
WARN = ("warn", 440, 200, 0, 60, 440, 200)   # input overflow, storage trouble
NO_DISPLAY = ("no-display", 330, 150, 0, 100, 262, 150, 0, 100, 196, 400)   # heard, not seen

ALL = (PLAY, MOVE, CLICK, ILLEGAL, FUMBLE, LOST, SAID, SPIT, SLAP_NOW, SLAP, ROUND_OVER, WIN,
       DRAW, PAUSE, RESUME, WARN, NO_DISPLAY)

# When several things happen in one frame only the most important tune plays.
PRIORITY = {"move": 1, "click": 1, "said": 2, "play": 3, "slap": 4, "spit": 5,
            "slap-now": 5, "illegal": 6, "fumble": 6, "lost": 7, "pause": 8, "resume": 8,
            "warn": 8, "round-over": 9, "draw": 10, "win": 10, "no-display": 11}


def notes(tune):
    """[(freq_hz, ms), ...] of a tune."""
    out = []
    for k in range(1, len(tune) - 1, 2):
        out.append((tune[k], tune[k + 1]))
    return out


def length_ms(tune):
    n = 0
    for k in range(2, len(tune), 2):
        n += tune[k]
    return n
