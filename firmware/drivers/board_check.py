"""Plain checks of a hardware description (board.json) before the drivers use it: every field
the firmware reads is there, of its type and in a range that makes sense, or a ValueError
names the field (``sensing.scan_ms must be a whole number from 1 to 1000, got 0``).

Runs on the board (MicroPython) as on the host; board_config imports it for the check, turns its
ValueError into a BoardConfigError naming the file, and lets it go afterwards (RAM). The host adds
a full JSON Schema check (host_tools/boarddesign/board_schema.py).
"""

from firmware import ZONES

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_GPIOS = const(30)                 # the RP2040's GP0..GP29
_DIE_LEDS = const(7)
# analog.stack's plain numbers the scanner and the simulated field read: "path low high ..."
# (one text: its pieces cost no interned names)
_STACK_NUMS = const("magnet.br_t 0.01 2 magnet.thickness_mm 0.1 50 magnet.seat_mm 0 50 "
                    "magnet.diameter_mm 0.1 200 checker.thickness_mm 0.1 100 "
                    "sensor_depth_mm 0 200 tolerances.br_t 0 1 tolerances.thickness_mm 0 10 "
                    "tolerances.seat_mm 0 10 tolerances.checker_mm 0 10 "
                    "tolerances.gain_pct 0 100 tolerances.offset_codes 0 4095 "
                    "tolerances.depth_mm 0 10 tolerances.placement_mm 0 100 "
                    "tolerances.stack_mm 0 100")
# its per-level lists (one number a stack level), levels_mT first: "path low high ..." (signed
# bounds, the crosstalk's, are fractions of one checker's field, levels_mT[0])
_STACK_LISTS = const("levels_mT 0.01 1000 lateral_per_mm2 0 1 crosstalk_mT.along -0.49 0.49 "
                     "crosstalk_mT.across -0.49 0.49")


def _get(d, path, key, kind=None):
    if isinstance(key, int):
        if not isinstance(d, list) or key >= len(d):
            raise ValueError("%s is missing" % _at(path, key))
    elif not isinstance(d, dict):
        raise ValueError("%s must be an object" % (path or "the description"))
    elif key not in d:
        raise ValueError("%s is missing" % _at(path, key))
    v = d[key]
    if kind is not None and not isinstance(v, kind) or kind is int and isinstance(v, bool):
        raise ValueError("%s must be %s, got %s" % (_at(path, key), _KIND.get(kind, "?"),
                                                          _show(v)))
    return v


_KIND = {int: "a whole number", str: "text", dict: "an object", list: "a list", bool: "true or false"}


def _at(path, key):
    if isinstance(key, int):
        return "%s[%d]" % (path, key)
    return key if not path else path + "." + key


