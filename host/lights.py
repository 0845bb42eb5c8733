# Which pad buttons a host's picture of the handheld lights for the CPU's presses: each
# one for a moment (a CPU finger taps; its presses never pass the keyboard or the
# page's pads, so the host hears of them through the app's on_cpu_press hook).

from shared_rules.arbiter import ticks_diff, ticks_add

FLASH_US = 120000


class CpuLights:
    def __init__(self):
        self.until = {}          # (player, button code) -> ticks until which it shows

    def pressed(self, t, player, button):
        """The app's on_cpu_press hook: a CPU seat pressed `button` at t."""
        self.until[(player, button)] = ticks_add(t, FLASH_US)

    def lit(self, now):
        """[(player, button code)] of the CPU presses still showing at now."""
        out = []
        for key in list(self.until):
            if ticks_diff(self.until[key], now) > 0:
                out.append(key)
            else:
                del self.until[key]
        return out
