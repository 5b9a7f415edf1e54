"""Players: the network at a level, and the baselines it is measured against (random, pubeval,
a per-variant heuristic). Each answers ``play(game)`` and ``doublet(game)`` (see gameplay)."""

import json
import os
import random

import numpy as np

from firmware.rules.movegen import Turn
from host_tools.engine.candidates import Candidates
from host_tools.engine.encode import Geometry, features, position_view
from host_tools.engine.gameplay import mover_moves_again
from host_tools.engine.outcomes import Outcomes

# gnubg's 0-ply levels are the net plus Gaussian noise on the equity (engine.md): ours likewise
LEVELS = {"beginner": 0.060, "casual": 0.050, "intermediate": 0.040, "advanced": 0.015,
          "expert": 0.0}


def _doublet_by(game, score_turn):
    """Matador: name the doublet whose best play scores highest by ``score_turn(turn)``."""
    best, best_v = 6, None
    for v in range(1, 7):
        t = Turn(game.rules, game.pos, (v, v), first_turn=game.played[game.side] == 0)
        s = score_turn(t)
        if best_v is None or s > best_v:
            best, best_v = v, s
    return best


class NetPlayer:
    """Chooses the play whose resulting position the network likes best for the mover.
    ``noise``: the standard deviation of Gaussian noise added to each play's equity (levels)."""

    def __init__(self, net, rules, noise=0.0, seed=0):
        self.net = net
        self.rules = rules
        self.out = Outcomes(rules)
        self.geo = Geometry(rules)
        self.noise = noise
        self.rng = np.random.default_rng(seed)

    def values(self, cands, again):
        """Each play's equity for the mover; with the inputs and outputs of the next mover's view."""
        x = features(cands.views(again), self.geo)
        o = self.net.forward(x)
        eq = self.out.equity(o)
        v = eq if again else -eq
        if cands.won.any():
            v = np.where(cands.won, cands.points, v)
        return v, x, o

    def ranked(self, game):
        """(candidates, equities) of the turn in progress, best first: for hints and analysis."""
        c = Candidates(game.turn)
        if c.n == 0:
            return c, np.zeros(0)
        v, _, _ = self.values(c, mover_moves_again(game))
        return c, v

    def play(self, game):
        c = Candidates(game.turn)
        if c.n == 0:
            return []
        if c.n == 1:
            return c.steps(0)
        v, _, _ = self.values(c, mover_moves_again(game))
        if self.noise:
            v = v + self.rng.normal(0.0, self.noise, size=v.shape)
        return c.steps(int(np.argmax(v)))

    def doublet(self, game):
        def best(t):
            c = Candidates(t)
            if c.n == 0:
                return float(self.out.equity(self.net.forward(features(position_view(game.pos, game.side)[None], self.geo)))[0])
            return float(self.values(c, True)[0].max())
        return _doublet_by(game, best)


class RandomPlayer:
    """A uniformly random legal play; a uniformly random doublet."""

    def __init__(self, seed=0):
        self.rng = random.Random(seed)

    def play(self, game):
        c = Candidates(game.turn)
        if c.n == 0:
            return []
        return c.steps(self.rng.randrange(c.n))

    def doublet(self, game):
        return self.rng.randint(1, 6)


def _load_pubeval():
    with open(os.path.join(os.path.dirname(__file__), "data", "pubeval.json")) as f:
        d = json.load(f)
    return np.array(d["contact"]), np.array(d["race"])


