"""Short nardy / backgammon legality: the cases of rules.md §10.1, computed by hand there."""

import pytest

from rulesutil import Turn, expected, get_rules, pos_from, results

BG = get_rules("backgammon")
START = {24: 2, 13: 5, 8: 3, 6: 5}

CASES = [
    # id, mover, opponent (own pips), dice, expected plays
    ("S1 opening 5-1", START, START, (5, 1),
     ["13/8 24/23", "13/8 8/7", "13/8 6/5", "8/3 24/23", "8/3 8/7", "8/3 6/5", "24/18", "8/2"]),
    ("S2 one die only: the larger", {24: 1, 1: 14}, {12: 2, 3: 13}, (6, 5), ["24/18"]),
    ("S3 larger blocked: the smaller", {24: 1, 1: 14}, {12: 2, 7: 2, 3: 11}, (6, 5), ["24/19"]),
    ("S4 order matters, bear-off opened mid-turn", {10: 1, 1: 14}, {16: 2, 1: 13}, (6, 1),
     ["10/4 4/3", "10/4 1/off"]),
    ("S5 same, 3 closed", {10: 1, 1: 14}, {16: 2, 22: 2, 1: 11}, (6, 1), ["10/4 1/off"]),
    ("S6 bear-off judged in the intermediate position", {5: 1, 2: 1}, {1: 15}, (6, 4),
     ["5/off 2/off", "5/1 2/off"]),
    ("S7 no higher-die bear-off while 6 is occupied", {6: 1, 3: 1}, {1: 15}, (5, 4),
     ["6/1 3/off", "6/2 3/off"]),
    ("S8 bear off or move", {6: 1, 1: 1}, {1: 15}, (6, 5), ["6/off 1/off", "6/1 1/off"]),
    ("S9 enter then play freely", {"bar": 2, 13: 13}, {6: 2, 5: 2, 3: 2, 2: 2, 1: 2, 24: 5}, (4, 4),
     ["bar/21(2) 13/9(2)", "bar/21(2) 21/17 13/9", "bar/21(2) 13/9 9/5", "bar/21(2) 21/17/13",
      "bar/21(2) 21/17(2)"]),
    ("S10 enter as many as possible", {"bar": 2, 13: 13}, {6: 2, 4: 2, 3: 2, 2: 2, 1: 2, 24: 5},
     (5, 3), ["bar/20"]),
    ("S11 hit on entry and continue", {"bar": 1, 13: 14}, {6: 2, 4: 1, 24: 12}, (6, 4),
     ["bar/21* 21/15", "bar/21* 13/7"]),
    ("S12 closed out: pass", {"bar": 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 5}, (6, 4), []),
]


@pytest.mark.parametrize("name,mover,opp,dice,plays", CASES, ids=[c[0] for c in CASES])
def test_legal_plays(name, mover, opp, dice, plays):
    pos = pos_from(BG, mover, opp)
    turn = Turn(BG, pos, dice)
    assert results(turn) == expected(BG, pos, plays)
    for variant in ("short", "jacquet"):      # the same rules of movement
        rules = get_rules(variant)
        assert results(Turn(rules, pos, dice)) == expected(rules, pos, plays)


def test_closed_out_has_no_steps_and_the_unchanged_position_is_the_legal_result():
    pos = pos_from(BG, {"bar": 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 5})
    turn = Turn(BG, pos, (6, 4))
    assert turn.max_steps == 0
    assert turn.targets(25) == []
    assert turn.check(pos) == (True, [])


SCORES = [
    # id, loser (own pips), backgammon points, tric-trac points
    ("S13 checker in the winner's home", {20: 1, 6: 14}, 3, 4),
    ("S14 checker in own outer board", {9: 1, 6: 14}, 2, 4),
    ("S15 checker on the bar", {"bar": 1, 6: 14}, 3, 8),
    ("S16 one borne off, one on the bar", {"bar": 1, 6: 13, "off": 1}, 1, 1),
    ("all home, none off", {6: 15}, 2, 2),
    ("in the winner's outer board", {15: 1, 6: 14}, 2, 4),
]


@pytest.mark.parametrize("name,loser,bg,tt", SCORES, ids=[s[0] for s in SCORES])
def test_scoring(name, loser, bg, tt):
    pos = pos_from(BG, {"off": 15}, loser)
    assert get_rules("backgammon").score(pos, 0) == bg
    assert get_rules("short", scoring="backgammon").score(pos, 0) == bg
    assert get_rules("short").score(pos, 0) == tt
    assert get_rules("jacquet").score(pos, 0) == tt


def test_jacquet_start_and_own_pip_one_closed_by_the_opponents_start_stack():
    rules = get_rules("jacquet")
    start = rules.start_position()
    assert start.count(0, 24) == 15 and start.count(1, 24) == 15
    # J2: Black keeps >= 2 on its start point (White's pip 1): White's 3/1 is illegal.
    pos = pos_from(rules, {3: 1, 6: 14}, {24: 15})
    turn = Turn(rules, pos, (2, 1))
    assert (1, 2) not in turn.targets(3)
    # J3: a blot left on the start point is hit by landing there.
    pos = pos_from(rules, {3: 1, 6: 14}, {24: 1, 13: 14})
    turn = Turn(rules, pos, (2, 1))
    assert (1, 2) in turn.targets(3)
    turn.push(3, 2)
    assert turn.position().bar(1) == 1
