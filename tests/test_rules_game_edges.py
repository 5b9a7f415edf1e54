"""Game and Match at their edges: what a new game holds, each phase's refusals word for word, die
ranges, an incomplete commit, the record of each turn, the first-turn head exception driven through
Game, the matador's chosen doublet with and without forfeit, the cube's records, resignations,
time-outs and the match score, Crawford and its saved state."""

import pytest

from rulesutil import get_rules, pos_from
from firmware.rules.game import (Game, GameError, Match, OPENING, ROLL, MOVE, DOUBLET, DOUBLED, OVER,
                                 MATADOR, CHOSEN, NORMAL)

BG = get_rules("backgammon")


def _play(game, *steps):
    for s, d in steps:
        game.turn.push(s, d)
    return game.commit()


def test_a_new_game():
    g = Game(BG)
    assert (g.phase, g.turn, g.kind, g.dice, g.played) == (OPENING, None, NORMAL, None, [0, 0])
    assert (g.cube, g.cube_owner, g.winner, g.points, g.result) == (1, -1, -1, 0, "")
    assert (g.opening, g.history, g.crawford) == ([], [], False)
    assert g.pos == BG.start_position() and g.cube_allowed is True
    assert Game(get_rules("short")).cube_allowed is False
    assert Game(get_rules("short"), cube=True).cube_allowed is True
    assert Game(BG, cube=False).cube_allowed is False
    assert Game(BG, crawford=True).crawford is True


@pytest.mark.parametrize("action,why", [
    (lambda g: g.roll(3, 1), "not now: the game is in phase 'opening', this needs roll"),
    (lambda g: g.commit(), "not now: the game is in phase 'opening', this needs move"),
    (lambda g: g.commit_condoned(g.pos, "x"), "not now: the game is in phase 'opening', this needs move"),
    (lambda g: g.choose_doublet(6), "not now: the game is in phase 'opening', this needs doublet"),
    (lambda g: g.take(), "not now: the game is in phase 'opening', this needs doubled"),
    (lambda g: g.drop(), "not now: the game is in phase 'opening', this needs doubled"),
    (lambda g: g.double(0), "side 0 may not double now"),
])
def test_each_action_outside_its_phase_is_refused_and_changes_nothing(action, why):
    g = Game(BG)
    with pytest.raises(GameError) as err:
        action(g)
    assert str(err.value) == why
    assert g.phase == OPENING and g.history == [] and g.pos == BG.start_position()


def test_the_opening_needs_the_opening_phase():
    g = Game(BG)
    g.opening_roll(6, 5)
    with pytest.raises(GameError) as err:
        g.opening_roll(6, 5)
    assert str(err.value) == "not now: the game is in phase 'move', this needs opening"
    with pytest.raises(GameError):
        g.opening_parity(0, True, 2)


@pytest.mark.parametrize("dice,bad", [((0, 3), 0), ((3, 7), 7), ((7, 7), 7), ((-1, 1), -1)])
def test_die_ranges_of_the_opening_and_the_roll(dice, bad):
    g = Game(BG)
    with pytest.raises(GameError) as err:
        g.opening_roll(*dice)
    assert str(err.value) == "a die shows 1..6, got %r" % bad and g.opening == []
    g.opening_roll(1, 6)                                     # the ends of the range
    assert g.side == 1
    _play(g, *[(s, d) for s, _t, d, _h in g.turn.plays()[0]])
    with pytest.raises(GameError) as err:
        g.roll(*dice)
    assert str(err.value) == "a die shows 1..6, got %r" % bad and g.phase == ROLL
    assert g.roll(6, 1).hi == 6


def test_the_opening_keeps_every_throw_and_plays_the_winners_dice_high_first():
    g = Game(BG)
    assert g.opening_roll(4, 4) is None and g.phase == OPENING
    assert g.opening_roll(2, 5) == 1
    assert g.opening == [(4, 4), (2, 5)] and g.dice == (5, 2) and g.kind == NORMAL
    m = Game(get_rules("matador"))
    assert m.opening_roll(3, 4) == 1 and m.kind == MATADOR and m.dice == (4, 3)


@pytest.mark.parametrize("caller,even,die,starter", [
    (0, True, 4, 0), (0, True, 3, 1), (1, False, 3, 1), (1, False, 6, 0), (0, False, 1, 0),
    (1, True, 6, 1),
])
def test_parity_opening(caller, even, die, starter):
    g = Game(get_rules("persian", opening="parity"))
    assert g.opening_parity(caller, even, die) == starter
    assert (g.side, g.phase, g.opening) == (starter, ROLL, [])


