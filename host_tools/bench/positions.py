"""Random backgammon test positions by kind (opening, middle game, bar, closed board, bear-off, blocked).

A generated case is ``(kind, own, opp, dice)``: ``own`` and ``opp`` are lists of 26 counts in
each side's own pips (0 = borne off, 1..24 = points, 25 = the bar), the mover being ``own``;
the mover's pip p is the opponent's pip 25 - p. Every case holds 15 checkers a side, never two
colours on one point, and at least one checker of each side still in play.

The kinds aim at the places a move generator goes wrong: the opening (and lightly developed
positions), a spread middle game, checkers on the bar against a partly closed home board,
closed boards and primes, the bear-off (with opposing blots to hit in the home board), and
"blocked" positions where often only one die, or only part of a double, can be played.
"""

import random

KINDS = ("opening", "middle", "bar", "closed", "bearoff", "blocked")
START = {24: 2, 13: 5, 8: 3, 6: 5}


def _empty():
    return [0] * 26


def _free(own, opp, pip):
    """May the mover put a checker on its pip (no opposing checker there)?"""
    return opp[25 - pip] == 0


def _place(rng, own, opp, n, pips, stack=5):
    """Put n of the mover's checkers on the given pips (not on opposing points); rest go off."""
    pips = [p for p in pips if _free(own, opp, p)]
    for _ in range(n):
        if not pips:
            own[0] += 1
            continue
        p = rng.choice(pips)
        own[p] += 1
        if own[p] >= stack and len(pips) > 1:
            pips.remove(p)


def _finish(own, opp):
    """Top up the borne-off counts to 15 a side."""
    for side in (own, opp):
        side[0] = 15 - sum(side[1:])
        assert side[0] >= 0
    return own, opp


def _flip(own, opp):
    return opp, own


def _make_points(rng, opp, own, opp_pips, count):
    """The opponent makes `count` points (2-3 checkers) among opp_pips, where the mover is absent."""
    pips = [p for p in opp_pips if own[25 - p] == 0]
    rng.shuffle(pips)
    made = 0
    chosen = pips[:count]
    for i, p in enumerate(chosen):
        n = rng.choice((2, 2, 3))
        if made + n + 2 * (len(chosen) - i - 1) > 15:
            n = 2
        opp[p] += n
        made += n
    return made


def opening(rng):
    """The starting position, or it with a few checkers of either side moved ahead (some hit)."""
    own = _empty()
    opp = _empty()
    for p, n in START.items():
        own[p] = n
        opp[p] = n
    for side, other in ((own, opp), (opp, own)):
        for _ in range(rng.choice((0, 0, 1, 2, 3))):
            srcs = [p for p in range(1, 25) if side[p]]
            src = rng.choice(srcs)
            dst = src - rng.randint(1, 11)
            if dst < 1 or other[25 - dst] >= 2:
                continue
            side[src] -= 1
            if other[25 - dst] == 1:
                other[25 - dst] = 0
                other[25] += 1
            side[dst] += 1
    return own, opp


def middle(rng):
    """Both sides spread anywhere; sometimes a checker on a bar, sometimes a few borne off."""
    own = _empty()
    opp = _empty()
    own[25] = rng.choice((0, 0, 0, 1))
    opp[25] = rng.choice((0, 0, 0, 1, 2))
    n_own = 15 - own[25] - rng.choice((0, 0, 0, 2))
    n_opp = 15 - opp[25] - rng.choice((0, 0, 0, 3))
    # the opponent first, on points it makes or leaves as blots
    pips = list(range(1, 25))
    _place(rng, opp, own, n_opp, rng.sample(pips, rng.randint(4, 10)), stack=6)
    _place(rng, own, opp, n_own, rng.sample(pips, rng.randint(4, 11)), stack=6)
    return _finish(own, opp)


def bar(rng):
    """The mover has 1-4 checkers on the bar; the opponent's home board is partly closed."""
    own = _empty()
    opp = _empty()
    own[25] = rng.randint(1, 4)
    used = _make_points(rng, opp, own, range(1, 7), rng.randint(0, 5))
    # opposing blots in its home board can be hit on entry
    for p in range(1, 7):
        if opp[p] == 0 and rng.random() < 0.3:
            opp[p] = 1
            used += 1
    _place(rng, opp, own, max(0, 15 - used - rng.randint(0, 2)), range(7, 25), stack=5)
    _place(rng, own, opp, 15 - own[25] - rng.randint(0, 3), range(1, 25), stack=5)
    return _finish(own, opp)


