"""The board engine's figures: heap of the loaded engine, move time as an RP2040 estimate, and
the 8-bit player against the float one. A benchmark that prints, not a test.

``python -m host_tools.engine.boardbench [--variants V ...] [--positions N] [--pairs P]
[--weights DIR] [--seed S] [--json]``. Per variant the float net is the shipped one
(host_tools/engine/weights) or, when none is shipped yet, a random ``Net(205, 64, O, seed=1)``
(said in the report). Positions come from random play (seeded), plus for backgammon the rules
bench's worst case W11 1-1 (2,225 plays). Each choice (``Engine.choose`` on a settled Turn, the
Turn's own settling not counted) is counted in the MicroPython unix port under callgrind, cut
between choices at calls of ``gc.mem_free`` (callgrind ``--dump-before=gc_info``, its heap walk
not counted), less the cost of an empty cut, and converted as host_tools/bench/rp2040_estimate.py does (k for everything:
the viper kernel's share, ~1 cycle per x64 instruction on the board, is over-counted ~1.7x, so
the figures lean high). Agreement: on other sampled positions, how often the 8-bit player's
choice is the float player's, and the float equity its choice gives up. Heap: gc.mem_free before and after ``Engine(...)`` in the unix port
(8-byte words; the engine's arrays and bytes are the same size on the board).
"""

import argparse
import glob
import json
import os
import random
import re
import shutil
import sys
import tempfile

import numpy as np

from host_tools.bench import rp2040_estimate as est

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = '''
import gc
from firmware.rules.variants import get_rules
from firmware.rules.position import Position
from firmware.rules.movegen import Turn
rules = get_rules(%(variant)r)
CASES = %(cases)r
gc.collect()
f0 = gc.mem_free()
from firmware.engine.chooser import Engine
e = Engine(rules, %(path)r)
gc.collect()
f1 = gc.mem_free()
gc.mem_free()
plays = []
for b, side, d, again in CASES:
    t = Turn(rules, Position(bytes(b), side), d)
    gc.mem_free()
    e.choose(t, again)
    gc.mem_free()
    plays.append(len(e.plays))
print(f0 - f1, len(e.net.data))
print(plays)
'''


def float_net(variant, weights_dir):
    from firmware.rules.variants import get_rules
    from host_tools.engine import weights
    from host_tools.engine.encode import INPUTS
    from host_tools.engine.net import Net
    from host_tools.engine.outcomes import Outcomes
    try:
        net, rec = weights.load(variant, weights_dir)
        return net, "shipped %s" % rec.get("weights_sha", "?")
    except LookupError:
        return Net(INPUTS, 64, Outcomes(get_rules(variant)).n, seed=1), "random seed=1 (none shipped)"


def sample(rules, n, seed):
    """n (board, side, dice) from random play: the start and positions up to 80 plies in."""
    from firmware.rules.movegen import Turn
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = rules.start_position()
        for _ in range(rng.randrange(0, 80)):
            finals = list(Turn(rules, pos, (rng.randint(1, 6), rng.randint(1, 6))).finals())
            if finals:
                pos = rng.choice(finals)
            else:
                pos = pos.copy()
                pos.turn = 1 - pos.turn
            if max(pos.board[0], pos.board[26]) == 15:
                break
        if max(pos.board[0], pos.board[26]) < 15:
            out.append((list(pos.board), pos.turn, [rng.randint(1, 6), rng.randint(1, 6)], 0))
    return out


def _stage_firmware():
    d = tempfile.mkdtemp(prefix="boardbench-fw-")
    shutil.copytree(os.path.join(ROOT, "firmware"), os.path.join(d, "firmware"),
                    ignore=shutil.ignore_patterns("__pycache__", "sim", "nets"))
    os.makedirs(os.path.join(d, "firmware", "engine", "nets"))
    open(os.path.join(d, "firmware", "engine", "nets", "__init__.py"), "w").close()
    return d