@pytest.mark.parametrize("die", [0, 7])
def test_parity_die_range_and_variants_without_it(die):
    g = Game(get_rules("persian", opening="parity"))
    with pytest.raises(GameError) as err:
        g.opening_parity(0, True, die)
    assert str(err.value) == "a die shows 1..6, got %d" % die and g.phase == OPENING
    with pytest.raises(GameError) as err:
        Game(BG).opening_parity(0, True, 2)
    assert str(err.value) == "backgammon does not use the parity opening"


def test_commit_of_an_incomplete_play_changes_nothing():
    g = Game(BG)
    g.opening_roll(6, 5)
    assert g.commit() == (False, "the play is not complete: 0 of 2 dice played")
    g.turn.push(24, 6)
    assert g.commit() == (False, "the play is not complete: 1 of 2 dice played")
    assert (g.phase, g.side, g.played, g.history) == (MOVE, 0, [0, 0], [])
    assert g.pos == BG.start_position() and g.turn.steps == [(24, 18, 6, 0)]
    g.turn.push(18, 5)
    assert g.commit() == (True, [(24, 18, 6, 0), (18, 13, 5, 0)])


def test_each_commit_is_recorded_and_hands_the_dice_over():
    g = Game(BG)
    g.opening_roll(6, 5)
    ok, steps = _play(g, (24, 6), (18, 5))
    assert ok and g.history == [{"side": 0, "dice": (6, 5), "kind": NORMAL, "steps": steps,
                                 "condoned": None}]
    assert (g.phase, g.side, g.turn, g.played) == (ROLL, 1, None, [1, 0])
    assert g.pos.count(0, 24) == 1 and g.pos.count(0, 13) == 6
    g.roll(2, 1)
    final = g.turn.start.copy()                 # an illegal play the opponent let stand: no move
    assert g.commit_condoned(final, "no checker was moved") == (True, None)
    assert g.history[-1] == {"side": 1, "dice": (2, 1), "kind": NORMAL, "steps": None,
                             "condoned": "no checker was moved"}
    assert (g.phase, g.side, g.played) == (ROLL, 0, [1, 1])


def test_the_first_turn_head_exception_through_game():
    long = get_rules("long")
    g = Game(long)
    assert g.opening_roll(5, 2) == 0 and g.phase == ROLL        # the starter throws again
    g.roll(6, 6)
    assert g.turn.first_turn and g.turn.max_steps == 2           # 24/18(2): two off the head
    assert _play(g, (24, 6), (24, 6))[0]
    g.roll(6, 6)                                                 # Black's own first turn
    assert g.side == 1 and g.turn.first_turn and g.turn.max_steps == 2
    assert _play(g, (24, 6), (24, 6))[0]
    assert g.played == [1, 1]
    g.roll(6, 6)                                                 # White's second: one only
    assert not g.turn.first_turn and g.turn.max_steps == 1
    assert g.turn.targets(24) == [(18, 6)]
    assert _play(g, (24, 6))[0] and g.played == [2, 1]


def test_a_long_nardy_first_turn_by_the_opening_dice_is_never_a_double():
    g = Game(get_rules("long", opening="use_opening_dice"))
    g.opening_roll(3, 6)
    assert g.side == 1 and g.phase == MOVE and g.turn.first_turn and g.dice == (6, 3)


def _matador_game(forfeit):
    rules = get_rules("matador", matador_forfeit="on" if forfeit else "off")
    g = Game(rules)
    # the 13/10, 13/9 and 5/2 points are closed: a 4-3 plays only 5/1, a 3-3 nothing
    g.pos = pos_from(rules, {5: 1, 13: 14}, {15: 2, 16: 2, 23: 2, 1: 9})
    g.phase = ROLL
    return g


@pytest.mark.parametrize("forfeit", [False, True])
def test_a_chosen_doublet_not_played_in_full(forfeit):
    g = _matador_game(forfeit)
    g.phase = DOUBLET
    for bad in (0, 7):
        with pytest.raises(GameError) as err:
            g.choose_doublet(bad)
        assert str(err.value) == "a doublet is 1-1 .. 6-6, got %d" % bad
    g.choose_doublet(3)
    assert g.kind == CHOSEN and g.turn.max_steps == 0
    assert g.commit() == (True, [])
    # literal: the same player throws again; forfeit: an unplayed doublet ends the sequence
    assert (g.phase, g.side) == (ROLL, 1 if forfeit else 0)


