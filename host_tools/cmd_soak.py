"""Soak the board: random legal games with realistic hands, noise and power cuts on the virtual board.

python -m host_tools soak --variant V --games N --seed S [--noise none|low|high] [--json]
Prints games, turns, desyncs, rejected legal moves, accepted illegal moves, lost turns, bad records
and unlit lifts (a lift that lit nothing although the checker had a legal step); exits 1 when any of
them is not zero.
"""

import argparse
import json
import random
import sys
import time

SCAN_MS = 10       # the firmware scans every 5 ms on the board; 10 keeps every debounce honest
PACE_MS = 50       # hurried hands: 50 ms per action (people take 250 ms or more)
VARIANTS = ("short", "long", "persian", "jacquet", "matador", "backgammon")


def run(variant, games, seed, noise="high", match_to=1, log=None, fast=False, front_end=None):
    """Play ``games`` matches of ``variant``; returns the Counters. ``fast``: frame-level
    hardware (the board logic alone, no sensor scan or debounce); ``front_end``: "digital"
    (presence only) or "analog" (stack levels), else board.json's."""
    from host_tools.soakboard import VirtualBoard
    from host_tools.soakplayer import Player, Counters
    total = Counters()
    vb = VirtualBoard(variant, scan_ms=SCAN_MS, fast=fast, front_end=front_end)
    try:
        rng = random.Random("%s/%d" % (variant, seed))
        vb.pace = PACE_MS
        player = Player(vb, rng, noise, total, log)
        for _ in range(games):
            if not player.play_match(variant, match_to):
                if log:
                    log("match abandoned")
                vb.close()
                vb = VirtualBoard(variant, scan_ms=SCAN_MS, fast=fast, front_end=front_end)
                vb.pace = PACE_MS
                player.vb = vb
    finally:
        vb.close()
    return total


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m host_tools soak", description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="short", help="one of %s, or all" % ", ".join(VARIANTS))
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", choices=("none", "low", "high"), default="high")
    ap.add_argument("--match", type=int, default=1, help="match length (games until one side has it)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--fast", action="store_true",
                    help="frame-level hardware: the board logic alone, ~10x faster")
    ap.add_argument("--front-end", choices=("digital", "analog"), default=None,
                    help="sensor front end (default: hardware/board.json's)")
    ap.add_argument("--verbose", action="store_true", help="log what the board got wrong")
    args = ap.parse_args(argv)
    variants = VARIANTS if args.variant == "all" else (args.variant,)
    for v in variants:
        if v not in VARIANTS:
            ap.error("unknown variant %r" % v)
    log = (lambda msg: print("  " + msg, file=sys.stderr)) if args.verbose else None
    t0 = time.time()
    from host_tools.soakplayer import Counters
    total = Counters()
    per = {}
    for v in variants:
        c = run(v, args.games, args.seed, args.noise, args.match, log, args.fast, args.front_end)
        per[v] = c.as_dict()
        total.add(c)
    out = total.as_dict()
    out["seconds"] = round(time.time() - t0, 1)
    if args.json:
        out["variants"] = per
        print(json.dumps(out))
    else:
        for v in variants:
            d = per[v]
            print("%-10s games %d turns %d desyncs %d rejected-legal %d accepted-illegal %d "
                  "lost-turns %d bad-records %d unlit-lifts %d (power cuts %d, illegal tries %d, "
                  "mismatches shown %d, sensor-blind plays %d, fair-dice games %d, lifts %d)" % (
                      v, d["games"], d["turns"], d["desyncs"], d["rejected_legal"],
                      d["accepted_illegal"], d["lost_turns"], d["bad_records"], d["unlit_lifts"],
                      d["power_cuts"], d["illegal_tries"], d["mismatches"], d["sensor_blind"],
                      d["fair_dice_games"], d["lifts"]))
        print("total: games %d turns %d desyncs %d rejected legal moves %d accepted illegal moves %d "
              "lost turns %d bad records %d unlit lifts %d (of %d) sensor-blind plays %d in %.1f s" % (
                  out["games"], out["turns"], out["desyncs"], out["rejected_legal"],
                  out["accepted_illegal"], out["lost_turns"], out["bad_records"],
                  out["unlit_lifts"], out["lifts"], out["sensor_blind"], out["seconds"]))
    return 1 if total.failures() else 0
