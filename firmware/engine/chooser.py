"""The board's 0-ply choice: every legal play of a Turn scored by the 8-bit network, in slices.

``Engine(rules)`` reads the variant's network (only when made: a game against the board
starts). ``Engine.start(turn, again)`` prepares a Turn (its plays packed, the position before
the roll encoded once); ``step(n)`` scores the next n plays (make, evaluate from the pre-roll
sums, unmake: nothing allocated per play) and says whether all are done, so the main loop can
scan sensors between slices; ``choose(turn, again, cap_ms, between)`` runs it to the end or to
the time cap and answers the best packed play so far (``steps`` unpacks it).
"""

from array import array

from firmware.engine import net8
from firmware.engine.net8 import P_AGAIN

import sys

if sys.implementation.name == "micropython":
    try:
        from firmware.engine.kernel import evaluate  # type: ignore[attr-defined]
    except (ImportError, SyntaxError, NameError, AttributeError):   # a port without viper
        from firmware.engine.arith import evaluate
else:                                                               # CPython: the twin
    from firmware.engine.arith import evaluate

try:
    from time import ticks_ms
except ImportError:
    from time import monotonic as _mono  # type: ignore[attr-defined]

    def ticks_ms():
        return int(_mono() * 1000) & 0x3FFFFFFF

from firmware.drivers.ticks import ticks_diff


class Engine:
    """One variant's network with the buffers one evaluation needs (made once)."""

    def __init__(self, rules, path=None):
        self.rules = rules
        self.net_path = path
        self.net = n = net8.load(rules, path)
        self.r = bytearray(52)
        self.x = array("i", [0] * n.inputs)
        self.xb = array("i", [0] * n.inputs)
        self.zero = array("i", [0] * n.inputs)
        self.acc = array("i", [0] * n.hidden)
        self.accb = array("i", [0] * n.hidden)
        self.out = array("i", [0] * n.outputs)
        self.turn = None
        self.plays = None

    def _eval(self, mine, opp, xb, accb):
        n = self.net
        return evaluate(mine, opp, n.xlat, self.r, self.x, xb, accb, self.acc, self.out,
                        n.w1, n.w2, n.b2, n.table, n.p)

    def position_equity(self, turn, again):
        """The next mover's equity (Q15) of the Turn's rows as they stand (a whole evaluation)."""
        self.net.p[P_AGAIN] = 1 if again else 0
        return self._eval(turn.mine, turn.opp, self.zero, self.net.b1)

    def start(self, turn, again=False, every=False):
        """Prepare ``turn`` (fresh: no step played); ``again``: the mover moves next too;
        ``every``: score a lone play too (a forced play is otherwise answered unscored)."""
        self.turn = turn
        self.again = again
        self.plays = turn.plays_packed(array("I"))
        self.i = 0
        self.best = self.plays[0] if len(self.plays) else None
        self.best_v = None
        if len(self.plays) > (0 if every else 1):
            self.position_equity(turn, again)     # into x, acc: swapped, they are the base
            self.x, self.xb = self.xb, self.x
            self.acc, self.accb = self.accb, self.acc
        else:
            self.i = len(self.plays)

    def step(self, n=8):
        """Score up to n more plays; True when every play is scored."""
        t = self.turn
        plays = self.plays
        end = self.i + n
        if end > len(plays):
            end = len(plays)
        mine, opp = t.mine, t.opp
        make, unmake = t._make, t._unmake
        hi, lo, double = t.hi, t.lo, t.double
        again = self.again
        xb, accb = self.xb, self.accb
        for i in range(self.i, end):
            p = plays[i]
            k = p & 7
            d = lo if p & 8 else hi
            for m in range(k):
                make((p >> (4 + 5 * m)) & 31, d)
                if not double:
                    d = hi if d == lo else lo
            if mine[0] == 15:
                v = self.rules.score(t.position(), t.side) << 15
            else:
                v = self._eval(mine, opp, xb, accb)
                if not again:
                    v = -v
            for m in range(k):
                unmake()
            if self.best_v is None or v > self.best_v:
                self.best, self.best_v = p, v
        self.i = end
        return end >= len(plays)

    def choose(self, turn, again=False, cap_ms=None, between=None, slice_=8):
        """The best packed play of ``turn`` (None when no die plays), scored until done or
        ``cap_ms`` passed (then the best so far); ``between()`` runs between slices."""
        t0 = ticks_ms()
        self.start(turn, again)
        while not self.step(slice_):
            if between is not None:
                between()
            if cap_ms is not None and ticks_diff(ticks_ms(), t0) >= cap_ms:
                break
        return self.best

    def doublet(self, pos, first_turn=False):
        """Matador: the doublet (1..6) to name after a 4-3, the one whose best play (or, with
        none, the position as it stands) the network likes best for the mover; ties: the lowest."""
        from firmware.rules.movegen import Turn
        best, best_v = 6, None
        for v in range(1, 7):
            t = Turn(self.rules, pos, (v, v), first_turn)
            self.start(t, True, True)
            while not self.step(16):
                pass
            s = self.best_v if self.best_v is not None else self.position_equity(t, True)
            if best_v is None or s > best_v:
                best, best_v = v, s
        return best

    def steps(self, p):
        """[(src, die), ...] of packed play p of the Turn being chosen for."""
        return self.turn.unpack(p) if p is not None else []
