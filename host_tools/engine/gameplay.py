"""One game between two players on the rules core's ``Game``, with dice from a seeded stream.

A player answers ``play(game)`` with the steps [(src, die), ...] of one of the rolled Turn's
legal plays, and ``doublet(game)`` with the doublet it names after a matador 4-3. The rules
core referees: a step that is not offered raises, so a player can never make an illegal play.
"""

import random

from firmware.rules.game import Game, OPENING, ROLL, MOVE, DOUBLET, OVER, MATADOR, CHOSEN

MAX_PLIES = 5000          # no game of any variant comes near; a guard against a looping player


class Dice:
    """A seeded stream of die throws; two games given the same seed see the same throws."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def die(self):
        return self.rng.randint(1, 6)


def mover_moves_again(game):
    """After the play now in progress, does the same side move next (matador sequence)?"""
    return game.kind in (MATADOR, CHOSEN)


class Result:
    """How a game ended: ``winner`` (0 White, 1 Black), ``points`` (before the cube), ``plies``."""

    def __init__(self, winner, points, plies):
        self.winner = winner
        self.points = points
        self.plies = plies

    def for_side(self, side):
        """Points won (+) or lost (-) by ``side``."""
        return self.points if side == self.winner else -self.points


def play_game(rules, players, dice, observer=None):
    """Play one game: ``players[0]`` is White, ``players[1]`` Black. ``observer(game, steps)`` is
    called after each play is chosen, before it is committed. Returns a Result."""
    game = Game(rules, cube=False)
    plies = 0
    while game.phase == OPENING:
        if rules.opening == "parity":
            game.opening_parity(0, True, dice.die())
        else:
            game.opening_roll(dice.die(), dice.die())
    while game.phase != OVER:
        if plies > MAX_PLIES:
            raise RuntimeError("game did not end in %d plies" % MAX_PLIES)
        if game.phase == ROLL:
            game.roll(dice.die(), dice.die())
        elif game.phase == DOUBLET:
            game.choose_doublet(players[game.side].doublet(game))
        elif game.phase == MOVE:
            steps = players[game.side].play(game)
            if observer is not None:
                observer(game, steps)
            turn = game.turn
            for s, d in steps:
                turn.push(s, d)
            ok, why = game.commit()
            if not ok:
                raise RuntimeError("the play %r was refused: %s" % (steps, why))
            plies += 1
        else:
            raise RuntimeError("unexpected phase %r" % game.phase)
    return Result(game.winner, game.points, plies)
