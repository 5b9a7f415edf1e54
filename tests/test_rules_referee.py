"""The referee's path: ``Turn.check(final)`` and ``Turn.explain_step`` give the rule a play or a step
breaks, word for word (the board shows these texts). Each expectation is worked out by hand from
rules.md; the comments say why (pips of the mover, the opponent given in its own pips)."""

import pytest

from rulesutil import Position, Turn, get_rules, pos_from
from firmware.rules import IllegalStep
from firmware.rules.notation import apply_move_text

BG = get_rules("backgammon")
LONG = get_rules("long")
EACH = get_rules("long", block_check="every_step")
FA = get_rules("persian")
START = {24: 2, 13: 5, 8: 3, 6: 5}
S2 = ({24: 1, 1: 14}, {12: 2, 3: 13})        # closed: the mover's 13 and 22; 6-5 plays one die
MORE = "(play as many dice as possible)"


def _final(rules, pos, text):
    return apply_move_text(rules, pos, text)


def _moved(pos, *moves):
    """The position with the mover's checkers moved src -> dst as given, nothing else checked
    (a referee may be shown any board)."""
    out = pos.copy()
    me = pos.turn * 26
    for src, dst in moves:
        out.board[me + src] -= 1
        out.board[me + dst] += 1
    return out


CHECK = [
    # id, rules, mover, opponent, dice, final (move text), reason
    ("no move while both dice play", BG, START, START, (6, 5), "",
     "no checker was moved, but 2 dice can be played " + MORE),
    ("no move while one die plays", BG, S2[0], S2[1], (6, 5), "",
     "no checker was moved, but 1 die can be played " + MORE),
    ("not the dice (the roll named high-low)", BG, START, START, (5, 6), [(24, 11)],
     "the checkers did not move by the dice 6-5 (no sequence of steps leads there)"),
    ("one die of two", BG, START, START, (6, 5), "24/18",
     "it plays 1 die, but 2 can be played " + MORE),
    ("two dice of a double's four", BG, START, START, (6, 6), "24/18(2)",
     "it plays 2 dice, but 4 can be played " + MORE),
    ("five sixes for a double's four", BG, START, START, (6, 6), "24/18(2) 13/7(2) 8/2",
     "the checkers did not move by the dice 6-6 (no sequence of steps leads there)"),
    # 24/23/21: 24/22 first lands on the opponent's checker; 24/23 first plays, but 21..16 is
    # then a block of six with every opponent behind it: the block is the reason given
    ("the block outranks a closed point", LONG, {24: 2, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1, 1: 8},
     {10: 1, 24: 14}, (2, 1), [(24, 21)],
     "it builds a block of six points with no opposing checker ahead of it"),
    ("three dice of a double's four", BG, START, START, (6, 6), "24/18(2) 13/7",
     "it plays 3 dice, but 4 can be played " + MORE),
    ("the smaller die when only one plays", BG, S2[0], S2[1], (6, 5), "24/19",
     "only one die can be played and it must be the larger (6)"),
    ("both ways land on a closed point", BG, S2[0], S2[1], (6, 5), [(24, 13)],
     "point 13 is closed: the opponent holds it"),
    ("the bar first", BG, {"bar": 1, 13: 14}, {6: 15}, (6, 5), "13/7 13/8",
     "a checker on the bar must enter before any other checker moves"),
    ("bearing off before all are home", BG, START, START, (6, 5), "6/off 13/8",
     "bearing off needs every checker home first"),
    # 3/off with the 4 while 6 is still held, whichever die 6/1 used
    ("higher die bears off past a higher checker", BG, {6: 2, 3: 1}, {1: 15}, (5, 4), "6/1 3/off",
     "a 4 bears off from 3 only when no checker stands higher (on 6)"),
    # long nardy, not the first turn: one checker off the head
    ("two checkers off the head", LONG, {24: 14, 10: 1}, {24: 14, 5: 1}, (3, 2), "24/21 24/22",
     "only 1 checker may leave the head this turn"),
    ("takhteh: leaving the point just hit in the home board", FA, {6: 1, 13: 14}, {21: 1, 1: 14},
     (3, 2), "6/4*/1",
     "a checker may not leave point 4 after hitting there in the home board (no hit-and-lift)"),
    # the block 24..19 of the six-block tests, made by 24/23 22/20 with every opponent behind it
    ("six-block on the final position", LONG, {24: 2, 22: 2, 21: 1, 20: 1, 19: 1, 1: 8}, {24: 15},
     (2, 1), "24/23 22/20",
     "it builds a block of six points with no opposing checker ahead of it"),
    # every_step: 24/23 first stands six points 24..19 for a moment; 22/20 first does not
    # (and then 24/23 still makes the block on the final position)
    # ... and under every_step the last step, 24/23, stands it whichever order
    ("every_step: the six-block at the last step", EACH,
     {24: 2, 22: 2, 21: 1, 20: 1, 19: 1, 1: 8}, {24: 15}, (2, 1), "24/23 22/20",
     "24/23 builds a block of six points with no opposing checker ahead of it"),
]


