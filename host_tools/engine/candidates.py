"""The legal plays of a roll and the positions they lead to, as arrays ready for the evaluator.

The rules core enumerates (``Turn.plays_packed``); each play is made step by step on the Turn
itself (make, copy 52 counts, unmake), so no Position is built per candidate and nothing is
judged here. ``Candidates.views(next_is_mover)`` gives the views the network reads: from the
side that moves next (the opponent, or the mover again after a matador 4-3 or its doublet).
"""

import numpy as np

from firmware.rules import plays as _plays


class Candidates:
    """Every distinct legal play of ``turn`` (a fresh Turn: no step played yet).

    ``packed``: the plays as the rules core packs them; ``mover``/``other`` (N x 26): the
    mover's counts in its own pips and the other side's in the other's own pips, after each
    play; ``won`` (N bools): the play bears off the mover's last checker; ``points``: what
    each winning play scores (0 elsewhere)."""

    def __init__(self, turn):
        self.turn = turn
        packed = turn.plays_packed()
        self.packed = packed
        n = len(packed)
        self.n = n
        buf = bytearray(52 * n)
        won = []
        points = []
        mine = turn.mine
        opp = turn.opp
        rules = turn.rules
        stack = turn.stack
        make = turn._make
        unmake = turn._unmake
        unpack = _plays.unpack
        at = 0
        for p in packed:
            k = 0
            for s, d in unpack(turn, p):
                make(s, d)
                k += 1
            buf[at:at + 26] = mine
            buf[at + 26:at + 52] = opp
            if mine[0] == 15:
                won.append(len(points))
                points.append(rules.score(turn.position(), turn.side))
            else:
                points.append(0)
            while k:
                unmake()
                k -= 1
            at += 52
        assert not stack
        raw = np.frombuffer(bytes(buf), dtype=np.uint8).reshape(n, 2, 26)
        self.mover = raw[:, 0]
        # the other side's counts stand on the mover's pips: its own pip of mover pip q is xlat[q]
        x = np.frombuffer(rules.xlat, dtype=np.uint8).astype(np.intp)
        other = np.empty_like(raw[:, 1])
        other[:, x] = raw[:, 1]
        self.other = other
        self.won = np.zeros(n, dtype=bool)
        self.won[won] = True
        self.points = np.array(points, dtype=np.float64)

    def views(self, next_is_mover=False):
        """N x 2 x 26 views from the side that moves next."""
        if next_is_mover:
            return np.stack([self.mover, self.other], axis=1)
        return np.stack([self.other, self.mover], axis=1)

    def steps(self, i):
        """The i-th play as [(src, die), ...]."""
        return _plays.unpack(self.turn, self.packed[i])
