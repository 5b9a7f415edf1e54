"""Classification table of the stack-counting sensors: true count vs read count per zone kind, under the modelled tolerances.

python -m host_tools sensing [--readings N] [--seed S] [--json]

Each reading is one zone of a kind (a point in a quarter, a point at a quarter's edge, a bar, a
tray) holding a random count 0..15 set out as people do (a row of 5, then stacked), with random
stacks of either colour on the neighbouring slots. Every magnet, sensor and placement is drawn
from board.json's analog.stack tolerances (host_tools/boarddesign/magnetics.py: fields of the drawn magnets
at their drawn heights and offsets, the neighbours' crosstalk, the sensor's gain, zero offset and
noise); each sensor's gain was calibrated with one drawn checker, as a builder does. The slots
are then read by the firmware's own classifier (AnalogScanner.classify, with the crosstalk the
scanner takes out of the baseline) and summed. Prints per kind the table and the error rate.
"""

import argparse
import json
import random
import sys
import time

from host_tools import prog
from host_tools.boarddesign import hardware_gen, magnetics

# kind: (neighbours along the row at the ends?, neighbours across)
KINDS = {"point": 2, "edge point": 1, "bar": 0, "tray": 0}


def _scanner(cfg):
    from firmware.drivers.analog_scan import AnalogScanner
    from firmware.drivers.analog_cal import stack
    unit, ratios, xt, hyst = stack(cfg)
    a = cfg.analog
    sc = AnalogScanner(lambda: 0, None, 0, 1, zero_code=a["zero_code"], on_codes=a["on_codes"],
                       off_codes=a["off_codes"], levels=cfg.levels, unit=unit,
                       ratios=ratios, hyst=hyst, crosstalk=xt, neighbours=bytearray(b"\xff" * 4),
                       white_below=a["white"] == "below")
    return sc, unit, xt