@pytest.mark.parametrize("forfeit", [False, True])
def test_a_chosen_doublet_played_in_full_throws_again(forfeit):
    g = _matador_game(forfeit)
    g.phase = DOUBLET
    g.choose_doublet(1)                                   # 13/12(4): every one plays
    assert g.turn.max_steps == 4
    assert _play(g, (13, 1), (13, 1), (13, 1), (13, 1))[0]
    assert (g.phase, g.side, g.history[-1]["kind"]) == (ROLL, 0, CHOSEN)
    assert g.roll(6, 6).hi == 6 and g.kind == NORMAL


@pytest.mark.parametrize("forfeit", [False, True])
def test_a_matador_played_in_full_asks_for_the_doublet(forfeit):
    g = _matador_game(forfeit)
    g.pos = pos_from(g.rules, {13: 15}, {1: 15})
    g.roll(3, 4)
    assert g.kind == MATADOR and g.turn.max_steps == 2
    assert _play(g, (13, 4), (13, 3))[0]
    assert (g.phase, g.side) == (DOUBLET, 0)


def test_bearing_off_the_last_checker_ends_the_game():
    g = Game(get_rules("short"))
    g.pos = pos_from(g.rules, {2: 1, 1: 1, "off": 13}, {9: 1, 6: 14})
    g.phase = ROLL
    g.roll(2, 1)
    assert _play(g, (2, 2), (1, 1))[0]
    assert (g.phase, g.winner, g.points, g.result) == (OVER, 0, 4, "bearoff")   # x4: one not home
    assert g.played == [1, 0] and len(g.history) == 1 and g.turn is None
    with pytest.raises(GameError):
        g.roll(1, 2)


def test_the_cube_take_and_drop_are_recorded():
    g = Game(BG)
    g.opening_roll(6, 5)
    _play(g, (24, 6), (18, 5))
    assert g.can_double(1) and not g.can_double(0)
    g.double(1)
    assert g.phase == DOUBLED and not g.can_double(1)
    g.take()
    assert (g.cube, g.cube_owner, g.phase) == (2, 0, ROLL)
    assert g.history[-1] == {"side": 0, "cube": "take", "value": 2}
    assert not g.can_double(1)                             # White owns the cube now
    g.roll(2, 1)
    _play(g, *[(s, d) for s, _t, d, _h in g.turn.plays()[0]])
    assert g.can_double(0)                                 # the owner may redouble
    g.double(0)
    g.take()                                               # redoubled and taken: 4, Black's
    assert (g.cube, g.cube_owner) == (4, 1)
    assert g.history[-1] == {"side": 1, "cube": "take", "value": 4}
    g.roll(2, 1)
    _play(g, *[(s, d) for s, _t, d, _h in g.turn.plays()[0]])
    g.double(1)                                            # Black redoubles, White drops
    g.drop()
    assert g.history[-1] == {"side": 0, "cube": "drop", "value": 4}
    assert (g.phase, g.winner, g.points, g.result) == (OVER, 1, 4, "drop")


@pytest.mark.parametrize("length,score,cube,owner,side,may", [
    # (match length, score, cube, its owner, the side asking, may it double); the cube is dead
    # once it is worth what its owner still needs (gnubg: "The cube is dead")
    (5, (0, 0), 4, 1, 1, True),       # Black needs 5, the cube is at 4: a double to 8 counts
    (5, (0, 0), 8, 1, 1, False),      # ... at 8 it already wins the match: dead
    (5, (0, 1), 4, 1, 1, False),      # Black needs 4, the cube at 4: dead
    (5, (0, 1), 2, 1, 1, True),       # ... at 2 it is alive
    (5, (3, 0), 2, 0, 0, False),      # White needs 2, the cube at 2: dead
    (5, (3, 0), 2, -1, 1, True),      # ... but Black needs 5: Black may still double a centred 2
    (0, (0, 0), 8192, 1, 1, True),    # money play: no cap
    (1, (0, 0), 8192, 1, 1, True),    # the board's 1-point default is a single game: no cap
])
def test_the_cube_is_dead_once_it_is_worth_what_its_owner_needs(length, score, cube, owner, side, may):
    m = Match(BG, length)
    m.score = list(score)
    g = m.new_game()
    g.opening_roll(6, 5)
    _play(g, (24, 6), (18, 5))          # Black to roll
    g.pos.turn = side
    g.cube, g.cube_owner = cube, owner
    assert g.can_double(side) == may
    if not may:
        with pytest.raises(GameError):
            g.double(side)


def test_no_cube_in_the_crawford_game_or_without_a_cube():
    for g in (Game(BG, crawford=True), Game(BG, cube=False)):
        g.opening_roll(6, 5)
        _play(g, (24, 6), (18, 5))
        assert g.phase == ROLL and not g.can_double(1)
        with pytest.raises(GameError):
            g.double(1)


