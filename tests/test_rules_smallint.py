"""The move generator never makes an int the RP2040 must keep on the heap (its small ints have
31 bits): every operation of settling a roll, the step queries, counting, enumerating and checking
plays stays within -2**30 .. 2**30 - 1, for every variant, option and roll. Before the fix a 6-6
shifted the open points up by 6, past bit 29, at every search node (878 heap ints for one count
of the worst 6-6 position)."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from firmware.rules import get_rules
from host_tools.bench import smallint_audit
from host_tools.bench.bench_rules import WORST, worst_position
from test_rules_properties import OPTIONS, VARIANTS, random_position

MG = smallint_audit.load_movegen()


def workload(rules, pos, dice, first_turn=False):
    t = MG.Turn(rules, pos, dice, first_turn)
    for src in range(1, 26):
        t.targets(src)
    t.count_plays()
    finals = list(t.finals())[:5]
    for final in finals:
        t.check(final)
    return t


@pytest.mark.parametrize("name,dice,points", [(w[0], w[1], w[2]) for w in WORST])
def test_worst_positions_make_no_heap_int(name, dice, points):
    rules = get_rules("backgammon")
    ops, big = smallint_audit.count(lambda: workload(rules, worst_position(points), dice))
    assert ops > 1000 and big == 0, (name, big)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from(VARIANTS + [v for v, _ in OPTIONS]),
       st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_every_variant_makes_no_heap_int(seed, variant, d1, d2, first_turn):
    rng = random.Random(seed)
    options = {}
    for v, o in OPTIONS:
        if v == variant and rng.random() < 0.5:
            options = o
    rules = get_rules(variant, **options)
    pos = random_position(rules, rng)
    _, big = smallint_audit.count(lambda: workload(rules, pos, (d1, d2), first_turn))
    assert big == 0


def test_the_audit_sees_a_heap_int():
    # the counter itself: a mask shifted past bit 29 is counted, as is every use of it
    ops, big = smallint_audit.count(lambda: smallint_audit._bin(int.__and__, 3,
                                                                smallint_audit._bin(int.__lshift__,
                                                                                    1 << 24, 6)))
    assert (ops, big) == (2, 2)
