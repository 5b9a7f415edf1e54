"""Export the board's game records to GNU Backgammon (.mat or SGF), after checking their seals.

    python -m host_tools export RECORD.json [RECORD.json ...] [--format mat|sgf] [-o OUT] [--names A,B]

RECORD.json: what the board's ``export`` command answered (one ``record`` object, a list of
them, or JSON lines such as a saved protocol log); several files or records make one match,
ordered by game number. Every line's seal is checked against the board's key (``--keys FILE``,
a director's key file, or $NARDY_KEYS; unprovisioned boards use the open key, and the output
says their records prove nothing): a line changed, missing, moved, copied or invented, a record
cut short, a game of a match deleted or duplicated, dice not the committed seed's, or a locked
game changed by a bare host command, is refused with the line and the reason. Every play is
replayed through the rules core and written in the mover's own pips. Only gnubg-compatible
variants (backgammon, short with scoring=backgammon, persian with a warning) are written; an
unfinished game only with ``--partial``. Notes (director interventions, resets) go to stderr.
Exit status 0 when written, 1 when a record is refused or cannot be read, 2 for bad arguments.
"""

import argparse
import sys

from host_tools import prog
from host_tools.records.export import ExportError, Keyring, NAMES, default_keyring, export, load_records


def main(argv):
    p = argparse.ArgumentParser(prog=prog("export"),
                                description=__doc__.strip().splitlines()[0])
    p.add_argument("records", nargs="+", metavar="RECORD.json")
    p.add_argument("--format", choices=("mat", "sgf"), default="mat")
    p.add_argument("-o", "--output", metavar="OUT", help="file to write (default: standard output)")
    p.add_argument("--names", default=",".join(NAMES), help="the players, White first (A,B)")
    p.add_argument("--keys", metavar="FILE",
                   help="the director's key file (default: $NARDY_KEYS, else the open key only)")
    p.add_argument("--partial", action="store_true",
                   help="write a game that has not ended, as it stands")
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
        keyring = Keyring.from_file(args.keys) if args.keys else default_keyring()
        for path in args.records:
            records += load_records(path)
        text, warnings = export(records, args.format, names, keyring, args.partial)
    except OSError as exc:
        print("export: cannot read %s: %s" % (exc.filename, exc.strerror), file=sys.stderr)
        return 1
    except ExportError as exc:
        print("export: refused: %s" % exc, file=sys.stderr)
        return 1
    for w in warnings:
        print("export: note: %s" % w, file=sys.stderr)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