def _show(v):
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(d, path, key, lo, hi):
    v = _get(d, path, key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ValueError("%s must be a whole number from %d to %d, got %s"
                               % (_at(path, key), lo, hi, _show(v)))
    return v


def _num(d, path, key, lo, hi):
    v = _get(d, path, key)
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not lo <= v <= hi:
        raise ValueError("%s must be a number from %s to %s, got %s"
                               % (_at(path, key), lo, hi, _show(v)))
    return v


def _choice(d, path, key, values, default=None):
    if default is not None and key not in d:
        return default
    v = _get(d, path, key)
    if v not in values:
        raise ValueError("%s must be one of %s, got %s"
                               % (_at(path, key), ", ".join(values), _show(v)))
    return v


def _list(d, path, key, n):
    v = _get(d, path, key, list)
    if len(v) != n:
        raise ValueError("%s must list %d items, got %d" % (_at(path, key), n, len(v)))
    return v


def _span(v, path, count, length=None):
    """[first, n] of LEDs within the strip."""
    if not isinstance(v, list) or len(v) != 2:
        raise ValueError("%s must be [first LED, count], got %s" % (path, _show(v)))
    first = _int(v, path, 0, 0, count - 1)
    n = _int(v, path, 1, 0, count)
    if length is not None and n != length:
        raise ValueError("%s must be %d LEDs, got %d" % (path, length, n))
    if first + n > count:
        raise ValueError("%s runs past the strip's %d LEDs" % (path, count))


def _stack(ana):
    """analog.stack, the stacked magnets' model (and the sensor's scale beside it)."""
    st = _get(ana, "analog", "stack", dict)
    # (3 levels: the most the physics tells apart and the game tests; 5 slots x 3 = a zone's 15)
    k = _int(st, "analog.stack", "levels", 1, 3)
    _int(st, "analog.stack", "level_hyst_pct", 0, 49)
    one = 0
    for j, table in enumerate((_STACK_NUMS, _STACK_LISTS)):
        words = table.split()
        for i in range(0, len(words), 3):
            d, path = st, "analog.stack"
            keys = words[i].split(".")
            for key in keys[:-1]:
                d = _get(d, path, key, dict)
                path += "." + key
            lo, hi = float(words[i + 1]), float(words[i + 2])
            if not j:
                _num(d, path, keys[-1], lo, hi)
                continue
            if lo < 0:                      # crosstalk: within a fraction of one checker
                lo, hi = lo * one, hi * one
            v = _list(d, path, keys[-1], k)
            path += "." + keys[-1]
            for n in range(k):
                x = _num(v, path, n, lo, hi)
                if not i and n and x <= v[n - 1]:
                    raise ValueError("%s must rise with every checker stacked, got %s"
                                     % (path, _show(v)))
            if not i:
                one = v[0]
    _int(st["tolerances"], "analog.stack.tolerances", "noise_codes", 0, 4095)
    mv = _num(ana, "analog", "sensitivity_mv_mt", -1000, 1000)
    unit = abs(one * mv * 4095 / _num(ana, "analog", "adc_mv", 100, 10000))
    if not 1 <= unit + 0.5 < 4096:
        raise ValueError("analog.sensitivity_mv_mt: one checker (levels_mT[0]) moves its sensor "
                         "by %d ADC codes, not 1 to 4095 (with adc_mv)" % unit)


def check(desc):
    """Raise ValueError naming the first field the firmware cannot use."""
    if not isinstance(desc, dict):
        raise ValueError("the description must be a JSON object")
    _get(desc, "", "name", str)
    if "mcu" in desc and "wifi" in _get(desc, "", "mcu", dict):
        _get(desc["mcu"], "mcu", "wifi", bool)
    front = _choice(desc, "", "front_end", ("digital", "analog"))
    pins = _get(desc, "", "pins", dict)
    for key in pins:
        _int(_get(pins, "pins", key, dict), "pins." + key, "gpio", 0, _GPIOS - 1)
    need = ["led_data", "btn_p0", "buzzer", "sr_clk", "sr_tx", "sr_data", "sr_load", "mux_s0",
            "adc"]
    for key in need:
        _get(pins, "pins", key, dict)
    if pins["btn_p0"]["gpio"] + 2 >= _GPIOS:
        raise ValueError("pins.btn_p0.gpio: the three buttons take it and the next two "
                               "GPIOs, past GP%d" % (_GPIOS - 1))
    if pins["mux_s0"]["gpio"] + 7 >= _GPIOS:
        raise ValueError("pins.mux_s0.gpio: the eight select lines take it and the next "
                               "seven GPIOs, past GP%d" % (_GPIOS - 1))
    zones = _get(desc, "", "zones", dict)
    slots = _list(zones, "zones", "slots", ZONES)
    total = 0
    for z in range(ZONES):
        total += _int(slots, "zones.slots", z, 1, 15)
    _int(zones, "zones", "ordered", 0, ZONES)
    for i, pair in enumerate(_get(zones, "zones", "beside", list) if "beside" in zones else ()):
        path = "zones.beside[%d]" % i
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError("%s must be a pair of zones, got %s" % (path, _show(pair)))
        _int(pair, path, 0, 0, ZONES - 1)
        _int(pair, path, 1, 0, ZONES - 1)
    if front == "analog" and total > 255:
        raise ValueError("zones.slots: an analog board selects its slots with 8 lines and keeps "
                         "slot numbers in bytes: at most 255 slots, got %d" % total)
    dig = _get(desc, "", "digital", dict)
    chips = _int(dig, "digital", "chips", 1, 64)
    if front == "digital" and chips * 8 < total:
        raise ValueError("digital.chips: %d shift registers read %d inputs, fewer than "
                               "the %d slots" % (chips, chips * 8, total))
    _int(dig, "digital", "spi_baud", 1000, 50000000)
    _get(dig, "digital", "active_low", bool)
    _num(dig, "digital", "sensor_ma", 0, 1000)
    ana = _get(desc, "", "analog", dict)
    for key in ("zero_code", "on_codes", "off_codes", "rail_low", "rail_high", "bad_guard"):
        _int(ana, "analog", key, 0, 4095)
    if ana["rail_low"] >= ana["rail_high"]:
        raise ValueError("analog.rail_low must be below analog.rail_high")
    _choice(ana, "analog", "white", ("below", "above"))
    _int(ana, "analog", "per_scan", 1, 255)
    _int(ana, "analog", "filter_shift", 0, 15)
    _int(ana, "analog", "drift_shift", 0, 15)
    bad = _get(ana, "analog", "bad_codes", list)
    for i in range(len(bad)):
        _int(bad, "analog.bad_codes", i, 0, 4095)
    _num(ana, "analog", "sensor_ma", 0, 1000)
    if "stack" in ana:
        _stack(ana)
    leds = _get(desc, "", "leds", dict)
    count = _int(leds, "leds", "count", 1, 1024)
    _choice(leds, "leds", "driver", ("neopixel", "pio"), "neopixel")
    spans = _list(leds, "leds", "zones", ZONES)
    for z in range(ZONES):
        _span(spans[z], "leds.zones[%d]" % z, count)
    dice = _list(leds, "leds", "dice", 2)
    for i in range(2):
        _span(dice[i], "leds.dice[%d]" % i, count, _DIE_LEDS)
    turn = _list(leds, "leds", "turn", 2)
    for i in range(2):
        _int(turn, "leds.turn", i, 0, count - 1)
    buttons = _get(desc, "", "buttons", dict)
    deb = _int(buttons, "buttons", "debounce_ms", 1, 1000)
    long_ms = _int(buttons, "buttons", "long_ms", deb + 1, 60000)
    if "stuck_ms" in buttons:
        _int(buttons, "buttons", "stuck_ms", long_ms + 1, 3600000)
    sensing = _get(desc, "", "sensing", dict)
    _int(sensing, "sensing", "scan_ms", 1, 1000)
    for key in ("press_ms", "release_ms"):
        _int(sensing, "sensing", key, 0, 10000)
    for key in ("stuck_ms", "quick_ms", "chatter_ms"):
        _int(sensing, "sensing", key, 1, 600000)
    _int(sensing, "sensing", "chatter_count", 1, 255)
    power = _get(desc, "", "power", dict)
    _num(power, "power", "supply_ma", 1, 100000)
    _num(power, "power", "derate_pct", 1, 100)
    for key in ("pico_ma", "buzzer_ma", "registers_ma", "led_idle_ma"):
        _num(power, "power", key, 0, 100000)
    _num(power, "power", "led_ma_per_channel", 0.1, 1000)
    _int(power, "power", "brightness_cap", 1, 255)
    _num(power, "power", "gamma", 0.1, 10)
    usable = power["supply_ma"] * power["derate_pct"] / 100
    need = power["pico_ma"] + power["buzzer_ma"] + power["registers_ma"] \
        + (dig if front == "digital" else ana)["sensor_ma"] * total + power["led_idle_ma"] * count
    if need >= usable:
        raise ValueError("power.supply_ma: %d mA usable (derate_pct) leaves nothing for the "
                               "LEDs after %d mA of logic, sensors and idle LEDs"
                               % (usable, need))
