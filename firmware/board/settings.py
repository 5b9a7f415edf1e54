"""The board's settings from the host link: guide or referee mode, dice, condoning, clock, mix.

A feature module (``protocol`` loads it for each such command, then drops it). Every change is
journaled with who made it and is on flash at once (a setting sent during set-up survives a power
cut); the same value again writes nothing; a game takes at most 64 changes, so a
host repeating commands cannot fill the flash.
"""

import binascii

from firmware.board.gameclock import GameClock

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_SETTING_LINES = const(64)


def configure(s, key, value, by="host"):
    """Change ``mode``, ``dice_mode`` or ``condone``."""
    if getattr(s, key) == value:
        s.emit_status()
        return
    if s.settings >= _SETTING_LINES:
        raise ValueError("too many setting changes in this game (%d)" % _SETTING_LINES)
    s.settings += 1
    setattr(s, key, value)
    s.journal_line({"k": "set", key: value}, by)
    s.emit_status()


def set_clock(s, reserve_ms, delay_ms, by="host"):
    """The tournament clock: each side's reserve for the rest of the match (0: no clock) and the
    simple delay per period; both reserves start full."""
    if reserve_ms < 0 or delay_ms < 0:
        raise ValueError("clock times are >= 0")
    if s.settings >= _SETTING_LINES:
        raise ValueError("too many setting changes in this game (%d)" % _SETTING_LINES)
    s.settings += 1
    s.gclock = GameClock(reserve_ms, delay_ms)
    s.journal_line({"k": "clock", "reserve": reserve_ms, "delay": delay_ms}, by)
    s.emit_status()


def run(app, words, fail, need):
    """mode guide|referee | dice auto|manual | condone on|off | clock <reserve s> [delay s] |
    clock off | mix <hex>"""
    name = words[0].lower()
    s = app.session
    if name == "clock":
        from firmware.board.protocol import number
        if len(words) == 2 and words[1] == "off":
            set_clock(s, 0, 0, app.by)
            return
        if len(words) not in (2, 3):
            fail("usage: clock <reserve seconds> [delay seconds] | clock off")
        reserve = number(words[1], 1, 36000, "reserve (seconds)")
        delay = number(words[2], 0, 600, "delay (seconds)") if len(words) == 3 else 12
        set_clock(s, reserve * 1000, delay * 1000, app.by)
    elif name == "mix":
        need(words, 2, "mix <2 to 64 hex digits>")
        w = words[1]
        if len(w) % 2 or not 2 <= len(w) <= 64:
            fail("mix is 2 to 64 hex digits, an even number")
        try:
            data = bytes(int(w[i:i + 2], 16) for i in range(0, len(w), 2))
        except ValueError:
            fail("mix is hex digits")
        s.dice.set_mix(data)
        s.journal_line({"k": "mix", "mix": binascii.hexlify(s.dice.mix).decode()}, app.by)
        s.emit_status()
    else:
        key, values = {"mode": ("mode", ("guide", "referee")),
                       "dice": ("dice_mode", ("auto", "manual")),
                       "condone": ("condone", ("on", "off"))}[name]
        need(words, 2, name + " " + "|".join(values))
        if words[1] not in values:
            fail(name + " is " + " or ".join(values))
        configure(s, key, words[1] == "on" if key == "condone" else words[1], app.by)
