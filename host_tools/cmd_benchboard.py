"""Benchmark lift-to-LED latency: a sensor change to the LED frame, worst position, RP2040 estimate.

python -m host_tools benchboard [--quick] [--json] [--write-docs]

1. CPython: times the board logic (tracker + LED view + LED driver) for every lift and every
   legal placement in the worst-case positions (15 spread checkers, doubles), and picks the
   slowest lift and the slowest placement; and the first lift from the long-nardy head (15
   checkers on one point, the stack-counting build) for every first roll, and picks the slowest.
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

from host_tools import prog
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

# The long-nardy head at the start: 15 checkers on one point, the stack-counting (analog) build,
# whose sensors see a lift from it (the digital build sees none: it lights the stack's
# destinations when the turn starts). White wins the opening 6-1, then throws each first roll.
HEAD_OPENING = (6, 1)
HEAD_FRONT_END = "analog"
HEAD_BUDGET_MS = 30       # issue 8: a lift from a 15-stack lights its destinations within 30 ms
HEAD_ROLLS = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)]


def bench_case(name):
    """(variant, front end, position text or None for the start, dice, opening dice) of a
    benchmark case: one of POSITIONS, or ``head-AB`` (the first lift from the long-nardy head
    with the first roll A-B)."""
    if name.startswith("head-"):
        return "long", HEAD_FRONT_END, None, (int(name[5]), int(name[6])), HEAD_OPENING
    pos_text, dice = POSITIONS[name]
    return "backgammon", None, pos_text, dice, None


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

cfg = board_config.load(%(desc)r, %(front_end)r)
cap = bytearray(c * cfg.levels for c in cfg.zone_cap)
clock = [0]
s = Session(Storage(%(flash)r), lambda: 1, cap, lambda k, f: None, lambda: clock[0])
s.new_match(%(variant)r)
s.dice_mode = "manual"
counts = bytearray(ZONES)
if %(pos)r:
    from firmware.sim.hands import force_position
    force_position(s, Position.parse(%(pos)r))
else:
    s.zmap.expected(s.tracked_board(), counts)
    s.frame_in(counts)
    s.manual_roll(%(o1)d, %(o2)d)
if s.phase == "roll":
    s.manual_roll(%(d1)d, %(d2)d)
s.zmap.expected(s.tracked_board(), counts)
for z in range(ZONES):
    if counts[z] > cap[z]:
        counts[z] = cap[z]
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


def _session(name):
    variant, front_end, pos_text, dice, opening = bench_case(name)
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
    cfg = board_config.load(os.path.join(REPO_ROOT, "hardware", "board.json"), front_end)
    cap = bytearray(c * cfg.levels for c in cfg.zone_cap)
    s = Session(Mem(), lambda: 1, cap, lambda k, f: None, lambda: 0)
    s.new_match(variant)
    s.dice_mode = "manual"
    counts = bytearray(ZONES)
    if pos_text:
        from firmware.sim.hands import force_position
        force_position(s, Position.parse(pos_text))
    else:                          # the checkers set out at the start, the opening thrown
        s.zmap.expected(s.tracked_board(), counts)
        s.frame_in(counts)
        s.manual_roll(*opening)
    if s.phase == "roll":
        s.manual_roll(*dice)
    s.zmap.expected(s.tracked_board(), counts)
    for z in range(ZONES):
        counts[z] = min(counts[z], cap[z])
    s.frame_in(counts)
    view = LedView(Leds(cfg, Strip(cfg.n_leds), cfg.led_budget_ma()))
    view.render(s, 0)
    return s, view, counts, cfg


def _time(name, before, change, repeat):
    """(Python calls the change makes: a deterministic measure of work, best CPython seconds)."""
    best = None
    calls = 0
    for i in range(repeat + 1):
        s, view, counts, cfg = _session(name)
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
    for name in POSITIONS:
        s, view, counts, cfg = _session(name)
        turn = s.game.turn
        for src in range(25, 0, -1):
            if not turn.mine[src]:
                continue
            z = s.zmap.zone(0, src)
            lift = [(z, -1)]
            t = _time(name, [], lift, repeat)
            if worst_lift is None or t[0] > worst_lift[0][0]:
                worst_lift = (t, name, src, [], lift)
            for dst, die in turn.targets(src):
                place = [(s.zmap.zone(0, dst), 1)]
                t = _time(name, lift, place, repeat)
                if worst_place is None or t[0] > worst_place[0][0]:
                    worst_place = (t, name, src, lift, place)
    return worst_lift, worst_place


def scan_head(repeat):
    """The first lift from the long-nardy head (15 checkers) for every first roll: the slowest,
    as scan_cpython's cases are."""
    worst = None
    for dice in HEAD_ROLLS:
        name = "head-%d%d" % dice
        s, view, counts, cfg = _session(name)
        lift = [(s.zmap.zone(0, 24), -1)]
        t = _time(name, [], lift, repeat)
        if worst is None or t[0] > worst[0][0]:
            worst = (t, name, 24, [], lift)
    return worst


