"""Millisecond ticks arithmetic that wraps at 2**30 like the RP2040's time.ticks_ms()."""

try:
    from micropython import const
except ImportError:                 # CPython without the simulator's stand-ins (host tools)
    def const(x):
        return x

_TICKS_PERIOD = const(0x40000000)
TICKS_MASK = const(0x3FFFFFFF)
_HALF = const(0x20000000)


def ticks_diff(a, b):
    """a - b in ms, correct across one wrap (|a - b| < 2**29)."""
    return ((a - b + _HALF) & TICKS_MASK) - _HALF


def ticks_add(a, ms):
    return (a + ms) & TICKS_MASK
