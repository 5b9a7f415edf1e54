"""`bench engine`: paired-dice matches of the network against an opponent, with 95% intervals.

Opponents: ``random``, ``heuristic`` (engine/heuristic.py), ``pubeval`` (backgammon only),
``previous`` (the weights in --previous, e.g. the last release's), ``level:NAME`` (the network
at a level). Prints one line of figures per run, or JSON with the command, seed, games,
commit and weights hash.
"""

import argparse
import json
import os
import sys
import time

from firmware.rules.variants import VARIANTS, get_rules


def _opponent(name, rules, args):
    from host_tools.engine import weights
    from host_tools.engine.heuristic import HeuristicPlayer
    from host_tools.engine.players import LEVELS, NetPlayer, PubevalPlayer, RandomPlayer
    if name == "random":
        return lambda i: RandomPlayer(args.seed * 7919 + i)
    if name == "heuristic":
        return lambda i: HeuristicPlayer(rules)
    if name == "pubeval":
        if rules.name != "backgammon":
            raise ValueError("pubeval plays backgammon only")
        return lambda i: PubevalPlayer(rules)
    if name == "previous":
        if not args.previous:
            raise ValueError("--opponent previous needs --previous FOLDER (older weights)")
        net, _ = weights.load(rules.name, args.previous)
        return lambda i: NetPlayer(net, rules)
    if name.startswith("level:"):
        level = name[6:]
        if level not in LEVELS:
            raise ValueError("unknown level %r" % level)
        net, _ = weights.load(rules.name, args.weights)
        return lambda i: NetPlayer(net, rules, noise=LEVELS[level], seed=i)
    raise ValueError("unknown opponent %r (random, heuristic, pubeval, previous, level:NAME)" % name)


def main(argv):
    ap = argparse.ArgumentParser(prog="nardy bench engine", description=__doc__)
    ap.add_argument("--variant", default="backgammon", choices=sorted(VARIANTS))
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--pairs", type=int, default=1000, help="dice streams, each played twice")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--level", default="expert", help="the network's own level (or 1ply)")
    ap.add_argument("--weights", help="folder of the network under test (default: shipped)")
    ap.add_argument("--previous", help="folder of older weights for --opponent previous")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--speed", type=int, metavar="GAMES",
                    help="instead: self-play speed (games/s, ms per ply) over GAMES games of "
                         "the shipped network, training included")
    args = ap.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.speed:
        return _speed(args)
    from host_tools.engine import weights
    from host_tools.engine.match import paired_match
    from host_tools.engine.players import LEVELS, NetPlayer, SearchPlayer
    from host_tools.engine.train import commit_id
    rules = get_rules(args.variant)
    try:
        net, rec = weights.load(args.variant, args.weights)
        opp = _opponent(args.opponent, rules, args)
        if args.level not in LEVELS and args.level != "1ply":
            raise ValueError("unknown level %r" % args.level)
    except (LookupError, ValueError) as exc:
        print("bench engine: %s" % exc, file=sys.stderr)
        return 2
    if args.level == "1ply":
        def make(i):
            return SearchPlayer(net, rules)
    else:
        def make(i):
            return NetPlayer(net, rules, noise=LEVELS[args.level], seed=i)
    t0 = time.time()

    def progress(i, st):
        if i % 50 == 0 or i == args.pairs:
            s = st.summary()
            sys.stderr.write("\r%d/%d pairs  win %.3f  ppg %+.3f  %.1f games/s   " % (
                i, args.pairs, s["win_rate"], s["ppg"], 2 * i / (time.time() - t0)))
            sys.stderr.flush()
    st = paired_match(rules, make, opp,
                      args.pairs, args.seed, progress=progress)
    sys.stderr.write("\n")
    s = st.summary()
    s.update({"variant": args.variant, "opponent": args.opponent, "level": args.level,
              "seed": args.seed, "weights_sha": rec.get("weights_sha"),
              "training_games": rec.get("training", {}).get("games"), "commit": commit_id(),
              "seconds": round(time.time() - t0, 1),
              "command": "python -m host_tools bench engine " + " ".join(argv)})
    if args.json:
        print(json.dumps(s))
    else:
        lo, hi = s["win_rate_ci95"]
        plo, phi = s["ppg_ci95"]
        print("%s vs %s: %d games (%d pairs, seed %d)  win %.1f%% [%.1f, %.1f]  ppg %+.3f [%+.3f, %+.3f]"
              "  (weights %s, %s games)" % (args.variant, args.opponent, s["games"], s["pairs"],
                                            args.seed, 100 * s["win_rate"], 100 * lo, 100 * hi,
                                            s["ppg"], plo, phi, s["weights_sha"], s["training_games"]))
    return 0


def _speed(args):
    """Self-play games per second with learning, as ``train`` plays them (weights not saved)."""
    from host_tools.engine import weights
    from host_tools.engine.gameplay import Dice
    from host_tools.engine.outcomes import Outcomes
    from host_tools.engine.selfplay import lambda_returns, self_play
    rules = get_rules(args.variant)
    out = Outcomes(rules)
    try:
        net, rec = weights.load(args.variant, args.weights)
    except (LookupError, ValueError) as exc:
        print("bench engine: %s" % exc, file=sys.stderr)
        return 2
    t0 = time.time()
    plies = 0
    for i in range(args.speed):
        tr, (_w, _p, n) = self_play(net, rules, Dice(args.seed * 1_000_003 + i))
        net.learn_each(tr.x, lambda_returns(tr, out, 0.7), 0.0)
        plies += n
    dt = time.time() - t0
    res = {"variant": args.variant, "games": args.speed, "seconds": round(dt, 2),
           "games_per_s": round(args.speed / dt, 2), "ms_per_ply": round(1000 * dt / plies, 3),
           "plies_per_game": round(plies / args.speed, 1), "weights_sha": rec.get("weights_sha"),
           "load_average": round(os.getloadavg()[0], 2)}
    print(json.dumps(res) if args.json else
          "%(variant)s self-play: %(games_per_s).2f games/s, %(ms_per_ply).3f ms per ply, "
          "%(plies_per_game).1f plies a game (load average %(load_average).2f)" % res)
    return 0
