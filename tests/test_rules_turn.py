"""What a Turn hands back: dice left, the step taken back, the die push_move chose, the play
counts, the sources offered, and that every question asked in mid-turn leaves the steps as they
were. Expectations worked out by hand (backgammon's start: the opponent holds the mover's 1, 12,
17 and 19)."""

import pytest

from rulesutil import Turn, expected, get_rules, pos_from, results
from firmware.rules import IllegalStep
from reference_rules import legal_results
from test_rules_properties import mover_arrays

BG = get_rules("backgammon")
LONG = get_rules("long")
START = BG.start_position()


@pytest.mark.parametrize("dice", [(0, 3), (3, 0), (7, 1), (1, 7), (2.5, 3), (3, 2.5), (-1, 2)])
def test_dice_outside_one_to_six_are_refused(dice):
    with pytest.raises(ValueError) as err:
        Turn(BG, START, dice)
    assert str(err.value) == "dice must be two numbers 1..6, got %r" % (dice,)


@pytest.mark.parametrize("dice", [(1, 1), (6, 6), (1, 6), (6, 1)])
def test_dice_at_the_ends_of_the_range_are_taken(dice):
    turn = Turn(BG, START, dice)
    assert (turn.hi, turn.lo) == (max(dice), min(dice))
    assert turn.double == (dice[0] == dice[1]) and turn.ndice == (4 if turn.double else 2)


def test_dice_left_and_pop_through_a_double():
    turn = Turn(BG, START, (6, 6))
    assert turn.dice_left() == [6, 6, 6, 6] and turn.pop() is None
    assert turn.push(24, 6) == 0
    assert turn.push(13, 6) == 0
    assert turn.dice_left() == [6, 6] and turn.depth == 2
    assert turn.pop() == (13, 7, 6, 0)
    assert turn.dice_left() == [6, 6, 6] and turn.steps == [(24, 18, 6, 0)]
    assert turn.pop() == (24, 18, 6, 0)
    assert turn.pop() is None and turn.dice_left() == [6, 6, 6, 6] and turn.position() == START


def test_dice_left_and_pop_through_a_non_double_either_die_first():
    turn = Turn(BG, START, (2, 5))                  # named low-high: still 5 then 2
    assert (turn.hi, turn.lo) == (5, 2) and turn.dice_left() == [5, 2]
    turn.push(13, 2)
    assert turn.dice_left() == [5]
    turn.push(13, 5)
    assert turn.dice_left() == [] and turn.complete()
    assert turn.pop() == (13, 8, 5, 0) and turn.dice_left() == [5]
    assert turn.pop() == (13, 11, 2, 0) and turn.dice_left() == [5, 2]
    turn.push(13, 5)
    assert turn.dice_left() == [2]
    assert turn.pop() == (13, 8, 5, 0) and turn.dice_left() == [5, 2]


def test_a_hit_is_reported_by_push_and_pop_and_undone():
    # the opponent's blot on its 7 stands on the mover's 18; 24/18* hits it
    pos = pos_from(BG, {24: 2, 13: 13}, {7: 1, 6: 14})
    turn = Turn(BG, pos, (6, 5))
    assert turn.push(24, 6) == 1
    assert turn.position().bar(1) == 1 and turn.position().count(1, 7) == 0
    assert turn.pop() == (24, 18, 6, 1)
    assert turn.position() == pos
    assert turn.push_offered(24, 6) == 1 and turn.steps == [(24, 18, 6, 1)]
    assert turn.push_offered(13, 5) == 0 and turn.complete()


def test_entering_from_the_bar_is_a_step_from_25():
    pos = pos_from(BG, {"bar": 1, 13: 14}, {6: 15})       # the mover's 19 is closed
    turn = Turn(BG, pos, (6, 5))
    assert turn.sources() == [25]
    assert turn.targets(25) == [(20, 5)]
    assert turn.push_move(25, 20) == 5
    assert turn.pop() == (25, 20, 5, 0)


def test_push_move_chooses_the_die_and_prefers_the_exact_one_to_bear_off():
    pos = pos_from(BG, {3: 1, 2: 1}, {1: 15})
    turn = Turn(BG, pos, (5, 3))
    assert turn.push_move(3, 0) == 3                  # exact, though the 5 could bear it off too
    assert turn.push_move(2, 0) == 5                  # the higher die, nothing above the 2
    assert turn.complete() and turn.position().off(0) == 15
    turn = Turn(BG, pos, (5, 3))
    with pytest.raises(IllegalStep):
        turn.push_move(2, 0)                          # the 3 still stands above it
    assert turn.depth == 0


