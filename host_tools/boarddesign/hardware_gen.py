"""Derive the bill of materials, wiring table, wiring diagram, LED power budget and the stacked-magnet
model (board.json's derived analog.stack fields) from hardware/board.json."""

import csv
import io
import json
import os
import re

from host_tools.boarddesign import magnetics
from host_tools import REPO_ROOT

DESCRIPTION = os.path.join(REPO_ROOT, "hardware", "board.json")
OUT_DIR = os.path.join(REPO_ROOT, "hardware", "generated")
FRONT_ENDS = ("digital", "analog")

# Raspberry Pi Pico header: GPIO number -> physical pin (pico datasheet pinout)
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
            12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
            22: 29, 26: 31, 27: 32, 28: 34}
PICO_POWER = {"VBUS": 40, "VSYS": 39, "GND": 38, "3V3": 36, "AGND": 33}
USABLE_GPIO = set(PICO_PIN)


def load(path=DESCRIPTION):
    with open(path) as f:
        return json.load(f)


def n_slots(desc):
    return sum(desc["zones"]["slots"])


def zone_slots(desc):
    """[(zone index, name, first slot, count)]"""
    out, first = [], 0
    for z, (name, cap) in enumerate(zip(desc["zones"]["names"], desc["zones"]["slots"])):
        out.append((z, name, first, cap))
        first += cap
    return out


def pins_for(desc, front_end):
    """{name: gpio} of the pins used with that front end."""
    return {k: v["gpio"] for k, v in desc["pins"].items()
            if v.get("front_end", front_end) == front_end}


def ic_count(desc, front_end):
    fe = desc[front_end]
    chips = fe["chips"] if front_end == "digital" else fe["muxes"] + fe["bank_mux"]
    return chips + 1            # + the 74AHCT125 level shifter


def quantity(desc, expr, front_end):
    total = 0
    for term in expr.split("+"):
        term = term.strip()
        if term == "slots":
            total += n_slots(desc)
        elif term == "ics":
            total += ic_count(desc, front_end)
        else:
            section, key = term.split(".")
            total += desc[section][key]
    return total


def bom_rows(desc):
    rows = []
    for part in desc["parts"]:
        fes = [part["front_end"]] if "front_end" in part else list(FRONT_ENDS)
        qtys = [part["qty"] if isinstance(part["qty"], int) else quantity(desc, part["qty"], fe)
                for fe in fes]
        if len(fes) == 2 and qtys[0] == qtys[1]:
            fes, qtys = ["both"], qtys[:1]
        for fe, q in zip(fes, qtys):
            rows.append({"front_end": fe, "ref": part["ref"], "part": part["part"],
                         "value": part["value"], "package": part["package"], "quantity": q,
                         "example_part_number": part["pn"]})
    return rows


def bom_csv(desc):
    buf = io.StringIO()
    fields = ["front_end", "ref", "part", "value", "package", "quantity", "example_part_number"]
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for row in bom_rows(desc):
        w.writerow(row)
    return buf.getvalue()


