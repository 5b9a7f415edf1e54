"""What an evaluator predicts: the outcome classes of a variant's scoring, and their equity.

The classes come from the rules core's own scoring (``Rules.results``, e.g. backgammon's
(1, 2, 3): single game, gammon, backgammon), so there is one home for points. For results
``(r1, r2, ..., rn)`` the outputs, all seen from the side to move, are::

    P(win), P(win >= r2), ..., P(win >= rn), P(lose >= r2), ..., P(lose >= rn)

and the cubeless equity is ``2 P(win) - 1 + sum_k (r_k - r_(k-1)) (P(win >= r_k) - P(lose >= r_k))``.

>>> from firmware.rules.variants import get_rules
>>> o = Outcomes(get_rules("backgammon"))
>>> o.names
['win', 'win>=2', 'win>=3', 'lose>=2', 'lose>=3']
>>> float(o.equity([1, 1, 0, 0, 0])), o.terminal(3, True).tolist(), o.terminal(2, False).tolist()
(2.0, [1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0])
"""

import numpy as np


class Outcomes:
    """The output layout and equity of one variant's scoring (``rules.results``)."""

    def __init__(self, rules):
        self.results = tuple(int(r) for r in rules.results)
        levels = self.results[1:]
        self.k = len(levels)
        self.n = 1 + 2 * self.k
        self.names = (["win"] + ["win>=%d" % r for r in levels] + ["lose>=%d" % r for r in levels])
        steps = [self.results[i] - self.results[i - 1] for i in range(1, len(self.results))]
        w = np.zeros(self.n, dtype=np.float64)
        w[0] = 2.0
        for i, s in enumerate(steps):
            w[1 + i] = s
            w[1 + self.k + i] = -s
        self.weights = w
        # flip: the same outputs seen from the other side
        self.flip_index = np.array([0] + list(range(1 + self.k, self.n)) + list(range(1, 1 + self.k)))

    def consistent(self, o):
        """``o`` with each class no likelier than the one before it (a network's independent
        outputs can say P(gammon) > P(win); counting that would be counting nonsense)."""
        o = np.array(o, dtype=np.float64)
        k = self.k
        if k:
            win = np.concatenate([o[..., :1], o[..., 1:1 + k]], axis=-1)
            lose = np.concatenate([1.0 - o[..., :1], o[..., 1 + k:]], axis=-1)
            o[..., 1:1 + k] = np.minimum.accumulate(win, axis=-1)[..., 1:]
            o[..., 1 + k:] = np.minimum.accumulate(lose, axis=-1)[..., 1:]
        return o

    def equity(self, o):
        """Cubeless equity of outputs ``o`` (one vector, or a batch in rows), each class
        capped by the one before it (``consistent``)."""
        return self.consistent(o) @ self.weights - 1.0

    def flip(self, o):
        """Outputs seen from the other side (a vector or rows)."""
        o = np.array(o, dtype=np.float64)
        f = o[..., self.flip_index]
        f[..., 0] = 1.0 - o[..., 0]
        return f

    def terminal(self, points, won):
        """The exact outputs of a finished game worth ``points`` (before the cube)."""
        t = np.zeros(self.n)
        base = 1 if won else 1 + self.k
        if won:
            t[0] = 1.0
        for i, r in enumerate(self.results[1:]):
            if points >= r:
                t[base + i] = 1.0
        return t
