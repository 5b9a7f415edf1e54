"""Analyse played games (.mat match files): equity lost per move, marks, error rates, luck."""

import argparse
import json
import os
import sys


def _text(rep):
    lines = ["%s" % rep["file"]]
    for g in rep["games"]:
        lines.append("game %d: %s - %s" % (g["number"], g["players"][0], g["players"][1]))
        for m in g["moves"]:
            if m["mark"]:
                lines.append("  line %d %s %d%d: %s  lost %.3f (%s)" % (
                    m["line"], g["players"][m["player"]], m["dice"][0], m["dice"][1], m["text"],
                    m["loss"], m["mark"]))
        for s in g["summary"]:
            lines.append("  %-20s %3d unforced  error rate %5.1f  %-12s  doubtful %d bad %d "
                         "very bad %d  luck %+.3f" % (
                             s["player"], s["unforced"], s["error_rate_milli"], s["rating"],
                             s["marks"]["doubtful"], s["marks"]["bad"], s["marks"]["very bad"],
                             s["luck"]))
        for r in g.get("rejected", []):
            lines.append("  rejected at line %d: %s" % (r["line"], r["reason"]))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(prog="nardy analyse", description=__doc__,
                                 epilog="the judge is this project's engine: the figures measure "
                                        "agreement with it (docs/engine.md)")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--plies", type=int, choices=(0, 1), default=0,
                    help="0: the network alone; 1: its best plays searched one ply deeper")
    ap.add_argument("--no-luck", action="store_true", help="skip the luck of each roll (faster)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--html", metavar="FILE", help="also write an HTML report (a plot per game)")
    ap.add_argument("--weights", help="folder of the networks (default: the shipped ones)")
    args = ap.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from firmware.rules.variants import get_rules
    from host_tools.engine import weights
    from host_tools.engine.analysis import analyse_match
    from host_tools.records.matfile import MatError, parse_file
    rules = get_rules("backgammon")
    try:
        net, _ = weights.load("backgammon", args.weights)
    except (LookupError, ValueError) as exc:
        print("analyse: %s" % exc, file=sys.stderr)
        return 2
    rc = 0
    reports = []
    for path in args.files:
        try:
            match = parse_file(path)
        except (OSError, MatError) as exc:
            print("analyse: %s" % exc, file=sys.stderr)
            rc = 1
            continue
        rep = analyse_match(match, net, rules, args.plies, not args.no_luck)
        print(json.dumps(rep) if args.json else _text(rep))
        reports.append(rep)
    if args.html and reports:
        from host_tools.engine.report import html_report
        with open(args.html, "w") as f:
            f.write("\n".join(html_report(r) for r in reports))
    return rc
