"""Benchmark lift-to-LED latency: a sensor change to the LED frame, worst position, RP2040 estimate.

python -m host_tools benchboard [--quick] [--json] [--write-docs]

1. CPython: times the board logic (tracker + LED view + LED driver) for every lift and every
   legal placement in the worst-case positions (15 spread checkers, doubles), and picks the
   slowest lift and the slowest placement.
   (A lift only looks its destinations up: they are learnt ahead, one checker per idle scan,
   while the hands are free; that idle step is measured too.)
2. RP2040: runs those under the real MicroPython unix port in callgrind with
   host_tools/bench/rp2040_estimate.py (net of the same script without the sensor change) and turns
   instructions into milliseconds at 125 MHz; also counts garbage collections and flash writes
   during the change (both must be 0: no GC and no flash write while a checker is in the air).
3. Adds what the hardware adds (scan period, release/press debounce, LED wire time) for the
   end-to-end figure.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from host_tools.bench import perf_docs, rp2040_estimate
from host_tools import REPO_ROOT


# The worst rolls for full-turn generation (found by search, confirmed by GNU Backgammon) (roller's own pips, opponent on its head)
POSITIONS = {
    "W11o": ("white 24:1 23:1 21:1 20:1 18:1 16:1 15:1 13:1 11:1 10:1 9:1 7:1 6:1 4:1 3:1; "
             "black 24:15; white to move", (1, 1)),
    "W22o": ("white 24:1 23:1 22:1 21:1 18:1 17:1 16:1 14:1 13:1 12:1 11:1 9:1 8:1 6:1 5:1; "
             "black 24:15; white to move", (2, 2)),
    "W65o": ("white 24:1 23:1 22:1 21:1 20:1 19:1 18:1 15:1 14:1 12:1 11:1 10:1 9:1 8:1 7:1; "
             "black 24:15; white to move", (6, 5)),
}

SCRIPT = r'''
import gc
from firmware.drivers import board_config
from firmware.board.zonemap import ZONES
from firmware.drivers.leds import Leds
from firmware.board.session import Session
from firmware.board.ledview import LedView
from firmware.rules.position import Position

class Strip:
    def __init__(self, n):
        self.buf = bytearray(3 * n)
    def write(self):
        pass

from firmware.drivers.storage import Storage
import os
try:                                    # every run starts on an empty flash
    for n in os.listdir(%(flash)r):
        os.remove(%(flash)r + "/" + n)
except OSError:
    pass

cfg = board_config.load(%(desc)r, None)
clock = [0]
s = Session(Storage(%(flash)r), lambda: 1, cfg.zone_cap, lambda k, f: None, lambda: clock[0])
s.new_match(%(variant)r)
s.dice_mode = "manual"
from firmware.sim.hands import force_position
force_position(s, Position.parse(%(pos)r))
s.manual_roll(%(d1)d, %(d2)d)
counts = bytearray(ZONES)
s.zmap.expected(s.tracked_board(), counts)
for z in range(ZONES):
    if counts[z] > cfg.zone_cap[z]:
        counts[z] = cfg.zone_cap[z]
s.frame_in(counts)
view = LedView(Leds(cfg, Strip(cfg.n_leds), cfg.led_budget_ma()))
view.render(s, 0)
for z, dz in %(before)r:
    counts[z] += dz
    s.frame_in(counts)
view.render(s, 1)
while s.tracker.prepare():      # the idle ticks before a hand moves again
    pass
gc.collect()
writes = s.journal.writes
mem = gc.mem_alloc()
if %(measure)r:
    if %(idle)r:
        s.tracker.reach_done = 0
        s.tracker._know(%(pip)d)
    else:
        for z, dz in %(change)r:
            counts[z] += dz
        s.frame_in(counts)
        view.render(s, 2)
print("writes", s.journal.writes - writes, "alloc", gc.mem_alloc() - mem, "state", s.tracker.state)
'''


def _session(variant, pos_text, dice):
    from firmware import sim
    sim.install()
    from firmware.drivers import board_config
    from firmware.drivers.leds import Leds
    from firmware.board.session import Session
    from firmware.board.zonemap import ZONES
    from firmware.board.ledview import LedView
    from firmware.rules.position import Position

    class Strip:
        def __init__(self, n):
            self.buf = bytearray(3 * n)

        def write(self):
            pass

    from firmware.sim.memstore import MemStorage as Mem
    cfg = board_config.load(os.path.join(REPO_ROOT, "hardware", "board.json"), None)
    s = Session(Mem(), lambda: 1, cfg.zone_cap, lambda k, f: None, lambda: 0)
    s.new_match(variant)
    s.dice_mode = "manual"
    from firmware.sim.hands import force_position
    force_position(s, Position.parse(pos_text))
    s.manual_roll(*dice)
    counts = bytearray(ZONES)
    s.zmap.expected(s.tracked_board(), counts)
    for z in range(ZONES):
        counts[z] = min(counts[z], cfg.zone_cap[z])
    s.frame_in(counts)
    view = LedView(Leds(cfg, Strip(cfg.n_leds), cfg.led_budget_ma()))
    view.render(s, 0)
    return s, view, counts, cfg


def _time(variant, pos_text, dice, before, change, repeat):
    """(Python calls the change makes: a deterministic measure of work, best CPython seconds)."""
    best = None
    calls = 0
    for i in range(repeat + 1):
        s, view, counts, cfg = _session(variant, pos_text, dice)
        for z, dz in before:
            counts[z] += dz
            s.frame_in(counts)
        n = [0]

        def count(frame, event, arg):
            if event == "call":
                n[0] += 1
        if i == 0:
            sys.setprofile(count)
        t0 = time.perf_counter()
        for z, dz in change:
            counts[z] += dz
        s.frame_in(counts)
        view.render(s, 2)
        dt = time.perf_counter() - t0
        sys.setprofile(None)
        if i == 0:
            calls = n[0]
        else:
            best = dt if best is None or dt < best else best
    return calls, best


def scan_cpython(repeat):
    """Every lift and every (lift, legal placement) of the positions: the slowest of each."""
    worst_lift = worst_place = None
    for name, (pos_text, dice) in POSITIONS.items():
        s, view, counts, cfg = _session("backgammon", pos_text, dice)
        turn = s.game.turn
        for src in range(25, 0, -1):
            if not turn.mine[src]:
                continue
            z = s.zmap.zone(0, src)
            lift = [(z, -1)]
            t = _time("backgammon", pos_text, dice, [], lift, repeat)
            if worst_lift is None or t[0] > worst_lift[0][0]:
                worst_lift = (t, name, src, [], lift)
            for dst, die in turn.targets(src):
                place = [(s.zmap.zone(0, dst), 1)]
                t = _time("backgammon", pos_text, dice, lift, place, repeat)
                if worst_place is None or t[0] > worst_place[0][0]:
                    worst_place = (t, name, src, lift, place)
    return worst_lift, worst_place


def estimate(case, idle=False):
    """The case under the estimator, and what the script itself printed (GC and flash counts)."""
    t, name, src, before, change = case
    pos_text, dice = POSITIONS[name]
    work = tempfile.mkdtemp(prefix="benchboard-")
    try:
        # the simulator too: the script sets its position with it (firmware.sim.hands)
        shutil.copytree(os.path.join(REPO_ROOT, "firmware"), os.path.join(work, "lib", "firmware"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        fields = {"desc": os.path.join(REPO_ROOT, "hardware", "board.json"), "variant": "backgammon",
                  "pos": pos_text, "d1": dice[0], "d2": dice[1], "before": before, "change": change,
                  "idle": idle, "pip": src, "flash": os.path.join(work, "flash")}
        script = os.path.join(work, "bench.py")
        base = os.path.join(work, "base.py")
        with open(script, "w") as f:
            f.write(SCRIPT % dict(fields, measure=True))
        with open(base, "w") as f:
            f.write(SCRIPT % dict(fields, measure=False))
        try:
            out = rp2040_estimate.measure(script, [os.path.join(work, "lib")], baseline=base)
        except rp2040_estimate.EstimateError as exc:
            return {"error": str(exc)[-1500:]}
        argv, _toggle = rp2040_estimate.micropython_argv()
        run = subprocess.run(
            argv + ["-X", "heapsize=230K", script],
            capture_output=True, text=True, env=dict(os.environ, MICROPYPATH=".frozen:" +
                                                   os.path.join(work, "lib")), cwd=work)
        out["script_stdout"] = run.stdout.strip() or run.stderr.strip()[-300:]
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def hardware_terms():
    with open(os.path.join(REPO_ROOT, "hardware", "board.json")) as f:
        desc = json.load(f)
    sensing = desc["sensing"]
    n = desc["leds"]["count"]
    return {"scan_ms": sensing["scan_ms"], "press_ms": sensing["press_ms"],
            "release_ms": sensing["release_ms"], "led_wire_ms": round(n * 0.030, 2), "leds": n}


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m host_tools benchboard",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CPython figures only (no callgrind)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-docs", action="store_true",
                    help="also rewrite the lift-to-LED section of docs/perf.md from these figures")
    args = ap.parse_args(argv)
    sys.path.insert(0, REPO_ROOT)
    lift, place = scan_cpython(2 if args.quick else 5)
    hw = hardware_terms()
    result = {"cpython_ms": {"lift": round(lift[0][1] * 1000, 3), "place": round(place[0][1] * 1000, 3)},
              "python_calls": {"lift": lift[0][0], "place": place[0][0]},
              "worst_lift": {"position": lift[1], "pip": lift[2]},
              "worst_place": {"position": place[1], "pip": place[2], "to_zone": place[4][0][0]},
              "hardware": hw}
    missing = rp2040_estimate.missing()
    if not args.quick and not missing:
        for key, case, idle in (("lift", lift, False), ("place", place, False),
                                ("idle", lift, True)):
            result["rp2040_" + key] = estimate(case, idle)
    for key, deb in (("lift", hw["release_ms"]), ("place", hw["press_ms"])):
        r = result.get("rp2040_" + key)
        if r and "rp2040_ms_est" in r:
            result["end_to_end_" + key + "_ms"] = round(
                hw["scan_ms"] + deb + r["rp2040_ms_est"] + hw["led_wire_ms"], 1)
    if args.write_docs:
        if not all("rp2040_ms_est" in result.get("rp2040_" + k, {}) for k in ("lift", "place", "idle")):
            print("benchboard: --write-docs needs the RP2040 estimates (not --quick; %s)"
                  % (missing or "the estimator failed"), file=sys.stderr)
            return 2
        perf_docs.write("board", docs_section(result))
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print("worst lift: %s, checker on pip %d; worst placement: %s, pip %d -> zone %d" % (
        lift[1], lift[2], place[1], place[2], place[4][0][0]))
    print("CPython (this machine): lift -> LED frame %.3f ms (%d calls), placement -> LED frame "
          "%.3f ms (%d calls)" % (lift[0][1] * 1000, lift[0][0], place[0][1] * 1000, place[0][0]))
    for key in ("lift", "place", "idle"):
        r = result.get("rp2040_" + key)
        if r is None:
            print("RP2040 %s: not estimated (needs %s)" % (key, missing or "a run without --quick"))
            continue
        if "error" in r:
            print("RP2040 %s: the estimate failed: %s" % (key, r["error"]))
            continue
        what = {"lift": "lift -> LED frame", "place": "placement -> LED frame",
                "idle": "idle work: one checker's destinations learnt ahead (longest scan-loop pause)"}[key]
        print("RP2040 %s: net %s Ir = %.2f ms at %g MHz (range %.2f-%.2f ms); "
              "GC collections during it: %s; %s" % (
                  what, r.get("ir_net"), r.get("rp2040_ms_est"), r.get("rp2040_mhz"),
                  r.get("rp2040_ms_low"), r.get("rp2040_ms_high"), r.get("gc_collections"),
                  r.get("script_stdout")))
    print("hardware adds: scan period %d ms, debounce %d ms (lift) / %d ms (placement), "
          "LED wire time %.1f ms for %d LEDs" % (hw["scan_ms"], hw["release_ms"], hw["press_ms"],
                                                 hw["led_wire_ms"], hw["leds"]))
    for key, deb in (("lift", hw["release_ms"]), ("place", hw["press_ms"])):
        r = result.get("rp2040_" + key)
        if r and "rp2040_ms_est" in r:
            logic = r["rp2040_ms_est"]
            total = result["end_to_end_" + key + "_ms"]
            print("%s: debounced sensor change -> LED frame %.1f ms (logic + LED write); "
                  "magnet leaves/arrives -> LEDs at most %.1f ms" % (
                      key, logic + hw["led_wire_ms"], total))
    return 0


def docs_section(result):
    """docs/perf.md's lift-to-LED section."""
    hw = result["hardware"]

    def est(key):
        r = result["rp2040_" + key]
        return "%.1f ms (%.1f-%.1f)" % (r["rp2040_ms_est"], r["rp2040_ms_low"], r["rp2040_ms_high"])

    def notes(key):
        r = result["rp2040_" + key]
        m = re.search(r"writes (\d+) alloc (\d+)", r.get("script_stdout", ""))
        said = ("%s flash writes, %s B allocated" % m.groups()) if m else r.get("script_stdout", "")
        return "%d GC, %s" % (r["gc_collections"], said)

    lift, place = result["worst_lift"], result["worst_place"]
    rows = [
        ["debounced lift -> LED frame (%s, the checker on %d)" % (lift["position"], lift["pip"]),
         "%s + %.1f ms LED wire time = %.1f ms" % (est("lift"), hw["led_wire_ms"],
                                                   result["rp2040_lift"]["rp2040_ms_est"] + hw["led_wire_ms"]),
         notes("lift")],
        ["debounced placement -> LED frame (%s, %d -> zone %d)" % (place["position"], place["pip"],
                                                                     place["to_zone"]),
         "%s + %.1f ms = %.1f ms" % (est("place"), hw["led_wire_ms"],
                                     result["rp2040_place"]["rp2040_ms_est"] + hw["led_wire_ms"]),
         notes("place")],
        ["idle work per scan while the hands are free (one checker's destinations)", est("idle"),
         "the longest pause it adds to the scan loop"],
        ["magnet leaves a sensor -> LEDs (end to end)", "at most %.1f ms" % result["end_to_end_lift_ms"],
         "+ %d ms scan period + %d ms release debounce of `hardware/board.json`" % (hw["scan_ms"], hw["release_ms"])],
        ["magnet arrives -> LEDs (end to end)", "at most %.1f ms" % result["end_to_end_place_ms"],
         "+ %d ms scan + %d ms press debounce" % (hw["scan_ms"], hw["press_ms"])],
    ]
    return "\n".join([perf_docs.stamp("python -m host_tools benchboard --write-docs"),
                      "RP2040 estimates: %s." % rp2040_estimate.describe_k(), "",
                      perf_docs.table(["path", "RP2040 estimate", "notes"], rows)])
