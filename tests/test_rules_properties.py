"""Property tests of the rules core against an independent naive enumerator, for every variant:
the same legal results, checker conservation, single-colour points, every play using the most
dice, every offered step completing to a legal play, and check() agreeing with the play list."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from rulesutil import Position, Turn, get_rules
from reference_rules import legal_results

VARIANTS = ["backgammon", "short", "long", "persian", "jacquet", "matador"]
OPTIONS = [("long", {"head_exception": "fixed_doubles"}), ("long", {"head_exception": "doubles_principle"}),
           ("long", {"block_check": "every_step"}),
           ("persian", {"hit_lift_priority": "lock_first"})]


def random_position(rules, rng):
    """A valid position with checkers spread so that every rule gets exercised."""
    pos = Position(None, rng.randint(0, 1))
    x = rules.xlat
    style = rng.random()
    for side in (0, 1):
        base = side * 26
        left = 15
        while left:
            r = rng.random()
            if r < 0.05 and rules.block == 2:
                pip = 25
            elif r < 0.15:
                pip = 0
            elif style < 0.3:
                pip = rng.randint(1, 6)                 # bear-off races
            elif style < 0.45 and rules.name == "long":
                pip = 24                                  # heads
            else:
                pip = rng.randint(1, 24)
            if 1 <= pip <= 24:
                mine_q = pip if side == 0 else x[pip]      # as seen from side 0
                other = pos.board[26 + x[mine_q]] if side == 0 else pos.board[mine_q]
                if other:
                    continue
            n = rng.randint(1, min(left, 4))
            pos.board[base + pip] += n
            left -= n
    rules.validate(pos)
    return pos


def mover_arrays(rules, pos):
    me = pos.turn * 26
    op = (1 - pos.turn) * 26
    mine = tuple(pos.board[me + q] for q in range(26))
    opp = [0] * 26
    for q in range(1, 25):
        opp[q] = pos.board[op + rules.xlat[q]]
    opp[25] = pos.board[op + 25]
    opp[0] = pos.board[op]
    return mine, tuple(opp)


def play_results(turn):
    out = set()
    for play in turn.plays():
        t = Turn(turn.rules, turn.start, (turn.hi, turn.lo), turn.first_turn)
        for s, _d, die, _h in play:
            t.push(s, die)                      # every step of a legal play is offered
        assert t.complete()
        final = t.position()
        turn.rules.validate(final)              # conservation and single-colour points
        assert len(play) == turn.max_steps
        out.add(mover_arrays(turn.rules, final))
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from(VARIANTS + [v for v, _ in OPTIONS]),
       st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_agrees_with_the_naive_reference(seed, variant, d1, d2, first_turn):
    _agrees(seed, variant, d1, d2, first_turn)


@pytest.mark.soak
@settings(max_examples=1000, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from(VARIANTS + [v for v, _ in OPTIONS]),
       st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_agrees_with_the_naive_reference_soak(seed, variant, d1, d2, first_turn):
    _agrees(seed, variant, d1, d2, first_turn)


def _agrees(seed, variant, d1, d2, first_turn):
    rng = random.Random(seed)
    options = {}
    for v, o in OPTIONS:
        if v == variant and rng.random() < 0.5:
            options = o
    rules = get_rules(variant, **options)
    pos = random_position(rules, rng)
    if variant == "long" and first_turn:
        pos.board[pos.turn * 26 + 24] = 0
        pos.board[pos.turn * 26 + 24] = 15 - sum(pos.board[pos.turn * 26:pos.turn * 26 + 26])
        if pos.board[pos.turn * 26 + 24] < 10:
            first_turn = False
        try:
            rules.validate(pos)
        except ValueError:
            return
    turn = Turn(rules, pos, (d1, d2), first_turn)
    ours = play_results(turn)
    mine, opp = mover_arrays(rules, pos)
    ref = legal_results(variant, options, mine, opp, (d1, d2), first_turn)
    assert ours == ref
    if not ours:
        assert turn.max_steps == 0 and turn.check(pos)[0]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from(VARIANTS), st.integers(1, 6), st.integers(1, 6))
def test_random_walks_through_offered_steps_always_complete(seed, variant, d1, d2):
    rng = random.Random(seed)
    rules = get_rules(variant)
    pos = random_position(rules, rng)
    turn = Turn(rules, pos, (d1, d2))
    finals = set(mover_arrays(rules, Turn(rules, pos, (d1, d2)).position()) for _ in [0])
    finals = play_results(Turn(rules, pos, (d1, d2)))
    while not turn.complete():
        sources = turn.sources()
        assert sources, "no step offered, yet the play is not complete"
        src = rng.choice(sources)
        dst, die = rng.choice(turn.targets(src))
        turn.push(src, die)
        if rng.random() < 0.2:                   # take a step back now and then
            turn.pop()
    if turn.max_steps:
        assert mover_arrays(rules, turn.position()) in finals
    ok, _steps = Turn(rules, pos, (d1, d2)).check(turn.position())
    assert ok


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from(VARIANTS), st.integers(1, 6), st.integers(1, 6))
def test_check_accepts_exactly_the_legal_results(seed, variant, d1, d2):
    rng = random.Random(seed)
    rules = get_rules(variant)
    pos = random_position(rules, rng)
    turn = Turn(rules, pos, (d1, d2))
    legal = play_results(turn)
    # candidates: every position one or two single-checker moves away, legal or not
    me = pos.turn * 26
    for _ in range(30):
        cand = pos.copy()
        for _k in range(rng.randint(1, 2)):
            src = [q for q in range(1, 26) if cand.board[me + q]]
            if not src:
                break
            s = rng.choice(src)
            t = max(0, s - rng.randint(1, 12))
            cand.board[me + s] -= 1
            cand.board[me + t] += 1
        try:
            rules.validate(cand)
        except ValueError:
            continue
        ok, why = turn.check(cand)
        is_legal = mover_arrays(rules, cand) in legal or (not legal and cand == pos)
        assert ok == is_legal, why
        if not ok:
            assert isinstance(why, str) and why


@pytest.mark.parametrize("variant,options", [(v, {}) for v in VARIANTS] + OPTIONS)
def test_plays_go_into_any_container_alike(variant, options):
    # plays_packed(out) appends to what it is given: an array("I") holds the same plays, in
    # the same order, as the default list
    from array import array
    rng = random.Random(variant + repr(sorted(options.items())))
    rules = get_rules(variant, **options)
    for _ in range(60):
        pos = random_position(rules, rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = Turn(rules, pos, dice).plays_packed()
        into = Turn(rules, pos, dice).plays_packed(array("I"))
        assert list(into) == plays
        assert all(p < 2 ** 24 for p in plays)
