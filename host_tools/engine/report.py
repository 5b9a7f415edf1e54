"""An analysis as one self-contained HTML page: per game a plot of the equity over the game
(an inline SVG, no script, no outside file) and the table of marked plays and each player's
figures."""

import html

_W, _H, _PAD = 640, 200, 24


def _plot(values):
    """SVG polyline of equities (player 0's view) clipped to [-3, 3], with the zero line."""
    if not values:
        return "<p>no plays</p>"
    n = max(len(values) - 1, 1)
    top = max(1.0, min(3.0, max(abs(v) for v in values)))

    def xy(i, v):
        v = max(-top, min(top, v))
        return (_PAD + (_W - 2 * _PAD) * i / n, _H / 2 - (_H / 2 - _PAD) * v / top)
    pts = " ".join("%.1f,%.1f" % xy(i, v) for i, v in enumerate(values))
    zero = _H / 2
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
            'aria-label="equity over the game">'
            '<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#999"/>'
            '<polyline fill="none" stroke="#1565c0" stroke-width="2" points="%s"/>'
            '<text x="4" y="14" font-size="11">+%.0f</text><text x="4" y="%d" font-size="11">-%.0f</text>'
            '</svg>' % (_W, _H, _PAD, zero, _W - _PAD, zero, pts, top, _H - 4, top))


def html_report(rep):
    """The HTML text of an ``analysis.analyse_match`` report."""
    e = html.escape
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>Analysis of %s</title>"
           "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px}"
           ".very{color:#b71c1c}.bad{color:#e65100}.doubtful{color:#8d6e00}</style></head><body>"
           % e(rep["file"]), "<h1>Analysis of %s</h1>" % e(rep["file"]),
           "<p>The judge is this project's engine: the figures say how far each play agreed "
           "with it.</p>"]
    for g in rep["games"]:
        names = g["players"]
        out.append("<h2>Game %d: %s - %s</h2>" % (g["number"], e(names[0]), e(names[1])))
        vals = [m["played"] if m["player"] == 0 else -m["played"]
                for m in g["moves"] if m["played"] is not None]
        out.append("<p>Equity after each play, from %s's side:</p>%s" % (e(names[0]), _plot(vals)))
        out.append("<table><tr><th>player</th><th>unforced</th><th>error rate</th><th>rating</th>"
                   "<th>doubtful</th><th>bad</th><th>very bad</th><th>luck</th></tr>")
        for s in g["summary"]:
            out.append("<tr><td>%s</td><td>%d</td><td>%.1f</td><td>%s</td><td>%d</td><td>%d</td>"
                       "<td>%d</td><td>%+.3f</td></tr>" % (
                           e(s["player"]), s["unforced"], s["error_rate_milli"], e(s["rating"]),
                           s["marks"]["doubtful"], s["marks"]["bad"], s["marks"]["very bad"],
                           s["luck"]))
        out.append("</table><table><tr><th>line</th><th>player</th><th>roll</th><th>play</th>"
                   "<th>lost</th><th>mark</th></tr>")
        for m in g["moves"]:
            if m["mark"]:
                cls = m["mark"].split()[0]
                out.append("<tr class='%s'><td>%d</td><td>%s</td><td>%d%d</td><td>%s</td>"
                           "<td>%.3f</td><td>%s</td></tr>" % (
                               cls, m["line"], e(names[m["player"]]), m["dice"][0], m["dice"][1],
                               e(m["text"]), m["loss"], e(m["mark"])))
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out)
