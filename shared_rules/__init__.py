# The rules core of Spit: pure, deterministic, no I/O; runs on CPython and MicroPython.
