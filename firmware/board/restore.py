"""Reading games back from flash: the one reader of stored lines, and the visitor it calls.

``walk`` reads a game's chunks (the header's copy, then the segments) one at a time, splits them
into lines, checks every line's seal (the board's MAC), repairs what a worn flash does to a line
when the seal proves the repair (a flipped bit, a damaged seal digit or separator, two lines glued
by a damaged newline), puts the lines in order by their ``n``, names every line it cannot prove
(a gap in ``n``, a torn last line) and calls a ``Visitor`` for each event in order.

A feature module, loaded at boot (``gamereplay.resume``) and at ``export`` and dropped after, so
its code costs no RAM while the board plays; it holds the reader alone, so an export (the hall's
wants on a Pico W, answered mid-game) does not load the replay onto the rules as well.
"""

from firmware.board.identity import MAC_HEX, equal

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

# Bytes without a newline past which the reader drops them as damage (a line of the board's is a
# few hundred bytes): the pieces it joins stay small enough for a fragmented 230K heap.
_REST_MAX = const(1024)


class Visitor:
    """Called by ``walk`` in the order of the game: ``raw(text, seal)`` and then ``event(ev)`` for
    each line that holds, ``lost(first, last, why)`` for lines ``first..last`` that are missing or
    damaged (``last`` is -1 when unknown: a torn end)."""

    def event(self, ev):
        pass

    def raw(self, text, seal):
        """The sealed line of the event ``event`` is called with next (exporters keep it)."""

    def lost(self, first, last, why):
        pass


def split_line(piece):
    """(text, seal) of one stored line without its newline, or None when it cannot be one. The
    seal is the last ``MAC_HEX`` characters; the byte before them is the separator, whatever it
    reads (a flipped separator loses nothing)."""
    n = len(piece)
    if n < MAC_HEX + 3:
        return None
    try:
        text = bytes(piece[:n - MAC_HEX - 1]).decode()
        s = bytes(piece[n - MAC_HEX:]).decode()
    except UnicodeError:
        return None
    return text, s


class Walk:
    """What ``walk`` found: ``count`` (the next line's n), ``head`` (the last good seal), ``lost``
    ([first, last, why] of each gap), ``damaged`` (pieces that were no line), ``torn`` (the file
    ends without its last newline: an unfinished line, or a whole one cut just before it; what
    is appended must start on a line of its own)."""

    def __init__(self):
        self.count = 0
        self.head = ""
        self.lost = []
        self.damaged = 0
        self.torn = False
        self.first = None


def parse_piece(piece, check):
    """The good lines in one stored piece (bytes between newlines): a list of (text, seal).
    ``check(text)`` gives the seal a line's text should have. A piece may hold one line, two lines
    whose newline was damaged (or more), or nothing that holds."""
    found = []
    while piece is not None:
        parts = split_line(piece)
        if parts is not None:
            text, s = parts
            good = check(text)
            # equal, or one digit apart: the stored seal was damaged on flash (a forgery cannot
            # come that close: 31 matching digits are 124 bits); compared as bytes, since
            # MicroPython interns every one-character str that indexing a str makes
            if good == s or len(good) == len(s) and sum(
                    1 for x, y in zip(good.encode(), s.encode()) if x != y) <= 1:
                found.append((text, good))
                break
        from firmware.board import repair  # a damaged piece: the slow path, loaded when needed
        lines, piece = repair.lines(piece, parts, check, split_line)
        found += lines
    return found


def walk(sources, check, v, loads):
    """Read a game's lines from ``sources`` (the header's copy, then the game's file: each an
    iterator of byte chunks, read one at a time, so a game of any length is read in a chunk's
    worth of heap) and call the ``Visitor`` ``v`` for each event in order. ``check(text)`` gives
    a line's seal (the board's MAC); ``loads`` parses JSON. Returns a ``Walk``."""
    w = Walk()
    last = len(sources) - 1
    for i in range(len(sources)):
        rest = b""
        for data in sources[i]:
            if b"\xff" in data:    # erased flash: 0xFF is in no line (ASCII JSON), so it ends one
                data = data.replace(b"\xff", b"\n")
            if len(rest) > _REST_MAX:           # no newline for this long: no line of the board's
                w.damaged += 1
                rest = b""
            if rest:
                data = rest + data
            start = 0
            nl = data.find(b"\n")
            while nl >= 0:
                if nl > start:
                    _piece(w, data[start:nl], check, v, loads)
                start = nl + 1
                nl = data.find(b"\n", start)
            rest = data[start:]
        if rest:                            # no newline at the end: a write cut short, unless
            parts = split_line(rest)        # the line holds as it stands
            if parts is not None and equal(check(parts[0]), parts[1]):
                _take(w, parts[0], parts[1], v, loads)
            else:
                w.damaged += 1
            if i == last:
                w.torn = True
    return w


def _piece(w, piece, check, v, loads):
    lines = parse_piece(piece, check)
    if not lines:
        w.damaged += 1
    for text, s in lines:
        _take(w, text, s, v, loads)


def _take(w, text, s, v, loads):
    try:
        ev = loads(text)
    except ValueError:
        ev = None
    n = ev.get("n") if isinstance(ev, dict) else None
    if not isinstance(n, int) or n < 0:
        w.damaged += 1
        return
    if n < w.count:                  # a copy of a line already read (the header's): never twice
        if n or text != w.first:
            w.damaged += 1
        return
    if n > w.count:
        why = "missing or damaged on flash"
        w.lost.append([w.count, n - 1, why])
        v.lost(w.count, n - 1, why)
    w.count = n + 1
    w.head = s
    if n == 0:
        w.first = text
    v.raw(text, s)
    v.event(ev)
