# The clock port on the device: MicroPython's own microsecond ticks, which wrap at
# 2**30 on the rp2 port, exactly the period the rules core's ticks_diff assumes.

import time

ticks_us = time.ticks_us
ticks_diff = time.ticks_diff
ticks_add = time.ticks_add
sleep_ms = time.sleep_ms


class Clock:
    def ticks_us(self):
        return time.ticks_us()
