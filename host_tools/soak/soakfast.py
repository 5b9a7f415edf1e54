"""A frame-level stand-in for the simulated hardware, for soaking the board logic at speed.

The full simulation scans every sensor slot through the drivers' debounce every few ms; that is
what the scenario tests and the full-stack soak exercise. Here the zone counts a debounced zone
reader would report (and, for the analog front end, the colours it tells) are handed over
directly (one poll per hand action), buttons arrive as clicks, the LEDs are painted but not
shown, and the flash is the simulator's flash (so power cuts mid-write behave the same). The
App, session, tracker and journal run unchanged on it.
"""

from firmware import sim as _sim

_sim.install()          # the drivers' micropython.const on CPython

from firmware.drivers.storage import Storage  # noqa: E402
from firmware.drivers.ticks import ticks_diff, TICKS_MASK  # noqa: E402
from firmware.drivers.buttons import BTN_P0, BTN_P1, BTN_MENU  # noqa: E402
from firmware.drivers.zones import COLOUR_BLACK, COLOUR_WHITE  # noqa: E402
from firmware.board.zonemap import ZONES  # noqa: E402
from firmware.sim.flash import SimFlash  # noqa: E402

_CODES = (BTN_P0, BTN_P1, BTN_MENU)


class _Zones:
    def __init__(self, world):
        self.world = world
        self.capacity = bytearray(c * world.cfg.levels for c in world.cfg.zone_cap)
        self.counts = bytearray(ZONES)
        self.colour = bytearray(ZONES)
        self.faults = 0
        # the analog front end tells White (north up) from Black on every slot, as the slot
        # level hardware reports it (drivers.zones: the colours seen on a zone, OR-ed)
        self.colour_on = world.cfg.front_end == "analog"

    def poll(self, now):
        w = self.world
        if not w.dirty:
            return False
        w.dirty = False
        changed = False
        for z in range(ZONES):
            c = w.occupied_count(z)
            if c != self.counts[z]:
                self.counts[z] = c
                changed = True
            if self.colour_on:
                k = w.zone_colour(z)
                if k != self.colour[z]:
                    self.colour[z] = k
                    changed = True
        return changed


class _Buttons:
    stuck = 0
    stuck_ms = 30000

    def __init__(self, world):
        self.world = world

    def poll(self, now):
        q = self.world.clicks
        return q.pop(0) if q else None


class _Leds:
    fault = None

    def clear(self):
        pass

    def zone(self, z, rgb, slot=None):
        pass

    def die(self, i, value, rgb):
        pass

    def turn(self, side, rgb):
        pass

    def write(self):
        return False


class _Wdt:
    def feed(self):
        pass


class _Buzzer:
    def beep(self, now, freq=2000, ms=80):
        pass

    def poll(self, now):
        pass


class _Dice:
    fault = None

    def __init__(self, world):
        self.world = world

    def roll(self):
        return self.world.rng.randint(1, 6)


class FastHardware:
    """What the App uses of a Hardware object, at frame level."""

    def __init__(self, world):
        self.config = world.cfg
        self.sim = world
        self.zones = _Zones(world)
        self.buttons = _Buttons(world)
        self.leds = _Leds()
        self.dice = _Dice(world)
        self.storage = Storage("/data", world.fs)
        self.wdt = _Wdt()
        self.buzzer = _Buzzer()
        self.scanner = None
        self.ticks_diff = ticks_diff
        self.ticks_ms = world.ticks_ms
        self.board_id = (getattr(world, "unique_id", None) or b"NARDYSIM").hex()


class FastWorld:
    """Sensor slots, clicks, clock and flash, with the SimWorld controls SimHands and the
    VirtualBoard use (set_slot, press, advance, power_cut, reboot, led_frame)."""

    def __init__(self, cfg, root, rng=None):
        import random
        self.cfg = cfg
        self.fs = SimFlash(root)
        try:
            self.fs.mkdir("/")
        except OSError:
            pass
        self.now = 0
        self.occ = bytearray(cfg.n_slots)      # checkers each slot's sensor counts
        self.col = bytearray(cfg.n_slots)      # colour of each slot's bottom checker (1 White, 2 Black)
        self.dirty = True
        self.clicks = []
        self.rng = rng or random.Random(1)

    def ticks_ms(self):
        return self.now & TICKS_MASK

    def set_slot(self, s, on, colour=1):
        self.set_stack(s, (colour,) if on else ())

    def set_stack(self, s, sides, ids=None):
        v = min(len(sides), self.cfg.levels)
        c = sides[0] if sides else 0
        if self.occ[s] != v or self.col[s] != c:
            self.occ[s] = v
            self.col[s] = c
            self.dirty = True

    def zone_colour(self, z):
        """The colours on zone z's slots, OR-ed: 1 White, 2 Black, 3 both, 0 none."""
        first = self.cfg.zone_first[z]
        k = 0
        for s in range(first, first + self.cfg.zone_cap[z]):
            if self.occ[s]:
                k |= COLOUR_WHITE if self.col[s] == COLOUR_WHITE else COLOUR_BLACK
        return k

    def occupied_count(self, z):
        first = self.cfg.zone_first[z]
        n = 0
        for s in range(first, first + self.cfg.zone_cap[z]):
            n += self.occ[s]
        return n

    def press(self, button, ms=100):
        self.clicks.append(_CODES[button])

    def advance(self, ms, step=None, each=None):
        """Time passes; the firmware ticks once, at the end (nothing debounces here)."""
        self.now += ms
        if each is not None:
            each(self.ticks_ms())
            if self.clicks or self.dirty:
                each(self.ticks_ms())

    def power_cut(self, after_bytes=None):
        self.fs.power_cut(after_bytes)

    def reboot(self, path=None, front_end=None):
        self.fs.power_on()
        self.clicks = []
        self.dirty = True
        return FastHardware(self)

    def led_frame(self):
        return bytes(3 * self.cfg.n_leds)