def test_resignations_count_the_cube_and_end_a_turn_in_progress():
    g = Game(BG)
    g.opening_roll(6, 5)
    g.cube = 2
    g.resign(0)
    assert (g.phase, g.winner, g.points, g.result, g.turn) == (OVER, 1, 2, "resign", None)
    with pytest.raises(GameError) as err:
        g.resign(1)
    assert str(err.value) == "the game is over"
    g = Game(BG)
    g.opening_roll(6, 5)
    g.resign(1, 3)
    assert (g.winner, g.points) == (0, 3)


def test_time_out_takes_the_points_given():
    g = Game(BG)
    g.opening_roll(6, 5)
    with pytest.raises(GameError) as err:
        g.time_out(0, 0)
    assert str(err.value) == "a game is won by at least 1 point" and g.phase == MOVE
    g.time_out(0, 1)
    assert (g.winner, g.points, g.result, g.turn) == (1, 1, "time", None)
    other = Game(BG)
    other.opening_roll(6, 5)
    other.time_out(1, 2)
    assert (other.winner, other.points) == (0, 2)
    with pytest.raises(GameError) as err:
        g.time_out(0, 1)
    assert str(err.value) == "the game is over"


def _won(match, winner, points):
    g = match.new_game()
    g.resign(1 - winner, 1)
    g.points = points
    match.record(g)
    return g


def test_match_length_and_an_unlimited_series():
    with pytest.raises(GameError) as err:
        Match(BG, -1)
    assert str(err.value) == "match length must be >= 0"
    series = Match(BG)
    assert (series.length, series.score, series.games) == (0, [0, 0], 0)
    for _ in range(3):
        _won(series, 0, 9)
    assert series.score == [27, 0] and series.games == 3
    assert not series.over() and series.winner() == -1 and not series.crawford_next


def test_match_record_needs_a_finished_game():
    match = Match(BG, 3)
    g = match.new_game()
    with pytest.raises(GameError) as err:
        match.record(g)
    assert str(err.value) == "the game is not over" and match.games == 0


def test_match_end_and_its_winner():
    match = Match(BG, 5)
    _won(match, 1, 2)
    assert not match.over() and match.winner() == -1
    _won(match, 1, 2)                                    # 0-4: the next game is Crawford
    assert match.crawford_next
    g = match.new_game()
    assert g.crawford and not match.crawford_next
    g.resign(0, 1)
    match.record(g)                                       # 0-5: over, Black wins
    assert match.over() and match.winner() == 1 and match.score == [0, 5]
    exact = Match(BG, 1)
    _won(exact, 0, 1)
    assert exact.over() and exact.winner() == 0 and not exact.crawford_next


def test_crawford_only_once_only_with_a_cube_and_not_after_the_match():
    match = Match(BG, 3)
    _won(match, 0, 3)                                     # straight past 2 to the end
    assert match.over() and not match.crawford_next
    short = Match(get_rules("short"), 3)
    _won(short, 0, 2)
    assert not short.crawford_next                        # no cube, no Crawford
    match = Match(BG, 3)
    _won(match, 0, 2)
    assert match.crawford_next
    _won(match, 1, 1)                                     # the Crawford game: 2-1
    assert not match.crawford_next
    _won(match, 1, 1)                                     # 2-2: both at 2, but Crawford is done
    assert not match.crawford_next and not match.new_game().crawford


def test_match_state_and_restore():
    match = Match(BG, 5)
    _won(match, 1, 4)
    assert match.state() == {"score": [0, 4], "games": 1, "crawford_done": False,
                             "crawford_next": True}
    match.new_game()
    assert match.state() == {"score": [0, 4], "games": 1, "crawford_done": True,
                             "crawford_next": False}
    other = Match(BG, 5)
    other.restore(match.state())
    assert other.state() == match.state()
    other.score[0] = 3
    assert match.score == [0, 4]                          # restore copied the list
    old = Match(BG, 5)
    old.restore({"score": [1, 2]})                        # a record from before games were kept
    assert old.state() == {"score": [1, 2], "games": 0, "crawford_done": False,
                           "crawford_next": False}


CLOSED = ({"bar": 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 5})   # on the bar, home board shut


