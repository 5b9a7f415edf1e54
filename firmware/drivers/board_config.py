"""The hardware description (hardware/board.json) loaded into the small tables the drivers use."""

import json

from firmware import ZONES


class BoardConfigError(ValueError):
    """A hardware description the firmware cannot use; the message names the file and field."""


class BoardConfig:
    """Tables derived from board.json: slot ranges per zone, pins, front end and LED map."""

    def __init__(self, desc):
        self.name = desc["name"]
        self.wifi = bool(desc.get("mcu", {}).get("wifi", False))    # a Pico W (the hall link)
        self.front_end = desc["front_end"]
        self.pins = {}
        for key, pin in desc["pins"].items():
            self.pins[key] = pin["gpio"]
        zones = desc["zones"]
        caps = zones["slots"]
        self.zone_cap = bytearray(caps)
        self.zone_first = bytearray(ZONES)
        first = 0
        for z in range(ZONES):
            self.zone_first[z] = first
            first += caps[z]
        self.n_slots = first
        self.slot_zone = bytearray(first)
        for z in range(ZONES):
            for s in range(self.zone_first[z], self.zone_first[z] + caps[z]):
                self.slot_zone[s] = z
        self.ordered_zones = zones["ordered"]
        self.beside = bytes(z for pair in zones.get("beside", ()) for z in pair)   # pairs
        self.digital = desc["digital"]
        self.analog = desc["analog"]
        stack = self.analog.get("stack")
        # checkers a slot counts: a stack's level (analog), or only whether it is occupied
        self.levels = stack["levels"] if stack and self.front_end == "analog" else 1
        leds = desc["leds"]
        self.n_leds = leds["count"]
        self.led_driver = leds.get("driver", "neopixel")
        self.led_first = bytearray(ZONES)
        self.led_count = bytearray(ZONES)
        for z in range(ZONES):
            self.led_first[z] = leds["zones"][z][0]
            self.led_count[z] = leds["zones"][z][1]
        self.dice_first = bytearray(d[0] for d in leds["dice"])
        self.turn_led = bytearray(leds["turn"])
        self.buttons = desc["buttons"]
        self.sensing = desc["sensing"]
        self.power = desc["power"]

    def neighbours(self):
        """bytearray(4 * n_slots): per slot the slot before and after it on its zone's row, then
        the same slot of the zone beside it on either side (255: none)."""
        n = self.n_slots
        out = bytearray(b"\xff" * (4 * n))
        first = self.zone_first
        cap = self.zone_cap
        for z in range(ZONES):
            for j in range(cap[z]):
                s = first[z] + j
                if j:
                    out[4 * s] = s - 1
                if j + 1 < cap[z]:
                    out[4 * s + 1] = s + 1
        bz = self.beside
        for i in range(0, len(bz), 2):
            a = bz[i]
            b = bz[i + 1]
            for j in range(min(cap[a], cap[b])):
                sa = first[a] + j
                sb = first[b] + j
                out[4 * sa + 3] = sb
                out[4 * sb + 2] = sa
        return out

    def led_budget_ma(self):
        """mA left for driving the LEDs: derated supply minus logic, sensors and LED idle current."""
        p = self.power
        fe = self.digital if self.front_end == "digital" else self.analog
        usable = p["supply_ma"] * p["derate_pct"] // 100
        logic = p["pico_ma"] + p["buzzer_ma"] + p["registers_ma"]
        sensors = int(fe["sensor_ma"] * self.n_slots + 0.999)
        idle = p["led_idle_ma"] * self.n_leds
        return usable - logic - sensors - idle


def _drop_notes(d):
    """Remove the prose (notes, part descriptions) the firmware never reads: RAM."""
    for key in ("note", "sensor", "to", "supply"):
        d.pop(key, None)
    for v in d.values():
        if isinstance(v, dict):
            _drop_notes(v)


def _installed(path):
    """``path`` (relative) beside the firmware package: where pip installs hardware/ (or a checkout
    holds it), so a PC runs the virtual board from any folder; an absolute path stays itself."""
    if path[:1] in "/\\":
        return path
    import firmware
    return firmware.__file__.replace("\\", "/").rsplit("/", 2)[0] + "/" + path


def load(path="hardware/board.json", front_end=None):
    """Parse the description; front_end overrides its 'front_end' ("digital" or "analog").
    A description that is not JSON, or that board_check refuses, raises BoardConfigError
    naming the file and the field; a missing file, OSError."""
    import sys
    try:
        f = open(path)
    except OSError:                    # a PC, run from another folder: the installed copy
        f = open(_installed(path))
    try:
        with f:
            desc = json.load(f)
    except ValueError as exc:          # also UnicodeError: not UTF-8
        raise BoardConfigError("%s: not a JSON description: %s" % (path, exc))
    if isinstance(desc, dict):
        desc.pop("parts", None)
        _drop_notes(desc)
        if front_end:
            desc["front_end"] = front_end
    try:
        from firmware.drivers.board_check import check
    except ImportError:                # a firmware image without the checker: loads unchecked
        check = None
    try:
        if check is not None:
            check(desc)
    except ValueError as exc:          # what the check refuses, named by its field
        raise BoardConfigError("%s: %s" % (path, exc))
    finally:
        sys.modules.pop("firmware.drivers.board_check", None)   # checked once: free its RAM
        import firmware.drivers as package
        if hasattr(package, "board_check"):
            delattr(package, "board_check")
        check = None
        import gc
        gc.collect()                   # now, so the tables below fill the room it leaves
    return BoardConfig(desc)
