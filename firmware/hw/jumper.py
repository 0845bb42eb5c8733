# A known signal for the self-test's timing check: a spare output pin, wired with a
# jumper to a button pin, pulled low at a tick the CPU reads around the very register
# write that does it. The capture's stamp for that "press" must fall between the two
# reads (give or take the µs the stamp rounds to); how far after it is how late the
# capture stamps a touch.
#
# The pin is never driven high: "released" is input (high impedance), so the button's
# pull-up holds the line high and a player pressing that button at the same time shorts
# nothing. Not for use in an interrupt handler (reads of the µs timer above 2**30 make
# heap ints).

from shared_rules.compat import const

_GPIO_OUT_CLR = const(0xD0000018)
_GPIO_OE_SET = const(0xD0000024)
_GPIO_OE_CLR = const(0xD0000028)
_TIMERAWL = {"RP2040": 0x40054028, "RP2350": 0x400B0028}
_MASK30 = const(0x3FFFFFFF)


class JumperSignal:
    def __init__(self, machine, gpio, chip="RP2040"):
        self._m = machine
        self.gpio = gpio
        self._bit = 1 << gpio
        self._timer = _TIMERAWL[chip]
        machine.Pin(gpio, machine.Pin.IN)        # the SIO drives it; released for now
        machine.mem32[_GPIO_OUT_CLR] = self._bit  # when driven, driven low

    def drive(self):
        """Pull the line low now -> (a, b): ticks_us read just before and just after
        (everything looked up first, so only the write lies between the two reads)."""
        m = self._m
        mem = m.mem32
        timer = self._timer
        bit = self._bit
        oe = _GPIO_OE_SET
        s = m.disable_irq()
        a = mem[timer]
        mem[oe] = bit
        b = mem[timer]
        m.enable_irq(s)
        return a & _MASK30, b & _MASK30

    def release(self):
        self._m.mem32[_GPIO_OE_CLR] = self._bit

    def stop(self):
        self.release()