def estimate(worst, idle=False):
    """The case under the estimator, and what the script itself printed (GC and flash counts)."""
    t, name, src, before, change = worst
    variant, front_end, pos_text, dice, opening = bench_case(name)
    work = tempfile.mkdtemp(prefix="benchboard-")
    try:
        # the simulator too: the script sets its position with it (firmware.sim.hands)
        shutil.copytree(os.path.join(REPO_ROOT, "firmware"), os.path.join(work, "lib", "firmware"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        o1, o2 = opening or (0, 0)
        fields = {"desc": os.path.join(REPO_ROOT, "hardware", "board.json"), "variant": variant,
                  "front_end": front_end, "pos": pos_text, "d1": dice[0], "d2": dice[1],
                  "o1": o1, "o2": o2, "before": before, "change": change, "idle": idle,
                  "pip": src, "flash": "flash"}   # each run in its own folder: a fresh flash
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
    ap = argparse.ArgumentParser(prog=prog("benchboard"),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CPython figures only (no callgrind)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-docs", action="store_true",
                    help="also rewrite the lift-to-LED section of docs/perf.md from these figures")
    args = ap.parse_args(argv)
    sys.path.insert(0, REPO_ROOT)
    lift, place = scan_cpython(1 if args.quick else 5)
    head = scan_head(1 if args.quick else 5)
    hw = hardware_terms()
    result = {"cpython_ms": {"lift": round(lift[0][1] * 1000, 3), "place": round(place[0][1] * 1000, 3),
                             "head": round(head[0][1] * 1000, 3)},
              "python_calls": {"lift": lift[0][0], "place": place[0][0], "head": head[0][0]},
              "worst_lift": {"position": lift[1], "pip": lift[2]},
              "head_lift": {"variant": "long", "front_end": HEAD_FRONT_END,
                            "roll": [int(head[1][5]), int(head[1][6])], "budget_ms": HEAD_BUDGET_MS},
              "worst_place": {"position": place[1], "pip": place[2], "to_zone": place[4][0][0]},
              "hardware": hw}
    missing = rp2040_estimate.missing()
    if not args.quick and not missing:
        for key, case, idle in (("lift", lift, False), ("place", place, False),
                                ("idle", lift, True), ("head", head, False)):
            result["rp2040_" + key] = estimate(case, idle)
    for key, deb in (("lift", hw["release_ms"]), ("place", hw["press_ms"])):
        r = result.get("rp2040_" + key)
        if r and "rp2040_ms_est" in r:
            result["end_to_end_" + key + "_ms"] = round(
                hw["scan_ms"] + deb + r["rp2040_ms_est"] + hw["led_wire_ms"], 1)
    if args.write_docs:
        if not all("rp2040_ms_est" in result.get("rp2040_" + k, {})
                   for k in ("lift", "place", "idle", "head")):
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
    print("long-nardy head (15 checkers, %s front end): the slowest first lift with the first "
          "roll %d-%d, %.3f ms (%d calls)" % (HEAD_FRONT_END, result["head_lift"]["roll"][0],
                                             result["head_lift"]["roll"][1], head[0][1] * 1000,
                                             head[0][0]))
    for key in ("lift", "place", "idle", "head"):
        r = result.get("rp2040_" + key)
        if r is None:
            print("RP2040 %s: not estimated (needs %s)" % (key, missing or "a run without --quick"))
            continue
        if "error" in r:
            print("RP2040 %s: the estimate failed: %s" % (key, r["error"]))
            continue
        what = {"lift": "lift -> LED frame", "place": "placement -> LED frame",
                "idle": "idle work: one checker's destinations learnt ahead (longest scan-loop pause)",
                "head": "lift from the long-nardy head (15 checkers) -> LED frame"}[key]
        print("RP2040 %s: net %s Ir = %.2f ms at %g MHz (range %.2f-%.2f ms); "
              "GC collections during it: %s; %s" % (
                  what, r.get("ir_net"), r.get("rp2040_ms_est"), r.get("rp2040_mhz"),
                  r.get("rp2040_ms_low"), r.get("rp2040_ms_high"), r.get("gc_collections"),
                  r.get("script_stdout")))
        if key == "head":
            print("RP2040 head: %.1f ms with the LED wire time, budget %d ms: %s" % (
                r["rp2040_ms_est"] + hw["led_wire_ms"], HEAD_BUDGET_MS,
                "within" if r["rp2040_ms_high"] + hw["led_wire_ms"] <= HEAD_BUDGET_MS else "OVER"))
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
        ["debounced lift from a 15-checker stack -> LED frame (long nardy's head at the start, "
         "first roll %d-%d, %s build)" % (result["head_lift"]["roll"][0],
                                          result["head_lift"]["roll"][1], HEAD_FRONT_END),
         "%s + %.1f ms = %.1f ms (budget %d ms)" % (
             est("head"), hw["led_wire_ms"], result["rp2040_head"]["rp2040_ms_est"] + hw["led_wire_ms"],
             HEAD_BUDGET_MS),
         notes("head")],
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
