"""Takhteh nard legality: no hit-and-lift (rules.md §6.4, D7) and the cases of §10.3."""

import pytest

from rulesutil import Turn, expected, get_rules, pos_from, results

FA = get_rules("persian")
LOCK_FIRST = get_rules("persian", hit_lift_priority="lock_first")
BG = get_rules("backgammon")

T2 = ({6: 1, 13: 14}, {21: 1, 1: 14})
T2_BACKGAMMON = ["13/8", "13/11 13/10", "13/10 6/4*", "13/11 6/3", "6/3/1", "6/4*/1"]


def test_T2_backgammon_allows_the_hit_and_lift():
    pos = pos_from(BG, *T2)
    assert results(Turn(BG, pos, (3, 2))) == expected(BG, pos, T2_BACKGAMMON)


def test_T2_takhteh_forbids_leaving_the_point_just_hit_in_the_home_board():
    pos = pos_from(FA, *T2)
    want = expected(FA, pos, [p for p in T2_BACKGAMMON if p != "6/4*/1"])
    assert results(Turn(FA, pos, (3, 2))) == want
    turn = Turn(FA, pos, (3, 2))
    turn.push(6, 2)                      # 6/4* hits in the home board
    assert turn.targets(4) == []         # the hitter may not move on
    ok, why = Turn(FA, pos, (3, 2)).check(next(iter(_apply(pos, "6/4*/1"))))
    assert not ok and "hit" in why


def _apply(pos, text):
    from firmware.rules.notation import apply_move_text
    return [apply_move_text(FA, pos, text)]


def test_T3_hit_and_lift_allowed_when_no_other_play_uses_both_dice():
    pos = pos_from(FA, {6: 1, 13: 14}, {21: 1, 15: 2, 14: 2, 22: 2, 1: 8})
    assert results(Turn(FA, pos, (3, 2))) == expected(FA, pos, ["6/4*/1"])


def test_T4_hit_outside_the_home_board_may_continue():
    pos = pos_from(FA, {13: 1, 6: 14}, {16: 1, 1: 14})       # blot on the mover's pip 9
    assert expected(FA, pos, ["13/9*/7"]).pop() in results(Turn(FA, pos, (4, 2)))


def test_T5_entering_with_a_hit_may_continue():
    pos = pos_from(FA, {"bar": 1, 6: 14}, {3: 1, 1: 14})      # blot on the mover's pip 22
    assert expected(FA, pos, ["bar/22*/16"]).pop() in results(Turn(FA, pos, (6, 3)))


def test_T6b_every_play_leaving_the_hit_point_is_removed_when_another_uses_all_dice():
    pos = pos_from(FA, {6: 1, 5: 1, 4: 1, 1: 12}, {23: 1, 1: 14})   # blot on the mover's pip 2
    got = results(Turn(FA, pos, (2, 2)))
    full = results(Turn(BG, pos, (2, 2)))
    assert got and got < full
    removed = full - got
    for play in Turn(BG, pos, (2, 2)).plays():
        hit_at = [i for i, step in enumerate(play) if step[1] == 2 and step[3]]
        lifts = bool(hit_at) and any(step[0] == 2 for step in play[hit_at[0] + 1:])
        t = Turn(BG, pos, (2, 2))
        for s, _d, die, _h in play:
            t.push(s, die)
        assert (t.position().key() in removed) is lifts, play
    assert expected(FA, pos, ["6/4 5/3 4/2*(2)"]).pop() in got


def test_T6_single_four_step_play_needs_the_hit_and_lift():
    pos = pos_from(FA, {6: 1, 4: 1, 1: 13}, {23: 1, 1: 14})
    got = results(Turn(FA, pos, (2, 2)))
    assert got == results(Turn(BG, pos, (2, 2)))


def test_lock_first_prefers_fewer_dice_to_a_hit_and_lift():
    pos = pos_from(FA, *T2)
    assert results(Turn(LOCK_FIRST, pos, (3, 2))) == results(Turn(FA, pos, (3, 2)))
    only = pos_from(FA, {6: 1, 13: 14}, {21: 1, 15: 2, 14: 2, 22: 2, 1: 8})
    # lock first: the lock-free plays use one die (6/4* or ...), so the hit-and-lift is refused
    got = results(Turn(LOCK_FIRST, only, (3, 2)))
    assert expected(FA, only, ["6/4*/1"]).pop() not in got and got


@pytest.mark.parametrize("mover,dice,plays", [
    ({3: 2, 2: 3}, (3, 3), ["3/off(2) 2/off(2)"]),
    ({3: 2, 2: 1, 1: 1}, (6, 4), ["3/off(2)"]),
])
def test_T7_T8_bear_off_from_the_highest_point(mover, dice, plays):
    pos = pos_from(FA, mover, {1: 15})
    assert results(Turn(FA, pos, dice)) == expected(FA, pos, plays)


def test_T9_mars_is_two_never_three():
    pos = pos_from(FA, {"off": 15}, {"bar": 1, 6: 14})
    assert FA.score(pos, 0) == 2
    pos = pos_from(FA, {"off": 15}, {"off": 1, 6: 14})
    assert FA.score(pos, 0) == 1
