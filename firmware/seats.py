# Player sources ("seats"). Every button press reaches the game the same way:
# (t_us, player, button, down) -> Pad -> Arbiter (DESIGN.md "Controls"). A human's
# presses come from the input port (IRQ stamps); a CPU seat makes its own, stamped
# when its "finger" closed the contact, and the app merges both by stamp (R19).
#
# A seat has:
#   human               True: its player's presses come from the input port
#   observe(game, now_us, cursor)
#                       the table may have changed (after a settle, a new phase, a
#                       resume); cursor is the Pad's cursor for that player
#   poll(now_us, out)   append the seat's button events due by now_us to out
#   fumbled(until_us, now_us)
#                       one of its presses was a fumble (R41): its buttons are dead
#                       until until_us (a person hears the buzz and sees the bar)
#   signal(now_us)      the slap signal (R44) shows from now_us
#   prepare()           between frames: work a look out ahead (shared_rules.bot), or
#                       nothing; it changes nothing the seat does

from shared_rules.bot import Bot, LEVEL_NAMES


class HumanSeat:
    human = True

    def __init__(self, player):
        self.player = player

    def observe(self, game, now_us, cursor):
        pass

    def poll(self, now_us, out):
        pass

    def fumbled(self, until_us, now_us):
        pass

    def signal(self, now_us):
        pass

    def prepare(self):
        pass


class CpuSeat:
    """The CPU opponent (shared_rules.bot) pressing A/B through the same Pad."""
    human = False

    def __init__(self, player, level, seed):
        self.player = player
        self.level = level
        self.bot = Bot(player, level, seed)

    def observe(self, game, now_us, cursor):
        self.bot.observe(game, now_us, cursor)

    def fumbled(self, until_us, now_us):
        self.bot.fumbled(until_us, now_us)

    def signal(self, now_us):
        self.bot.signal(now_us)

    def prepare(self):
        self.bot.prepare()

    def poll(self, now_us, out):
        bot = self.bot
        p = self.player
        while True:
            press = bot.next_press(now_us)
            if press is None:
                return
            # A press and its release: a CPU finger never holds a button (so it can
            # never pause the game by holding A and B).
            out.append((press[0], p, press[1], True))
            out.append((press[0], p, press[1], False))


def level_name(level):
    """Menu level 1..3 -> the bot's level name."""
    return LEVEL_NAMES[level - 1]
