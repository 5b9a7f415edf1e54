"""A simple hand-written opponent for every variant: the baseline the network must beat by far.

It scores each play's result for the mover from a few counts (frozen, not trained): the race
(pip counts), checkers borne off, points held (a point needs 2 checkers to block in the hitting
variants, 1 in long nardy), the longest run of held points, home points, the mover's blots
an opposing checker still has to pass (hitting variants) and opposing checkers on the bar.
"""

import numpy as np

from host_tools.engine.candidates import Candidates

_PIPS = np.arange(26, dtype=np.float64)
# weights: race, borne off, points held, longest run, home points, exposed blots, opp on bar, head
W = (1.0, 2.0, 1.5, 2.0, 1.0, -4.0, 5.0, -1.5)


def _longest_run(held):
    """Longest run of consecutive True along axis 1 (N x 24)."""
    run = np.zeros(held.shape[0])
    best = np.zeros(held.shape[0])
    for j in range(held.shape[1]):
        run = np.where(held[:, j], run + 1, 0)
        best = np.maximum(best, run)
    return best


def scores(rules, mover, other):
    """Heuristic value for the mover of each row (N x 26 counts, own pips each)."""
    m = mover.astype(np.float64)
    o = other.astype(np.float64)
    race = (o @ _PIPS - m @ _PIPS) / 10.0
    need = 2 if rules.block == 2 else 1
    held = m[:, 1:25] >= need
    pts = held.sum(axis=1)
    home = held[:, :6].sum(axis=1)
    run = _longest_run(held)
    blots = np.zeros(m.shape[0])
    if rules.block == 2:
        x = np.frombuffer(rules.xlat, dtype=np.uint8).astype(np.intp)
        opp_on = o[:, x]                       # opposing checkers on the mover's pips
        # the opponent moves up the mover's pips: it still has to pass a blot on q when it has
        # a checker on a lower mover pip, or on its bar
        occ = opp_on[:, 1:25] > 0
        below = np.cumsum(occ, axis=1) - occ
        behind = (below > 0) | (o[:, 25:26] > 0)
        blots = ((m[:, 1:25] == 1) & behind).sum(axis=1)
    head = m[:, 24] if rules.head_rule else 0.0
    return (W[0] * race + W[1] * m[:, 0] + W[2] * pts + W[3] * run + W[4] * home
            + W[5] * blots + W[6] * o[:, 25] + W[7] * head)


class HeuristicPlayer:
    """Plays the legal play with the highest heuristic score; doublets: the largest."""

    def __init__(self, rules):
        self.rules = rules

    def play(self, game):
        c = Candidates(game.turn)
        if c.n <= 1:
            return c.steps(0) if c.n else []
        s = np.where(c.won, 1e9, scores(self.rules, c.mover, c.other))
        return c.steps(int(np.argmax(s)))

    def doublet(self, game):
        return 6
