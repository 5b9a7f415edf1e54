"""The rules core under the real MicroPython interpreter, in a Pico-sized heap: the same vectors
as on CPython (expected results from the independent naive enumerator and from rules.md §10).
(mpy-cross compiling all of firmware/ is tests/test_drivers_micropython.py's.)"""

import json
import os
import random

import pytest

from mphelp import ROOT, run
from reference_rules import legal_results
from rulesutil import Position, get_rules
from test_rules_properties import mover_arrays, random_position

pytestmark = pytest.mark.micropython

VARIANTS = [("backgammon", {}), ("short", {}), ("long", {}), ("long", {"head_exception": "fixed_doubles"}),
            ("persian", {}), ("persian", {"hit_lift_priority": "lock_first"}), ("jacquet", {}),
            ("matador", {})]


def _final_from_arrays(rules, turn, mine, opp):
    pos = Position(None, turn)
    me, op = turn * 26, (1 - turn) * 26
    for q in range(26):
        pos.board[me + q] = mine[q]
        pos.board[op + rules.xlat[q]] = opp[q]
    return pos.encode()


def test_vectors_match_the_reference_under_micropython():
    rng = random.Random(2024)
    cases, want = [], []
    for i in range(240):
        variant, options = VARIANTS[i % len(VARIANTS)]
        rules = get_rules(variant, **options)
        pos = random_position(rules, rng)
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        mine, opp = mover_arrays(rules, pos)
        ref = legal_results(variant, options, mine, opp, tuple(dice), False)
        cases.append(json.dumps({"variant": variant, "options": options, "pos": pos.encode(),
                                 "dice": dice, "first_turn": False}))
        want.append(sorted(_final_from_arrays(rules, pos.turn, m, o) for m, o in ref))
    out = run(os.path.join(ROOT, "tests", "mp", "rules_vectors.py"), "\n".join(cases) + "\n")
    got = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(got) == len(want)
    for case, g, w in zip(cases, got, want):
        assert sorted(g["finals"]) == w, case


def test_hand_computed_cases_under_micropython():
    """rules.md §10 tables (backgammon and long nardy first turns), as on CPython."""
    from test_rules_short import CASES, BG
    from test_rules_long import FIRST_TURN, HEADS
    from rulesutil import expected, pos_from
    cases, want = [], []
    for _name, mover, opp, dice, plays in CASES:
        pos = pos_from(BG, mover, opp)
        cases.append(json.dumps({"variant": "backgammon", "options": {}, "pos": pos.encode(),
                                 "dice": list(dice), "first_turn": False}))
        want.append(sorted(_compact(k) for k in expected(BG, pos, plays)))
    for _name, rules, opp, dice, plays in FIRST_TURN:
        pos = pos_from(rules, HEADS, opp)
        cases.append(json.dumps({"variant": "long", "options": rules.options, "pos": pos.encode(),
                                 "dice": list(dice), "first_turn": True}))
        want.append(sorted(_compact(k) for k in expected(rules, pos, plays)))
    out = run(os.path.join(ROOT, "tests", "mp", "rules_vectors.py"), "\n".join(cases) + "\n")
    got = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [sorted(g["finals"]) for g in got] == want


def _compact(key):
    """Position.key() bytes -> the compact text form."""
    return Position(key[:52], key[52]).encode()
