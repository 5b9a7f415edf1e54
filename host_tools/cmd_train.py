"""Train a variant's network by TD(lambda) self-play, in resumable chunks (see docs/engine.md)."""

import argparse
import os
import sys

from firmware.rules.variants import VARIANTS


def main(argv):
    ap = argparse.ArgumentParser(prog="nardy train", description=__doc__)
    ap.add_argument("--variant", required=True, choices=sorted(VARIANTS))
    ap.add_argument("--games", type=int, required=True, help="games to play in this run")
    ap.add_argument("--seed", type=int, default=1, help="seed of the dice and the first weights")
    ap.add_argument("--resume", action="store_true",
                    help="go on from the saved weights and their record (same seed and settings)")
    ap.add_argument("--chunk", type=int, default=5000, help="save (and check) every N games")
    ap.add_argument("--check-pairs", type=int, default=100,
                    help="paired games per strength check at each save (0: none)")
    ap.add_argument("--rate", type=float, default=0.1,
                    help="learning rate per position at the start (falls to a quarter by 200k games)")
    ap.add_argument("--lam", type=float, default=0.7, help="TD lambda")
    ap.add_argument("--folder", help="where the weights live (default: the shipped ones)")
    args = ap.parse_args(argv)
    if args.games < 0 or args.chunk <= 0:
        print("train: --games must be >= 0 and --chunk > 0", file=sys.stderr)
        return 2
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from host_tools.engine.strength import quick_check
    from host_tools.engine.train import Trainer
    try:
        t = Trainer(args.variant, seed=args.seed, folder=args.folder, lam=args.lam,
                    rate=args.rate, resume=args.resume)
    except (LookupError, ValueError) as exc:
        print("train: %s" % exc, file=sys.stderr)
        return 1
    check = quick_check(args.variant, args.check_pairs) if args.check_pairs else None
    t.run(args.games, chunk=args.chunk, check=check)
    sys.stderr.write("\n")
    print("%s: %d games in all; weights saved" % (args.variant, t.done))
    return 0
