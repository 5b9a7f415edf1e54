"""A round's records and results, written for the director: .mat and SGF where gnubg reads the variant, the board's own record otherwise, and the results table.

Each board's games of the round are grouped by match (a board plays one match after another);
a match whose variant GNU Backgammon can read is written by ``host_tools.records.export.export`` (the
same verification and replay as the ``export`` command) as ``<board>-match<m>.mat`` and
``.sgf``; any other (long nardy, jacquet, matador, short nardy's tric-trac scoring) as
``<board>-match<m>.nardy.jsonl``, the records as the board exported them (nardy-record/2, one per
line: ``python -m host_tools export`` and the station read them). ``results.csv`` and
``results.md`` list every finished game of the round with its players and result.
"""

import csv
import io
import json
import os

from host_tools.records.export import ExportError, export


def export_round(station, round_, folder):
    """Write round ``round_``'s finished games and results into ``folder``; returns the paths."""
    os.makedirs(folder, exist_ok=True)
    matches = {}
    for rec in station.games(round_):
        header = rec["events"][0]
        matches.setdefault((rec["board"], header.get("match")), []).append(rec)
    written = []
    for (board, match), records in sorted(matches.items(), key=lambda kv: (kv[0][0],
                                                                             kv[0][1] or 0)):
        records.sort(key=lambda r: r["serial"])
        base = os.path.join(folder, "%s-match%s" % (board, match))
        try:
            for fmt in ("mat", "sgf"):
                text, _notes = export(records, fmt, keyring=station.room.keyring)
                written.append(_write(base + "." + fmt, text))
        except ExportError:
            text = "".join(json.dumps({k: v for k, v in r.items() if k != "events"}) + "\n"
                           for r in records)
            written.append(_write(base + ".nardy.jsonl", text))
    results = station.results()
    rows = [r for r in results["games"] if r["round"] == round_]
    written.append(_write(os.path.join(folder, "results.csv"),
                          results_csv({"games": rows})))
    md = ["# Round %d" % round_, "", "| " + " | ".join(RESULT_COLUMNS) + " |",
          "|" + "---|" * len(RESULT_COLUMNS)]
    for r in rows:
        md.append("| " + " | ".join(str(r[c]) for c in RESULT_COLUMNS) + " |")
    md += ["", "## Standings", "", "| player | games | wins | points | against |",
           "|---|---|---|---|---|"]
    for p in results["standings"]:
        md.append("| %s | %d | %d | %d | %d |" % (p["player"], p["games"], p["wins"],
                                                   p["points"], p["against"]))
    written.append(_write(os.path.join(folder, "results.md"), "\n".join(md) + "\n"))
    return written


RESULT_COLUMNS = ("round", "board", "serial", "variant", "white", "black", "winner", "points",
                  "how", "score", "match", "game", "turns")


def results_csv(results):
    """The results table (``station.results()``'s games) as CSV: the page's download and the
    round's results.csv."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(RESULT_COLUMNS)
    for row in results["games"]:
        w.writerow([json.dumps(row[c]) if isinstance(row[c], list) else row[c]
                    for c in RESULT_COLUMNS])
    return out.getvalue()


def _write(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return path
