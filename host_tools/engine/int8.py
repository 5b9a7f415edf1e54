"""The board's 8-bit arithmetic on the host, batched with numpy: the same integers as
firmware/engine/arith.py, so the 8-bit network's strength is measured here (``Int8Player``).

``Net8Host(data)`` reads a .n8 (host_tools/engine/quantize.py); ``inputs(views, geo)`` are the
float features times 256, rounded (exact: no feature of encode.py lands on a half); ``forward``
gives the Q15 outputs.
"""

import struct

import numpy as np

from host_tools.engine.candidates import Candidates
from host_tools.engine.encode import Geometry, features, position_view
from host_tools.engine.gameplay import mover_moves_again
from host_tools.engine.outcomes import Outcomes
from host_tools.engine.players import _doublet_by
from host_tools.engine.quantize import HEADER, TABLE, quantize


class Net8Host:
    """A .n8 network's integer forward pass (int64 numpy; every value fits int32)."""

    def __init__(self, data):
        data = bytes(data)
        _v, o, h, s1, n, s2 = struct.unpack_from("<BBBbHb", data, 4)
        a = HEADER
        self.w1 = np.frombuffer(data, "<i1", n * h, a).astype(np.int64).reshape(n, h)
        a += n * h
        self.b1 = np.frombuffer(data, "<i4", h, a).astype(np.int64)
        a += 4 * h
        self.w2 = np.frombuffer(data, "<i1", h * o, a).astype(np.int64).reshape(h, o)
        a += h * o
        self.b2 = np.frombuffer(data, "<i4", o, a).astype(np.int64)
        a += 4 * o
        self.t = np.frombuffer(data, "<u2", TABLE, a).astype(np.int64)
        self.sh1, self.sh2 = s1 - 4, s2 + 3

    def _sig(self, z, sh):
        u = z >> sh if sh >= 0 else z << -sh
        a = np.abs(u)
        i = np.minimum(a >> 6, 511)
        t0 = self.t[i]
        v = np.where(a >> 6 >= 512, self.t[512], t0 + (((self.t[i + 1] - t0) * (a & 63)) >> 6))
        return np.where(u < 0, 32768 - v, v)

    def forward(self, xq):
        """Q15 outputs of Q8 inputs xq (N x inputs integers)."""
        z = xq.astype(np.int64) @ self.w1 + self.b1
        hq = self._sig(z, self.sh1)
        return self._sig(hq @ self.w2 + self.b2, self.sh2)


def inputs(views, geo):
    """The board's Q8 inputs of views (N x 2 x 26)."""
    return np.rint(features(views, geo).astype(np.float64) * 256.0).astype(np.int64)


def equity(o, ew):
    """Q15 equity of Q15 outputs o (rows), each class capped by the one before it
    (outcomes.Outcomes.consistent), as the board computes it."""
    o = np.array(o, dtype=np.int64, copy=True)
    k = (o.shape[-1] - 1) // 2
    if k:
        win = np.concatenate([o[..., :1], o[..., 1:1 + k]], axis=-1)
        lose = np.concatenate([32768 - o[..., :1], o[..., 1 + k:]], axis=-1)
        o[..., 1:1 + k] = np.minimum.accumulate(win, axis=-1)[..., 1:]
        o[..., 1 + k:] = np.minimum.accumulate(lose, axis=-1)[..., 1:]
    return o @ ew - 32768


def equity_weights(rules):
    """The integer weights of the Q15 outputs in the equity (Outcomes.weights)."""
    return np.rint(Outcomes(rules).weights).astype(np.int64)


class Int8Player:
    """NetPlayer's choice with the board's integers: ``Int8Player(net, rules)`` quantizes a
    float Net, or pass ``data`` (a .n8's bytes). Ties go to the first play, as on the board."""

    def __init__(self, net, rules, data=None):
        self.rules = rules
        self.net8 = Net8Host(data if data is not None else quantize(net))
        self.geo = Geometry(rules)
        self.ew = equity_weights(rules)

    def values(self, cands, again):
        """Q15 equities of each play for the mover (points << 15 for a winning play)."""
        o = self.net8.forward(inputs(cands.views(again), self.geo))
        eq = equity(o, self.ew)
        v = eq if again else -eq
        return np.where(cands.won, cands.points.astype(np.int64) << 15, v)

    def play(self, game):
        c = Candidates(game.turn)
        if c.n == 0:
            return []
        if c.n == 1:
            return c.steps(0)
        return c.steps(int(np.argmax(self.values(c, mover_moves_again(game)))))

    def doublet(self, game):
        def best(t):
            c = Candidates(t)
            if c.n == 0:
                x = inputs(position_view(game.pos, game.side)[None], self.geo)
                return int(equity(self.net8.forward(x), self.ew)[0])
            return int(self.values(c, True).max())
        return _doublet_by(game, best)