def power_budget(desc, front_end):
    """Figures of the LED current budget for one front end (mA)."""
    p = desc["power"]
    fe = desc[front_end]
    n_leds = desc["leds"]["count"]
    usable = p["supply_ma"] * p["derate_pct"] // 100
    logic = p["pico_ma"] + p["buzzer_ma"] + p["registers_ma"]
    sensors = int(fe["sensor_ma"] * n_slots(desc) + 0.999)
    idle = p["led_idle_ma"] * n_leds
    budget = usable - logic - sensors - idle
    per_channel_at_cap = p["led_ma_per_channel"] * p["brightness_cap"] / 255
    white_at_cap = round(3 * per_channel_at_cap * n_leds)
    white_full = 3 * p["led_ma_per_channel"] * n_leds
    units = budget * 255 // p["led_ma_per_channel"]
    cap_sum = 3 * n_leds * p["brightness_cap"]
    scale = min(256, (units << 8) // cap_sum) if cap_sum > units else 256
    limited = (cap_sum * scale >> 8) * p["led_ma_per_channel"] // 255
    return {"usable": usable, "logic": logic, "sensors": sensors, "idle": idle,
            "budget": budget, "white_full": white_full, "white_at_cap": white_at_cap,
            "scale": scale, "limited": limited, "total_worst": logic + sensors + idle + limited,
            "lit_at_cap_unlimited": int(budget // (3 * per_channel_at_cap))}


def power_md(desc):
    p = desc["power"]
    n_leds = desc["leds"]["count"]
    lines = ["# LED current budget (generated from hardware/board.json; do not edit)", "",
             "Supply: %s, %d mA, used at %d %% (%d mA). %d WS2812 LEDs at up to %d mA per colour "
             "channel (value 255), %d mA idle each; brightness cap %d/255 (gamma %.1f)."
             % (p["supply"], p["supply_ma"], p["derate_pct"], p["supply_ma"] * p["derate_pct"] // 100,
                n_leds, p["led_ma_per_channel"], p["led_idle_ma"], p["brightness_cap"], p["gamma"]),
             "",
             "| mA | digital front end | analog front end |", "|---|---:|---:|"]
    b = {fe: power_budget(desc, fe) for fe in FRONT_ENDS}
    for key, label in [("usable", "usable supply"), ("logic", "Pico, shift registers, buzzer"),
                       ("sensors", "sensors (worst case)"), ("idle", "LED idle current"),
                       ("budget", "**left for LED drive (limiter budget)**"),
                       ("white_full", "full white, no cap (never sent)"),
                       ("white_at_cap", "full white at the brightness cap"),
                       ("limited", "full white at the cap, after the limiter"),
                       ("total_worst", "**worst total draw**"),
                       ("lit_at_cap_unlimited", "white LEDs at the cap before the limiter acts")]:
        lines.append("| %s | %s | %s |" % (label, b["digital"][key], b["analog"][key]))
    lines += ["", "Limiter scale for a full-white frame: digital %d/256, analog %d/256. The limiter "
              "(firmware/drivers/leds.py) estimates each frame's current from the sum of its channel "
              "values and scales the whole frame so that the drive current stays inside the budget; "
              "the worst total draw therefore stays under the usable supply." %
              (b["digital"]["scale"], b["analog"]["scale"]), "",
              "A laptop's USB 2.0 port gives 500 mA: that is not enough for this budget. Use a 5 V "
              "2 A charger, or lower `power.supply_ma` in board.json (the limiter follows it).", ""]
    return "\n".join(lines)


def wiring_md(desc):
    lines = ["# Wiring (generated from hardware/board.json; do not edit)", "",
             "## Pico pins", "",
             "| GPIO | Pico pin | signal | dir | connects to | front end | note |",
             "|---:|---:|---|---|---|---|---|"]
    for name, pin in sorted(desc["pins"].items(), key=lambda kv: kv[1]["gpio"]):
        g = pin["gpio"]
        lines.append("| GP%d | %d | %s | %s | %s | %s | %s |" % (
            g, PICO_PIN[g], name, pin["dir"], pin["to"], pin.get("front_end", "both"),
            pin.get("note", "")))
    lines += ["", "Power: VBUS (pin %d) feeds the LED strip's 5 V, the 74AHCT125 (so its outputs "
              "reach the strip's logic level; its unused /OE inputs to 5 V, 1/OE to GND) and, for the "
              "analog front end, the DRV5053 sensors; 3V3 (pin %d) feeds the 74HC165s or 74HC4067s "
              "and the reed pull-ups; GND (pin %d and the others) is common to everything. Put "
              "1000 uF across the strip's supply where it enters the board, and a 100 nF capacitor "
              "at every chip." % (PICO_POWER["VBUS"], PICO_POWER["3V3"], PICO_POWER["GND"]), ""]
    d, a = desc["digital"], desc["analog"]
    lines += ["## Digital front end: %s chain" % d["register"], "", d["note"] + ".", "",
              "Sensor: %s." % d["sensor"], "",
              "## Analog front end: %s" % a["mux"], "", a["note"] + ".", "",
              "Sensor: %s." % a["sensor"], "",
              "## Slots, sensors and LEDs per zone", "",
              "| zone | name | slots | 74HC165 chip:input | 74HC4067 mux:channel | LEDs |",
              "|---:|---|---|---|---|---|"]
    leds = desc["leds"]
    for z, name, first, cap in zone_slots(desc):
        last = first + cap - 1
        sr = "%d:%s .. %d:%s" % (first // 8, "ABCDEFGH"[first % 8], last // 8, "ABCDEFGH"[last % 8])
        mx = "%d:%d .. %d:%d" % (first // 16, first % 16, last // 16, last % 16)
        lf, lc = leds["zones"][z]
        lines.append("| %d | %s | %d .. %d | %s | %s | %d .. %d |" % (
            z, name, first, last, sr, mx, lf, lf + lc - 1))
    lines += ["", "Slot 0 of a point sits at its base (the board's outer edge); LED first+j sits "
              "above slot j.", "", "## LED strip order", "", "| LEDs | what |", "|---|---|"]
    for z, name, first, cap in zone_slots(desc):
        lf, lc = leds["zones"][z]
        lines.append("| %d .. %d | zone %d (%s) |" % (lf, lf + lc - 1, z, name))
    for i, (first, count) in enumerate(leds["dice"]):
        lines.append("| %d .. %d | die %d pips: %s |" % (first, first + count - 1, i,
                                                          ", ".join(leds["pips"])))
    for side, i in enumerate(leds["turn"]):
        lines.append("| %d | turn indicator, %s |" % (i, "White" if side == 0 else "Black"))
    lines.append("")
    return "\n".join(lines)


def _text(x, y, s, size=11, anchor="start", weight="normal"):
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return ('<text x="%d" y="%d" font-size="%d" text-anchor="%s" font-weight="%s">%s</text>'
            % (x, y, size, anchor, weight, s))


def _box(x, y, w, h, fill="#fff"):
    return '<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#222"/>' % (x, y, w, h, fill)


def _wire(x1, y1, x2, y2, colour="#06c"):
    mid = (x1 + x2) // 2
    return ('<polyline points="%d,%d %d,%d %d,%d %d,%d" fill="none" stroke="%s" stroke-width="2"/>'
            % (x1, y1, mid, y1, mid, y2, x2, y2, colour))


def wiring_svg(desc):
    """A diagram a maker can follow: the Pico's used pins wired to each part, and the board map."""
    W, H = 1200, 1180
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif">' % (W, H, W, H),
           '<rect width="100%" height="100%" fill="#fafafa"/>',
           _text(20, 28, "%s wiring (generated from hardware/board.json)" % desc["name"], 16,
                 weight="bold")]
    pins = sorted(desc["pins"].items(), key=lambda kv: kv[1]["gpio"])
    px, py, ph = 40, 60, 26
    out.append(_box(px, py, 170, ph * (len(pins) + 4), "#dfe"))
    out.append(_text(px + 85, py + 18, "Raspberry Pi Pico", 13, "middle", "bold"))
    colours = {"sr": "#c60", "mux": "#06c", "bank": "#039", "adc": "#039", "led": "#c00",
               "btn": "#333", "buzzer": "#666"}
    y = py + 30
    for name, pin in pins:
        g = pin["gpio"]
        out.append(_text(px + 10, y + 4, "GP%d (pin %d)" % (g, PICO_PIN[g]), 11))
        out.append(_text(px + 160, y + 4, name, 11, "end", "bold"))
        key = name.split("_")[0]
        colour = colours.get(key, "#333")
        out.append(_wire(px + 170, y, 500, y, colour))
        out.append(_text(505, y + 4, pin["to"] + ("  [%s]" % pin["front_end"] if "front_end" in pin else ""), 11))
        y += ph
    for label, to, colour in (("VBUS", "5 V: LED strip, 74AHCT125 VCC, DRV5053 VCC [analog], 1000 uF", "#c00"),
                              ("3V3", "3.3 V: 74HC165 / 74HC4067 VCC, reed pull-ups [digital]", "#e80"),
                              ("GND", "GND: every part (common ground with the strip's supply)", "#000")):
        out.append(_text(px + 10, y + 4, "%s (pin %d)" % (label, PICO_POWER[label]), 11, weight="bold"))
        out.append(_wire(px + 170, y, 500, y, colour))
        out.append(_text(505, y + 4, to, 11))
        y += ph
    # the chain and the board map
    cy = y + 30
    d = desc["digital"]
    out.append(_text(20, cy, "Digital: %d x 74HC165, QH of chip i+1 -> SER of chip i; chip 0's QH "
                     "-> GP%d; slot s -> chip s//8 input D(s%%8)" % (d["chips"], desc["pins"]["sr_data"]["gpio"]),
                     12, weight="bold"))
    cy += 14
    for i in range(d["chips"]):
        x = 20 + i * 68
        out.append(_box(x, cy, 60, 34, "#fd8"))
        out.append(_text(x + 30, cy + 14, "#%d" % i, 11, "middle", "bold"))
        out.append(_text(x + 30, cy + 28, "s%d-%d" % (8 * i, 8 * i + 7), 10, "middle"))
        if i:
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#c60" stroke-width="2"/>'
                       % (x, cy + 17, x - 8, cy + 17))
    cy += 60
    a = desc["analog"]
    out.append(_text(20, cy, "Analog: sensor mux m channel c = slot 16m+c; mux m's SIG -> bank mux "
                     "channel m -> GP%d (ADC0)" % desc["pins"]["adc"]["gpio"], 12, weight="bold"))
    cy += 14
    for m in range(a["muxes"]):
        x = 20 + m * 90
        out.append(_box(x, cy, 80, 34, "#cdf"))
        out.append(_text(x + 40, cy + 14, "mux %d" % m, 11, "middle", "bold"))
        out.append(_text(x + 40, cy + 28, "s%d-%d" % (16 * m, 16 * m + 15), 10, "middle"))
    cy += 64
    out.append(_text(20, cy, "Board map: zone (slots, LEDs); slot 0 at each point's base", 12,
                     weight="bold"))
    cy += 10
    zs = zone_slots(desc)
    leds = desc["leds"]["zones"]
    tw = 48
    for z, name, first, cap in zs[:24]:
        top = z >= 12                      # k13..k24 across the top, k12..k1 along the bottom
        col = (z - 12) if top else (11 - z)
        x = 20 + col * (tw + 4) + (40 if col >= 6 else 0)
        ybase = cy + 10 if top else cy + 250
        tip = ybase + 100 if top else ybase - 100
        out.append('<polygon points="%d,%d %d,%d %d,%d" fill="%s" stroke="#222"/>' % (
            x, ybase, x + tw, ybase, x + tw // 2, tip, "#e8d6b0" if z % 2 else "#b98b5e"))
        lf, lc = leds[z]
        out.append(_text(x + tw // 2, ybase + (14 if top else -4), name, 11, "middle", "bold"))
        out.append(_text(x + tw // 2, ybase + (26 if top else -16), "s%d-%d" % (first, first + cap - 1),
                         8, "middle"))
        out.append(_text(x + tw // 2, ybase + (36 if top else -26), "L%d-%d" % (lf, lf + lc - 1),
                         8, "middle"))
    bx = 20 + 6 * (tw + 4) + 2
    for z, name, first, cap in zs[24:26]:
        yy = cy + 70 + (z - 24) * 80
        lf, lc = leds[z]
        out.append(_box(bx - 2, yy, 36, 60, "#ccc"))
        out.append(_text(bx + 16, yy + 16, name, 10, "middle", "bold"))
        out.append(_text(bx + 16, yy + 32, "s%d-%d" % (first, first + cap - 1), 8, "middle"))
        out.append(_text(bx + 16, yy + 46, "L%d-%d" % (lf, lf + lc - 1), 8, "middle"))
    tx = 20 + 12 * (tw + 4) + 50
    for z, name, first, cap in zs[26:28]:
        yy = cy + 20 + (z - 26) * 110
        lf, lc = leds[z]
        out.append(_box(tx, yy, 60, 90, "#ddd"))
        out.append(_text(tx + 30, yy + 20, name, 11, "middle", "bold"))
        out.append(_text(tx + 30, yy + 40, "s%d-%d" % (first, first + cap - 1), 9, "middle"))
        out.append(_text(tx + 30, yy + 56, "L%d-%d" % (lf, lf + lc - 1), 9, "middle"))
    dx = tx + 90
    for i, (first, count) in enumerate(desc["leds"]["dice"]):
        out.append(_box(dx, cy + 20 + i * 80, 60, 60, "#fff"))
        out.append(_text(dx + 30, cy + 44 + i * 80, "die %d" % i, 11, "middle", "bold"))
        out.append(_text(dx + 30, cy + 60 + i * 80, "L%d-%d" % (first, first + count - 1), 9, "middle"))
    for side, i in enumerate(desc["leds"]["turn"]):
        out.append('<circle cx="%d" cy="%d" r="12" fill="#ffd" stroke="#222"/>' % (dx + 110, cy + 50 + side * 80))
        out.append(_text(dx + 110, cy + 80 + side * 80, "turn %s L%d" % ("W" if side == 0 else "B", i),
                         9, "middle"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


DERIVED = ("levels_mT", "lateral_per_mm2", "crosstalk_mT")


def stack_model(desc):
    """The derived fields of analog.stack, computed from its geometry (host_tools/magnetics)."""
    return magnetics.StackGeometry(desc["analog"]["stack"]).model()


def model_stale(desc):
    """True when board.json's derived stack fields differ from what its geometry gives."""
    stack = desc["analog"]["stack"]
    return any(stack.get(k) != v for k, v in stack_model(desc).items())


def write_model(desc, path=DESCRIPTION):
    """Rewrite the one line of board.json that holds the derived stack fields (the rest of the
    hand-formatted file is left as it is); returns True when it changed."""
    model = stack_model(desc)
    with open(path) as f:
        text = f.read()
    line = ", ".join("%s: %s" % (json.dumps(k), json.dumps(model[k])) for k in DERIVED) + ","
    new, n = re.subn(r'"levels_mT":.*?"crosstalk_mT": \{[^}]*\},', lambda m: line, text, count=1)
    if n != 1:
        raise ValueError("board.json: no analog.stack levels_mT/lateral_per_mm2/crosstalk_mT line")
    if new == text:
        return False
    with open(path, "w") as f:
        f.write(new)
    desc["analog"]["stack"].update(model)
    return True


class SchematicError(Exception):
    """The netlist could not be made, or its electrical rules check found errors."""


MISSING = 3     # host_tools.boarddesign.schematic's exit status when SKiDL or the symbol libraries are missing


_netlists: dict = {}


def schematic(desc):
    """SKiDL's netlist of the board and its ERC ({"netlist", "erc_errors", "erc_warnings",
    "erc"}), made by ``python -m host_tools.boarddesign.schematic`` in a scratch folder (SKiDL writes logs
    beside the script); cached per description. SchematicError when SKiDL or KiCad's symbol
    libraries are missing (scripts/system_deps.sh, requirements/test.txt) or the run fails."""
    import subprocess
    import sys
    import tempfile
    key = json.dumps(desc, sort_keys=True)
    if key in _netlists:
        return _netlists[key]
    with tempfile.TemporaryDirectory(prefix="nardy-skidl-") as tmp:
        path = os.path.join(tmp, "board.json")
        with open(path, "w") as f:
            json.dump(desc, f)
        env = dict(os.environ, PYTHONPATH=REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run([sys.executable, "-m", "host_tools.boarddesign.schematic", path], cwd=tmp,
                              env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode == MISSING:
        raise SchematicError(proc.stderr.strip())
    if proc.returncode != 0:
        raise SchematicError("host_tools.boarddesign.schematic failed:\n" + proc.stderr[-2000:])
    out = json.loads(proc.stdout)
    _netlists[key] = out
    return out


def outputs(desc, netlist=True):
    """{file name under hardware/generated: text}; ``netlist``: with SKiDL's netlist.net."""
    out = {"bom.csv": bom_csv(desc), "wiring.md": wiring_md(desc),
           "wiring.svg": wiring_svg(desc), "power.md": power_md(desc)}
    if netlist:
        out["netlist.net"] = schematic(desc)["netlist"]
    return out


def write_all(desc, out_dir=OUT_DIR, netlist=True):
    os.makedirs(out_dir, exist_ok=True)
    for name, text in outputs(desc, netlist).items():
        with open(os.path.join(out_dir, name), "w", newline="") as f:
            f.write(text)


def stale(desc, out_dir=OUT_DIR, netlist=True):
    """Names of generated files that differ from what board.json gives (or are missing)."""
    bad = []
    for name, text in outputs(desc, netlist).items():
        path = os.path.join(out_dir, name)
        try:
            with open(path, newline="") as f:
                if f.read() != text:
                    bad.append(name)
        except OSError:
            bad.append(name)
    return bad
