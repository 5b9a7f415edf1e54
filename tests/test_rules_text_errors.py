"""Move text in both notations at its edges: every refusal of standard notation and of the seeds'
line notation word for word, the count and range boundaries, and the chains written back."""

import pytest

from rulesutil import get_rules, pos_from
from firmware.rules.lines import (LineNotationError, format_lines, k_line, line_k, parse_lines)
from firmware.rules.notation import NotationError, apply_move_text, format_steps, parse_move

BG = get_rules("backgammon")
LONG = get_rules("long")


@pytest.mark.parametrize("text,why", [
    ("24/x", "'x' in '24/x' is not a point"),
    ("24/18(2", "'18(2' in '24/18(2' is not a point"),
    ("26/20", "point 26 in '26/20' is outside 0..25"),
    ("24/18)", "unbalanced count in '24/18)'"),
    ("24/18(x)", "bad count in '24/18(x)'"),
    ("24/18(0)", "count 0 in '24/18(0)' is outside 1..4"),
    ("24/18(5)", "count 5 in '24/18(5)' is outside 1..4"),
    ("8/5(2)(2)", "'5(2)' in '8/5(2)(2)' is not a point"),
    ("(2)", "'' is not of the form from/to"),
    ("24", "'24' is not of the form from/to"),
    ("18/24", "18/24 does not move forward in '18/24'"),
    ("18/18", "18/18 does not move forward in '18/18'"),
])
def test_standard_notation_errors(text, why):
    with pytest.raises(NotationError) as err:
        parse_move(text)
    assert str(err.value) == why


def test_standard_notation_counts_and_separators():
    assert parse_move("8/5(1)") == [(8, 5, False)]
    assert parse_move("8/5(4)") == [(8, 5, False)] * 4
    assert parse_move("24/18,13/11") == [(24, 18, False), (13, 11, False)]
    assert parse_move("6/0 25/20") == [(6, 0, False), (25, 20, False)]


@pytest.mark.parametrize("rules,mover,opp,text,why", [
    (BG, {24: 2, 13: 13}, {7: 15}, "12/6", "no checker on 12 for '12/6'"),
    (BG, {24: 2, 13: 13}, {7: 15}, "bar/20", "no checker on bar for 'bar/20'"),
    (BG, {24: 2, 13: 13}, {6: 2, 7: 13}, "24/19", "point 19 is held by the opponent in '24/19'"),
    (LONG, {24: 15}, {24: 14, 23: 1}, "24/11", "point 11 is held by the opponent in '24/11'"),
])
def test_applying_move_text_needs_checkers_and_open_points(rules, mover, opp, text, why):
    pos = pos_from(rules, mover, opp)
    with pytest.raises(NotationError) as err:
        apply_move_text(rules, pos, text)
    assert str(err.value) == why


def test_applying_move_text_hits_a_blot_only_where_checkers_are_hit():
    pos = pos_from(BG, {24: 2, 13: 13}, {6: 1, 7: 14})       # a blot on the mover's 19
    after = apply_move_text(BG, pos, "24/19")
    assert after.count(0, 19) == 1 and after.bar(1) == 1 and after.count(1, 6) == 0
    assert after.turn == pos.turn and pos.count(0, 24) == 2      # the original is untouched


def test_format_steps_joins_a_chain_ending_off_the_board():
    assert format_steps([(3, 1, 2, 0), (1, 0, 1, 0)]) == "3/off"
    assert format_steps([(25, 22, 3, 0), (22, 16, 6, 0)]) == "bar/16"
    assert format_steps([(25, 22, 3, 1), (22, 16, 6, 0)]) == "bar/22*/16"
    assert format_steps([]) == ""


# -- line notation ----------------------------------------------------------------------------

@pytest.mark.parametrize("k,name", [(1, "1"), (12, "12"), (13, "XII"), (24, "I"), (15, "X")])
def test_k_line_and_back(k, name):
    assert k_line(k) == name and line_k(name) == k


@pytest.mark.parametrize("k", [0, 25, -1])
def test_no_line_outside_one_to_24(k):
    with pytest.raises(LineNotationError) as err:
        k_line(k)
    assert str(err.value) == "no line at k=%d" % k


