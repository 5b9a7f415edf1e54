"""Host-link I/O without blocking: complete command lines from stdin (USB serial), lines out."""

import sys

MAX_PENDING = 512


class LineReader:
    """``lines()`` returns the command lines that arrived since the last call (never blocks);
    ``eof`` turns True when the input is closed (a host process went away)."""

    def __init__(self):
        import select
        self.select = select
        self.buf = ""
        self.eof = False
        self.micropython = sys.implementation.name == "micropython"
        if self.micropython:
            self.poller = select.poll()
            self.poller.register(sys.stdin, select.POLLIN)

    def _chunk(self):
        if self.micropython:
            out = ""
            while self.poller.poll(0):
                ch = sys.stdin.read(1)
                if not ch:
                    self.eof = True
                    break
                out += ch
                if ch == "\n" or len(out) >= MAX_PENDING:
                    break
            return out
        import os
        r, _, _ = self.select.select([0], [], [], 0)
        if not r:
            return ""
        data = os.read(0, 4096)
        if not data:
            self.eof = True
            return ""
        return data.decode("utf-8", "replace")

    def lines(self):
        chunk = self._chunk()
        while chunk:
            self.buf += chunk
            chunk = self._chunk() if "\n" not in chunk else ""
        if "\n" not in self.buf:
            if len(self.buf) > MAX_PENDING:       # a runaway line: keep its tail as one line
                self.buf = self.buf[-MAX_PENDING:]
            return []
        parts = self.buf.split("\n")
        self.buf = parts.pop()
        return [p.rstrip("\r") for p in parts]


def write_line(text):
    """One protocol line to the host."""
    sys.stdout.write(text)
    sys.stdout.write("\n")
    try:
        sys.stdout.flush()
    except AttributeError:
        pass