def test_a_closed_out_side_passes_without_a_throw():
    g = Game(BG)
    with pytest.raises(GameError) as err:
        g.pass_turn()
    assert str(err.value) == "not now: the game is in phase 'opening', this needs roll"
    g.pos = pos_from(BG, *CLOSED)
    g.phase = ROLL
    assert g.closed_out()
    g.dice = (6, 5)
    g.pass_turn()
    assert g.history == [{"side": 0, "dice": None, "kind": NORMAL, "steps": [], "condoned": None}]
    assert (g.side, g.phase, g.dice, g.played) == (1, ROLL, None, [1, 0])
    assert not g.closed_out()                  # Black can play
    with pytest.raises(GameError) as err:
        g.pass_turn()
    assert str(err.value) == "side 1 is not closed out: it must throw"
    assert g.side == 1 and len(g.history) == 1 and g.played == [1, 0]


def test_black_closed_out_passes_to_white():
    g = Game(BG)
    g.pos = pos_from(BG, *CLOSED, turn=1)
    g.phase = ROLL
    g.pass_turn()
    assert (g.side, g.played, g.history[-1]["side"]) == (0, [0, 1], 1)


def test_closed_out_counts_the_first_turn_head_exception():
    # long nardy, first turn: 6-6 plays two off the head, so nothing is closed out at the start
    g = Game(get_rules("long"))
    g.opening_roll(5, 2)
    assert not g.closed_out()


def test_only_the_last_entry_is_kept_when_asked():
    g = Game(BG)
    g.keep_history = False
    g.opening_roll(6, 5)
    _play(g, (24, 6), (18, 5))
    g.roll(2, 1)
    _play(g, *[(s, d) for s, _t, d, _h in g.turn.plays()[0]])
    assert len(g.history) == 1 and g.history[0]["side"] == 1 and g.played == [1, 1]


def test_adopting_a_recorded_final_position():
    g = Game(BG)
    g.opening_roll(6, 5)
    final = g.pos.copy()
    final.board[24] -= 1
    final.board[13] += 1
    g.adopt(final, 0)
    assert g.history == [{"side": 0, "dice": None, "kind": NORMAL, "steps": None, "condoned": None}]
    assert (g.side, g.phase, g.turn, g.played) == (1, ROLL, None, [1, 0])
    assert g.pos.count(0, 13) == 6 and g.pos.turn == 1
    m = Game(get_rules("matador"))
    m.opening_roll(2, 5)
    m.adopt(m.pos.copy(), 0, MATADOR)          # a matador turn adopted: its doublet comes next
    assert (m.phase, m.side, m.kind, m.history[-1]["kind"]) == (DOUBLET, 0, MATADOR, MATADOR)
    end = pos_from(BG, {"off": 15}, {6: 15}, turn=1)
    g.adopt(end, 1)
    assert (g.phase, g.winner, g.points, g.result) == (OVER, 1, 2, "bearoff")
    with pytest.raises(GameError) as err:
        g.adopt(end, 0)
    assert str(err.value) == "the game is over"


def test_a_match_game_keeps_its_history_as_asked():
    m = Match(BG, 3)
    assert m.new_game().keep_history is True and m.new_game(False).keep_history is False


def test_adopting_takes_the_cube_the_record_shows():
    g = Game(BG)
    g.opening_roll(6, 5)
    final = g.pos.copy()
    final.board[24] -= 1
    final.board[13] += 1
    g.adopt(final, 0, NORMAL, [4, 1])
    assert (g.cube, g.cube_owner, g.side, g.phase) == (4, 1, 1, ROLL)
    end = pos_from(BG, {"off": 15}, {6: 15}, turn=1)
    g.adopt(end, 1, NORMAL, None)              # no cube on the line: it stays as it was
    assert (g.cube, g.cube_owner, g.points) == (4, 1, 8)   # the cube is in the points


def _opening(g):
    return g


def _moving(g):
    g.opening_roll(6, 5)
    return g


def _doubled(g):
    g.opening_roll(6, 5)
    _play(g, (24, 6), (18, 5))
    g.double(1)
    return g


@pytest.mark.parametrize("variant, before", [("long", _opening), ("long", _moving),
                                             ("backgammon", _doubled)])
def test_a_position_set_from_outside(variant, before):
    g = before(Game(get_rules(variant), cube=True))
    pos = pos_from(g.rules, {24: 15}, {24: 15}, turn=1)
    g.set_position(pos)
    pos.board[24] = 0                          # a copy: the caller's position is its own
    assert (g.phase, g.turn, g.played, g.side) == (ROLL, None, [1, 1], 1)
    assert g.pos.count(0, 24) == 15
    turn = g.roll(6, 6)
    if variant == "long":      # no first turn after it: one checker off the head, blocked at 12
        assert turn.max_steps == 1
