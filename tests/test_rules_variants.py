"""Variants and positions at their edges: options and their errors, the hooks' answers, geometry for
both sides, the matador roll, every scoring profile at its boundaries and for either winner, the
long-nardy head-exception options and six-block corners, and the position text forms' errors."""

import pytest

from rulesutil import Position, Turn, expected, get_rules, pos_from, results
from firmware.rules import PositionError

BG = get_rules("backgammon")
LONG = get_rules("long")
FIXED = get_rules("long", head_exception="fixed_doubles")
DP = get_rules("long", head_exception="doubles_principle")
HEADS = {24: 15}


@pytest.mark.parametrize("name,options,text", [
    ("backgammon", {}, "backgammon"),
    ("short", {}, "short cube=off scoring=tric-trac"),
    ("short", {"scoring": "backgammon", "cube": "on"}, "short cube=on scoring=backgammon"),
    ("long", {"head_exception": "fixed_doubles"},
     "long block_check=final cube=off head_exception=fixed_doubles opening=rethrow scoring=seed"),
    ("persian", {}, "persian cube=off hit_lift_priority=max_first opening=high_die"),
])
def test_describe(name, options, text):
    assert get_rules(name, **options).describe() == text


@pytest.mark.parametrize("name,options,why", [
    ("chess", {}, "unknown variant 'chess' (variants: backgammon, jacquet, long, matador, persian, short)"),
    ("short", {"foo": "on"}, "short has no option 'foo' (options: cube, scoring)"),
    ("backgammon", {"cube": "on"}, "backgammon has no option 'cube' (options: none)"),
    ("long", {"scoring": "x"}, "long option scoring must be one of seed|fnr|koks, got 'x'"),
])
def test_unknown_variants_and_options_are_refused(name, options, why):
    with pytest.raises(ValueError) as err:
        get_rules(name, **options)
    assert str(err.value) == why


def test_options_set_the_declared_attributes():
    assert get_rules("short").cube is False and get_rules("short", cube="on").cube is True
    assert get_rules("short").gnubg_compatible is False
    assert get_rules("short", scoring="backgammon").gnubg_compatible is True
    assert get_rules("long").cube is False and get_rules("long", cube="on").cube is True
    assert get_rules("persian", cube="on").cube is True and get_rules("persian").cube is False
    assert get_rules("persian", opening="parity").opening == "parity"
    assert LONG.opening == "rethrow" and not LONG.opening_plays_dice()
    assert get_rules("long", opening="use_opening_dice").opening_plays_dice()
    assert get_rules("jacquet").cube is False and get_rules("jacquet").gnubg_compatible is False
    assert LONG.option("scoring") == "seed"


def test_the_hooks_of_the_plain_rules():
    assert BG.head_limit(True, 6, 6) == (0, 0)
    assert BG.block_check_each_step() is False and BG.hit_lift_lock_first() is False
    assert LONG.block_check_each_step() is False
    assert get_rules("long", block_check="every_step").block_check_each_step() is True
    assert get_rules("persian", hit_lift_priority="lock_first").hit_lift_lock_first() is True
    assert get_rules("persian").hit_lift_lock_first() is False


@pytest.mark.parametrize("rules,first,dice,limits", [
    (LONG, False, (6, 6), (1, 1)), (LONG, True, (6, 6), (1, 2)), (LONG, True, (6, 2), (1, 2)),
    (FIXED, True, (6, 6), (2, 2)), (FIXED, True, (4, 4), (2, 2)), (FIXED, True, (3, 3), (2, 2)),
    (FIXED, True, (5, 5), (1, 1)), (FIXED, True, (6, 5), (1, 1)), (FIXED, False, (6, 6), (1, 1)),
    (DP, True, (5, 5), (1, 2)), (DP, True, (6, 2), (1, 1)), (DP, False, (4, 4), (1, 1)),
])
def test_head_limits(rules, first, dice, limits):
    assert rules.head_limit(first, *dice) == limits


