"""Export the board's game records to GNU Backgammon (.mat or SGF), after checking their seals.

    python -m host_tools export RECORD.json [RECORD.json ...] [--format mat|sgf] [-o OUT] [--names A,B]

RECORD.json: what the board's ``export`` command answered (one ``record`` object, a list of
them, or JSON lines such as a saved protocol log); several files or records make one match,
ordered by game number. The seals are recomputed first: a changed, dropped or reordered event
is refused with its index. Every play is replayed through the rules core and written in the
mover's own pips. Only gnubg-compatible variants (backgammon, short with scoring=backgammon,
persian with a warning) are written. ``--no-verify`` skips the seal check (with a warning).
Exit status 0 when written, 1 when a record is refused or cannot be read, 2 for bad arguments.
"""

import argparse
import sys

from host_tools.export import ExportError, NAMES, export, load_records


def main(argv):
    p = argparse.ArgumentParser(prog="python -m host_tools export",
                                description=__doc__.strip().splitlines()[0])
    p.add_argument("records", nargs="+", metavar="RECORD.json")
    p.add_argument("--format", choices=("mat", "sgf"), default="mat")
    p.add_argument("-o", "--output", metavar="OUT", help="file to write (default: standard output)")
    p.add_argument("--names", default=",".join(NAMES), help="the players, White first (A,B)")
    p.add_argument("--no-verify", action="store_true",
                   help="do not check the seal chain (e.g. a record whose key order was lost)")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    names = [n.strip() for n in args.names.split(",")]
    if len(names) != 2 or not all(names):
        print("export: --names takes two names, White's first: A,B", file=sys.stderr)
        return 2
    records = []
    try:
        for path in args.records:
            records += load_records(path)
        text, warnings = export(records, args.format, names, verify=not args.no_verify)
    except OSError as exc:
        print("export: cannot read %s: %s" % (exc.filename, exc.strerror), file=sys.stderr)
        return 1
    except ExportError as exc:
        print("export: refused: %s" % exc, file=sys.stderr)
        return 1
    if args.no_verify:
        warnings.insert(0, "the seal chain was not checked (--no-verify)")
    for w in warnings:
        print("export: warning: %s" % w, file=sys.stderr)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
