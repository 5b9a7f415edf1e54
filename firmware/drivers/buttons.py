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
NAMES = ("p0", "p1", "menu")     # the buttons' names (protocol, record, simulator): their one home

# Electrical: each button shorts its GPIO to GND; the internal pull-up (50-80 k) holds it high.
# The three GPIOs are consecutive (btn_p0, +1, +2) so one read of SIO GPIO_IN gets all three.


class Buttons:
    """``poll(now)`` returns None or one event: BTN_P0/BTN_P1/BTN_MENU on release of a short
    press, or that code | LONG once a press has lasted ``long_ms`` (then no event on release).

    A button already down at power-up gives no event (not even a long press) until it has been
    released. A button held for ``stuck_ms`` is stuck (``stuck``, bit i for button i): a short
    or a jammed key, or one held since power-up; it gives no more events until it is released,
    which clears it. ``stuck_changed`` turns True whenever ``stuck`` changes."""

    debounce_ms = 20
    long_ms = 1000
    stuck_ms = 30000      # no one holds a button half a minute: a short or a jammed key

    def __init__(self, read_levels, debounce_ms=None, long_ms=None, stuck_ms=None):
        """read_levels() -> int, bit i = raw level of button i (0 = pressed)."""
        if debounce_ms is not None:
            self.debounce_ms = debounce_ms
        if long_ms is not None:
            self.long_ms = long_ms
        if stuck_ms is not None:
            self.stuck_ms = stuck_ms
        self.stuck = 0
        self.stuck_changed = False
        self._start = None                    # the first poll's time, until the start is judged
        self._ignore = 0                      # down at power-up: no event until released
        self.read_levels = read_levels
        self.debouncer = SlotDebouncer(1, self.debounce_ms, self.debounce_ms, active_low=True)
        self._raw = bytearray(1)
        self._down_at = [0, 0, 0]
        self._long_sent = 0
        self._short = 0      # pending short events (bitmap)
        self._long = 0       # pending long events (bitmap)

    def _set_stuck(self, bits):
        if bits != self.stuck:
            self.stuck = bits
            self.stuck_changed = True

    def held(self, i):
        """1 while button i (0 P0, 1 P1, 2 MENU) is (debounced) down."""
        return self.debouncer.active(i)

    def poll(self, now):
        raw = self._raw
        raw[0] = (self.read_levels() & 7) | 0xF8
        deb = self.debouncer
        if self._start is None:
            self._start = now
            self._ignore = ~raw[0] & 7        # down already: judged once the debounce is over
        elif self._start is not False and ticks_diff(now, self._start) > 2 * self.debounce_ms:
            self._start = False
            for i in range(3):
                if not deb.active(i):         # a glitch at the first read, not a held button
                    self._ignore &= ~(1 << i)
        if deb.update(raw, now):
            flips = deb.changed[0]
            for i in range(3):
                bit = 1 << i
                if (flips >> i) & 1:
                    if deb.active(i):
                        self._down_at[i] = now
                        if (self._ignore | self.stuck) & bit:
                            self._long_sent |= bit    # no long press from it either
                        else:
                            self._long_sent &= ~bit
                    elif (self._ignore | self.stuck) & bit:
                        self._ignore &= ~bit          # released: it works again, no event
                        self._set_stuck(self.stuck & ~bit)
                    elif not (self._long_sent >> i) & 1:
                        self._short |= bit
        for i in range(3):
            if deb.active(i):
                held = ticks_diff(now, self._down_at[i])
                if not (self._long_sent >> i) & 1 and held >= self.long_ms:
                    self._long_sent |= 1 << i
                    self._long |= 1 << i
                if held >= self.stuck_ms and not (self.stuck >> i) & 1:
                    self._set_stuck(self.stuck | (1 << i))
        for i in range(3):
            if (self._long >> i) & 1:
                self._long &= ~(1 << i)
                return (i + 1) | LONG
            if (self._short >> i) & 1:
                self._short &= ~(1 << i)
                return i + 1
        return None