@pytest.mark.parametrize("name,rules,opp,dice,plays", [
    ("fixed: 3-3 two off the head", FIXED, HEADS, (3, 3), ["24/18(2)", "24/21 24/15"]),
    ("fixed: 2-2 one checker", FIXED, HEADS, (2, 2), ["24/16"]),
    ("fixed: 6-6", FIXED, HEADS, (6, 6), ["24/18(2)"]),
    ("doubles principle: after 5-5, 6-2 one checker", DP, {24: 14, 4: 1}, (6, 2), ["24/18"]),
    ("doubles principle: after 5-5, 4-4", DP, {24: 14, 4: 1}, (4, 4), ["24/20(2)"]),
    ("doubles principle: after 2-1, 5-5", DP, {24: 14, 21: 1}, (5, 5), ["24/14(2)"]),
    ("doubles principle: 6-5 one checker", DP, HEADS, (6, 5), ["24/13"]),
    # principle: 24/18 then 18/13 and 24/19 are closed; a second head checker plays no more
    ("principle: a second head checker that does not help", LONG, {24: 13, 1: 1, 7: 1}, (6, 5),
     ["24/18"]),
])
def test_head_exception_options_on_the_first_turn(name, rules, opp, dice, plays):
    pos = pos_from(rules, HEADS, opp)
    assert results(Turn(rules, pos, dice, first_turn=True)) == expected(rules, pos, plays)


def test_a_six_block_standing_at_the_start_of_the_turn_is_not_judged_again():
    # 24..19 held already, every opponent behind it (on the mover's 12): keeping it is legal
    pos = pos_from(LONG, {24: 5, 23: 2, 22: 2, 21: 2, 20: 2, 19: 2}, HEADS)
    got = results(Turn(LONG, pos, (2, 1)))
    assert expected(LONG, pos, ["24/22 23/22"]).pop() in got
    assert expected(LONG, pos, ["24/21"]).pop() in got


def test_a_six_block_with_an_opposing_checker_past_it_among_others_behind():
    # 24/18/17 makes 22..17 (the opponent's 10..5); its checker on its 2 (the mover's 14) is past
    # the block, the others on its 11 (the mover's 23) are not: legal
    pos = pos_from(LONG, {24: 10, 22: 1, 21: 1, 20: 1, 19: 1, 18: 1}, {2: 1, 11: 14})
    assert expected(LONG, pos, ["24/18/17"]).pop() in results(Turn(LONG, pos, (6, 1)))


def test_a_six_block_on_the_opponents_home_board_has_no_checker_ahead_of_it():
    # the mover's 18..13 are the opponent's 6..1: no opposing checker can be past such a block
    # (borne-off checkers do not count), so 20/14/13 may not complete it
    pos = pos_from(LONG, {20: 10, 18: 1, 17: 1, 16: 1, 15: 1, 14: 1}, {10: 5, "off": 10})
    got = results(Turn(LONG, pos, (6, 1)))
    assert expected(LONG, pos, ["20/14/13"]).pop() not in got
    assert expected(LONG, pos, ["20/14 18/17"]).pop() in got
    assert expected(LONG, pos, ["20/14 20/19"]).pop() not in got      # 20..15: six as well
    ok, why = Turn(LONG, pos, (6, 1)).check(expected_final(pos, "20/14/13"))
    assert (ok, why) == (False, "it builds a block of six points with no opposing checker ahead of it")


def expected_final(pos, text):
    from firmware.rules.notation import apply_move_text
    return apply_move_text(LONG, pos, text)


@pytest.mark.parametrize("opp,legal", [(HEADS, False), ({24: 14, 1: 1}, True)])
def test_a_six_block_completed_by_a_double(opp, legal):
    # 1-1: 24/23 completes 24..19; legal only with an opposing checker past it (its pip 1 is
    # below the block's 12..7)
    pos = pos_from(LONG, {24: 2, 22: 1, 21: 1, 20: 1, 19: 1, 10: 9}, opp)
    turn = Turn(LONG, pos, (1, 1))
    got = results(turn)
    assert (expected(LONG, pos, ["24/23 10/9(3)"]).pop() in got) is legal
    assert expected(LONG, pos, ["10/9(4)"]).pop() in got
    assert turn.count_plays() == len(got)


@pytest.mark.parametrize("rules", [BG, get_rules("short"), get_rules("persian")])
def test_geometry_of_opposite_sides(rules):
    for k in range(1, 25):
        assert rules.pip_of(0, k) == k and rules.pip_of(1, k) == 25 - k
        assert rules.k_of(0, k) == k and rules.k_of(1, k) == 25 - k


