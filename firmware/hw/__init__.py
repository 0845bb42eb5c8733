# The hardware layer. chip_name() lives here, in the package every hardware module
# loads anyway, so the PIO capture and the board's boot code share one copy without
# an extra module in the device's RAM.


def chip_name():
    """Which chip this MicroPython was built for, "RP2040" or "RP2350" (their register
    addresses differ); "RP2040" off the device (no sys.implementation._machine)."""
    import sys
    return "RP2350" if "RP2350" in getattr(sys.implementation, "_machine", "") else "RP2040"
