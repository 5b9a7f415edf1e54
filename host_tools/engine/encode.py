"""Inputs of the evaluator: a position seen from the side to move, as numbers for the network.

A *view* is two rows of 26 counts, each in its own side's pips (index 0 borne off, 1..24 the
points from the side's last point to its first, 25 the bar): first the side to move, then the
other side. Per side the network sees 24 points x 4 truncated-unary units (>= 1, >= 2, >= 3,
(n - 3) / 4: TD-Gammon's raw code, the 4th scaled for the 15-checker heads of long nardy and
jacquet), the bar / 2, the borne off / 15, the pip count / 375, and three counts that
Tesauro's later networks added by hand: the side's blots that an opposing checker still has to
pass / 5, its longest run of held points / 6, and its held points in the home quarter / 6 (a
point is held by 2 checkers where a single one can be hit, by 1 in long nardy): 102 numbers per
side, then one for the whole position: 1 when the two sides can no longer meet (a race).

>>> import numpy as np
>>> from firmware.rules.variants import get_rules
>>> rules = get_rules("backgammon")
>>> x = features(start_view(rules)[None], Geometry(rules))
>>> x.shape, float(x[0, 4 * 5]), float(x[0, 4 * 5 + 3])  # own 6-point: 5 checkers
((1, 205), 1.0, 0.5)
>>> [round(float(v), 3) for v in x[0, 99:102]], float(x[0, -1])  # no blots, runs of 1, 1 home point
([0.0, 0.167, 0.167], 0.0)
"""

import numpy as np

PER_SIDE = 102
INPUTS = 2 * PER_SIDE + 1
_PIPS = np.arange(26, dtype=np.float32)
_PIPS[0] = 0.0


def side_features(c):
    """The 99 raw inputs of one side for rows ``c`` (N x 26 counts in that side's own pips)."""
    n = c.shape[0]
    pts = c[:, 1:25].astype(np.float32)
    out = np.empty((n, 99), dtype=np.float32)
    u = out[:, :96].reshape(n, 24, 4)
    u[:, :, 0] = pts >= 1
    u[:, :, 1] = pts >= 2
    u[:, :, 2] = pts >= 3
    u[:, :, 3] = np.maximum(pts - 3.0, 0.0) * 0.25
    out[:, 96] = c[:, 25] * 0.5
    out[:, 97] = c[:, 0] * (1.0 / 15.0)
    out[:, 98] = (c.astype(np.float32) @ _PIPS) * (1.0 / 375.0)
    return out


class Geometry:
    """Where each side's pips lie for the other side: what the hand-made inputs need."""

    def __init__(self, rules):
        self.need = 2 if rules.block == 2 else 1
        self.hitting = rules.block == 2
        x = np.frombuffer(rules.xlat, dtype=np.uint8).astype(np.intp)
        self.xlat = x                      # the other side's own pip on each of my pips
        self.opposite = bool(x[1] == 24)


def _hand_made(c, o, geo):
    """Blots to pass / 5, longest run / 6, home points / 6 of side ``c`` against ``o``."""
    n = c.shape[0]
    out = np.zeros((n, 3), dtype=np.float32)
    held = c[:, 1:25] >= geo.need
    total = np.cumsum(held, axis=1)
    # the run ending at j: held points up to j less those up to the last gap before it
    run = total - np.maximum.accumulate(np.where(held, 0, total), axis=1)
    out[:, 1] = run.max(axis=1) * (1.0 / 6.0)
    out[:, 2] = held[:, :6].sum(axis=1) * (1.0 / 6.0)
    if geo.hitting:
        on_mine = o[:, geo.xlat[1:25]] > 0          # opposing checkers on my pips 1..24
        below = np.cumsum(on_mine, axis=1) - on_mine
        behind = (below > 0) | (o[:, 25:26] > 0)
        out[:, 0] = ((c[:, 1:25] == 1) & behind).sum(axis=1) * 0.2
    return out


def _race(a, b, geo):
    """1 where no checker of either side can meet one of the other (opposite geometry: each
    side's rearmost checker has passed the other's); long nardy is never called a race."""
    if not geo.opposite:
        return np.zeros(a.shape[0], dtype=np.float32)
    pips = np.arange(26)
    fa = np.where(a[:, 1:] > 0, pips[1:], 0).max(axis=1)
    fb = np.where(b[:, 1:] > 0, pips[1:], 0).max(axis=1)
    return (fa + fb <= 25).astype(np.float32)


def features(views, geo):
    """Network inputs for views (N x 2 x 26) of a variant (``Geometry``): the side to move's
    102, the other side's 102, the race flag."""
    a, b = views[:, 0], views[:, 1]
    return np.concatenate([side_features(a), _hand_made(a, b, geo), side_features(b),
                           _hand_made(b, a, geo), _race(a, b, geo)[:, None]], axis=1)


def position_view(pos, side):
    """The view of ``pos`` (a rules-core Position) from ``side``: its own counts, then the other's."""
    b = np.frombuffer(bytes(pos.board), dtype=np.uint8).reshape(2, 26)
    return b[[side, 1 - side]].copy()


def start_view(rules):
    """The view of the variant's start position from the side to move."""
    return position_view(rules.start_position(), 0)
