"""Soak the board: random legal games with realistic hands, noise and power cuts on the virtual board.

python -m host_tools soak --variant V --games N --seed S [--noise none|low|high] [--json] [--game N]
Prints games, turns, desyncs, rejected legal moves, accepted illegal moves, lost turns, bad records
and unlit lifts (a lift that lit nothing although the checker had a legal step) and illegal placements
not flagged at once (a checker put where it may not go whose zone did not flash); exits 1 when any of
them is not zero. The seed fixes every random choice, the board's fair dice included: each match
is played on a fresh board from its own key (variant, seed, number), so two runs print the same
figures and a failing match is printed with the command that plays it again alone (--game N).

python -m host_tools soak --replay FILE... [--json] [--front-end F] plays every game of .mat files
as recorded instead (host_tools.soak.soakreplay): the same counters, plus the plays the board recorded
otherwise than the file (differs) and games whose exported record differs from what was played.
"""

import argparse
import json
import random
import sys
import time

from firmware.rules import variants
from host_tools import prog

VARIANTS = tuple(variants.VARIANTS)     # every variant, in the rules core's order


def game_key(variant, seed, n):
    """What fixes game ``n`` (1, 2, ...) of a variant's run: the player's choices and the
    board's dice both come from it, so the game plays again alone from its number."""
    return "%s/%d/%d" % (variant, seed, n)


def replay_command(variant, seed, n, args):
    """The command that plays game ``n`` again, alone."""
    out = "python -m host_tools soak --variant %s --seed %d --game %d" % (variant, seed, n)
    for flag, value in (("--noise", args.get("noise", "high")), ("--match", args.get("match_to", 1)),
                        ("--front-end", args.get("front_end"))):
        if value not in (None, "high", 1):
            out += " %s %s" % (flag, value)
    if args.get("fast"):
        out += " --fast"
    return out


def run(variant, games, seed, noise="high", match_to=1, log=None, fast=False, front_end=None,
        only=None, failed=None):
    """Play ``games`` matches of ``variant`` (or only match ``only``), each on a fresh board
    from its own key (game_key): returns the Counters. ``fast``: frame-level hardware (the
    board logic alone, no sensor scan or debounce); ``front_end``: "digital" (presence only) or
    "analog" (stack levels), else board.json's. ``failed`` (a list) gets, for each match whose
    failure counters rose, {"variant", "game", "failures", "replay"}."""
    from host_tools.soak.soakboard import PACE_MS, SCAN_MS, VirtualBoard, world_seed
    from host_tools.soak.soakplayer import Player, Counters
    total = Counters()
    opts = {"noise": noise, "match_to": match_to, "fast": fast, "front_end": front_end}
    for n in range(1, games + 1) if only is None else (only,):
        key = game_key(variant, seed, n)
        vb = VirtualBoard(variant, scan_ms=SCAN_MS, fast=fast, front_end=front_end,
                          seed=world_seed(key))
        try:
            vb.pace = PACE_MS
            before = total.as_dict()
            player = Player(vb, random.Random(key), noise, total, log)
            done = player.play_match(variant, match_to)
            if not done and log:
                log("match abandoned")
            after = total.as_dict()
            rose = {f: after[f] - before[f] for f in Counters.FIELDS
                    if f in FAILURE_FIELDS and after[f] > before[f]}
            if rose and failed is not None:
                failed.append({"variant": variant, "game": n, "failures": rose,
                               "replay": replay_command(variant, seed, n, opts)})
        finally:
            vb.close()
    return total


FAILURE_FIELDS = ("desyncs", "rejected_legal", "accepted_illegal", "lost_turns", "bad_records",
                  "unlit_lifts", "unflagged_places")


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("soak"), description=__doc__.splitlines()[0])
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
    ap.add_argument("--game", type=int, default=None,
                    help="play only this match of the run (what a failure prints)")
    ap.add_argument("--replay", nargs="+", metavar="FILE",
                    help="play every game of these .mat files as recorded (host_tools.soak.soakreplay)")
    args = ap.parse_args(argv)
    if args.replay:
        return replay_main(args)
    variants = VARIANTS if args.variant == "all" else (args.variant,)
    for v in variants:
        if v not in VARIANTS:
            ap.error("unknown variant %r" % v)
    log = (lambda msg: print("  " + msg, file=sys.stderr)) if args.verbose else None
    t0 = time.time()
    from host_tools.soak.soakplayer import Counters
    total = Counters()
    per = {}
    failed = []
    for v in variants:
        c = run(v, args.games, args.seed, args.noise, args.match, log, args.fast, args.front_end,
                args.game, failed)
        per[v] = c.as_dict()
        total.add(c)
    out = total.as_dict()
    out["seconds"] = round(time.time() - t0, 1)
    out["failed_games"] = failed
    if args.json:
        out["variants"] = per
        print(json.dumps(out))
    else:
        for v in variants:
            d = per[v]
            print("%-10s games %d turns %d desyncs %d rejected-legal %d accepted-illegal %d "
                  "lost-turns %d bad-records %d unlit-lifts %d unflagged-placements %d (power cuts %d, "
                  "illegal tries %d, illegal placements %d, mismatches shown %d, sensor-blind "
                  "plays %d, fair-dice games %d, lifts %d)" % (
                      v, d["games"], d["turns"], d["desyncs"], d["rejected_legal"],
                      d["accepted_illegal"], d["lost_turns"], d["bad_records"], d["unlit_lifts"],
                      d["unflagged_places"], d["power_cuts"], d["illegal_tries"],
                      d["illegal_places"], d["mismatches"], d["sensor_blind"],
                      d["fair_dice_games"], d["lifts"]))
        print("total: games %d turns %d desyncs %d rejected legal moves %d accepted illegal moves %d "
              "lost turns %d bad records %d unlit lifts %d (of %d) illegal placements not flagged at "
              "once %d (of %d) sensor-blind plays %d in %.1f s" % (
                  out["games"], out["turns"], out["desyncs"], out["rejected_legal"],
                  out["accepted_illegal"], out["lost_turns"], out["bad_records"],
                  out["unlit_lifts"], out["lifts"], out["unflagged_places"],
                  out["illegal_places"], out["sensor_blind"], out["seconds"]))
    if not args.json:
        for f in failed:
            print("FAILED: %s game %d of seed %d (%s): again alone: %s" % (
                f["variant"], f["game"], args.seed,
                ", ".join("%s %d" % kv for kv in sorted(f["failures"].items())), f["replay"]))
    return 1 if total.failures() else 0


def replay_main(args):
    """soak --replay: the recorded games through the hands; exit 1 on any failure counter,
    a play recorded otherwise, an export that differs or a game that could not be played."""
    from host_tools.soak import soakreplay
    log = (lambda msg: print("  " + msg, file=sys.stderr)) if args.verbose else None
    t0 = time.time()
    counters, reports = soakreplay.run(args.replay, args.seed, args.front_end, log)
    if args.json:
        out = counters.as_dict()
        out["seconds"] = round(time.time() - t0, 1)
        out["files"] = reports
        print(json.dumps(out))
    else:
        soakreplay.text_report(counters, reports, sys.stdout)
        print("in %.1f s" % (time.time() - t0))
    return 1 if counters.failures() else 0
