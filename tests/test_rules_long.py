"""Long nardy legality: rules.md §5 and the cases of §10.2 (pips of the mover; head = 24,
the opponent's head on the mover's pip 12; opponent given in its own pips)."""

import pytest

from rulesutil import Turn, expected, get_rules, pos_from, results

LONG = get_rules("long")
FIXED = get_rules("long", head_exception="fixed_doubles")
HEADS = {24: 15}

FIRST_TURN = [
    # id, rules, opponent after its first play (own pips), dice, expected plays
    ("L1 6-6 two off the head", LONG, HEADS, (6, 6), ["24/18(2)"]),
    ("L2 4-4", LONG, HEADS, (4, 4), ["24/16(2)"]),
    ("L3 3-3", LONG, HEADS, (3, 3), ["24/18(2)", "24/21 24/15"]),
    ("L4 5-5 no exception", LONG, HEADS, (5, 5), ["24/4"]),
    ("L5 after 5-5, 4-4 principle", LONG, {24: 14, 4: 1}, (4, 4), ["24/20(2)"]),
    ("L6 after 5-5, 6-2 principle", LONG, {24: 14, 4: 1}, (6, 2), ["24/18 24/22"]),
    ("L6 after 5-5, 6-2 fixed doubles", FIXED, {24: 14, 4: 1}, (6, 2), ["24/18"]),
    ("L7 after 2-1, 5-5 principle", LONG, {24: 14, 21: 1}, (5, 5), ["24/14(2)"]),
    ("L7 after 2-1, 5-5 fixed doubles", FIXED, {24: 14, 21: 1}, (5, 5), ["24/14"]),
    ("L8 after 5-3, 5-5 principle", LONG, {24: 14, 16: 1}, (5, 5), ["24/9 24/19", "24/14(2)"]),
    ("L8 after 5-3, 5-5 fixed doubles", FIXED, {24: 14, 16: 1}, (5, 5), ["24/9"]),
    ("first turn, ordinary roll: one checker", LONG, HEADS, (6, 5), ["24/13"]),
]


@pytest.mark.parametrize("name,rules,opp,dice,plays", FIRST_TURN, ids=[c[0] for c in FIRST_TURN])
def test_first_turn_head_rule(name, rules, opp, dice, plays):
    pos = pos_from(rules, HEADS, opp)
    assert results(Turn(rules, pos, dice, first_turn=True)) == expected(rules, pos, plays)


def test_head_exception_never_after_the_first_turn():
    pos = pos_from(LONG, HEADS, HEADS)
    turn = Turn(LONG, pos, (6, 6), first_turn=False)
    assert results(turn) == expected(LONG, pos, ["24/18"])


def test_L9_midgame_double_only_one_checker_leaves_the_head():
    pos = pos_from(LONG, {24: 14, 1: 1}, {24: 14, 5: 1})
    turn = Turn(LONG, pos, (6, 6))
    assert turn.max_steps == 1
    assert results(turn) == expected(LONG, pos, ["24/18"])


@pytest.mark.parametrize("blocked,legal", [((18,), True), ((18, 15), False)])
def test_L10_L11_combined_move_needs_an_open_intermediate_point(blocked, legal):
    opp = {24: 15 - len(blocked)}
    for mine in blocked:               # opponent pip standing on the mover's pip `mine`
        opp[((mine + 11) % 24) + 1] = 1
    pos = pos_from(LONG, {20: 1, 24: 14}, opp)
    final = expected(LONG, pos, ["20/13"]).pop()
    assert (final in results(Turn(LONG, pos, (5, 2)))) is legal


BLOCK = {24: 2, 22: 2, 21: 1, 20: 1, 19: 1, 1: 8}


def test_L12_six_block_with_every_opponent_behind_is_illegal():
    pos = pos_from(LONG, BLOCK, {24: 15})
    got = results(Turn(LONG, pos, (2, 1)))
    assert expected(LONG, pos, ["24/23 22/20"]).pop() not in got
    assert expected(LONG, pos, ["24/23 21/19"]).pop() in got
    ok, why = Turn(LONG, pos, (2, 1)).check(_final(pos, "24/23 22/20"))
    assert not ok and "six" in why


