"""Legal-move service over JSON lines (the `legal` command's engine, on CPython or MicroPython).

One request per line::

    {"variant": "backgammon", "points": [24 ints], "bar": [m, o], "off": [m, o],
     "dice": [a, b], "first_turn": false, "options": {...}}

``points[i]`` counts the checkers on the mover's point i+1 (point 24 is the first of the
mover's path, 1 the last): positive for the mover, negative for the opponent. The opponent's
own point j is the mover's 25 - j when the two sides go opposite ways (short nardy,
backgammon, takhteh, jacquet) and ((j + 11) mod 24) + 1 when they go the same way (long nardy);
the variant's geometry decides. ``first_turn`` and ``options`` (the variant's named options)
are optional; ``bar`` and ``off`` default to [0, 0].

One answer per line, in the same order: ``{"legal": [{"points", "bar", "off", "move"}, ...]}``
with every distinct position a legal play leads to, still seen from the mover's side, and the
play in standard notation (``[]`` when no die can be played); or ``{"error": "..."}`` for a
line that cannot be answered, after which the next line is read. The answer is written play by
play, so a roll with thousands of plays fits in a Pico's heap. Input is read as bytes, a line
at most MAX_LINE long: a longer line, or one that is not UTF-8, gets its error answer too.
"""

import gc
import json
import sys

from firmware.rules import get_rules, Position, Turn
from firmware.rules.notation import format_steps

SIDE = 26
MAX_LINE = 4096          # bytes of one request line (a request is a few hundred)
_SMALL_HEAP = sys.implementation.name == "micropython"


class RequestError(ValueError):
    """A request line that cannot be answered."""


def _int(v):
    return type(v) is int


def _pair(req, name):
    v = req.get(name, [0, 0])
    if not isinstance(v, list) or len(v) != 2 or not _int(v[0]) or not _int(v[1]):
        raise RequestError("%s must be [mover, opponent] counts" % name)
    if v[0] < 0 or v[1] < 0:
        raise RequestError("%s counts cannot be negative" % name)
    return v


def read_request(req, cache):
    """Turn a decoded request into (rules, Position with the mover as White, dice, first_turn)."""
    if not isinstance(req, dict):
        raise RequestError("a request is a JSON object")
    variant = req.get("variant")
    if not isinstance(variant, str):
        raise RequestError("missing variant")
    options = req.get("options") or {}
    if not isinstance(options, dict):
        raise RequestError("options must be an object")
    key = variant + json.dumps(options)
    rules = cache.get(key)
    if rules is None:
        try:
            rules = get_rules(variant, **options)
        except ValueError as exc:
            raise RequestError(str(exc))
        cache[key] = rules
    points = req.get("points")
    if not isinstance(points, list) or len(points) != 24:
        raise RequestError("points must be a list of 24 counts")
    bar = _pair(req, "bar")
    off = _pair(req, "off")
    dice = req.get("dice")
    if not isinstance(dice, list) or len(dice) != 2:
        raise RequestError("dice must be [a, b]")
    for d in dice:
        if not _int(d) or not 1 <= d <= 6:
            raise RequestError("dice must be two numbers 1..6, got %s" % json.dumps(dice))
    first = req.get("first_turn", False)
    if first is not True and first is not False:
        raise RequestError("first_turn must be true or false")
    board = bytearray(2 * SIDE)
    x = rules.xlat
    totals = [bar[0] + off[0], bar[1] + off[1]]
    for i in range(24):
        v = points[i]
        if isinstance(v, list):
            # [mover, opponent] on one point: allowed only when one of them is 0
            if len(v) != 2 or not _int(v[0]) or not _int(v[1]) or v[0] < 0 or v[1] < 0:
                raise RequestError("point %d must be a count" % (i + 1))
            if v[0] and v[1]:
                raise RequestError("point %d holds checkers of both colours" % (i + 1))
            v = v[0] - v[1]
        if not _int(v):
            raise RequestError("point %d must be a whole number, got %s" % (i + 1, json.dumps(v)))
        if v > 0:
            totals[0] += v
        elif v < 0:
            totals[1] -= v
    for side in (0, 1):
        if totals[side] != 15:
            raise RequestError("the %s has %d checkers (points + bar + off), not 15"
                               % (("mover", "opponent")[side], totals[side]))
    for i in range(24):
        v = points[i]
        if isinstance(v, list):
            v = v[0] - v[1]
        if v > 0:
            board[i + 1] = v
        elif v < 0:
            board[SIDE + x[i + 1]] = -v
    board[25] = bar[0]
    board[SIDE + 25] = bar[1]
    board[0] = off[0]
    board[SIDE] = off[1]
    pos = Position(board, 0)
    try:
        rules.validate(pos)
    except ValueError as exc:
        raise RequestError(str(exc))
    if off[0] == 15:
        raise RequestError("the mover has borne off every checker: the game is over")
    return rules, pos, (dice[0], dice[1]), first