@pytest.mark.parametrize("name", ["13", "0", "XIII", "bar", ""])
def test_unknown_line_names(name):
    with pytest.raises(LineNotationError) as err:
        line_k(name)
    assert str(err.value) == "%r is not a line (1..12 or I..XII)" % name


def test_cyrillic_look_alikes_are_latin_letters():
    assert line_k("\u0445") == line_k("\u0425") == line_k("X") == 15
    assert line_k("\u0406") == 24 and line_k("\u0445\u0406") == line_k("XI") == 14
    assert parse_lines("\u0411>III", 0) == [(25, 22, False)]      # Б: the bar
    assert parse_lines("6>\u0414", 0) == [(6, 0, False)]          # Д: off


@pytest.mark.parametrize("text,side,why", [
    ("12>bar", 0, "the bar cannot be a destination"),
    ("off-1", 0, "'off' cannot be a source"),
    ("12-4(5)", 0, "bad checker count in '12-4(5)'"),
    ("12-4(0)", 0, "bad checker count in '12-4(0)'"),
    ("12-4(x)", 0, "bad checker count in '12-4(x)'"),
    ("(2)", 0, "bad checker count in '(2)'"),
    ("12-4(2)(2)", 0, "'12-4(2)(2)': a distance is 1..6, got '4(2)'"),
    ("-4", 0, "'-4' has no source line"),
    ("1(2)", 0, "'1' gives no distance ('-5') or destination ('>VIII')"),
    ("12-", 0, "'12-': '-' must be followed by a distance"),
    ("12>", 0, "'12>': '>' must be followed by a line"),
    ("12--4", 0, "'12--4': '-' must be followed by a distance"),
    ("12", 0, "'12' gives no distance ('-5') or destination ('>VIII')"),
    ("6>off-1", 0, "'6>off-1' moves on after bearing off"),
    ("12-7", 0, "'12-7': a distance is 1..6, got '7'"),
    ("12-0", 0, "'12-0': a distance is 1..6, got '0'"),
    ("12>XII", 0, "'12>XII' does not move forward for White"),
    ("XII>12", 1, "'XII>12' does not move forward for Black"),
])
def test_line_notation_errors(text, side, why):
    with pytest.raises(LineNotationError) as err:
        parse_lines(text, side)
    assert str(err.value) == why


def test_line_notation_ranges():
    assert parse_lines("12-6", 0) == [(12, 6, False)] and parse_lines("12-1", 0) == [(12, 11, False)]
    assert parse_lines("1-3", 0) == [(1, 0, False)] and parse_lines("1-1", 0) == [(1, 0, False)]
    assert parse_lines("12-4(1)", 0) == [(12, 8, False)]
    assert parse_lines("12-4(4)", 0) == [(12, 8, False)] * 4
    assert parse_lines("-", 0) == [] and parse_lines("12-4,8-1", 0) == [(12, 8, False), (8, 7, False)]


def test_format_lines_chains_entries_and_bear_offs():
    assert format_lines([], 0) == "-"
    assert format_lines([(12, 8, 4, 0), (8, 5, 3, 1)], 0) == "12-4-3*"
    assert format_lines([(12, 8, 4, 0), (13, 9, 4, 0)], 0) == "12-4 XII-4"
    assert format_lines([(3, 1, 2, 0), (1, 0, 1, 0)], 0) == "3-2>off"
    assert format_lines([(3, 1, 2, 0)], 0) == "3-2"
    assert format_lines([(2, 0, 2, 0)], 0) == "2>off"
    assert format_lines([(25, 22, 3, 0), (22, 16, 6, 0)], 0) == "bar>III-6"
    assert format_lines([(25, 24, 1, 1)], 0) == "bar>I*"
    assert format_lines([(24, 18, 6, 0)], 0, LONG) == "1-6"
    assert format_lines([(24, 18, 6, 0)], 1, LONG) == "XII-6"
    assert format_lines([(13, 9, 4, 0), (13, 9, 4, 0), (8, 4, 4, 0), (8, 4, 4, 0)], 0) == \
        "XII-4(2) 8-4(2)"
