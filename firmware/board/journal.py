"""The game journal in flash: one JSON line per event, each sealed by a hash chain over the lines.

Every line is ``<json>|<seal>`` where seal = first 16 hex digits of sha256(previous seal + json);
the first line chains from ``GENESIS``. A changed, dropped or reordered line breaks every seal
after it, so the last seal (the head) vouches for the whole game; a line whose seal does not
match (flash corruption, a stale file) ends what is loaded.

The lines are kept in segments of at most ``SEGMENT`` bytes (files ``game.0``, ``game.1``...):
a save rewrites only the segments that changed, each with the storage's atomic write, so a
power cut leaves every file either old or new, a long game never needs one big block of RAM,
and the flash is not rewritten whole at every turn.
"""

import json
import hashlib
import binascii

GENESIS = "0" * 16
NAME = "game"
SEGMENT = 1536


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
        self.segs = [bytearray()]
        self.dirty = 1           # bitmap of segments to write
        self.on_flash = 0        # segments the flash holds (for clearing)
        self.count = 0
        self.head = GENESIS
        self.writes = 0

    def _file(self, i):
        return "%s.%d" % (self.name, i)

    def clear(self):
        self.segs = [bytearray()]
        self.dirty = 1
        self.count = 0
        self.head = GENESIS

    def append(self, obj):
        """Seal one event (a dict) onto the chain; returns its seal."""
        text = json.dumps(obj)
        self.head = seal(self.head, text)
        line = ("%s|%s\n" % (text, self.head)).encode()
        seg = self.segs[-1]
        if len(seg) and len(seg) + len(line) > SEGMENT:
            seg = bytearray()
            self.segs.append(seg)
        seg.extend(line)
        self.dirty |= 1 << (len(self.segs) - 1)
        self.count += 1
        return self.head

    def save(self):
        """Write the changed segments (only at a committed turn, never mid-hand); then drop
        segment files a shorter journal no longer has."""
        st = self.storage
        for i in range(len(self.segs)):
            if (self.dirty >> i) & 1:
                st.write_atomic(self._file(i), self.segs[i])
                self.writes += 1
        self.dirty = 0
        for i in range(len(self.segs), self.on_flash):
            st.remove(self._file(i))
        self.on_flash = len(self.segs)

    def rows(self):
        """(json text, seal) of every line, oldest first."""
        out = []
        for seg in self.segs:
            for row in bytes(seg).decode().split("\n"):
                if row:
                    cut = row.rfind("|")
                    out.append((row[:cut], row[cut + 1:]))
        return out

    def entries(self):
        """(event dict, seal) for every line, oldest first."""
        return [(json.loads(text), s) for text, s in self.rows()]

    def keep(self, n):
        """Keep only the first n lines (what a replay accepted); rewritten at the next save."""
        rows = self.rows()[:n]
        self.clear()
        for text, s in rows:
            line = ("%s|%s\n" % (text, s)).encode()
            if len(self.segs[-1]) and len(self.segs[-1]) + len(line) > SEGMENT:
                self.segs.append(bytearray())
            self.segs[-1].extend(line)
            self.head = s
        self.count = len(rows)
        self.dirty = (1 << len(self.segs)) - 1

    def load(self):
        """Read the journal back: (events as dicts, lines dropped because a seal failed)."""
        self.clear()
        self.dirty = 0
        self.segs = []
        events = []
        dropped = 0
        i = 0
        broken = False
        while True:
            data = self.storage.read(self._file(i))
            if data is None:
                break
            i += 1
            if broken:
                dropped += data.count(b"\n") if not isinstance(data, str) else data.count("\n")
                continue
            if not isinstance(data, str):
                data = bytes(data).decode()
            seg = bytearray()
            for row in data.split("\n"):
                if not row:
                    continue
                if broken:
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
                if obj is None:
                    broken = True
                    dropped += 1
                    continue
                self.head = row[cut + 1:]
                seg.extend(row.encode())
                seg.extend(b"\n")
                self.count += 1
                events.append(obj)
            if len(seg):
                self.segs.append(seg)
        self.on_flash = i
        if not self.segs:
            self.segs = [bytearray()]
        if broken:
            self.dirty = (1 << len(self.segs)) - 1
        return events, dropped


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
