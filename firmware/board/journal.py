"""The game journals on flash: each game's lines, sealed one by one and appended, within a budget.

A line is ``<json>|<seal>\\n``. The JSON is one event (``record`` names the kinds) with its index
in the game, ``"n"``, and the seal is the board's MAC (``identity.Mac``) over the board's id, the
game's serial number and the JSON: so every line proves on its own which board wrote it, in which
game, at which place, and a line changed, moved, invented or copied from another game fails.
Whole lines missing show as gaps in ``n``; a game's last line shows where it ends.

Game ``s`` lives in the file ``g<s>``, written only by appending (littlefs commits an append when
the file is closed: a power cut keeps the file as it was, or at worst leaves a torn last line,
which the reader drops and reports), beside ``g<s>.h`` (a copy of its header line), ``g<s>.n``
(how many lines are on flash and the last one's seal, sealed too: a file cut short at a line's
end is found by it) and, once its record was exported, ``g<s>.x``. Only lines not yet on flash are kept in RAM, and a game is read
back ``CHUNK`` bytes at a time, so a game of any length needs about a kilobyte. The flash keeps
the last ``_MAX_GAMES`` games up to ``_BUDGET`` bytes: the oldest games already exported go first,
never the game in progress. Beside them lies ``reserve``, ``_RESERVE`` bytes of nothing: when the
flash is full (of other files) and no old game is left to go, the reserve goes, and the game in
progress has room for about a hundred more turns; it is laid again when a new game starts (old
games go first if it needs their room). Only when
that is used up too do lines wait in RAM (``full``, which the board reports) until a save
succeeds: play never stops.
"""

import json

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

CHUNK = 512              # bytes read at a time (small: a fragmented heap still has room)
_BUDGET = const(393216)  # journal bytes kept on flash (384 KB; a 300-turn game is about 60 KB)
_MAX_GAMES = const(24)
_RESERVE = const(32768)  # flash kept free for the game in progress, as a file (~100 turns)


class Journal:
    """The current game's sealed lines (``serial``, ``count`` lines, ``head``: the last seal) and
    the games kept on flash. ``full`` is True while lines wait in RAM for flash space."""

    def __init__(self, storage, identity):
        self.storage = storage
        self.identity = identity
        self.serial = 0
        self.count = 0
        self.head = ""
        self.pending = bytearray()  # sealed lines not yet on flash
        self.writes = 0
        self.full = False
        self.prefix = ""

    # -- sealing -----------------------------------------------------------------------------
    def seal(self, text, serial=None):
        """The seal of line ``text`` of game ``serial`` (the current game by default)."""
        prefix = self.prefix if serial is None else "%s|%d|" % (self.identity.board_id, serial)
        return self.identity.mac.hex(prefix, text)

    def start(self, serial, count=0, head=""):
        """Append to game ``serial`` from line ``count`` on (a new game; or, after a reset, the
        game as the reader found it)."""
        self.serial = serial
        self.prefix = "%s|%d|" % (self.identity.board_id, serial)
        self.count = count
        self.head = head
        self.pending = bytearray()

    def append(self, obj):
        """Seal one event (a dict; its ``n`` is set here) onto the game; returns its seal. It
        reaches flash at the next ``save``."""
        obj["n"] = self.count
        text = json.dumps(obj)
        s = self.seal(text)
        self.pending.extend(text.encode())
        self.pending.extend(b"|")
        self.pending.extend(s.encode())
        self.pending.extend(b"\n")
        self.count += 1
        self.head = s
        return s

    # -- flash -------------------------------------------------------------------------------
    def file(self, serial, kind=""):
        """The name of game ``serial``'s file: its lines (``kind`` ""), its header's copy ("h"),
        the mark of its exported record ("x")."""
        return "g%d.%s" % (serial, kind) if kind else "g%d" % serial

    def save(self):
        """Append the waiting lines to flash (only at a commit or a setting, never mid-hand).
        True when they are all on flash; False when the flash is full even after pruning (they
        wait in RAM, ``full`` is set, and the next save tries again)."""
        if not self.pending:
            return True
        for attempt in (0, 1, 2):
            try:
                self.storage.append(self.file(self.serial), self.pending)
                break
            except OSError:
                if attempt == 2:
                    self.full = True
                    return False
                if attempt == 0:
                    self.prune(0)   # make room: old games go, never this one
                else:
                    self.storage.remove("reserve")
        self.writes += 1
        self.pending = bytearray()
        self.full = False
        note = "%d %s" % (self.count, self.head)
        self.put(self.file(self.serial, "n"), (note + " " + self.seal(note)).encode())
        return True

    def put(self, name, data):
        """Replace a small file the game needs beside its lines (the header's copy, the note,
        the clock, the dice seed), taking the reserve's room when the flash is full. False when
        it could not be written (the game goes on without it)."""
        for attempt in (0, 1):
            try:
                self.storage.write_atomic(name, data)
                return True
            except OSError:
                self.storage.remove("reserve")
        return False

    def noted(self, serial):
        """(count, head) the last save of game ``serial`` noted, or None (no note, or one that
        does not hold)."""
        data = self.storage.read(self.file(serial, "n"))
        try:
            count, head, s = bytes(data).decode().split(" ")
            if self.seal("%s %s" % (count, head), serial) == s:
                return int(count), head
        except (ValueError, TypeError, AttributeError, UnicodeError):
            pass
        return None

    def lay_reserve(self):
        """Keep ``_RESERVE`` bytes of flash for the game in progress (written a kilobyte at a
        time), old games removed for it if need be. False when the flash has no room for it even
        then (the board warns: the game may outgrow the flash)."""
        st = self.storage
        block = bytes(1024)
        for attempt in (0, 1):
            have = st.size("reserve")
            try:
                while have < _RESERVE:
                    st.append("reserve", block)
                    have += 1024
                return True
            except OSError:
                if attempt == 0:
                    self.prune(0)
        return False

    def games(self):
        """Serial numbers of the games on flash, oldest first."""
        out = []
        for name in self.storage.names():
            if name[:1] == "g" and name[1:].isdigit():
                out.append(int(name[1:]))
        out.sort()
        return out

    def chunks(self, serial):
        """Game ``serial`` as its reader takes it: the header's copy, then the lines, each an
        iterator of byte chunks."""
        return (self.storage.chunks(self.file(serial, "h"), CHUNK),
                self.storage.chunks(self.file(serial), CHUNK))

    def mark_exported(self, serial):
        self.storage.write_atomic(self.file(serial, "x"), b"")

    def prune(self, budget=_BUDGET, keep=None):
        """Remove whole old games until the journals fit ``budget`` bytes (0 frees what can be
        freed) and at most _MAX_GAMES are kept: games already exported first, oldest first; never
        the game in progress (or ``keep``). Returns the removed serials."""
        st = self.storage
        games = self.games()
        exported = []
        total = 0
        for serial in games:
            total += st.size(self.file(serial))
            if st.read(self.file(serial, "x")) is not None:
                exported.append(serial)
        pruned = []
        left = len(games)
        for serial in exported + [s for s in games if s not in exported]:
            if total <= budget and left <= _MAX_GAMES:
                break
            if serial == self.serial or serial == keep:
                continue
            total -= st.size(self.file(serial))
            for kind in ("", "h", "x", "n"):
                st.remove(self.file(serial, kind))
            left -= 1
            pruned.append(serial)
        return pruned