def test_push_move_on_the_board():
    turn = Turn(BG, START, (6, 5))
    assert turn.push_move(24, 18) == 6
    assert turn.push_move(13, 8) == 5
    assert turn.steps == [(24, 18, 6, 0), (13, 8, 5, 0)]


@pytest.mark.parametrize("src,dst,why", [
    (24, 12, "24/12 is not a move of one die"),
    (13, 5, "13/5 is not a move of one die"),
    (24, 19, "point 19 is closed: the opponent holds it"),
    (6, 0, "bearing off needs every checker home first"),
    (23, 18, "there is no checker on 23"),
    (13, 0, "no die shows 13 (the roll is 6-5)"),
    (13, 10, "no die shows 3 (the roll is 6-5)"),
    (8, 4, "no die shows 4 (the roll is 6-5)"),
])
def test_push_move_names_what_is_wrong(src, dst, why):
    turn = Turn(BG, START, (6, 5))
    with pytest.raises(IllegalStep) as err:
        turn.push_move(src, dst)
    assert err.value.reason == why and turn.depth == 0


def test_targets_and_sources_at_the_edges():
    turn = Turn(BG, START, (6, 5))
    assert turn.sources() == [24, 13, 8]              # 6/1 and 6/0 are closed, 6/off not yet
    assert turn.targets(24) == [(18, 6)]              # 24/19 is closed
    assert turn.targets(13) == [(7, 6), (8, 5)]
    assert turn.targets(0) == [] and turn.targets(26) == [] and turn.targets(23) == []
    assert turn.targets(25) == []
    turn.push(24, 6)
    turn.push(18, 5)
    assert turn.complete() and turn.targets(13) == [] and turn.sources() == []


def test_count_plays_of_the_opening_six_six_and_six_five():
    # 6-6: four sixes among 24/18 (two checkers; 18/12 is closed), 13/7 (five; 7/1 is closed) and
    # 8/2 (three): a + b + c = 4 with a <= 2, b <= 5, c <= 3 gives 4 + 4 + 3 = 11 plays
    assert Turn(BG, START, (6, 6)).count_plays() == 11
    assert len(Turn(BG, START, (6, 6)).plays()) == 11
    # 6-5: 24/13, 24/18 13/8, 24/18 8/3, 13/7 13/8, 13/7 8/3, 8/2 13/8 (the same as 13/2),
    # 8/2 8/3
    turn = Turn(BG, START, (6, 5))
    assert turn.count_plays() == 7 == len(turn.plays())


def test_complete_judges_the_whole_play():
    # steps forced in without the search: the whole-play rules still decide complete()
    block = pos_from(LONG, {24: 2, 22: 2, 21: 1, 20: 1, 19: 1, 1: 8}, {24: 15})
    turn = Turn(LONG, block, (2, 1))
    turn.push_offered(22, 2)
    turn.push_offered(24, 1)                    # 24..19 with every opponent behind it
    assert turn.depth == 2 and not turn.complete()
    s2 = pos_from(BG, {24: 1, 1: 14}, {12: 2, 3: 13})
    turn = Turn(BG, s2, (6, 5))
    turn.push_offered(24, 5)                    # the smaller die where the larger plays
    assert turn.depth == 1 == turn.max_steps and not turn.complete()
    turn.pop()
    turn.push(24, 6)
    assert turn.complete()


def test_two_hits_on_neighbouring_points_are_two_plays():
    # 2-1 from 24 to 21 hits the blot on 22 or the one on 23: two plays, not one
    pos = pos_from(BG, {24: 1, 6: 14}, {2: 1, 3: 1, 12: 13})
    got = results(Turn(BG, pos, (2, 1)))
    both = expected(BG, pos, ["24/22*/21", "24/23*/21"])
    assert len(both) == 2 and both <= got
    assert Turn(BG, pos, (2, 1)).count_plays() == len(got)


def test_count_plays_when_one_die_plays():
    s2 = pos_from(BG, {24: 1, 1: 14}, {12: 2, 3: 13})           # 6-5: 24/18 only
    assert Turn(BG, s2, (6, 5)).count_plays() == 1
    l9 = pos_from(LONG, {24: 14, 1: 1}, {24: 14, 5: 1})          # 6-6: 24/18 only
    turn = Turn(LONG, l9, (6, 6))
    assert turn.max_steps == 1 and turn.count_plays() == 1 and len(turn.plays()) == 1


def test_count_plays_when_nothing_plays():
    closed = pos_from(BG, {"bar": 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 5})
    for dice in ((6, 4), (3, 3)):
        turn = Turn(BG, closed, dice)
        assert turn.max_steps == 0 and turn.count_plays() == 0 and turn.plays() == []
        assert turn.plays_packed() == [] and list(turn.finals()) == []


