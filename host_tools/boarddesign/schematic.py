"""The board's schematic as a KiCad netlist, described with SKiDL on KiCad's own symbol libraries.

The stack-counting (analog) build of hardware/board.json: the Pico in two 20-pin socket strips,
one DRV5053 per slot into 74HC4067 sensor multiplexers, their outputs into a bank multiplexer
into ADC0, the WS2812B chain behind a 74AHCT125 and 330 ohm, the buttons, the buzzer, the
decoupling and bulk capacitors. SKiDL's electrical rules check runs on it.

Run as ``python -m host_tools.boarddesign.schematic`` (hardware_gen does, in a scratch folder, because SKiDL
writes its logs beside the script): prints one JSON object, {"netlist", "erc_errors",
"erc_warnings", "erc"}. Symbols: Debian's kicad-symbols (KiCad 6) in /usr/share/kicad/symbols.
"""

import json
import os
import re
import sys

SYMBOLS = os.environ.get("NARDY_KICAD_SYMBOLS", "/usr/share/kicad/symbols")
FOOTPRINTS = os.environ.get("NARDY_KICAD_FOOTPRINTS", "/usr/share/kicad/footprints")

# Raspberry Pi Pico pins that are not GPIOs (its datasheet's pinout)
PICO_GND = (3, 8, 13, 18, 23, 28, 38)
PICO_AGND = 33
PICO_3V3 = 36
PICO_VBUS = 40


def available():
    """True when SKiDL and the KiCad symbol libraries are installed."""
    try:
        import importlib.util
        return (importlib.util.find_spec("skidl") is not None
                and os.path.exists(os.path.join(SYMBOLS, "74xx.kicad_sym")))
    except ImportError:
        return False


def _env():
    for v in ("", "6", "7", "8", "9", "10"):
        os.environ.setdefault("KICAD%s_SYMBOL_DIR" % v, SYMBOLS)
        os.environ.setdefault("KICAD%s_FOOTPRINT_DIR" % v, FOOTPRINTS)