def test_geometry_of_long_nardy():
    assert [LONG.pip_of(0, k) for k in (1, 12, 13, 24)] == [24, 13, 12, 1]
    assert [LONG.pip_of(1, k) for k in (1, 12, 13, 24)] == [12, 1, 24, 13]
    assert [LONG.k_of(1, p) for p in (1, 12, 13, 24)] == [12, 1, 24, 13]
    assert [LONG.k_of(0, p) for p in (1, 12, 13, 24)] == [24, 13, 12, 1]


@pytest.mark.parametrize("dice,yes", [((4, 3), True), ((3, 4), True), ((4, 4), False),
                                      ((3, 3), False), ((4, 5), False), ((5, 3), False),
                                      ((3, 5), False), ((2, 4), False), ((6, 3), False)])
def test_the_matador_roll(dice, yes):
    assert get_rules("matador").is_matador(*dice) is yes
    assert get_rules("jacquet").is_matador(*dice) is False


SCORES = [
    # rules, loser (own pips), points
    (BG, {19: 1, 6: 14}, 3), (BG, {18: 1, 6: 14}, 2), (BG, {1: 15}, 2), (BG, {"bar": 1, 1: 14}, 3),
    (get_rules("short"), {7: 1, 6: 14}, 4), (get_rules("short"), {6: 15}, 2),
    (get_rules("short"), {1: 15}, 2), (get_rules("short"), {"bar": 1, 1: 14}, 8),
    (get_rules("short", scoring="backgammon"), {19: 1, 1: 14}, 3),
    (get_rules("jacquet", scoring="backgammon"), {18: 1, 1: 14}, 2),
    (LONG, {7: 1, 6: 14}, 4), (LONG, {6: 15}, 2), (LONG, {"off": 1, 24: 14}, 1),
    (get_rules("long", scoring="koks"), {19: 1, 6: 14}, 3),
    (get_rules("long", scoring="koks"), {18: 1, 6: 14}, 2),
    (get_rules("long", scoring="fnr"), {24: 15}, 2),
    (get_rules("persian"), {"bar": 1, 24: 14}, 2), (get_rules("persian"), {"off": 14, 1: 1}, 1),
]


@pytest.mark.parametrize("name,options,results", [
    ("backgammon", {}, (1, 2, 3)), ("short", {}, (1, 2, 4, 8)),
    ("short", {"scoring": "backgammon"}, (1, 2, 3)), ("jacquet", {}, (1, 2, 4, 8)),
    ("jacquet", {"scoring": "backgammon"}, (1, 2, 3)), ("matador", {}, (1, 2, 4, 8)),
    ("long", {}, (1, 2, 4)), ("long", {"scoring": "fnr"}, (1, 2)),
    ("long", {"scoring": "koks"}, (1, 2, 3)), ("persian", {}, (1, 2)),
])
def test_what_a_game_can_be_won_for(name, options, results):
    # the scores the profiles above give, lowest first (a resignation offers one of them)
    assert get_rules(name, **options).results == results


@pytest.mark.parametrize("rules,loser,points", SCORES)
def test_scores_for_either_winner(rules, loser, points):
    for winner in (0, 1):
        pos = pos_from(rules, {"off": 15}, loser, turn=winner)
        assert rules.score(pos, winner) == points


def test_start_positions_and_validation():
    assert BG.start_position(turn=1).turn == 1 and BG.start_position().turn == 0
    pos = BG.start_position()
    pos.board[24] -= 1
    with pytest.raises(ValueError) as err:
        BG.validate(pos)
    assert str(err.value) == "white has 14 checkers, not 15"
    pos = pos_from(BG, {1: 15}, {1: 15})
    pos.board[26 + 1] -= 1
    pos.board[26 + 25] += 1
    LONG_BAR = pos.copy()
    with pytest.raises(ValueError) as err:
        LONG.validate(LONG_BAR)
    assert str(err.value) == "black has checkers on the bar, but long has no hitting"
    both = BG.start_position()
    both.board[5] += 1
    both.board[6] -= 1                           # White's 5 is Black's 20: empty, then
    both.board[26 + 20] += 1
    both.board[26 + 6] -= 1
    with pytest.raises(ValueError) as err:
        BG.validate(both)
    assert str(err.value) == "white's point 5 holds checkers of both colours"


