"""Helpers for rules tests: build positions from readable point lists, and sets of play results."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from firmware.rules import Position, Turn, get_rules  # noqa: E402, F401 (the tests import them from here)
from firmware.rules.notation import apply_move_text  # noqa: E402


def pos_from(rules, mover, opponent, turn=0):
    """A position from {pip: count} for the side to move and for the other side (its own pips;
    'bar' and 'off' allowed as keys). Checkers not listed are borne off."""
    p = Position(None, turn)
    for side, spec in ((turn, mover), (1 - turn, opponent)):
        base = side * 26
        for where, n in spec.items():
            pip = {"bar": 25, "off": 0}.get(where, where)
            p.board[base + pip] += n
        total = sum(p.board[base:base + 26])
        p.board[base] += 15 - total
    rules.validate(p)
    return p


def results(turn):
    """The set of final positions (keys) of every legal play of a Turn."""
    out = set()
    for play in turn.plays():
        t = Turn(turn.rules, turn.start, (turn.hi, turn.lo), turn.first_turn)
        for s, d, die, _hit in play:
            t.push(s, die)
        out.add(t.position().key())
    return out


def expected(rules, pos, texts):
    """The set of final positions of plays written in standard notation."""
    return set(apply_move_text(rules, pos, text).key() for text in texts)


def reachable(turn, src):
    """Every pip the checker on ``src`` can reach with the dice left, one die or several."""
    out = set()
    for dst, die in turn.targets(src):
        out.add(dst)
        if dst not in (0, 25):
            turn.push(src, die)
            out |= reachable(turn, dst)
            turn.pop()
    return out
