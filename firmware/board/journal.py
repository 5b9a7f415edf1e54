"""The game journal in flash: one JSON line per event, each sealed by a hash chain over the lines.

Every line is ``<json>|<seal>`` where seal = first 16 hex digits of sha256(previous seal + json);
the first line chains from ``GENESIS``. A changed, dropped or reordered line breaks every seal
after it, so the last seal (the head) vouches for the whole game; a line whose seal does not
match (flash corruption, a stale file) ends what is loaded.

The lines are kept in segments of at most ``SEGMENT`` bytes (files ``game.0``, ``game.1``...).
Only the last segment lives in RAM: a save rewrites just the segments that changed, each with
the storage's atomic write (a power cut leaves every file old or new), and loading streams the
events one at a time, so a game of any length needs a couple of kilobytes.
"""

import json
import hashlib
import binascii

GENESIS = "0" * 16
NAME = "game"
SEGMENT = 1536


def replay_dice_and_cube(game, ev):
    """Apply a journal event that throws dice or moves the cube to ``game`` (opening, parity
    opening, roll, chosen doublet, double/take/drop); False for any other kind of event. Raises
    the rules core's GameError when the game's phase does not allow it."""
    k = ev.get("k")
    if k == "open":
        game.opening_roll(ev["dice"][0], ev["dice"][1])
    elif k == "parity":
        game.opening_parity(0, True, ev["die"])
    elif k == "roll":
        game.roll(ev["dice"][0], ev["dice"][1])
    elif k == "choose":
        game.choose_doublet(ev["value"])
    elif k == "cube":
        act = ev["act"]
        if act == "double":
            game.double(game.pos.turn)
        elif act == "take":
            game.take()
        elif act == "drop":
            game.drop()
        else:
            raise ValueError("unknown cube action %r" % act)
    else:
        return False
    return True


def seal(prev, text):
    """The seal of a line ``text`` following a line sealed ``prev``."""
    h = hashlib.sha256(prev.encode())
    h.update(text.encode())
    return binascii.hexlify(h.digest()).decode()[:16]


class Journal:
    """Sealed lines of the current game, mirrored to flash on ``save``."""

    def __init__(self, storage, name=NAME):
        self.storage = storage
        self.name = name
        self.on_flash = 0
        self.writes = 0
        self.clear()

    def _file(self, i):
        return "%s.%d" % (self.name, i)

    def clear(self):
        self.tail = bytearray()     # the last segment
        self.nseg = 0               # its index: segments before it are whole
        self.pending = []           # (index, bytes) of whole segments not yet on flash
        self.dirty = True
        self.count = 0
        self.head = GENESIS

    def append(self, obj):
        """Seal one event (a dict) onto the chain; returns its seal."""
        text = json.dumps(obj)
        self.head = seal(self.head, text)
        self._add(("%s|%s\n" % (text, self.head)).encode())
        self.count += 1
        return self.head

    def _add(self, line):
        if len(self.tail) and len(self.tail) + len(line) > SEGMENT:
            if self.dirty:
                self.pending.append((self.nseg, bytes(self.tail)))
            self.nseg += 1
            self.tail = bytearray()
        self.tail.extend(line)
        self.dirty = True

    def save(self):
        """Write what changed (only at a committed turn, never mid-hand); then drop segment
        files a shorter journal no longer has."""
        st = self.storage
        for i, data in self.pending:
            st.write_atomic(self._file(i), data)
            self.writes += 1
        self.pending = []
        if self.dirty:
            st.write_atomic(self._file(self.nseg), self.tail)
            self.writes += 1
            self.dirty = False
        for i in range(self.nseg + 1, self.on_flash):
            st.remove(self._file(i))
        self.on_flash = self.nseg + 1

    def _segment(self, i):
        if i == self.nseg:
            return bytes(self.tail)
        for j, data in self.pending:
            if j == i:
                return data
        data = self.storage.read(self._file(i))
        return data if data is not None else b""

    def rows(self):
        """(json text, seal) of every line, oldest first (read back from flash)."""
        out = []
        for i in range(self.nseg + 1):
            for row in bytes(self._segment(i)).decode().split("\n"):
                if row:
                    cut = row.rfind("|")
                    out.append((row[:cut], row[cut + 1:]))
        return out

    def entries(self):
        """(event dict, seal) for every line, oldest first."""
        return [(json.loads(text), s) for text, s in self.rows()]

    def keep(self, n):
        """Keep only the first n lines (what a replay accepted); all rewritten at the next save."""
        rows = self.rows()[:n]
        self.clear()
        for text, s in rows:
            line = ("%s|%s\n" % (text, s)).encode()
            if len(self.tail) and len(self.tail) + len(line) > SEGMENT:
                self.pending.append((self.nseg, bytes(self.tail)))
                self.nseg += 1
                self.tail = bytearray()
            self.tail.extend(line)
            self.head = s
            self.count += 1
        self.dirty = True

    def load(self, consume):
        """Stream the journal back: ``consume(event)`` for each sealed line in order (it returns
        False to stop: the rest is not taken). Returns lines not taken (bad seal or refused)."""
        self.clear()
        self.dirty = False
        dropped = 0
        stop = False
        i = 0
        last = None
        while True:
            data = self.storage.read(self._file(i))
            if data is None:
                break
            if not isinstance(data, str):
                data = bytes(data).decode()
            i += 1
            kept = bytearray()
            for row in data.split("\n"):
                if not row:
                    continue
                if stop:
                    dropped += 1
                    continue
                cut = row.rfind("|")
                text = row[:cut]
                obj = None
                if cut > 0 and seal(self.head, text) == row[cut + 1:]:
                    try:
                        obj = json.loads(text)
                    except ValueError:
                        obj = None
                if obj is None or not consume(obj):
                    stop = True
                    dropped += 1
                    continue
                self.head = row[cut + 1:]
                self.count += 1
                kept.extend(row.encode())
                kept.extend(b"\n")
            if len(kept):
                if last is not None:
                    self.nseg += 1
                last = kept
        self.on_flash = i
        if last is not None:
            self.tail = last
        if dropped:                  # the files hold lines that are not taken: rewrite
            self.keep(self.count)
        return dropped


def verify(rows):
    """Check a list of (json text, seal) pairs from an exported record: index of the first bad
    line, or -1 when the whole chain holds."""
    prev = GENESIS
    for i in range(len(rows)):
        text, s = rows[i]
        if seal(prev, text) != s:
            return i
        prev = s
    return -1