# -- positions ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,why", [
    ("red to move; white 24:15; black 24:15", "unknown side 'red' before 'to move'"),
    ("red 24:15; black 24:15; white to move", "a clause must start with white or black, got 'red'"),
    ("white 24:15; white 24:15; black 24:15; white to move", "white is described twice"),
    ("white 24; black 24:15; white to move", "expected point:count, got '24'"),
    ("white 0:1; black 24:15; white to move", "point 0 is outside 1..24"),
    ("white 25:1; black 24:15; white to move", "point 25 is outside 1..24"),
    ("white x:1; black 24:15; white to move", "point 'x' is not a number"),
    ("white 24:y; black 24:15; white to move", "count 'y' is not a number"),
    ("white 24:2:3; black 24:15; white to move", "count '2:3' is not a number"),
    ("white 24:16; black 24:15; white to move", "count 16 on 24 is outside 0..15"),
    ("white 24:-1; black 24:15; white to move", "count -1 on 24 is outside 0..15"),
    ("white 24:1 24:2; black 24:15; white to move", "white 24 is given twice"),
    ("white bar:1 bar:1; black 24:15; white to move", "white bar is given twice"),
    ("white 24:15; black 24:15", "missing '<side> to move'"),
    ("white 24:15; white to move", "both white and black must be described"),
    ("black 24:15; white to move", "both white and black must be described"),
])
def test_position_text_errors(text, why):
    with pytest.raises(PositionError) as err:
        Position.parse(text)
    assert str(err.value) == why


def test_position_text_reading():
    pos = Position.parse("WHITE bar:1 24:2 off:3;; Black 24:15 ; Black To Move")
    assert pos.turn == 1 and pos.bar(0) == 1 and pos.count(0, 24) == 2 and pos.off(0) == 3
    assert pos.off(1) == 0                           # every black checker placed: none off
    assert str(pos) == "white bar:1 24:2 off:3; black 24:15; black to move"
    pos = Position.parse("white 6:5; black 24:15 off:0; white to move")
    assert pos.off(0) == 10 and pos.off(1) == 0     # unplaced checkers are borne off
    over = Position.parse("white 24:15 13:1; black 24:15; white to move")
    assert over.off(0) == 0                          # more than 15 placed: nothing added
    assert pos.pip_count(0) == 30 and Position.parse(
        "white bar:1 off:14; black 24:15; white to move").pip_count(0) == 25
    assert BG.start_position().pip_count(1) == 167


def test_position_compact_form():
    start = BG.start_position()
    code = start.encode()
    side = "000000" + "5" + "0" + "3" + "0000" + "5" + "0" * 10 + "2" + "0"   # pips 0..25
    assert code == side + side + "0"
    assert Position.decode("  " + code.upper() + "\n") == start
    assert Position.decode(start.swapped().encode()).turn == 1
    for text, why in [(code[:-1], "a compact position has 53 hex digits, got 52"),
                      ("g" + code[1:], "'g' is not a hex digit"),
                      (code[:-1] + "2", "the side to move must be 0 or 1")]:
        with pytest.raises(PositionError) as err:
            Position.decode(text)
        assert str(err.value) == why


def test_position_identity_and_copies():
    a = BG.start_position()
    b = a.copy()
    assert a == b and not (a != b) and hash(a) == hash(b) == hash(a.key()) and a.key() == b.key()
    assert a != a.swapped() and a != "not a position" and not (a == None)   # noqa: E711
    s = a.swapped()
    assert s.turn == 1 and s.board == a.board
    s.board[24] = 0
    b.board[24] = 0
    assert a.count(0, 24) == 2                       # copies own their boards
    assert repr(a) == "Position('%s')" % a
    assert {a: 1}[BG.start_position()] == 1
    with pytest.raises(PositionError) as err:
        Position(bytearray(51))
    assert str(err.value) == "a board has 52 counts, got 51"
    with pytest.raises(PositionError) as err:
        Position(None, 2)
    assert str(err.value) == "turn must be 0 (white) or 1 (black)"
