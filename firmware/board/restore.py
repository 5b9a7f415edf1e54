"""Reading games back from flash: the one reader of stored lines, and the board's resume after a reset.

``walk`` reads a game's chunks (the header's copy, then the segments) one at a time, splits them
into lines, checks every line's seal (the board's MAC), repairs what a worn flash does to a line
when the seal proves the repair (a flipped bit, a damaged seal digit or separator, two lines glued
by a damaged newline), puts the lines in order by their ``n``, names every line it cannot prove
(a gap in ``n``, a torn last line) and calls a ``gamereplay.Visitor`` for each event in order.
``resume`` replays the board's last game through ``GameReplay`` with its settings, clock and
dice; reports, once on the record, what was lost or damaged; records the reset itself (the
clock charged for the time the reset hid) and replaces a lost dice seed on record.

A feature module, loaded at boot and at ``export`` and dropped after, so its code costs no RAM
while the board plays.
"""

import binascii
import json

from firmware.board.identity import MAC_HEX, equal
from firmware.board.gamereplay import GameReplay
from firmware.board.gameclock import GameClock


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
            # come that close: 31 matching digits are 124 bits)
            if len(good) == len(s) and sum(1 for i in range(len(s)) if good[i] != s[i]) <= 1:
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


class SessionReplay(GameReplay):
    """A game's events onto a ``Session``: the rules state, and the board's settings, clock,
    dice, and what earlier boots already reported lost (``reported``)."""

    def __init__(self, session):
        GameReplay.__init__(self)
        self.s = session
        self.reported = [[], [], 0]     # lost ranges, refused n's, damaged pieces on record
        self.setup_done = False

    def make_rules(self, ev):
        s = self.s
        s.variant = ev["variant"]
        s.options = ev.get("options") or {}
        s.match_to = int(ev["match_to"])
        s._configure_rules()
        return s.rules

    def begin(self, ev):
        GameReplay.begin(self, ev)
        s = self.s
        s.match = self.match
        s.game = self.game
        s.mode = ev.get("mode", "guide")
        s.dice_mode = ev.get("dice_mode", "auto")
        s.condone = bool(ev.get("condone", False))
        c = ev.get("clock") or {}
        s.gclock = GameClock(c.get("reserve", 0), c.get("delay", 12000), c.get("left"))
        s.match_id = ev.get("match", 0)
        s.game_no = ev.get("game", 1)
        s.turns = 0
        s.settings = 0
        s.setup_done = False
        s.verdict = None
        s.dice.expected = ev.get("dice_commit")

    def event(self, ev):
        GameReplay.event(self, ev)
        s = self.s
        if self.header is None:
            return
        if "i" in ev and isinstance(ev["i"], int):          # dice of the committed seed
            d = ev.get("dice")
            n = ev["i"] + (len(d) if isinstance(d, list) else 1)
            if n > s.dice.next:
                s.dice.next = n
        c = ev.get("clock")
        if isinstance(c, list) and len(c) == 2:       # reserves left after a turn, cube, time
            s.gclock.left = [c[0], c[1]]
        k = ev.get("k")
        if k in ("open", "parity", "roll", "turn", "position"):
            self.setup_done = True
        s.turns = self.turns

    def other(self, ev):
        s = self.s
        k = ev.get("k")
        if k == "set":
            s.settings += 1
            for key in ("mode", "dice_mode", "condone"):
                if key in ev:
                    setattr(s, key, ev[key])
        elif k == "clock":
            s.settings += 1
            s.gclock = GameClock(ev["reserve"], ev["delay"])
        elif k == "commit":                 # a new seed: its dice from die 0
            d = s.dice
            d.expected = ev["dice_commit"]
            d.next = 0
            d.mix = b""
        elif k == "mix":
            s.dice.mix = binascii.unhexlify(ev["mix"])
        elif k == "reveal":
            s.dice.expected = None
        elif k == "recover":
            r = self.reported
            r[0] += ev.get("lost") or []
            r[1] += [x[0] for x in ev.get("refused") or []]
            r[2] = ev.get("damaged", 0)


