# Who sits in each seat, in the words of every host's command line, page and labels,
# from one table: a person, or the CPU at one of the menu's levels 1-3
# (firmware.app's cpu codes; None is a person).

LEVELS = ("human", "easy", "normal", "hard")
CPU_CODE = {}
CPU_NAME = {}
for _code, _name in ((None, "human"), (1, "easy"), (2, "normal"), (3, "hard")):
    CPU_CODE[_name] = _code
    CPU_NAME[_code] = _name

# The settings of a host's first start: one person alone at a computer plays the
# CPU (normal), where the handheld's first start is two players.
DESKTOP_DEFAULTS = {"mode": 2, "points": 0, "flip": 0, "sound": 1}


def names_of(cpu):
    """The app's cpu codes [c0, c1] -> ("human", "hard") ..."""
    return (CPU_NAME.get(cpu[0], "human"), CPU_NAME.get(cpu[1], "human"))
