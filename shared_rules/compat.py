# MicroPython's const() where there is none (CPython): one home for the fallback that
# every device module needs. MicroPython's compiler folds `_NAME = const(...)` by the
# name const wherever const comes from, so importing it from here costs the device
# nothing per constant.

try:
    from micropython import const  # noqa: F401
except ImportError:  # CPython
    def const(x):
        return x
