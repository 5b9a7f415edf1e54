"""Replay .mat match files through the rules core: python -m host_tools replay [--json] FILE...

Each file is parsed (host_tools.records.matfile) and every play is checked against the rules core
(host_tools.records.replay, variant ``backgammon``). Without ``--json`` a summary line per file and one
line per rejected move; with ``--json`` one JSON object per file::

    {"file": ..., "games": 11, "moves": 604, "unknown": 0,
     "rejected": [{"game": 3, "move": 12, "player": "Bob", "line": 215,
                   "text": "62: 13/7 13/11", "reason": "..."}]}

and, for a file that cannot be read (or a variation other than Backgammon),
``{"file": ..., "error": "...", "line": N or null}``.
Exit status: 0 when every move of every file replays, 1 when a move was rejected or a file
could not be parsed, 2 for bad arguments.
"""

import json
import sys

from host_tools import prog
from host_tools.records import matfile
from host_tools.records.replay import replay_match


def _usage(out):
    out.write("usage: %s [--json] [--variant backgammon] FILE...\n" % prog("replay"))


def main(argv):
    as_json = False
    variant = "backgammon"
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--json":
            as_json = True
        elif a == "--variant" and i + 1 < len(argv):
            i += 1
            variant = argv[i]
        elif a in ("-h", "--help"):
            _usage(sys.stdout)
            return 0
        elif a.startswith("--"):
            _usage(sys.stderr)
            return 2
        else:
            files.append(a)
        i += 1
    if not files:
        _usage(sys.stderr)
        return 2
    status = 0
    totals = [0, 0, 0, 0]
    for path in files:
        try:
            match = matfile.parse_file(path)
        except OSError as exc:
            status = 1
            report = {"file": path, "error": "cannot read: %s" % exc.strerror, "line": None}
        except matfile.MatError as exc:
            status = 1
            report = {"file": path, "error": exc.why, "line": exc.line}
        else:
            report = replay_match(match, variant)
            if report["rejected"] or "error" in report:
                status = 1
        if as_json:
            sys.stdout.write(json.dumps(report) + "\n")
            continue
        if "error" in report:
            where = "%s:%s" % (path, report["line"]) if report["line"] else path
            sys.stdout.write("%s: cannot replay: %s\n" % (where, report["error"]))
            totals[3] += 1
            continue
        totals[0] += 1
        totals[1] += report["games"]
        totals[2] += report["moves"]
        verdict = "ok" if not report["rejected"] else "%d rejected" % len(report["rejected"])
        extra = ", %d cut short by ????" % report["unknown"] if report["unknown"] else ""
        sys.stdout.write("%s: %d games, %d moves%s: %s\n"
                         % (path, report["games"], report["moves"], extra, verdict))
        for r in report["rejected"]:
            sys.stdout.write("  game %d, move %d (%s, line %d): %s -- %s\n"
                             % (r["game"], r["move"], r["player"], r["line"], r["text"], r["reason"]))
    if not as_json and len(files) > 1:
        sys.stdout.write("total: %d files, %d games, %d moves; %d files unreadable\n"
                         % (totals[0], totals[1], totals[2], totals[3]))
    return status
