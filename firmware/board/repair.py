"""Repairs of a stored line that a worn flash damaged, proved by the line's own seal.

Loaded by ``restore.parse_piece`` only when a piece of a journal does not hold as it stands: two
lines glued by a damaged newline are split where a seal ends, and a line with one flipped bit is
flipped back when that makes its seal hold. Nothing is taken that its seal does not prove.
"""

from firmware.board.identity import MAC_HEX, equal


def lines(piece, parts, check, split_line):
    """(the good lines (text, seal) ``piece`` begins with once repaired, the rest of the piece
    still to read or None); ``parts`` is its (text, seal) as it stands (None when it does not
    split), ``check(text)`` a text's seal, ``split_line`` restore's (a piece's text and seal)."""
    run = 0                     # two lines glued by a damaged newline? where a seal may end:
    for i in range(len(piece) - MAC_HEX - 1):          # after MAC_HEX hex digits
        b = piece[i]
        run = run + 1 if 48 <= b <= 57 or 97 <= b <= 102 else 0
        if run >= MAC_HEX:
            a = split_line(piece[:i + 1])
            if a is not None and equal(check(a[0]), a[1]):
                rest = piece[i + 2:]
                return [a], (rest if split_line(rest) is not None else None)
    if parts is not None and len(parts[0]) < 400:
        # one bit flipped back, if that makes the seal hold (a worn flash cell)
        raw = bytearray(parts[0].encode())
        for i in range(len(raw)):
            orig = raw[i]
            for bit in range(8):
                raw[i] = orig ^ (1 << bit)
                try:
                    cand = bytes(raw).decode()
                except UnicodeError:
                    continue
                if equal(check(cand), parts[1]):
                    return [(cand, parts[1])], None
            raw[i] = orig
    return [], None
