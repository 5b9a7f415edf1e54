"""The three push buttons (P0, P1, MENU): debounced, one event per click, long press flagged."""

from firmware.drivers.debounce import SlotDebouncer
from firmware.drivers.ticks import ticks_diff

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

BTN_P0 = const(1)
BTN_P1 = const(2)
BTN_MENU = const(3)
LONG = const(0x10)
NAMES = ("p0", "p1", "menu")

# Electrical: each button shorts its GPIO to GND; the internal pull-up (50-80 k) holds it high.
# The three GPIOs are consecutive (btn_p0, +1, +2) so one read of SIO GPIO_IN gets all three.


class Buttons:
    """``poll(now)`` returns None or one event: BTN_P0/BTN_P1/BTN_MENU on release of a short
    press, or that code | LONG once a press has lasted ``long_ms`` (then no event on release)."""

    debounce_ms = 20
    long_ms = 1000

    def __init__(self, read_levels, debounce_ms=None, long_ms=None):
        """read_levels() -> int, bit i = raw level of button i (0 = pressed)."""
        if debounce_ms is not None:
            self.debounce_ms = debounce_ms
        if long_ms is not None:
            self.long_ms = long_ms
        self.read_levels = read_levels
        self.debouncer = SlotDebouncer(1, self.debounce_ms, self.debounce_ms, active_low=True)
        self._raw = bytearray(1)
        self._down_at = [0, 0, 0]
        self._long_sent = 0
        self._short = 0      # pending short events (bitmap)
        self._long = 0       # pending long events (bitmap)

    def held(self, i):
        """1 while button i (0 P0, 1 P1, 2 MENU) is (debounced) down."""
        return self.debouncer.active(i)

    def poll(self, now):
        raw = self._raw
        raw[0] = (self.read_levels() & 7) | 0xF8
        deb = self.debouncer
        if deb.update(raw, now):
            flips = deb.changed[0]
            for i in range(3):
                if (flips >> i) & 1:
                    if deb.active(i):
                        self._down_at[i] = now
                        self._long_sent &= ~(1 << i)
                    elif not (self._long_sent >> i) & 1:
                        self._short |= 1 << i
        for i in range(3):
            if deb.active(i) and not (self._long_sent >> i) & 1:
                if ticks_diff(now, self._down_at[i]) >= self.long_ms:
                    self._long_sent |= 1 << i
                    self._long |= 1 << i
        for i in range(3):
            if (self._long >> i) & 1:
                self._long &= ~(1 << i)
                return (i + 1) | LONG
            if (self._short >> i) & 1:
                self._short &= ~(1 << i)
                return i + 1
        return None
