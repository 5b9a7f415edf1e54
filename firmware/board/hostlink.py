"""Host-link I/O without blocking: bounded command lines from stdin (USB serial), lines out.

Bytes, not text, are read, so no input can raise: printable ASCII, tab and carriage return are
kept (a line's final carriage return is taken off), every other byte below 0x20 and DEL is
dropped, and a byte of 0x80 or more (any UTF-8 sequence, valid or not) becomes one ``?``. One
kept byte is one character, so a line is never longer in characters than in bytes. A line keeps
at most ``protocol.MAX_LINE + 1`` characters in a preallocated buffer; the rest of an overlong
line is dropped up to its newline, and the kept prefix is handed on as the line, which the
protocol refuses with one ``err`` (``line longer than ...``). The next line is read normally.
"""

import sys

from firmware.board.protocol import MAX_LINE

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

LINE_CAP = MAX_LINE + 1     # characters kept of a line: one more than any command may have
_READ_BUDGET = const(512)           # bytes taken per call at most, so a flood cannot starve the scan
_NL = const(10)
_TAB = const(9)
_CR = const(13)
_QUERY = const(63)                # "?": what a byte of 0x80 or more becomes


class LineReader:
    """``lines()`` returns the command lines that arrived since the last call (never blocks,
    never raises on any bytes); ``eof`` turns True when the input is closed (a host process
    went away). ``feed(data)`` runs the same line assembly on given bytes (tests, fuzzers)."""

    def __init__(self):
        self.buf = bytearray(LINE_CAP)
        self.n = 0              # characters kept of the line being read
        self.over = False       # the line being read overflowed: its tail is being dropped
        self.eof = False
        self.stream = None
        self.micropython = sys.implementation.name == "micropython"
        if self.micropython:
            import select
            self.stream = getattr(sys.stdin, "buffer", None)
            self.poller = select.poll()
            self.poller.register(sys.stdin, select.POLLIN)

    def _take(self, c, out):
        """One byte of input; a finished line goes onto ``out``."""
        if c == _NL:
            n = self.n
            if n and self.buf[n - 1] == _CR and not self.over:
                n -= 1
            out.append(self.buf[:n].decode())
            self.n = 0
            self.over = False
            return
        if c < 32 and c != _TAB and c != _CR or c == 127:
            return
        if c >= 128:
            c = _QUERY
        if self.n < LINE_CAP:
            self.buf[self.n] = c
            self.n += 1
        else:
            self.over = True

    def feed(self, data):
        """Assemble lines from ``data`` (bytes); returns the lines it completed."""
        out = []
        take = self._take
        for c in data:
            take(c, out)
        return out

    def lines(self):
        """The lines completed since the last call: under MicroPython at most one (and at most
        _READ_BUDGET bytes read), so the scan loop runs between commands."""
        if self.micropython:
            return self._lines_micropython()
        import os
        import select
        out = []
        got = 0
        while got < _READ_BUDGET * 8:
            r, _, _ = select.select([0], [], [], 0)
            if not r:
                break
            data = os.read(0, 4096)
            if not data:
                self.eof = True
                break
            got += len(data)
            for c in data:
                self._take(c, out)
        return out

    def _lines_micropython(self):
        out = []
        poll = self.poller.poll
        take = self._take
        if self.stream is None:             # a port without sys.stdin.buffer: text, guarded
            return self._lines_text(out)
        read = self.stream.read
        for _ in range(_READ_BUDGET):
            if not poll(0):
                break
            b = read(1)
            if not b:
                self.eof = True
                break
            take(b[0], out)
            if out:                         # one command per call: the scan runs between
                break
        return out

    def _lines_text(self, out):
        for _ in range(_READ_BUDGET):
            if not self.poller.poll(0):
                break
            try:
                ch = sys.stdin.read(1)
            except ValueError:              # UnicodeError: an invalid UTF-8 sequence
                self._take(_QUERY, out)
                continue
            if not ch:
                self.eof = True
                break
            for c in ch.encode():
                self._take(c, out)
        return out


def write_line(text):
    """One protocol line to the host."""
    sys.stdout.write(text)
    sys.stdout.write("\n")
    try:
        sys.stdout.flush()
    except AttributeError:
        pass