def count(variant, path, cases):
    """(per-choice net instructions, plays per choice, engine heap bytes, data bytes)."""
    fw = _stage_firmware()
    work = tempfile.mkdtemp(prefix="boardbench-")
    try:
        script = os.path.join(work, "bench.py")
        with open(script, "w") as f:
            f.write(SCRIPT % {"variant": variant, "cases": cases, "path": path})
        stage = est._Stage(script, [fw], "x64", "board")
        argv, toggle = est.micropython_argv()
        out = os.path.join(stage.dir, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--collect-atstart=no",
               "--toggle-collect=" + toggle, "--toggle-collect=gc_info", "--dump-before=gc_info"] + argv
        done = stage.run(cmd, est.HEAP)
        if done.returncode:
            raise est.EstimateError(done.stdout[-1500:] + done.stderr[-2500:])
        parts = {}
        for fn in glob.glob(out + ".*"):
            with open(fn) as f:
                m = re.search(r"^summary: (\d+)", f.read(), re.M)
            parts[int(fn.rsplit(".", 1)[1])] = int(m.group(1)) if m else 0
        lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
        heap, data = (int(v) for v in lines[-2].split())
        plays = json.loads(lines[-1])
        empty = parts[3]                      # part j: from the (j-1)-th cut to the j-th
        ir = [parts[5 + 2 * i] - empty for i in range(len(cases))]
        stage.close()
        return ir, plays, heap, data
    finally:
        shutil.rmtree(fw, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def _pct(a, q):
    return float(np.percentile(np.asarray(a, dtype=float), q, method="higher"))


def agreement(variant, net, n, seed):
    """Over n random-play positions with more than one play: how often the 8-bit player picks
    the float player's play, and the float net's equity given up by its choice (mean, worst)."""
    from firmware.rules.movegen import Turn
    from firmware.rules.position import Position
    from firmware.rules.variants import get_rules
    from host_tools.engine.candidates import Candidates
    from host_tools.engine.int8 import Int8Player
    from host_tools.engine.players import NetPlayer
    rules = get_rules(variant)
    p8, pf = Int8Player(net, rules), NetPlayer(net, rules)
    same = total = 0
    loss = []
    for b, side, d, _a in sample(rules, n, seed + 1):
        c = Candidates(Turn(rules, Position(bytes(b), side), d))
        if c.n < 2:
            continue
        vf = pf.values(c, False)[0]
        i8 = int(np.argmax(p8.values(c, False)))
        total += 1
        same += i8 == int(np.argmax(vf))
        loss.append(float(vf.max() - vf[i8]))
    return {"positions": total, "same_play": same / max(1, total),
            "equity_loss_mean": float(np.mean(loss)) if loss else 0.0,
            "equity_loss_max": float(np.max(loss)) if loss else 0.0}


def match(variant, net, pairs, seed):
    from firmware.rules.variants import get_rules
    from host_tools.engine.int8 import Int8Player
    from host_tools.engine.match import paired_match
    from host_tools.engine.players import NetPlayer
    rules = get_rules(variant)
    st = paired_match(rules, lambda i: Int8Player(net, rules), lambda i: NetPlayer(net, rules), pairs, seed)
    return st.summary()


def run(variants, positions, pairs, seed, weights_dir, agree=300):
    from firmware.rules.variants import get_rules
    from host_tools.bench.bench_rules import WORST, worst_position
    from host_tools.engine import quantize
    why = est.missing()
    if why:
        raise est.EstimateError("needs " + why)
    report = {"k": est.describe_k(), "seed": seed, "variants": {}}
    tmp = tempfile.mkdtemp(prefix="boardbench-nets-")
    try:
        for v in variants:
            rules = get_rules(v)
            net, what = float_net(v, weights_dir)
            path = quantize.write(v, net, tmp, raw=True)
            cases = sample(rules, positions, seed)
            names = ["random"] * len(cases)
            if v == "backgammon":
                pos = worst_position(WORST[0][2])
                cases.append((list(pos.board), 0, list(WORST[0][1]), 0))
                names.append("W11 1-1")
            ir, plays, heap, data = count(v, os.path.abspath(path), cases)
            msv = [est.ms(i) for i in ir]
            r = {"net": what, "positions": len(cases), "heap_bytes": heap, "net_bytes": data,
                 "plays_median": _pct(plays, 50), "plays_max": max(plays),
                 "ms_median": round(_pct(msv, 50), 1), "ms_p99": round(_pct(msv, 99), 1),
                 "ms_worst": round(max(msv), 1), "worst_case": names[msv.index(max(msv))],
                 "worst_plays": plays[msv.index(max(msv))],
                 "ms_low_high_worst": [round(est.ms(max(ir), est.K_LOW), 1), round(est.ms(max(ir), est.K_HIGH), 1)],
                 "ms_per_play_median": round(_pct([m / max(1, p) for m, p in zip(msv, plays) if p > 1], 50), 2)}
            r["agreement"] = agreement(v, net, agree, seed)
            if pairs:
                r["int8_vs_float"] = match(v, net, pairs, seed)
            report["variants"][v] = r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report


def _at_least_one(text):
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("at least 1 (the timing needs a position)")
    return n


def main(argv=None):
    from firmware.rules.variants import VARIANTS
    ap = argparse.ArgumentParser(prog="python -m host_tools.engine.boardbench", description=__doc__.splitlines()[0])
    ap.add_argument("--variants", nargs="*", default=sorted(VARIANTS))
    ap.add_argument("--positions", type=_at_least_one, default=40, help="random-play positions timed (at least 1)")
    ap.add_argument("--pairs", type=int, default=0, help="paired games of the 8-bit player against the float one")
    ap.add_argument("--agree", type=int, default=300, help="positions of the 8-bit/float agreement check")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", help="folder of the float weights (default the shipped ones)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rep = run(a.variants, a.positions, a.pairs, a.seed, a.weights, a.agree)
    rep["command"] = "python -m host_tools.engine.boardbench " + " ".join(argv if argv is not None else sys.argv[1:])
    if a.json:
        print(json.dumps(rep, indent=1))
        return 0
    print(rep["k"])
    print("%-11s %5s %8s %7s %9s %7s %7s %8s  %s" % ("variant", "pos", "heap B", "plays", "median", "p99", "worst",
                                                     "ms/play", "worst case"))
    for v, r in rep["variants"].items():
        print("%-11s %5d %8d %7.0f %6.1f ms %7.1f %7.1f %8.2f  %s (%d plays; %.1f-%.1f ms)" % (
            v, r["positions"], r["heap_bytes"], r["plays_median"], r["ms_median"], r["ms_p99"], r["ms_worst"],
            r["ms_per_play_median"], r["worst_case"], r["worst_plays"], *r["ms_low_high_worst"]))
        g = r["agreement"]
        print("            8-bit picks the float play in %.1f%% of %d positions; float equity given up: "
              "mean %.4f, worst %.3f" % (100 * g["same_play"], g["positions"], g["equity_loss_mean"],
                                          g["equity_loss_max"]))
        if "int8_vs_float" in r:
            s = r["int8_vs_float"]
            print("            8-bit vs float: %d games, ppg %+.3f [%+.3f, %+.3f]" % (
                s["games"], s["ppg"], s["ppg_ci95"][0], s["ppg_ci95"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