def resume(session):
    """The board's game back after a reset: the last game on flash replayed into ``session``,
    what was lost or damaged reported (on the host link always, on the record once), the reset
    itself on record with the clock charged for the time it hid, a lost dice seed replaced on
    record. False when that game has no readable header (reported: a new match starts and the
    game stays on flash)."""
    s = session
    journal = s.journal
    serial = journal.games()[-1]
    replay = SessionReplay(s)
    w = walk(journal.chunks(serial), lambda text: journal.seal(text, serial), replay, json.loads)
    if replay.header is None:
        s.emit("ev", {"ev": "journal_lost", "serial": serial,
                      "why": "no readable game header: the game stays on flash, a new match "
                             "starts"})
        s.notice = ("journal", s.clock() + 10000)
        journal.serial = serial
        return False
    noted = journal.noted(serial)
    if noted is not None and noted[0] > w.count:   # the file ends before its last save did
        gap = [w.count, noted[0] - 1, "cut off the end of the journal"]
        w.lost.append(gap)
        replay.lost(gap[0], gap[1], gap[2])
        w.count, w.head = noted
    journal.start(serial, w.count, w.head)
    if w.torn:                       # end the torn line, so what is appended starts clean
        journal.storage.append(journal.file(serial), b"\n")
    game = s.game
    now = s.clock()
    s.t_turn = now
    s.setup_done = bool(game.opening) or s.turns > 0 or game.phase != "opening" \
        or replay.setup_done
    s.tracker.follow(game.turn, None if game.turn is not None else game.pos)
    over = game.phase == "over" or s.match.over()
    # the clock: the period that was running goes on, charged with what it had used (its last
    # checkpoint, when no line came after it) plus the longest a checkpoint may have missed
    side = -1 if over else s.actor()
    gc_ = s.gclock
    charged = gc_.resume(side, now, journal.storage, serial, w.count)
    if gc_.side < 0:
        side = -1
    # what was lost: on record once (a later boot finds the same damage and its report)
    rep = replay.reported
    new = w.torn or w.damaged > rep[2]
    for gap in w.lost:
        new = new or [gap[0], gap[1], gap[2]] not in rep[0]
    for x in replay.refused:
        new = new or x[0] not in rep[1]
    # (an ended game takes no line after its end: its export says what the walk found)
    if new and not replay.ended:
        s.journal_line({"k": "recover", "lost": w.lost, "refused": replay.refused,
                        "damaged": w.damaged, "torn": w.torn}, "board")
        s.notice = ("journal", now + 10000)
    if game.phase == "over" and not replay.ended:
        # the game's last turn reached flash, its end did not (a cut in the same write): end it
        # now, as the board did before the cut (the match's score, the seed revealed, the end)
        s.dice.load()
        s._game_over()
    if not over:
        if not s.dice.load() and s.dice_mode == "auto":
            s.journal_line({"k": "commit", "dice_commit": s.dice.new_seed(),
                            "why": "the committed seed was lost"}, "board")
        s.journal_line({"k": "reset", "side": side, "charged": charged,
                        "clock": list(gc_.left)}, "board")
    dropped = w.damaged
    for gap in w.lost:
        dropped += gap[1] - gap[0] + 1
    s.emit("ev", {"ev": "power_restore", "turns": s.turns, "phase": s.phase,
                  "seal": journal.head, "serial": serial, "dropped": dropped, "lost": w.lost,
                  "refused": replay.refused, "damaged": w.damaged})
    if game.turn is not None:            # go on: follow the turn, or roll on when nothing waits
        s._turn_started(restoring=True)
        return True
    s._check_frame()
    if s.setup_done and s.phase in ("roll", "opening", "doublet", "doubled"):
        s._after_change()
    else:
        s.emit_status()
    return True
