"""The host link's line reader never raises and keeps lines bounded; run by pytest and, as a
script, by the real MicroPython (`micropython tests/test_hostlink.py`, repo root on MICROPYPATH),
which prints "ok N"."""

import sys

if sys.implementation.name != "micropython":
    sys.path.insert(0, __file__.rsplit("/", 2)[0])

from firmware.board.hostlink import LINE_CAP, LineReader  # noqa: E402
from firmware.board.protocol import MAX_LINE  # noqa: E402

LONG = b"roll 1 2 " + b"x" * 500

# (input bytes, the lines the reader hands on)
ROWS = [
    (b"status\n", ["status"]),
    (b"status\r\n", ["status"]),                      # one final carriage return comes off
    (b"status\r\r\n", ["status\r"]),                  # only one
    (b"a\nb\n\nc", ["a", "b", ""]),                   # c waits for its newline
    (b"sta\x00tus\x01\x1b[A\n", ["status[A"]),        # control bytes dropped
    (b"sta\x7ftus\n", ["status"]),                    # DEL too
    (b"roll\t1\t2\n", ["roll\t1\t2"]),                # tab kept (whitespace for split)
    (b"\xff\xfe\n", ["??"]),                          # invalid UTF-8: one ? a byte
    (b"\xc3(\n", ["?("]),
    (b"caf\xc3\xa9\n", ["caf??"]),                    # valid UTF-8 too: commands are ASCII
    (b"\xed\xa0\x80\n", ["???"]),                     # a surrogate's encoding
    (b"x" * MAX_LINE + b"\n", ["x" * MAX_LINE]),      # the longest line a command may be
    (b"x" * MAX_LINE + b"\r\n", ["x" * MAX_LINE]),
    (b"x" * (MAX_LINE + 1) + b"\n", ["x" * (MAX_LINE + 1)]),
    (LONG + b"\nstatus\n", [LONG[:LINE_CAP].decode(), "status"]),  # overlong: its head, then on
    (LONG + b"\r\nstatus\n", [LONG[:LINE_CAP].decode(), "status"]),
    (b"\x00" * 1000 + b"status\n", ["status"]),       # dropped bytes do not count
]


def test_rows_in_one_chunk():
    for data, want in ROWS:
        got = LineReader().feed(data)
        assert got == want, (data[:40], got, want)


def test_rows_byte_by_byte():
    for data, want in ROWS:
        r = LineReader()
        got = []
        for i in range(len(data)):
            got += r.feed(data[i:i + 1])
        assert got == want, (data[:40], got, want)


def test_overlong_line_is_handed_on_longer_than_any_command():
    # the protocol refuses a line longer than MAX_LINE with one err: the head of an overlong
    # line must never come out short enough to pass as a (truncated) command
    assert LINE_CAP > MAX_LINE
    for tail in (b"\xff" * 300, b"\xc3\xa9" * 300, b"y" * 10000, b"\r" * 300):
        (line,) = LineReader().feed(b"status " + tail + b"\n")
        assert len(line) > MAX_LINE


def test_a_megabyte_without_newline_keeps_the_buffer_and_the_next_line_is_read():
    r = LineReader()
    chunk = bytes(range(11, 256)) * 40
    for _ in range(100):
        assert r.feed(chunk) == []
        assert len(r.buf) == LINE_CAP
    assert len(r.feed(b"\nhelp\n")) == 2
    assert r.feed(b"status\n") == ["status"]


def test_no_allocation_while_a_line_is_read():
    try:
        import micropython
    except ImportError:
        return                    # CPython: the bound is the buffer's fixed size (test above)
    r = LineReader()
    out = []
    take = r._take
    data = b"status roll \xff\x00\x7f" * 40
    micropython.heap_lock()
    try:
        for c in data:
            take(c, out)
    finally:
        micropython.heap_unlock()
    assert out == []


def test_lines_from_the_command_protocol_answer_once():
    # every line the reader hands on gets one ok or err from the protocol (blank ones none)
    from firmware.board import protocol

    class App:
        session = None
        sim = None

        def __init__(self):
            self.out = []

        def emit(self, kind, fields):
            self.out.append(kind)

    lines = LineReader().feed(b"help\n\xff\n" + LONG + b"\n\x00\n   \nhelp 1 2\n")
    app = App()
    for line in lines:
        protocol.handle(app, line)
    assert app.out == ["help", "ok", "err", "err", "help", "ok"]


def test_a_command_the_heap_cannot_hold_is_answered_and_the_board_goes_on():
    # a feature that runs out of heap is refused as such (the host may send it again), a bug as
    # an internal error; neither stops the protocol
    from firmware.board import protocol

    class fails:                    # a feature module (a stand-in: sys.modules takes any object)
        def __init__(self, exc):
            self.exc = exc

        def run(self, app, words, fail, need):
            raise self.exc

    class App:
        session = None
        sim = None
        features = {"oom": "nardy_test_oom", "bug": "nardy_test_bug"}

        def __init__(self):
            self.out = []

        def emit(self, kind, fields):
            self.out.append((kind, fields.get("msg")))

    sys.modules["nardy_test_oom"] = fails(MemoryError("memory allocation failed"))
    sys.modules["nardy_test_bug"] = fails(KeyError("x"))
    try:
        app = App()
        for line in ("oom 1", "bug", "help"):
            protocol.handle(app, line)
    finally:
        del sys.modules["nardy_test_oom"], sys.modules["nardy_test_bug"]
    assert app.out[0] == ("err", "out of memory: send it again")
    assert app.out[1][0] == "err" and app.out[1][1].startswith("internal error: KeyError(")
    assert app.out[2:] == [("help", None), ("ok", None)]



def test_a_command_that_runs_out_of_heap_after_it_acted_says_so():
    # "send it again" only when nothing changed: a command that journaled a line or began a new
    # game before the heap ran out (``new`` switching games, say) would act twice if sent again
    from firmware.board import protocol

    class Journal:
        serial = 4
        count = 17

    class acts_then_fails:
        def run(self, app, words, fail, need):
            if words[1] == "new":
                app.session.journal.serial += 1
                app.session.journal.count = 1
            elif words[1] == "line":
                app.session.journal.count += 1
            raise MemoryError("memory allocation failed")

    class Session:
        journal = Journal()

    class App:
        session = Session()
        sim = None
        features = {"oomafter": "nardy_test_oom_after"}

        def __init__(self):
            self.out = []

        def emit(self, kind, fields):
            self.out.append((kind, fields.get("msg")))

    sys.modules["nardy_test_oom_after"] = acts_then_fails()
    try:
        app = App()
        for line in ("oomafter none", "oomafter new", "oomafter line"):
            protocol.handle(app, line)
    finally:
        del sys.modules["nardy_test_oom_after"]
    assert app.out[0] == ("err", "out of memory: send it again")
    assert app.out[1] == ("err", "out of memory after it took effect (game 5, line 1): read the "
                                 "status before sending it again")
    assert app.out[2][1].startswith("out of memory after it took effect (game 5, line 2)")


def _main():
    names = sorted(k for k in globals() if k.startswith("test_"))
    for name in names:
        globals()[name]()
    print("ok", len(names))


if __name__ == "__main__":
    _main()
