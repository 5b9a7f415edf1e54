"""docs/perf.md's measured sections: each bench command rewrites its own, between its markers.

A section is the text between ``<!-- bench:NAME begin -->`` and ``<!-- bench:NAME end -->``;
``bench``, ``benchdrivers`` and ``benchboard`` write theirs with ``--write-docs``, from the same
report their ``--json`` prints, so the tables in the docs are what the commands measured.
"""

import datetime
import os
from host_tools import REPO_ROOT

PERF_MD = os.path.join(REPO_ROOT, "docs", "perf.md")


def markers(name):
    return "<!-- bench:%s begin -->" % name, "<!-- bench:%s end -->" % name


def replace_section(text, name, body):
    """``text`` with section ``name`` replaced by ``body``; ValueError if its markers are missing."""
    begin, end = markers(name)
    a = text.find(begin)
    b = text.find(end)
    if a < 0 or b < a:
        raise ValueError("no section %r in docs/perf.md (markers %s ... %s)" % (name, begin, end))
    return text[:a + len(begin)] + "\n" + body.strip("\n") + "\n" + text[b:]


def section(text, name):
    """The body of section ``name``."""
    begin, end = markers(name)
    a = text.index(begin) + len(begin)
    return text[a:text.index(end)].strip("\n")


def stamp(command):
    """The line that says how and when a section was measured."""
    return "Measured with `%s` on %s." % (command, datetime.date.today().isoformat())


def write(name, body, path=PERF_MD):
    with open(path) as f:
        text = f.read()
    new = replace_section(text, name, body)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(new)
    os.replace(tmp, path)


def table(header, rows):
    """A Markdown table: ``header`` a list of column titles (a title ending in ':' is right-aligned)."""
    cols = [h.rstrip(":") for h in header]
    align = ["---:" if h.endswith(":") else "---" for h in header]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)