def build(desc):
    """Describe the circuit (SKiDL's default circuit); returns the number of parts."""
    _env()
    import skidl
    from skidl import Net, Part
    skidl.set_default_tool(skidl.KICAD6)
    skidl.empty_footprint_handler = lambda p: None    # PWR_FLAG has none, by design
    import builtins
    NC = builtins.NC                          # SKiDL's no-connect net (it puts it there)
    from host_tools.boarddesign.hardware_gen import PICO_PIN, n_slots

    def part(lib, name, ref, value=None, footprint=None):
        p = Part(lib, name, ref=ref, footprint=footprint, tag=ref)   # tag: a stable timestamp
        if value:
            p.value = value
        return p

    v5 = Net("+5V")
    v3 = Net("+3V3")
    gnd = Net("GND")
    for i, net in enumerate((v5, v3, gnd)):
        flag = part("power", "PWR_FLAG", "#FLG%d" % (i + 1))   # a schematic-only symbol
        flag[1] += net
    sock = "Connector_PinSocket_2.54mm:PinSocket_1x20_P2.54mm_Vertical"
    j1 = part("Connector_Generic", "Conn_01x20", "J1", "Pico pins 1-20", sock)
    j2 = part("Connector_Generic", "Conn_01x20", "J2", "Pico pins 21-40", sock)

    def pico(pin):
        return j1[pin] if pin <= 20 else j2[pin - 20]

    used = set()
    for p in PICO_GND + (PICO_AGND,):
        pico(p).__iadd__(gnd)
        used.add(p)
    pico(PICO_3V3).__iadd__(v3)
    pico(PICO_VBUS).__iadd__(v5)
    used.update((PICO_3V3, PICO_VBUS))
    pins = {k: v["gpio"] for k, v in desc["pins"].items() if v.get("front_end", "analog") == "analog"}
    gpio = {}
    for name, g in pins.items():
        gpio[name] = Net(name.upper())
        pico(PICO_PIN[g]).__iadd__(gpio[name])
        used.add(PICO_PIN[g])
    for p in range(1, 41):
        if p not in used:
            pico(p).__iadd__(NC)

    a = desc["analog"]
    n = n_slots(desc)
    soic = "Package_SO:SOIC-24W_7.5x15.4mm_P1.27mm"
    caps = []

    def decouple(ic_ref, net):
        c = part("Device", "C", "C%d" % (len(caps) + 10), "100n",
                 "Capacitor_SMD:C_0603_1608Metric")
        c[1] += net
        c[2] += gnd
        caps.append((ic_ref, c))

    bank = part("74xx", "CD74HC4067M", "U2", "CD74HC4067", soic)
    bank["VCC"] += v3
    bank["GND"] += gnd
    bank["~{E}"] += gnd
    for i in range(4):
        bank["S%d" % i] += gpio["bank_s%d" % i]
    bank["COM"] += gpio["adc"]
    decouple("U2", v3)
    muxes = []
    for m in range(a["muxes"]):
        u = part("74xx", "CD74HC4067M", "U%d" % (3 + m), "CD74HC4067", soic)
        u["VCC"] += v3
        u["GND"] += gnd
        u["~{E}"] += gnd
        for i in range(4):
            u["S%d" % i] += gpio["mux_s%d" % i]
        link = Net("MUX%d" % m)
        u["COM"] += link
        bank["I%d" % m] += link
        decouple(u.ref, v3)
        muxes.append(u)
    for i in range(a["muxes"], 16):
        bank["I%d" % i] += NC
    zones = desc["zones"]
    first = 0
    for z, (name, cap) in enumerate(zip(zones["names"], zones["slots"])):
        for j in range(cap):
            s = first + j
            h = part("Sensor_Magnetic", "DRV5055A1xDBZxQ1", "H%d" % (s + 1), "DRV5053OA",
                     "Package_TO_SOT_SMD:SOT-23")
            h["VCC"] += v5
            h["GND"] += gnd
            out = Net("S%d_%s_%d" % (s, name.upper(), j))
            h["OUT"] += out
            muxes[s // 16]["I%d" % (s % 16)] += out
        first += cap
    for s in range(n, 16 * a["muxes"]):
        muxes[s // 16]["I%d" % (s % 16)] += NC

    buf = part("74xx", "74LS125", "U1", "74AHCT125", "Package_DIP:DIP-14_W7.62mm")
    buf["VCC"] += v5
    buf["GND"] += gnd
    buf[1] += gnd                     # 1/OE: enabled
    buf[2] += gpio["led_data"]        # 1A
    din = Net("LED_DIN")
    r = part("Device", "R", "R1", "330", "Resistor_SMD:R_0603_1608Metric")
    r[1] += buf[3]                    # 1Y
    r[2] += din
    for oe, a_in, y in ((4, 5, 6), (10, 9, 8), (13, 12, 11)):
        buf[oe] += v5                 # unused gates: disabled, inputs held
        buf[a_in] += gnd
        buf[y] += NC
    decouple("U1", v5)
    bulk = part("Device", "C_Polarized", "C1", "1000u 10V", "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm")
    bulk[1] += v5
    bulk[2] += gnd
    prev = din
    leds = desc["leds"]["count"]
    for i in range(leds):
        d = part("LED", "WS2812B", "D%d" % (i + 1), "WS2812B",
                 "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm")
        d["VDD"] += v5
        d["VSS"] += gnd
        d["DIN"] += prev
        if i + 1 < leds:
            prev = Net("LED%d" % (i + 1))
            d["DOUT"] += prev
        else:
            d["DOUT"] += NC
    for i, key in enumerate(("btn_p0", "btn_p1", "btn_menu")):
        sw = part("Switch", "SW_Push", "SW%d" % (i + 1), key.upper(),
                  "Button_Switch_THT:SW_PUSH_6mm")
        sw[1] += gpio[key]
        sw[2] += gnd
    bz = part("Device", "Buzzer", "BZ1", "passive piezo", "Buzzer_Beeper:Buzzer_12x9.5RM7.6")
    bz[1] += gpio["buzzer"]
    bz[2] += gnd
    return len(builtins.default_circuit.parts)


def run(desc):
    """Build, check and write: {"netlist": text (no date), "erc_errors", "erc_warnings",
    "erc": the checker's messages}."""
    import io
    import logging
    _env()
    import skidl
    from skidl.logger import erc_logger
    build(desc)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    erc_logger.addHandler(handler)
    erc_logger.error.reset()
    erc_logger.warning.reset()
    skidl.ERC()
    errors = erc_logger.error.count
    warnings = erc_logger.warning.count
    text = skidl.generate_netlist(file_=os.devnull)
    text = re.sub(r'\(date "[^"]*"\)', '(date "")', str(text))
    text = re.sub(r'\(tool "[^"]*"\)', '(tool "SKiDL")', text)
    text = re.sub(r'\(source "[^"]*"\)', '(source "host_tools/boarddesign/schematic.py")', text)
    return {"netlist": text, "erc_errors": errors, "erc_warnings": warnings,
            "erc": stream.getvalue()}


def main():
    from host_tools.boarddesign.hardware_gen import MISSING, load
    if not available():
        sys.stderr.write("SKiDL or KiCad's symbol libraries are missing: pip install skidl "
                         "(requirements/test.txt); apt-get install kicad-symbols "
                         "kicad-footprints (scripts/system_deps.sh)\n")
        return MISSING
    out = run(load(sys.argv[1]) if len(sys.argv) > 1 else load())
    sys.stdout.write(json.dumps(out))
    return 0


if __name__ == "__main__":
    # run as a file: the folder holding host_tools/ is where its imports come from
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    sys.exit(main())