def _final(pos, text):
    from firmware.rules.notation import apply_move_text
    return apply_move_text(LONG, pos, text)


def test_L13_six_block_with_an_opponent_ahead_is_legal():
    pos = pos_from(LONG, BLOCK, {24: 14, 5: 1})
    assert expected(LONG, pos, ["24/23 22/20"]).pop() in results(Turn(LONG, pos, (2, 1)))


def test_L14_block_wraps_round_the_movers_pip_24():
    mover = {24: 1, 23: 1, 22: 1, 21: 1, 3: 1, 2: 1, 10: 9}
    pos = pos_from(LONG, mover, {24: 15})
    got = results(Turn(LONG, pos, (2, 1)))
    assert expected(LONG, pos, ["3/1 10/9"]).pop() not in got
    assert expected(LONG, pos, ["3/1 2/1"]).pop() in got


def test_L15_a_block_made_and_broken_within_the_turn_is_legal():
    pos = pos_from(LONG, BLOCK, {24: 15})
    assert expected(LONG, pos, ["24/23/21"]).pop() in results(Turn(LONG, pos, (2, 1)))


def test_L16_bear_off_in_long_nardy():
    pos = pos_from(LONG, {6: 1, 2: 1}, {24: 15})
    assert results(Turn(LONG, pos, (6, 5))) == expected(LONG, pos, ["6/off 2/off", "6/1 2/off"])


def test_no_landing_on_a_single_opposing_checker():
    pos = pos_from(LONG, {24: 15}, {24: 14, 23: 1})   # its pip 23 is the mover's pip 11
    turn = Turn(LONG, pos, (6, 5))
    assert results(turn) == expected(LONG, pos, ["24/18/13"])


@pytest.mark.parametrize("scoring,loser,points", [
    ("fnr", {"off": 1, 6: 14}, 1), ("fnr", {6: 15}, 2), ("fnr", {20: 1, 6: 14}, 2),
    ("seed", {6: 15}, 2), ("seed", {9: 1, 6: 14}, 4), ("seed", {"off": 2, 9: 13}, 1),
    ("koks", {20: 1, 6: 14}, 3), ("koks", {9: 1, 6: 14}, 2),
])
def test_L17_scoring(scoring, loser, points):
    rules = get_rules("long", scoring=scoring)
    pos = pos_from(rules, {"off": 15}, loser)
    assert rules.score(pos, 0) == points


def test_geometry_of_the_heads():
    start = LONG.start_position()
    assert LONG.k_of(0, 24) == 1 and LONG.k_of(1, 24) == 13
    for side in (0, 1):
        for k in range(1, 25):
            assert LONG.k_of(side, LONG.pip_of(side, k)) == k
    assert LONG.xlat[24] == 12 and LONG.xlat[12] == 24
    LONG.validate(start)


def test_block_check_every_step_option_forbids_a_block_even_for_a_moment():
    each = get_rules("long", block_check="every_step")
    pos = pos_from(each, BLOCK, {24: 15})
    # 24/23 would stand six points 24..19 for a moment: refused at once under every_step ...
    turn = Turn(each, pos, (2, 1))
    assert (23, 1) not in turn.targets(24) and (22, 2) in turn.targets(24)
    try:
        turn.push(24, 1)
        raise AssertionError("the step was accepted")
    except Exception as err:
        assert "six" in str(err)
    # ... but offered under the default (judged on the final position), since 23/21 follows
    assert (23, 1) in Turn(LONG, pos, (2, 1)).targets(24)
    got = results(Turn(each, pos, (2, 1)))
    assert expected(each, pos, ["22/20 24/23"]).pop() not in got
    # the same final position reached without a momentary block stays legal: 24/22/21
    assert expected(each, pos, ["24/22/21"]).pop() in got