@pytest.mark.parametrize("name,rules,mover,opp,dice,text,why", CHECK, ids=[c[0] for c in CHECK])
def test_check_names_the_rule_broken(name, rules, mover, opp, dice, text, why):
    pos = pos_from(rules, mover, opp)
    final = _moved(pos, *text) if isinstance(text, list) else _final(rules, pos, text) if text \
        else pos.copy()
    turn = Turn(rules, pos, dice)
    assert turn.check(final) == (False, why)
    assert turn.depth == 0 and turn.position() == pos          # check() leaves the turn as it was


def test_check_refuses_a_final_with_the_wrong_side_to_move_or_a_wrong_count():
    pos = BG.start_position()
    turn = Turn(BG, pos, (6, 5))
    legal = _final(BG, pos, "24/18 13/8")
    assert turn.check(legal)[0]
    assert turn.check(legal.swapped()) == (False, "the position has the wrong side to move")
    extra = legal.copy()
    extra.board[1] += 1
    assert turn.check(extra) == (False, "white has 16 checkers on the board, bar and tray, not 15")
    short = legal.copy()
    short.board[26 + 6] -= 1
    assert turn.check(short) == (False, "black has 14 checkers on the board, bar and tray, not 15")
    black = BG.start_position(turn=1)
    bturn = Turn(BG, black, (6, 5))
    assert bturn.check(_final(BG, black, "24/13")) == (True, [(24, 18, 6, 0), (18, 13, 5, 0)])
    assert bturn.check(_final(BG, black, "24/13").swapped())[1] == "the position has the wrong side to move"


def test_check_returns_the_steps_of_the_legal_play():
    pos = BG.start_position()
    ok, steps = Turn(BG, pos, (6, 5)).check(_final(BG, pos, "24/18 13/8"))
    assert ok and sorted(steps) == [(13, 8, 5, 0), (24, 18, 6, 0)]
    ok, steps = Turn(BG, pos, (3, 3)).check(_final(BG, pos, "8/5(2) 6/3(2)"))
    assert ok and steps == [(8, 5, 3, 0), (8, 5, 3, 0), (6, 3, 3, 0), (6, 3, 3, 0)]
    closed = pos_from(BG, {"bar": 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 5})
    assert Turn(BG, closed, (6, 4)).check(closed.copy()) == (True, [])


def test_check_in_mid_turn_judges_from_the_start_and_keeps_the_steps():
    pos = BG.start_position()
    turn = Turn(BG, pos, (6, 5))
    turn.push(24, 6)
    assert turn.check(_final(BG, pos, "13/8 13/7")) == (True, [(13, 7, 6, 0), (13, 8, 5, 0)])
    assert turn.check(_final(BG, pos, "24/18")) == (False, "it plays 1 die, but 2 can be played " + MORE)
    assert turn.steps == [(24, 18, 6, 0)]
    assert turn.dice_left() == [5]
    turn.push(18, 5)
    assert turn.complete() and turn.check(turn.position())[0]
    assert turn.steps == [(24, 18, 6, 0), (18, 13, 5, 0)]


def test_check_every_step_doubles_finds_the_order_that_never_stands_a_block():
    pos = pos_from(EACH, {24: 2, 22: 2, 21: 1, 20: 1, 19: 1, 10: 8}, {24: 15})
    # 1-1: 24/23 first stands 24..19 at once (every opponent is behind, on the mover's 12);
    # 19/18 first opens 19, then 24/23 makes only 24..20; 18/17/16 goes on
    final = _moved(pos, (19, 18), (24, 23), (18, 17), (17, 16))
    assert (23, 1) not in Turn(EACH, pos, (1, 1)).targets(24)
    ok, steps = Turn(EACH, pos, (1, 1)).check(final)
    assert ok and sorted(steps) == \
        sorted([(19, 18, 1, 0), (24, 23, 1, 0), (18, 17, 1, 0), (17, 16, 1, 0)])
    assert steps[0] != (24, 23, 1, 0)
    assert final.key() in set(p.key() for p in Turn(EACH, pos, (1, 1)).finals())
    # judged on the final position only, the canonical order is enough
    ok, steps = Turn(LONG, pos, (1, 1)).check(final)
    assert ok and steps[0] == (24, 23, 1, 0)


def test_check_every_step_doubles_tries_an_order_that_starts_after_a_repeated_step():
    # 1-1 taking two checkers 23/22 and one 18/17/16: any order starting 23/22 stands 23..18
    # for a moment (every opponent behind it, on the mover's 12); starting 18/17 it never does
    pos = pos_from(EACH, {23: 3, 21: 1, 20: 1, 19: 1, 18: 1, 10: 8}, {24: 15})
    final = _moved(pos, (23, 22), (23, 22), (18, 16))
    ok, steps = Turn(EACH, pos, (1, 1)).check(final)
    assert ok and steps[0] == (18, 17, 1, 0)


