"""The hardware description (hardware/board.json) loaded into the small tables the drivers use."""

import json

ZONES = 28
BAR0 = 24
TRAY0 = 26


class BoardConfig:
    """Tables derived from board.json: slot ranges per zone, pins, front end and LED map."""

    def __init__(self, desc):
        self.name = desc["name"]
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
        self.digital = desc["digital"]
        self.analog = desc["analog"]
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

    def led_budget_ma(self):
        """mA left for driving the LEDs: derated supply minus logic, sensors and LED idle current."""
        p = self.power
        fe = self.digital if self.front_end == "digital" else self.analog
        usable = p["supply_ma"] * p["derate_pct"] // 100
        logic = p["pico_ma"] + p["buzzer_ma"] + p["registers_ma"]
        sensors = int(fe["sensor_ma"] * self.n_slots + 0.999)
        idle = p["led_idle_ma"] * self.n_leds
        return usable - logic - sensors - idle


def load(path="hardware/board.json", front_end=None):
    """Parse the description; front_end overrides its 'front_end' ("digital" or "analog")."""
    with open(path) as f:
        desc = json.load(f)
    desc.pop("parts", None)
    if front_end:
        desc["front_end"] = front_end
    return BoardConfig(desc)
