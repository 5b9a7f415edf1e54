"""Game flow: opening roll per variant, the matador sequence, the cube, the result, the match."""

import pytest

from rulesutil import get_rules, pos_from
from firmware.rules.game import (Game, GameError, Match, ROLL, MOVE, DOUBLET, OVER, MATADOR,
                                 CHOSEN, NORMAL)


@pytest.mark.parametrize("variant,dice,phase,starter", [
    ("backgammon", (5, 2), MOVE, 0),       # the starter plays the two opening dice
    ("short", (2, 5), MOVE, 1),
    ("persian", (5, 2), MOVE, 0),          # T1: no re-throw in takhteh
    ("long", (5, 2), ROLL, 0),             # seed 002: the starter throws again
    ("jacquet", (6, 1), MOVE, 0),
])
def test_opening_roll(variant, dice, phase, starter):
    game = Game(get_rules(variant))
    assert game.opening_roll(3, 3) is None          # a tie: throw again
    assert game.opening_roll(*dice) == starter
    assert game.phase == phase and game.side == starter
    if phase == MOVE:
        assert (game.turn.hi, game.turn.lo) == (max(dice), min(dice))


def test_long_use_opening_dice_option():
    game = Game(get_rules("long", opening="use_opening_dice"))
    game.opening_roll(6, 4)
    assert game.phase == MOVE


def test_parity_opening():
    game = Game(get_rules("persian", opening="parity"))
    assert game.opening_parity(1, True, 4) == 1
    assert game.phase == ROLL
    with pytest.raises(GameError):
        Game(get_rules("persian")).opening_parity(0, True, 4)


def _play_first(game):
    plays = game.turn.plays()
    for s, _d, die, _h in plays[0]:
        game.turn.push(s, die)
    return game.commit()


def test_M1_matador_then_a_chosen_doublet_then_a_new_roll():
    game = Game(get_rules("matador"))
    game.opening_roll(2, 5)                 # Black starts, throws again? no: plays 5-2
    assert game.side == 1
    assert _play_first(game)[0]
    assert game.side == 0 and game.phase == ROLL
    game.roll(4, 3)
    assert game.kind == MATADOR
    assert _play_first(game)[0]
    assert game.phase == DOUBLET and game.side == 0
    game.choose_doublet(6)
    assert game.kind == CHOSEN and (game.turn.hi, game.turn.lo) == (6, 6)
    assert _play_first(game)[0]
    assert game.phase == ROLL and game.side == 0      # the same player throws again
    game.roll(5, 2)
    assert game.kind == NORMAL
    _play_first(game)
    assert game.side == 1
    kinds = [h["kind"] for h in game.history]
    assert kinds == [NORMAL, MATADOR, CHOSEN, NORMAL]


def test_M3_opening_four_three_is_a_matador():
    game = Game(get_rules("matador"))
    game.opening_roll(4, 3)
    assert game.kind == MATADOR
    game = Game(get_rules("matador", opening_matador="off"))
    game.opening_roll(4, 3)
    assert game.kind == NORMAL


def test_M2_M4_literal_goes_on_forfeit_stops_when_the_matador_is_not_played_in_full():
    rules = get_rules("matador")
    forfeit = get_rules("matador", matador_forfeit="on")
    # White can play only the 4 (5/1): 13/10, 13/9 and 5/2 are closed
    for r, expect in ((rules, DOUBLET), (forfeit, ROLL)):
        game = Game(r)
        game.pos = pos_from(r, {5: 1, 13: 14}, {15: 2, 16: 2, 23: 2, 1: 9})
        game.phase = ROLL
        game.roll(4, 3)
        assert game.turn.max_steps == 1
        assert _play_first(game)[0]
        assert game.phase == expect
        assert game.side == (0 if expect == DOUBLET else 1)


def test_commit_refuses_an_illegal_final_position_and_changes_nothing():
    game = Game(get_rules("backgammon"))
    game.opening_roll(6, 5)
    before = game.pos.copy()
    bad = before.copy()
    bad.board[24] -= 1
    bad.board[13] += 1                      # 24/13 with 6-5 is legal
    assert game.commit(bad)[0]
    game2 = Game(get_rules("backgammon"))
    game2.opening_roll(6, 5)
    wrong = before.copy()
    wrong.board[24] -= 1
    wrong.board[12] += 1                    # 24/12: not the dice
    ok, why = game2.commit(wrong)
    assert not ok and "dice" in why
    assert game2.phase == MOVE and game2.pos == before


def test_game_end_scores_with_the_cube():
    rules = get_rules("backgammon")
    game = Game(rules)
    game.pos = pos_from(rules, {1: 1, "off": 14}, {20: 1, 6: 14})
    game.phase = ROLL
    game.double(0)
    game.take()
    assert game.cube == 2 and game.cube_owner == 1
    assert not game.can_double(0)
    game.roll(6, 5)
    _play_first(game)
    assert game.phase == OVER and game.winner == 0 and game.points == 6   # backgammon x cube 2


def test_drop_scores_the_cube_before_the_double():
    game = Game(get_rules("backgammon"))
    game.opening_roll(6, 5)
    _play_first(game)
    game.double(1)
    game.drop()
    assert game.winner == 1 and game.points == 1


def test_S17_crawford_game_then_post_crawford():
    rules = get_rules("backgammon")
    match = Match(rules, 7)

    def finish(winner, points):
        g = match.new_game()
        crawford = g.crawford
        g.time_out(1 - winner, points)      # any number of points (a resignation scores 1..3)
        match.record(g)
        return crawford

    assert finish(1, 3) is False
    assert finish(0, 6) is False            # 6-3: the next game is the Crawford game
    assert match.crawford_next
    g = match.new_game()
    assert g.crawford and not g.can_double(g.side)
    g.resign(0, 1)
    match.record(g)                         # 6-4
    g = match.new_game()
    assert not g.crawford                   # post-Crawford
    g.resign(1, 1)
    match.record(g)
    assert match.over() and match.winner() == 0


def test_no_cube_in_variants_without_one():
    game = Game(get_rules("persian"))
    game.opening_roll(6, 5)
    _play_first(game)
    assert not game.can_double(game.side)
    with pytest.raises(GameError):
        game.double(game.side)


def test_match_state_round_trips_through_plain_data():
    rules = get_rules("backgammon")
    match = Match(rules, 5)
    g = match.new_game()
    g.time_out(1, 4)
    match.record(g)                          # 4-0: the next game is the Crawford game
    saved = match.state()
    other = Match(rules, 5)
    other.restore(saved)
    assert other.score == [4, 0] and other.crawford_next and other.new_game().crawford
    assert not other.new_game().crawford     # the Crawford game happens once


def test_a_time_out_gives_the_opponent_the_points_and_ends_the_game():
    g = Game(get_rules("backgammon"))
    g.opening_roll(5, 2)
    g.time_out(0, 3)                 # White's reserve ran out
    assert (g.phase, g.winner, g.points, g.result) == (OVER, 1, 3, "time")
    with pytest.raises(GameError):
        g.time_out(1, 1)             # the game is over
    with pytest.raises(GameError):
        Game(get_rules("short")).time_out(1, 0)
