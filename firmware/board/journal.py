"""The game journal in flash: one JSON line per event, each sealed by a hash chain over the lines.

Every line is ``<json>|<seal>`` where seal = first 16 hex digits of sha256(previous seal + json);
the first line chains from ``GENESIS``. A changed, dropped or reordered line breaks every seal
after it, so the last seal (the head) vouches for the whole game; a line whose seal does not
match (flash corruption) ends what is loaded. The file is rewritten whole with the storage's
atomic write, so a power cut leaves either the old or the new journal, never half of one. The
lines live in one growing buffer, written as it is (no copy of the journal is built to save it).
"""

import json
import hashlib
import binascii

GENESIS = "0" * 16
NAME = "game.jnl"


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
        self.buf = bytearray()
        self.count = 0
        self.head = GENESIS
        self.writes = 0

    def clear(self):
        self.buf = bytearray()
        self.count = 0
        self.head = GENESIS

    def append(self, obj):
        """Seal one event (a dict) onto the chain; returns its seal."""
        text = json.dumps(obj)
        self.head = seal(self.head, text)
        self.buf.extend(text.encode())
        self.buf.extend(b"|")
        self.buf.extend(self.head.encode())
        self.buf.extend(b"\n")
        self.count += 1
        return self.head

    def save(self):
        """Write the whole journal atomically (only at a committed turn, never mid-hand)."""
        self.storage.write_atomic(self.name, self.buf)
        self.writes += 1

    def rows(self):
        """(json text, seal) of every line, oldest first."""
        out = []
        for row in bytes(self.buf).decode().split("\n"):
            if row:
                cut = row.rfind("|")
                out.append((row[:cut], row[cut + 1:]))
        return out

    def entries(self):
        """(event dict, seal) for every line, oldest first."""
        return [(json.loads(text), s) for text, s in self.rows()]

    def keep(self, n):
        """Keep only the first n lines (what a replay accepted)."""
        rows = self.rows()[:n]
        self.clear()
        for text, s in rows:
            self.buf.extend(("%s|%s\n" % (text, s)).encode())
            self.head = s
        self.count = len(rows)

    def load(self):
        """Read the journal back: (events as dicts, lines dropped because a seal failed)."""
        self.clear()
        data = self.storage.read(self.name)
        if not data:
            return [], 0
        if not isinstance(data, str):
            data = bytes(data).decode()
        events = []
        rows = [r for r in data.split("\n") if r]
        for i in range(len(rows)):
            row = rows[i]
            cut = row.rfind("|")
            if cut < 0:
                return events, len(rows) - i
            text = row[:cut]
            if seal(self.head, text) != row[cut + 1:]:
                return events, len(rows) - i
            try:
                obj = json.loads(text)
            except ValueError:
                return events, len(rows) - i
            self.head = row[cut + 1:]
            self.buf.extend(row.encode())
            self.buf.extend(b"\n")
            self.count += 1
            events.append(obj)
        return events, 0


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