def test_check_names_the_first_turn_head_limit_of_two():
    pos = LONG.start_position()
    turn = Turn(LONG, pos, (6, 6), first_turn=True)
    final = _moved(pos, (24, 18), (24, 18), (24, 18))
    assert turn.check(final) == (False, "only 2 checkers may leave the head this turn")


EXPLAIN = [
    # id, rules, position (mover, opponent), dice, steps first played, (src, die), reason
    ("legal", BG, (START, START), (6, 5), [], (24, 6), "the step is legal"),
    ("no checker there", BG, (START, START), (6, 5), [], (23, 6), "there is no checker on 23"),
    ("no checker on the bar", BG, (START, START), (6, 5), [], (25, 6), "there is no checker on bar"),
    ("no such point", BG, (START, START), (6, 5), [], (0, 6), "no such point 0"),
    ("no such point above the bar", BG, (START, START), (6, 5), [], (26, 6), "no such point 26"),
    ("a die used", BG, (START, START), (6, 5), [(24, 6)], (13, 6), "the die 6 is already used"),
    ("a die not rolled", BG, (START, START), (6, 5), [], (13, 3), "no die shows 3 (the roll is 6-5)"),
    ("a die not rolled, a double", BG, (START, START), (2, 2), [], (13, 5),
     "no die shows 5 (the roll is 2-2)"),
    ("a double's four used", BG, (START, START), (1, 1), [(8, 1), (8, 1), (6, 1), (6, 1)],
     (13, 1), "more steps than the dice allow"),
    ("closed", BG, (START, START), (6, 5), [], (24, 5), "point 19 is closed: the opponent holds it"),
    ("from point 1", BG, S2, (6, 5), [], (1, 6), "bearing off needs every checker home first"),
    ("the smaller die alone", BG, S2, (6, 5), [], (24, 5),
     "only one die can be played and it must be the larger (6)"),
    # 18/15 leaves the 6 unplayable (14, 9, 5 closed; 4 cannot bear off) while 20/17/11 plays both
    ("the rest cannot be played", BG, ({20: 3, 18: 1, 11: 4, 4: 7}, {20: 4, 17: 4, 16: 4, 11: 2}),
     (3, 6), [], (18, 3), "after it the rest of the roll cannot be played, but a play using 2 dice exists"),
    # long: 8/3 leaves the 4 unplayable (15/11 lands on the opponent's 23 point, 3/off while 15 is
    # out) while 15/10/6 plays both
    ("long: the rest cannot be played", LONG, ({15: 2, 8: 1}, {23: 3, 21: 3, 10: 5, 5: 1}), (4, 5),
     [], (8, 5), "after it no legal play remains (play as many dice as possible; no six-point block "
     "ahead of every opposing checker)"),
    ("long: head", LONG, ({24: 14, 10: 1}, {24: 14, 5: 1}), (3, 2), [(24, 3)], (24, 2),
     "only 1 checker may leave the head this turn"),
    ("every_step: a momentary block", EACH, ({24: 2, 22: 2, 21: 1, 20: 1, 19: 1, 1: 8}, {24: 15}),
     (2, 1), [], (24, 1), "24/23 builds a block of six points with no opposing checker ahead of it"),
    ("takhteh: the hitter stays", FA, ({6: 1, 13: 14}, {21: 1, 1: 14}), (3, 2), [(6, 2)], (4, 3),
     "a checker may not leave point 4 after hitting there in the home board (no hit-and-lift)"),
]


@pytest.mark.parametrize("name,rules,where,dice,before,step,why", EXPLAIN, ids=[c[0] for c in EXPLAIN])
def test_explain_step_and_push_name_the_rule(name, rules, where, dice, before, step, why):
    pos = pos_from(rules, where[0], where[1])
    turn = Turn(rules, pos, dice)
    for s, d in before:
        turn.push(s, d)
    steps = turn.steps
    assert turn.explain_step(*step) == why
    assert turn.steps == steps                       # explaining plays nothing
    if why != "the step is legal":
        with pytest.raises(IllegalStep) as err:
            turn.push(*step)
        assert err.value.reason == why == str(err.value)
        assert turn.steps == steps


def test_black_to_move_is_refereed_in_its_own_pips():
    text = "white 20:3 18:1 11:4 4:7; black 20:4 17:4 16:4 11:2 off:1; black to move"
    pos = Position.parse(text)
    turn = Turn(BG, pos, (6, 6))
    assert turn.side == 1
    assert turn.check(pos.swapped()) == (False, "the position has the wrong side to move")
