"""Position: where every checker stands, counted in each side's own pips, and whose turn it is.

A position is plain data: ``board`` is a bytearray of 52 counts, ``board[side * 26 + pip]``,
where pip 24 is the first point of that side's path, 1 the last, 0 holds the checkers borne off
and 25 the checkers on the bar. ``turn`` is the side to move (0 = White, 1 = Black). Which
physical triangle a pip is depends on the variant (see ``variants.Rules.xlat``), so the position
itself needs no geometry and swapping the side to move costs nothing.

Two text forms round-trip:
* readable: ``white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move``
  (``bar:N`` and ``off:N`` may appear among the points);
* compact (``encode``): 52 hex digits, one per count, then the side to move: ``0`` or ``1``.
"""

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

OFF = 0
BAR = 25
SIDE = 26
CHECKERS = 15
WHITE = 0
BLACK = 1
_SIDE_NAMES = const(("white", "black"))
PIP_OF_BIT = {}          # the pip p of the one-bit mask 1 << p (the move generator's pip masks)
for _p in range(SIDE):
    PIP_OF_BIT[1 << _p] = _p
_HEX = const("0123456789abcdef")


class PositionError(ValueError):
    """A position text or array that does not describe a valid position."""


class Position:
    """Checker counts for both sides in their own pips, and the side to move."""

    def __init__(self, board=None, turn=WHITE):
        if board is None:
            self.board = bytearray(2 * SIDE)
        else:
            if len(board) != 2 * SIDE:
                raise PositionError("a board has 52 counts, got %d" % len(board))
            self.board = bytearray(board)
        if turn not in (WHITE, BLACK):
            raise PositionError("turn must be 0 (white) or 1 (black)")
        self.turn = turn

    # -- plain access -------------------------------------------------------------------
    def count(self, side, pip):
        return self.board[side * SIDE + pip]

    def off(self, side):
        return self.board[side * SIDE + OFF]

    def bar(self, side):
        return self.board[side * SIDE + BAR]

    def copy(self):
        return Position(self.board, self.turn)

    def swapped(self):
        """The same position with the other side to move."""
        return Position(self.board, 1 - self.turn)

    def key(self):
        """A hashable, exact identity of the position (bytes)."""
        return bytes(self.board) + bytes((self.turn,))

    def __eq__(self, other):
        return isinstance(other, Position) and self.turn == other.turn and self.board == other.board

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.key())

    def pip_count(self, side):
        """Pips the side still has to travel (bar counts 25)."""
        b = self.board
        base = side * SIDE
        total = 0
        for pip in range(1, SIDE):
            total += pip * b[base + pip]
        return total

    # -- text forms ---------------------------------------------------------------------
    def __str__(self):
        parts = []
        for side in (WHITE, BLACK):
            words = [_SIDE_NAMES[side]]
            base = side * SIDE
            if self.board[base + BAR]:
                words.append("bar:%d" % self.board[base + BAR])
            for pip in range(24, 0, -1):
                if self.board[base + pip]:
                    words.append("%d:%d" % (pip, self.board[base + pip]))
            if self.board[base + OFF]:
                words.append("off:%d" % self.board[base + OFF])
            parts.append(" ".join(words))
        parts.append("%s to move" % _SIDE_NAMES[self.turn])
        return "; ".join(parts)

    def __repr__(self):
        return "Position(%r)" % str(self)

    @classmethod
    def parse(cls, text):
        """Read the readable form; raises PositionError saying what is wrong."""
        pos = cls()
        seen = [False, False]
        turn = None
        for clause in text.split(";"):
            words = clause.split()
            if not words:
                continue
            head = words[0].lower()
            if len(words) >= 3 and words[1].lower() == "to" and words[2].lower() == "move":
                if head not in _SIDE_NAMES:
                    raise PositionError("unknown side %r before 'to move'" % words[0])
                turn = _SIDE_NAMES.index(head)
                continue
            if head not in _SIDE_NAMES:
                raise PositionError("a clause must start with white or black, got %r" % words[0])
            side = _SIDE_NAMES.index(head)
            if seen[side]:
                raise PositionError("%s is described twice" % head)
            seen[side] = True
            base = side * SIDE
            for word in words[1:]:
                where, sep, num = word.partition(":")
                if not sep:
                    raise PositionError("expected point:count, got %r" % word)
                if where == "bar":
                    pip = BAR
                elif where == "off":
                    pip = OFF
                else:
                    pip = _int(where, "point")
                    if not 1 <= pip <= 24:
                        raise PositionError("point %d is outside 1..24" % pip)
                n = _int(num, "count")
                if not 0 <= n <= CHECKERS:
                    raise PositionError("count %d on %s is outside 0..15" % (n, where))
                if pos.board[base + pip]:
                    raise PositionError("%s %s is given twice" % (head, where))
                pos.board[base + pip] = n
        if turn is None:
            raise PositionError("missing '<side> to move'")
        if not (seen[0] and seen[1]):
            raise PositionError("both white and black must be described")
        pos.turn = turn
        for side in (WHITE, BLACK):
            _fill_off(pos, side)
        return pos

    def encode(self):
        """Compact form: 52 hex digits and the side to move."""
        out = bytearray(len(self.board) + 1)    # (one small block: a list grown by appends
        for i in range(len(self.board)):          # asks a fragmented heap for a kilobyte)
            out[i] = ord(_HEX[self.board[i]])
        out[-1] = ord(_HEX[self.turn])
        return out.decode()

    @classmethod
    def decode(cls, text):
        text = text.strip().lower()
        if len(text) != 2 * SIDE + 1:
            raise PositionError("a compact position has 53 hex digits, got %d" % len(text))
        board = bytearray(2 * SIDE)
        for i in range(2 * SIDE):
            ch = text[i]
            if ch not in _HEX:
                raise PositionError("%r is not a hex digit" % ch)
            board[i] = _HEX.index(ch)
        if text[-1] not in "01":
            raise PositionError("the side to move must be 0 or 1")
        return cls(board, int(text[-1]))


def _int(word, what):
    try:
        return int(word)
    except ValueError:
        raise PositionError("%s %r is not a number" % (what, word))


def _fill_off(pos, side):
    """Checkers not placed anywhere are borne off, when 'off' was not given explicitly."""
    base = side * SIDE
    total = 0
    for pip in range(1, SIDE):
        total += pos.board[base + pip]
    if pos.board[base + OFF] == 0 and total <= CHECKERS:
        pos.board[base + OFF] = CHECKERS - total
