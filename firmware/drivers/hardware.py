"""Build the one Hardware object (sensors, LEDs, buttons, dice, storage, watchdog) from board.json."""

import firmware as features
from firmware.drivers import board_config
from firmware.drivers.buttons import Buttons
from firmware.drivers.buzzer import Buzzer
from firmware.drivers.debounce import SlotDebouncer
from firmware.drivers.dice import Dice, rosc_bit_source
from firmware.drivers.leds import Leds
from firmware.drivers.storage import Storage
from firmware.drivers.ticks import ticks_diff
from firmware.drivers.watchdog import Watchdog
from firmware.drivers.zones import ZoneReader

DESCRIPTION = "hardware/board.json"
DATA_ROOT = "/data"
CALIBRATION = "hall_calibration"     # analog front end: the sensors' baselines, in storage
_SIO_GPIO_IN = 0xD0000004


class Hardware:
    """Everything the board logic touches; ``sim`` is the simulator's controls (None on a board)."""

    def __init__(self, cfg, machine, neopixel, rp2, fs, ticks_ms, storage_root, sim=None):
        self.config = cfg
        self.sim = sim
        from binascii import hexlify
        self.board_id = hexlify(machine.unique_id()).decode()   # the flash chip's unique id
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        Pin = machine.Pin
        pins = cfg.pins
        sensing = cfg.sensing
        nb = (cfg.n_slots + 7) >> 3
        self.storage = Storage(storage_root, fs)
        if cfg.front_end == "digital":
            d = cfg.digital
            spi = machine.SPI(0, baudrate=d["spi_baud"], polarity=0, phase=0,
                              sck=Pin(pins["sr_clk"]), mosi=Pin(pins["sr_tx"]),
                              miso=Pin(pins["sr_data"]))
            load = Pin(pins["sr_load"], Pin.OUT, value=1)
            # (loaded by name: an import statement would intern the module's name on every board)
            scanner = features.load("firmware.drivers.shift_scan").ShiftRegisterScanner(
                spi, load, nb, cfg.n_slots, check=d.get("chips", nb) == nb)
            debouncer = SlotDebouncer(nb, sensing["press_ms"], sensing["release_ms"],
                                      active_low=d["active_low"])
        else:
            # loaded here: a digital board never spends RAM on the analog scanner's code
            scanner = features.load("firmware.drivers.analog_scan").build(
                cfg, machine, sim, self.storage)      # calibrated
            # one plane per stack level, then the colour plane
            debouncer = SlotDebouncer((cfg.levels + 1) * nb, sensing["press_ms"],
                                      sensing["release_ms"])
        cfg.analog.pop("stack", None)   # the scanner has its tables (the simulator its own): RAM
        self.scanner = scanner
        self.zones = ZoneReader(cfg, scanner, debouncer, sensing["stuck_ms"],
                                sensing["chatter_count"], sensing["chatter_ms"],
                                sensing["quick_ms"])
        p = cfg.power
        if cfg.led_driver == "pio":
            strip = features.load("firmware.drivers.ws2812_pio").PioStrip(
                rp2, Pin(pins["led_data"]), cfg.n_leds)
        else:
            strip = neopixel.NeoPixel(Pin(pins["led_data"], Pin.OUT), cfg.n_leds)
        self.leds = Leds(cfg, strip, cfg.led_budget_ma(), p["brightness_cap"], p["gamma"],
                         p["led_ma_per_channel"])
        btn = pins["btn_p0"]
        for i in range(3):
            Pin(btn + i, Pin.IN, Pin.PULL_UP)
        mem32 = machine.mem32

        def read_levels():
            return mem32[_SIO_GPIO_IN] >> btn

        self.buttons = Buttons(read_levels, cfg.buttons["debounce_ms"], cfg.buttons["long_ms"],
                               cfg.buttons.get("stuck_ms"))
        self.dice = Dice(rosc_bit_source(mem32))
        self.wdt = Watchdog(machine.WDT)
        self.buzzer = Buzzer(machine.PWM(Pin(pins["buzzer"])))


    def calibrate_sensors(self, samples=16):
        """Analog front end, board empty: measure every sensor's zero and keep it in storage."""
        if self.config.front_end != "analog":
            return False
        self.scanner.calibrate(samples)
        self.storage.write_atomic(CALIBRATION, self.scanner.calibration())
        self.zones.clear_faults()
        return True

    def calibrate_gains(self, samples=16):
        """Analog front end, one checker on every slot (after ``calibrate_sensors``): measure
        every sensor's single-checker signal, which its stack levels scale with; kept in
        storage with the zeros."""
        if self.config.front_end != "analog":
            return False
        self.scanner.calibrate_units(samples)
        self.storage.write_atomic(CALIBRATION, self.scanner.calibration())
        return True


def config(path=DESCRIPTION, front_end=None, led_driver=None):
    """board.json's tables; ``front_end`` ("digital"/"analog") and ``led_driver``
    ("neopixel"/"pio") override its choice."""
    cfg = board_config.load(path, front_end)
    if led_driver:
        cfg.led_driver = led_driver
    return cfg


def build(path=DESCRIPTION, front_end=None, storage_root=None, led_driver=None):
    """The board's Hardware on its own parts (``config`` reads the description). The simulated
    board's is ``firmware.sim.world.build``: the drivers never import the simulator."""
    cfg = config(path, front_end, led_driver)
    import machine
    import neopixel
    import rp2
    import time
    return Hardware(cfg, machine, neopixel, rp2, None, time.ticks_ms, storage_root or DATA_ROOT)
