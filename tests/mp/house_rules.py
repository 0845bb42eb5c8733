# House rules (firmware/house.py) and the app reading them, printed line by line: the
# MicroPython binary must print exactly what CPython prints
# (tests/firmware/test_house_rules.py runs both).
try:
    import framebuf
except ImportError:                 # CPython: the emulator's byte-exact stand-in
    from desktop_emulator import framebuf
from firmware import house
from host.rig import Rig

TEXTS = (
    "rules = points\ntarget = 40 # short\nflip = manual\nplayers = CPU  hard\n",
    "# nothing\n\n",
    "fumble = 5001\n",
    "rules speed\n",
    "colour = red\n",
    "sound = on\nsound = off\n",
    "slap_signal = maybe\n",
)

for text in TEXTS:
    try:
        got = house.parse(text)
        print("ok", sorted(got.items()))
    except house.HouseRulesError as e:
        print("bad", e.line, e.note, str(e))
    r = Rig(framebuf, house=text)
    s = r.app.settings
    print("app", r.app.note, r.app.target, s["points"], s["flip"], s["mode"], s["fumble"],
          r.app.house_error)
r = Rig(framebuf, house=TEXTS[0])
r.menu(["B"])
print("game", r.app.game.rules.points, r.app.game.rules.manual_flip, r.app.game.rules.target)
