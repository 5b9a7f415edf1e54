"""Position text forms and standard move notation: round trips and clear errors."""

import random

import pytest

from rulesutil import Position, Turn, get_rules, pos_from
from firmware.rules import PositionError
from firmware.rules.notation import NotationError, apply_move_text, format_steps, parse_move
from test_rules_properties import random_position

BG = get_rules("backgammon")


def test_start_position_text():
    start = BG.start_position()
    assert str(start) == "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move"
    assert Position.parse(str(start)) == start
    assert Position.decode(start.encode()) == start


@pytest.mark.parametrize("variant", ["backgammon", "long", "persian", "jacquet"])
def test_text_forms_round_trip(variant):
    rules = get_rules(variant)
    rng = random.Random(7)
    for _ in range(200):
        pos = random_position(rules, rng)
        assert Position.parse(str(pos)) == pos
        assert Position.decode(pos.encode()) == pos


@pytest.mark.parametrize("text,why", [
    ("white 24:2; black 24:2", "to move"),
    ("white 25:2; black 24:2; white to move", "outside"),
    ("white 24:x; black 24:2; white to move", "not a number"),
    ("white 24:2 24:3; black 24:2; white to move", "twice"),
    ("red 24:2; black 24:2; white to move", "white or black"),
    ("white 24:16; black 24:2; white to move", "outside 0..15"),
])
def test_bad_position_text_is_refused_with_a_reason(text, why):
    with pytest.raises(PositionError) as err:
        Position.parse(text)
    assert why in str(err.value)


@pytest.mark.parametrize("text", ["", "0" * 52, "g" * 53, "0" * 52 + "2"])
def test_bad_compact_form_is_refused(text):
    with pytest.raises(PositionError):
        Position.decode(text)


@pytest.mark.parametrize("text,parsed", [
    ("24/18 13/11*", [(24, 18, False), (13, 11, True)]),
    ("bar/22", [(25, 22, False)]),
    ("6/off", [(6, 0, False)]),
    ("25/21 4/0", [(25, 21, False), (4, 0, False)]),
    ("8/5(2)", [(8, 5, False), (8, 5, False)]),
    ("13/10*/7", [(13, 10, True), (10, 7, False)]),
    ("bar/21*", [(25, 21, True)]),
])
def test_parse_move(text, parsed):
    assert parse_move(text) == parsed


@pytest.mark.parametrize("text", ["24-18", "18/24", "24/18(9)", "24/x", "26/20", "24/18(2"])
def test_bad_move_text(text):
    with pytest.raises(NotationError):
        parse_move(text)


@pytest.mark.parametrize("steps,text", [
    ([(24, 18, 6, 0), (13, 11, 2, 1)], "24/18 13/11*"),
    ([(13, 10, 3, 1), (10, 7, 3, 0)], "13/10*/7"),
    ([(13, 10, 3, 0), (10, 7, 3, 0)], "13/7"),
    ([(8, 4, 4, 0), (8, 4, 4, 0), (6, 2, 4, 0), (6, 2, 4, 0)], "8/4(2) 6/2(2)"),
    ([(25, 22, 3, 0), (6, 0, 6, 0)], "bar/22 6/off"),
    ([(13, 12, 1, 0), (13, 12, 1, 0), (12, 11, 1, 0), (12, 11, 1, 0)], "13/11(2)"),
    ([(25, 22, 3, 0), (25, 22, 3, 0), (4, 1, 3, 1), (4, 1, 3, 0)], "bar/22(2) 4/1*(2)"),
    ([(4, 1, 3, 0), (4, 1, 3, 1)], "4/1*(2)"),
])
def test_format_steps(steps, text):
    assert format_steps(steps) == text


def test_every_formatted_play_reads_back_to_its_position():
    rng = random.Random(3)
    for variant in ("backgammon", "long", "persian"):
        rules = get_rules(variant)
        for _ in range(150):
            pos = random_position(rules, rng)
            turn = Turn(rules, pos, (rng.randint(1, 6), rng.randint(1, 6)))
            for play in turn.plays():
                t = Turn(rules, pos, (turn.hi, turn.lo))
                for s, _d, die, _h in play:
                    t.push(s, die)
                assert apply_move_text(rules, pos, format_steps(play)) == t.position()


def test_apply_move_text_refuses_a_missing_checker():
    pos = pos_from(BG, {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    with pytest.raises(NotationError):
        apply_move_text(BG, pos, "12/6")