class PubevalPlayer:
    """Tesauro's public-domain linear evaluator (backgammon geometry), as the benchmark
    opponent; weights in data/pubeval.json with their source."""

    def __init__(self, rules):
        self.rules = rules
        self.wc, self.wr = _load_pubeval()

    @staticmethod
    def inputs(mover, other):
        """The 122 pubeval inputs after a play: ``mover`` (N x 26) in its own pips, the
        opponent's ``other`` (N x 26) in the opponent's own pips."""
        n = mover.shape[0]
        opp_on = other[:, 24:0:-1]                  # opponent's count on the mover's pips 1..24
        own = mover[:, 1:25].astype(np.float64)
        x = np.zeros((n, 122))
        blocks = x[:, :120].reshape(n, 24, 5)
        # block j (0..23) is the mover's location 24 - j
        o = own[:, ::-1]
        op = opp_on[:, ::-1].astype(np.float64)
        blocks[:, :, 0] = (op == 1)
        blocks[:, :, 1] = (o == 1)
        blocks[:, :, 2] = (o >= 2)
        blocks[:, :, 3] = (o == 3)
        blocks[:, :, 4] = np.maximum(o - 3.0, 0.0) * 0.5
        x[:, 120] = other[:, 25] * 0.5
        x[:, 121] = mover[:, 0] / 15.0
        return x

    @staticmethod
    def is_race(pos, side):
        """No contact: every checker of ``side`` is past every opposing checker."""
        b = pos.board
        mine = [p for p in range(1, 26) if b[side * 26 + p]]
        theirs = [p for p in range(1, 26) if b[(1 - side) * 26 + p]]
        if not mine or not theirs:
            return True
        return max(mine) + max(theirs) <= 25

    def play(self, game):
        c = Candidates(game.turn)
        if c.n <= 1:
            return c.steps(0) if c.n else []
        w = self.wr if self.is_race(game.pos, game.side) else self.wc
        s = self.inputs(c.mover, c.other) @ w
        s = np.where(c.won, 1e9, s)
        return c.steps(int(np.argmax(s)))

    def doublet(self, game):
        return 6


_ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)]


def after_position(game, cands, i):
    """The Position the i-th candidate leaves, the other side to move."""
    from firmware.rules.position import Position
    side = game.side
    b = bytearray(52)
    b[side * 26:side * 26 + 26] = bytes(cands.mover[i])
    b[(1 - side) * 26:(1 - side) * 26 + 26] = bytes(cands.other[i])
    return Position(b, 1 - side)


class SearchPlayer(NetPlayer):
    """1-ply: the ``keep`` best plays at 0-ply are scored again by averaging, over the 21
    rolls of the opponent, the value after its best 0-ply reply (the strongest host level and
    the analysis). The matador sequence and the cube are not looked ahead."""

    def __init__(self, net, rules, keep=4, seed=0):
        NetPlayer.__init__(self, net, rules, 0.0, seed)
        self.keep = keep

    def reply_value(self, pos, first):
        """The equity for the side that is *not* to move in ``pos``, averaged over the rolls
        of the side to move, each answered with its best 0-ply play."""
        total = 0.0
        for a, b, w in _ROLLS:
            t = Turn(self.rules, pos, (a, b), first_turn=first)
            c = Candidates(t)
            if c.n == 0:
                o = self.net.forward(features(position_view(pos, 1 - pos.turn)[None], self.geo))
                total += w * float(self.out.equity(o)[0])
                continue
            v, _, _ = self.values(c, False)
            total -= w * float(v.max())
        return total / 36.0

    def ranked(self, game):
        c, v = NetPlayer.ranked(self, game)
        if c.n <= 1 or mover_moves_again(game):
            return c, v
        order = np.argsort(-v, kind="stable")[:self.keep]
        first = game.played[1 - game.side] == 0
        v = v.copy()
        for i in order:
            if not c.won[i]:
                v[i] = self.reply_value(after_position(game, c, int(i)), first)
        # plays not searched keep their 0-ply value, below every searched one
        rest = np.ones(c.n, dtype=bool)
        rest[order] = False
        if rest.any():
            v[rest] = np.minimum(v[rest], v[order].min() - 1e-6)
        return c, v

    def play(self, game):
        c, v = self.ranked(game)
        if c.n == 0:
            return []
        return c.steps(int(np.argmax(v)))
