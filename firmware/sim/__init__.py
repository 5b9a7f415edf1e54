"""Simulated hardware and stand-in device modules, so the unchanged firmware runs on a PC (never deployed)."""

import sys

STAND_INS = ("machine", "rp2", "neopixel", "micropython")


def install(pio=True):
    """Put the stand-ins for machine, rp2, neopixel (and micropython on CPython) in sys.modules.

    On the MicroPython unix port the built-in ``micropython`` is kept (it is the real one) and the
    built-in ``machine`` (no Pin, SPI or ADC there) is replaced. ``pio`` False leaves rp2 out (the
    simulated world loads it itself for a PIO strip): its names would stay interned for nothing.
    Returns the names installed."""
    from firmware.sim import machine, neopixel
    mods = {"machine": machine, "neopixel": neopixel}
    if pio:
        from firmware.sim import rp2
        mods["rp2"] = rp2
    if sys.implementation.name != "micropython":
        from firmware.sim import micropython
        mods["micropython"] = micropython
    for name in mods:
        sys.modules[name] = mods[name]
    return sorted(mods)
