"""The evaluator network: inputs -> sigmoid hidden layer -> sigmoid outcome probabilities.

Plain numpy, float32. ``forward`` scores a batch of inputs; ``learn`` takes one gradient step
of the cross-entropy between the outputs and targets summed over the rows; ``learn_each`` takes
one step per row, in order, which is what the TD trainer does with a game's lambda-returns
(TD-Gammon's per-position update: a game's positions are alike, so one step of their summed
gradient moves each output about as far as a step per position times the game's length, and
the rate that keeps it stable falls as games get longer). The weights are saved as ``.npz``
beside a JSON provenance record (see ``weights.py``).
"""

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))


class Net:
    """One hidden layer of ``hidden`` units; ``outputs`` sigmoid outputs."""

    def __init__(self, inputs, hidden, outputs, seed=0):
        rng = np.random.default_rng(seed)
        self.w1 = (rng.standard_normal((inputs, hidden)) * (1.0 / np.sqrt(inputs))).astype(np.float32)
        self.b1 = np.zeros(hidden, dtype=np.float32)
        self.w2 = (rng.standard_normal((hidden, outputs)) * (1.0 / np.sqrt(hidden))).astype(np.float32)
        self.b2 = np.zeros(outputs, dtype=np.float32)

    @property
    def shape(self):
        return (self.w1.shape[0], self.w1.shape[1], self.w2.shape[1])

    def forward(self, x):
        """Outputs for inputs ``x`` (N x inputs)."""
        h = _sigmoid(x @ self.w1 + self.b1)
        return _sigmoid(h @ self.w2 + self.b2)

    def learn(self, x, target, rate):
        """One step of gradient descent on the summed cross-entropy of the rows of ``x``."""
        h = _sigmoid(x @ self.w1 + self.b1)
        o = _sigmoid(h @ self.w2 + self.b2)
        d2 = (o - target).astype(np.float32)
        d1 = (d2 @ self.w2.T) * h * (1.0 - h)
        self.w2 -= rate * (h.T @ d2)
        self.b2 -= rate * d2.sum(axis=0)
        self.w1 -= rate * (x.T @ d1)
        self.b1 -= rate * d1.sum(axis=0)
        return o

    def learn_each(self, x, target, rate):
        """One gradient step of the cross-entropy per row of ``x``, in order, each row seeing
        the weights its predecessors left (the step of a zero input's weights is zero, so only
        the rows of ``w1`` of a row's nonzero inputs are touched)."""
        w1, b1, w2, b2 = self.w1, self.b1, self.w2, self.b2
        for xi, ti in zip(np.asarray(x, dtype=np.float32), np.asarray(target)):
            nz = np.flatnonzero(xi)
            xs = xi[nz]
            h = _sigmoid(xs @ w1[nz] + b1)
            o = _sigmoid(h @ w2 + b2)
            d2 = (o - ti).astype(np.float32)
            d1 = (w2 @ d2) * h * (1.0 - h)
            w2 -= rate * np.outer(h, d2)
            b2 -= rate * d2
            w1[nz] -= rate * np.outer(xs, d1)
            b1 -= rate * d1

    def arrays(self):
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    @classmethod
    def from_arrays(cls, a):
        net = cls.__new__(cls)
        for k in ("w1", "b1", "w2", "b2"):
            setattr(net, k, np.array(a[k], dtype=np.float32))
        return net

    def copy(self):
        return Net.from_arrays(self.arrays())