def _play(rules, start, packed):
    """Apply a play given as [(src, die), ...] to the start position (the mover is White):
    returns (steps [(src, dst, die, hit)], board after it). A checker landing on a single
    opposing checker hits it in the hitting variants."""
    b = bytearray(start.board)
    x = rules.xlat
    hitting = rules.block == 2
    steps = []
    for s, d in packed:
        t = s - d if s > d else 0
        hit = 0
        b[s] -= 1
        b[t] += 1
        if t and hitting:
            j = SIDE + x[t]
            if b[j] == 1:
                hit = 1
                b[j] = 0
                b[SIDE + 25] += 1
        steps.append((s, t, d, hit))
    return steps, b


def _view(rules, b):
    """A board as the answer's points/bar/off, seen from the mover (White)."""
    x = rules.xlat
    pts = []
    for p in range(1, 25):
        n = b[p]
        pts.append(n if n else -b[SIDE + x[p]])
    return pts, [b[25], b[SIDE + 25]], [b[0], b[SIDE]]


def answer(req, cache, out):
    """Answer one decoded request on ``out``: one JSON line, written play by play."""
    rules, pos, dice, first = read_request(req, cache)
    if _SMALL_HEAP:
        gc.collect()            # a worst-case roll needs the heap in one piece
    turn = Turn(rules, pos, dice, first)
    packed = turn.plays_packed()
    out.write('{"legal": [')
    sep = ""
    for p in packed:
        steps, board = _play(rules, pos, turn.unpack(p))
        pts, bar, off = _view(rules, board)
        out.write('%s{"points": %s, "bar": %s, "off": %s, "move": %s}' % (
            sep, json.dumps(pts), json.dumps(bar), json.dumps(off), json.dumps(format_steps(steps))))
        sep = ", "
    out.write("]}\n")


class _Tracked:
    """Wraps the output to know whether an answer line was started."""

    def __init__(self, out):
        self.out = out
        self.open = False

    def write(self, text):
        self.open = not text.endswith("\n")
        self.out.write(text)


def _read_line(inp):
    """The next line of ``inp`` (bytes, or text for tests) as text, at most MAX_LINE long:
    None at the end; a RequestError for a line that is longer (read to its end, never kept)
    or not UTF-8, so the caller answers it and goes on with the next."""
    piece = inp.readline(MAX_LINE + 1)
    if not piece:
        return None
    text = isinstance(piece, str)
    nl = "\n" if text else b"\n"
    if len(piece) > MAX_LINE and piece[-1:] != nl:
        while piece and piece[-1:] != nl:
            piece = inp.readline(MAX_LINE + 1)
        return RequestError("a request line is at most %d bytes" % MAX_LINE)
    if text:
        return piece
    try:
        return piece.decode()
    except ValueError:                 # UnicodeError: invalid UTF-8
        return RequestError("a request line must be UTF-8 text")


def serve(inp, out):
    """Answer every line of ``inp`` (a binary stream; text works too) on ``out``; returns the
    number of error answers. Every line gets one answer, whatever its bytes: an overlong or
    undecodable line, or one that is not a request, an ``{"error": ...}``. A failure in the
    middle of an answer (say, out of memory) closes that line as
    ``{"legal": [...partial], "error": "..."}``."""
    cache = {}  # type: dict
    errors = 0
    flush = getattr(out, "flush", None)
    tracked = _Tracked(out)
    while True:
        line = _read_line(inp)
        if line is None:
            break
        if not isinstance(line, RequestError):
            line = line.strip()
            if not line:
                continue
        try:
            if isinstance(line, RequestError):
                raise line
            try:
                req = json.loads(line)
            except ValueError:
                raise RequestError("not a JSON object: %s" % line[:60])
            answer(req, cache, tracked)
        except Exception as exc:       # noqa: BLE001 - every bad line gets an answer
            errors += 1
            msg = str(exc) if isinstance(exc, RequestError) else "%s: %s" % (type(exc).__name__, exc)
            if tracked.open:
                out.write('], "error": %s}\n' % json.dumps(msg))
                tracked.open = False
            else:
                out.write(json.dumps({"error": msg}) + "\n")
        if flush:
            flush()
    return errors


def main():
    serve(getattr(sys.stdin, "buffer", sys.stdin), sys.stdout)


if __name__ == "__main__":
    main()
