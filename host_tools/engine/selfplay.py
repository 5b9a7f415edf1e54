"""Self-play for TD(lambda): one game of the network against itself, returning what it learns from.

Each state is the position before a roll, seen from its side to move. The value of a state is
the network's output for the position the mover's chosen play leads to (seen from the next
mover, flipped back when that is the other side); the last state's value is the game's real
outcome. ``lambda_returns`` turns one game into targets for ``Net.learn`` (the forward view of
TD(lambda), applied offline at the end of each game).
"""

import numpy as np

from firmware.rules.game import Game, OPENING, ROLL, MOVE, DOUBLET, OVER
from host_tools.engine.candidates import Candidates
from host_tools.engine.encode import features, position_view
from host_tools.engine.gameplay import MAX_PLIES, mover_moves_again
from host_tools.engine.players import NetPlayer


class Trace:
    """A game's states: inputs ``x``, outputs ``o`` (from each state's side to move), ``flip``
    (the next state's side to move is the other side) and the final exact outcome ``z``."""

    def __init__(self):
        self.x = []
        self.o = []
        self.flip = []
        self.z = None


def self_play(net, rules, dice, explore=0.0, rng=None):
    """One self-play game; returns (Trace, Result-like (winner, points, plies)).
    ``explore``: the chance of a random legal play instead of the best (not learned from)."""
    player = NetPlayer(net, rules)
    out = player.out
    game = Game(rules, cube=False)
    while game.phase == OPENING:
        if rules.opening == "parity":
            game.opening_parity(0, True, dice.die())
        else:
            game.opening_roll(dice.die(), dice.die())
    tr = Trace()
    side = game.side
    v0 = position_view(game.pos, side)[None]
    x0 = features(v0, player.geo)
    tr.x.append(x0[0])
    tr.o.append(net.forward(x0)[0])
    plies = 0
    while game.phase != OVER:
        if plies > MAX_PLIES:
            raise RuntimeError("self-play game did not end in %d plies" % MAX_PLIES)
        if game.phase == ROLL:
            game.roll(dice.die(), dice.die())
            continue
        if game.phase == DOUBLET:
            game.choose_doublet(player.doublet(game))
            continue
        assert game.phase == MOVE
        mover = game.side
        again = mover_moves_again(game)
        c = Candidates(game.turn)
        if c.n == 0:
            steps = []
            nxt = mover if again else 1 - mover
            xv = features(position_view(game.pos, nxt)[None], player.geo)
            x_next, o_next = xv[0], net.forward(xv)[0]
            won = False
        else:
            v, x, o = player.values(c, again)
            i = int(np.argmax(v))
            if explore and rng is not None and rng.random() < explore:
                i = int(rng.integers(c.n))
            steps = c.steps(i)
            won = bool(c.won[i])
            x_next, o_next = x[i], o[i]
        turn = game.turn
        for s, d in steps:
            turn.push_offered(s, d)
        ok, why = game.commit()
        if not ok:
            raise RuntimeError("self-play play refused: %s" % why)
        plies += 1
        if won:
            tr.z = out.terminal(game.points, True)
            break
        tr.flip.append(game.side != mover)
        tr.x.append(x_next)
        tr.o.append(o_next)
    return tr, (game.winner, game.points, plies)


def lambda_returns(tr, out, lam):
    """Targets G_t for every state of ``tr``: G_last = z; G_t = (1 - lam) V_(t+1) + lam G_(t+1),
    each seen from state t's side to move."""
    n = len(tr.x)
    g = np.empty((n, out.n))
    g[n - 1] = tr.z
    for t in range(n - 2, -1, -1):
        nxt = (1.0 - lam) * tr.o[t + 1] + lam * g[t + 1]
        g[t] = out.flip(nxt) if tr.flip[t] else nxt
    return g