def closed(rng):
    """A closed or nearly closed board, or a prime, in front of the mover's back checkers."""
    own = _empty()
    opp = _empty()
    if rng.random() < 0.5:
        # the opponent's home board: 5 or 6 points made
        used = _make_points(rng, opp, own, range(1, 7), rng.choice((5, 6, 6)))
        own[25] = rng.randint(0, 2)
        back = rng.randint(0 if own[25] else 1, 3)
        _place(rng, own, opp, back, range(19, 25), stack=2)
    else:
        # a 5- or 6-point prime somewhere in the opponent's outer/home boards
        length = rng.choice((5, 6))
        top = rng.randint(length, 12)
        used = 0
        for i, p in enumerate(range(top - length + 1, top + 1)):
            n = 3 if rng.random() < 0.3 else 2
            if used + n + 2 * (length - i - 1) > 15:
                n = 2
            opp[p] = n
            used += n
        back = rng.randint(1, 3)
        behind = [25 - q for q in range(1, top - length + 1)] + [25 - q for q in range(top + 1, min(top + 4, 25))]
        _place(rng, own, opp, back, [p for p in behind if 1 <= p <= 24], stack=2)
    _place(rng, opp, own, max(0, 15 - used), range(7, 25), stack=6)
    rest = 15 - sum(own[1:])
    _place(rng, own, opp, rest - rng.randint(0, 2), range(1, 13), stack=6)
    return _finish(own, opp)


def bearoff(rng):
    """Every checker of the mover in its home board (some borne off); opposing checkers may sit there."""
    own = _empty()
    opp = _empty()
    # opposing checkers left in the mover's home (the opponent's pips 19-24), some as blots
    for q in range(19, 25):
        r = rng.random()
        if r < 0.15:
            opp[q] = 1
        elif r < 0.25:
            opp[q] = 2
    n_opp = 15 - sum(opp)
    _place(rng, opp, own, n_opp - rng.randint(0, 8), range(1, 19), stack=6)
    n_own = rng.randint(1, 15)
    _place(rng, own, opp, n_own, range(1, 7), stack=rng.choice((3, 5, 8)))
    return _finish(own, opp)


def blocked(rng):
    """Most of the mover's checkers dead on its low points, a few behind a wall: often one die only."""
    own = _empty()
    opp = _empty()
    own[1] = rng.randint(6, 11)
    own[2] = rng.randint(0, 3)
    # a wall of opposing points somewhere in front of a few back checkers
    wall = rng.sample(range(3, 19), rng.randint(3, 7))
    used = 0
    for q in wall:
        opp[q] = 2
        used += 2
    if own[25] == 0 and rng.random() < 0.3:
        own[25] = 1
    back_pips = [p for p in range(7, 25) if opp[25 - p] == 0]
    _place(rng, own, opp, min(rng.randint(1, 3), 15 - sum(own)), back_pips, stack=2)
    _place(rng, opp, own, max(0, 15 - used - rng.randint(0, 3)), range(19, 25), stack=8)
    return _finish(own, opp)


GENERATORS = {
    "opening": opening,
    "middle": middle,
    "bar": bar,
    "closed": closed,
    "bearoff": bearoff,
    "blocked": blocked,
}


def check(own, opp):
    """Raise AssertionError unless the pair is a valid backgammon position with both sides in play."""
    assert len(own) == 26 and len(opp) == 26
    assert sum(own) == 15 and sum(opp) == 15, (own, opp)
    assert min(own) >= 0 and min(opp) >= 0
    for p in range(1, 25):
        assert not (own[p] and opp[25 - p]), ("both colours on pip", p)
    assert own[0] < 15 and opp[0] < 15


def generate(n, seed=1, kinds=KINDS):
    """n cases (kind, own, opp, dice), cycling through the kinds; reproducible from the seed."""
    rng = random.Random(seed)
    out = []
    i = 0
    while len(out) < n:
        kind = kinds[i % len(kinds)]
        i += 1
        own, opp = GENERATORS[kind](rng)
        if own[0] == 15 or opp[0] == 15:
            continue
        check(own, opp)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        out.append((kind, own, opp, dice))
    return out


def start_cases():
    """The starting position with each of the 21 rolls."""
    own = _empty()
    for p, n in START.items():
        own[p] = n
    return [("opening", list(own), list(own), (a, b)) for a in range(1, 7) for b in range(a, 7)]


def to_board(own, opp, side=0):
    """The rules core's 52-count board with the mover as ``side``."""
    board = bytearray(52)
    other = 1 - side
    for p in range(26):
        board[side * 26 + p] = own[p]
        board[other * 26 + p] = opp[p]
    return board


def gnubg_board(own, opp):
    """gnubg's board pair (opponent, mover): 25 counts each, points 1..24 then the bar."""
    return (tuple(opp[1:26]), tuple(own[1:26]))
