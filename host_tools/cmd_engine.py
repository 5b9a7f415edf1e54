"""Drive the engine over stdin/stdout: positions and dice in, plays, hints and evaluations out."""

import argparse
import os
import sys


def main(argv):
    ap = argparse.ArgumentParser(prog="nardy engine", description=__doc__,
                                 epilog="commands: variant, level, position, start, dice, first, "
                                        "play, hint, eval, quit (docs/engine.md)")
    ap.add_argument("--variant", default="backgammon")
    ap.add_argument("--level", default="expert")
    ap.add_argument("--json", action="store_true", help="answer with one JSON object per line")
    ap.add_argument("--seed", type=int, default=0, help="seed of the levels' noise")
    ap.add_argument("--weights", help="folder of the networks (default: the shipped ones)")
    args = ap.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from host_tools.engine.protocol import Engine, ProtocolError, serve
    try:
        eng = Engine(args.variant, args.level, folder=args.weights, seed=args.seed)
    except ProtocolError as exc:
        print("engine: %s" % exc, file=sys.stderr)
        return 2

    def write(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    serve(eng, sys.stdin, write, as_json=args.json)
    return 0