def table(readings, seed, log=None):
    """{kind: {"counts": [[read counts per true count]], "errors": n, "readings": n}}."""
    from firmware import sim
    sim.install()
    from firmware.drivers import board_config, hardware
    desc = hardware_gen.load()
    stack = desc["analog"]["stack"]
    cfg = board_config.load(hardware.DESCRIPTION, "analog")
    geo = magnetics.StackGeometry(stack)
    rng = random.Random(seed)
    tol = magnetics.Tolerances(geo, rng)
    a = desc["analog"]
    per_mt = abs(a["sensitivity_mv_mt"]) * 4095 / a["adc_mv"]
    noise = stack["tolerances"]["noise_codes"]
    sc, unit_nom, xt = _scanner(cfg)
    levels = stack["levels"]
    slots = 5
    xt_mt = (stack["crosstalk_mT"]["along"], stack["crosstalk_mT"]["across"])
    out = {}
    per_kind = max(1, readings // len(KINDS))
    for kind, across in KINDS.items():
        counts = [[0] * 16 for _ in range(16)]
        errors = 0
        t0 = time.time()
        for _ in range(per_kind):
            n = rng.randrange(16)
            colour = rng.choice((1, -1))           # +1 White (reads below), -1 Black
            lev = [(n - j + slots - 1) // slots if n > j else 0 for j in range(slots)]
            # neighbours across: the same slot on the zone(s) beside, random stacks
            side_lev = [[rng.randrange(levels + 1) for _ in range(slots)] for _ in range(across)]
            side_col = [rng.choice((1, -1)) for _ in range(across)]
            read = 0
            for j in range(slots):
                gain, zero, depth = tol.sensor()
                # the builder's calibration: one drawn checker on the slot (its neighbours
                # holding one each, which calibrate_units takes out)
                cal = tol.stack_field([tol.magnet()], depth) * gain * per_mt
                rows = (j > 0) + (j < slots - 1)
                x1 = [xt_mt[0][0]] * rows + [xt_mt[1][0]] * across
                f = 256 + sum(int(round(256 * x / stack["levels_mT"][0])) for x in x1)
                cal_read = cal * (1 + sum(x1) / stack["levels_mT"][0])
                unit = int(abs(cal_read) * 16 * 256 / f)
                field = colour * tol.stack_field([tol.magnet() for _ in range(lev[j])], depth)
                x_true = 0.0
                x_est = 0
                nb = []
                if j > 0:
                    nb.append((0, lev[j - 1], colour))
                if j < slots - 1:
                    nb.append((0, lev[j + 1], colour))
                for i in range(across):
                    nb.append((1, side_lev[i][j], side_col[i]))
                for k, lv, c in nb:
                    if lv:
                        x = xt_mt[k][lv - 1] * c * (1 + rng.uniform(-0.08, 0.08))
                        x_true += x
                        r = xt[k][lv - 1]
                        r = r - 256 if r > 127 else r
                        x_est += -(unit * r >> 8) if c > 0 else (unit * r >> 8)
                # a White field lowers the reading (white below)
                code = 16 * (a["zero_code"] + zero) - 16 * gain * per_mt * (field + x_true) \
                    + 16 * noise * (rng.random() + rng.random() + rng.random() - 1.5) * 2
                base = 16 * (a["zero_code"] + zero)
                sc.unit[0] = unit if unit < 0xFFFF else 0xFFFF
                sc.baseline[0] = int(base + x_est)
                st = sc.classify(0, int(code))
                read += st & 3
            counts[n][read] += 1
            errors += read != n
        out[kind] = {"counts": counts, "errors": errors, "readings": per_kind,
                     "seconds": round(time.time() - t0, 1)}
        if log:
            log("%s: %d readings, %d errors" % (kind, per_kind, errors))
    return out


def mixed(readings, seed, log=None):
    """Mixed stacks: a checker of the other colour put on top of a stack of 1..3 (a zone of 5..15
    checkers of one colour), the stack first built checker by checker as play builds it, each
    step read and judged by the firmware (AnalogScanner.classify, then ``_judge``, which learns
    the stack's own unit). Per stack height: {"tries", "flagged" (said unclear at once),
    "silent" (neither flagged nor a change of count: the error), "restored" (the checker taken
    off again, the slot reads the stack as it was, unflagged)} and the pure steps flagged
    unclear by mistake ("false")."""
    from firmware import sim
    sim.install()
    from firmware.drivers import board_config, hardware
    desc = hardware_gen.load()
    stack = desc["analog"]["stack"]
    cfg = board_config.load(hardware.DESCRIPTION, "analog")
    geo = magnetics.StackGeometry(stack)
    rng = random.Random(seed)
    tol = magnetics.Tolerances(geo, rng)
    a = desc["analog"]
    per_mt = abs(a["sensitivity_mv_mt"]) * 4095 / a["adc_mv"]
    noise = stack["tolerances"]["noise_codes"]
    sc, _, _ = _scanner(cfg)
    levels = stack["levels"]
    out = {}
    for kind in ("any zone",):      # (one slot: the neighbours' crosstalk is taken out alike)
        rows = {h: {"tries": 0, "flagged": 0, "silent": 0, "restored": 0} for h in
                range(1, levels + 1)}
        false = steps = 0
        for _ in range(readings):
            h = rng.randrange(1, levels + 1)
            colour = rng.choice((1, -1))
            gain, zero, depth = tol.sensor()
            unit = int(16 * abs(tol.stack_field([tol.magnet()], depth) * gain * per_mt))
            base = int(16 * (a["zero_code"] + zero))
            mags = [tol.magnet() for _ in range(h)]
            other = tol.magnet()

            def read(ms):
                f = colour * tol.stack_field(ms, depth)
                return int(base - 16 * gain * per_mt * f
                           + 16 * noise * (rng.random() + rng.random() + rng.random() - 1.5))

            sc.unit[0] = unit
            sc.ueff[0] = 0
            sc.baseline[0] = base
            sc.state[0] = 0
            sc.unclear[0] = 0
            for i in range(1, h + 1):         # built checker by checker
                v = read(mags[:i])
                sc.state[0] = sc.classify(0, v)
                sc._judge(0, v)
                steps += 1
                false += sc.unclear[0] & 1
            st = sc.state[0]
            r = rows[h]
            r["tries"] += 1
            v = read(mags + [(-other[0],) + other[1:]])       # the other colour on top
            sc.state[0] = sc.classify(0, v)
            sc._judge(0, v)
            if sc.unclear[0] & 1:
                r["flagged"] += 1
            elif sc.state[0] == st:
                r["silent"] += 1
            v = read(mags)                                     # taken off again
            sc.state[0] = sc.classify(0, v)
            sc._judge(0, v)
            r["restored"] += sc.state[0] == st and not sc.unclear[0] & 1
        out[kind] = {"heights": rows, "false": false, "steps": steps}
        if log:
            log("%s mixed: %s, false %d of %d" % (kind, rows, false, steps))
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("sensing"),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--readings", type=int, default=1000000, help="zone readings in all")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--mixed", type=int, default=0,
                    help="also this many mixed-stack trials (a checker of the other colour on top)")
    args = ap.parse_args(argv)
    res = table(args.readings, args.seed, lambda m: print(m, file=sys.stderr))
    if args.mixed:
        res["mixed"] = mixed(args.mixed, args.seed, lambda m: print(m, file=sys.stderr))
    if args.json:
        print(json.dumps(res))
        return 0
    for kind, r in res.items():
        if kind == "mixed":
            for k, m in r.items():
                print("\n%s, a checker of the other colour put on a stack (seed %d): pure steps "
                      "flagged by mistake %d of %d" % (k, args.seed, m["false"], m["steps"]))
                print("height  tries  flagged  silent  restored")
                for hgt, row in m["heights"].items():
                    print("%6d %6d %8d %7d %9d" % (hgt, row["tries"], row["flagged"],
                                                   row["silent"], row["restored"]))
            continue
        print("\n%s (%d readings, seed %d): error rate %.2e" % (
            kind, r["readings"], args.seed, r["errors"] / r["readings"]))
        print("true\\read " + " ".join("%6d" % c for c in range(16)))
        for n, row in enumerate(r["counts"]):
            print("%9d " % n + " ".join("%6d" % v for v in row))
    return 0