@pytest.mark.parametrize("variant,options,mover,opp,dice", [
    ("backgammon", {}, {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (1, 1)),
    ("backgammon", {}, {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (3, 3)),
    ("backgammon", {}, {6: 4, 5: 3, 3: 2, 1: 1}, {1: 15}, (2, 2)),
    ("long", {}, {24: 10, 20: 2, 15: 2, 9: 1}, {24: 12, 19: 3}, (4, 4)),
    ("long", {"block_check": "every_step"}, {24: 2, 22: 2, 21: 1, 20: 1, 19: 1, 10: 8}, {24: 15},
     (1, 1)),
    ("persian", {}, {6: 1, 5: 1, 4: 1, 1: 12}, {23: 1, 1: 14}, (2, 2)),
    # a hit on 7 is outside the home board: the hitter may go on (9/7*/5/3/1)
    ("persian", {}, {9: 1, 6: 14}, {18: 1, 24: 14}, (2, 2)),
    # the last checker comes home during the double, then the rest bear off
    ("backgammon", {}, {8: 1, 3: 14}, {12: 15}, (4, 4)),
    ("backgammon", {}, {7: 1, 2: 14}, {12: 15}, (2, 2)),
    ("backgammon", {}, {8: 1, 2: 14}, {12: 15}, (2, 2)),
])
def test_doubles_counted_listed_and_walked_alike(variant, options, mover, opp, dice):
    rules = get_rules(variant, **options)
    pos = pos_from(rules, mover, opp)
    turn = Turn(rules, pos, dice)
    plays = turn.plays()
    finals = set(mover_arrays(rules, f) for f in Turn(rules, pos, dice).finals())
    mine, theirs = mover_arrays(rules, pos)
    assert finals == legal_results(variant, options, mine, theirs, dice, False)
    assert turn.count_plays() == len(plays) == len(finals)       # each distinct play once
    assert all(len(p) == turn.max_steps for p in plays)


def test_plays_packed_appends_to_the_container_given():
    from array import array
    turn = Turn(BG, START, (6, 5))
    plays = turn.plays_packed()
    out = array("I", [7])
    assert turn.plays_packed(out) is out and list(out) == [7] + plays
    mine = [1, 2]
    assert turn.plays_packed(mine) is mine and mine == [1, 2] + plays


def test_questions_in_mid_turn_keep_the_steps():
    turn = Turn(BG, START, (3, 3))
    whole = Turn(BG, START, (3, 3))
    n, plays, finals = whole.count_plays(), whole.plays(), list(whole.finals())
    turn.push(24, 3)
    turn.push(21, 3)
    steps = turn.steps
    assert turn.count_plays() == n and turn.steps == steps
    assert turn.plays() == plays and turn.steps == steps
    assert list(turn.finals()) == finals and turn.steps == steps
    first = next(turn.finals())                       # a walk left half-way still puts them back
    assert first == finals[0] and turn.steps == steps
    gen = turn.finals()
    next(gen)
    gen.close()
    assert turn.steps == steps
    assert len(turn.plays_packed()) == n and turn.steps == steps
    assert turn.dice_left() == [3, 3]


def test_unpack_gives_the_steps_of_each_packed_play():
    turn = Turn(BG, START, (6, 5))
    got = set()
    for p in turn.plays_packed():
        steps = turn.unpack(p)
        assert len(steps) == p & 7
        t = Turn(BG, START, (6, 5))
        for s, d in steps:
            t.push(s, d)
        got.add(t.position().key())
    assert got == set(f.key() for f in Turn(BG, START, (6, 5)).finals())
    assert not any(p & 8 for p in turn.plays_packed())    # each found with the 6 first
    # the lower die first is marked: 7/1 is closed and 2/off waits for the 7, so the only play is
    # 7/6 then 6/off
    pos = pos_from(BG, {7: 1, 2: 14}, {24: 2, 13: 13})
    turn = Turn(BG, pos, (6, 1))
    (p,) = turn.plays_packed()
    assert p & 8 and p & 7 == 2 and turn.unpack(p) == [(7, 1), (6, 6)]
    assert turn.plays() == [[(7, 6, 1, 0), (6, 0, 6, 0)]]


def test_long_nardy_first_turn_six_six_counts_one_play():
    pos = LONG.start_position()
    turn = Turn(LONG, pos, (6, 6), first_turn=True)
    assert turn.max_steps == 2 and turn.count_plays() == 1
    turn.push(24, 6)
    assert turn.targets(24) == [(18, 6)] and turn.targets(18) == []
    assert turn.dice_left() == [6, 6, 6]
