"""The page's words: events, notices, status lines, results and the record in plain words; the dice self-test's figures; the game view's life cycle."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from firmware.rules import get_rules
from firmware.rules.notation import format_steps
from host_tools.records import export as ex
from host_tools.web import fairness, words
from host_tools.web.gameview import GameView
from test_export import play_match

BG = get_rules("backgammon")


@pytest.mark.parametrize("name, said", [
    ("7", "point 7"), ("24", "point 24"), ("bar0", "White's bar"), ("bar1", "Black's bar"),
    ("off0", "White's tray"), ("off1", "Black's tray"),
])
def test_zone_words(name, said):
    assert words.zone_words(name) == said


@pytest.mark.parametrize("msg, said", [
    ({"t": "ev", "ev": "step", "side": 0, "src": 13, "dst": 7, "die": 6, "hit": 0}, "White 13/7"),
    ({"t": "ev", "ev": "step", "side": 1, "src": 25, "dst": 22, "die": 3, "hit": 1}, "Black bar/22*"),
    ({"t": "ev", "ev": "step", "side": 0, "src": 3, "dst": 0, "die": 5, "hit": 0}, "White 3/off"),
    ({"t": "ev", "ev": "undo", "side": 0, "src": 13, "dst": 7, "die": 6, "hit": 0}, "White takes back 13/7"),
    ({"t": "ev", "ev": "commit", "side": 0, "steps": [[13, 7, 6, 0], [6, 5, 1, 0]], "condoned": None},
     "White 13/7 6/5"),
    ({"t": "ev", "ev": "commit", "side": 1, "steps": [], "condoned": None}, "Black (no move)"),
    ({"t": "ev", "ev": "roll", "side": 1, "dice": [4, 3], "kind": "matador"}, "Black rolls the matador 4-3"),
    ({"t": "ev", "ev": "roll", "side": 0, "dice": [6, 2], "kind": "roll"}, "White rolls 6-2"),
    ({"t": "ev", "ev": "opening", "dice": [5, 3], "starter": 0}, "opening throw: White 5, Black 3: White starts"),
    ({"t": "ev", "ev": "opening", "dice": [4, 4], "starter": -1}, "opening throw 4-4: a tie, throw again"),
    ({"t": "ev", "ev": "opening", "dice": [3], "starter": 1}, "opening die 3: Black starts"),
    ({"t": "ev", "ev": "no_move", "side": 1}, "Black cannot move: press to pass"),
    # issue 9, the board's side: the closed-out pass and takhteh's parity call
    ({"t": "ev", "ev": "pass", "side": 1},
     "Black is closed out: no roll could play, the turn passes without a throw"),
    ({"t": "ev", "ev": "await_roll", "side": 0, "can_double": True, "pass": True},
     "White is closed out: your button passes (no throw), or double: Menu"),
    ({"t": "ev", "ev": "opening", "dice": [4], "starter": 0, "side": 1, "even": False},
     "opening die 4 (Black called odd): White starts"),
    ({"t": "ev", "ev": "choice", "side": 1, "value": "even"}, "Black calls even"),
    ({"t": "ev", "ev": "choice", "value": 3}, "doublet 3"),
    ({"t": "ev", "ev": "await_opening", "dice_mode": "auto", "side": 0, "even": True},
     "White calls even (Menu turns the call; a player's button makes it his and throws)"),
    ({"t": "ev", "ev": "cube", "act": "double", "value": 2, "owner": 1}, "a double is offered: the cube goes to 4 if taken"),
    ({"t": "ev", "ev": "cube", "act": "take", "value": 4, "owner": 0}, "White takes: the cube is 4, White owns it"),
    ({"t": "ev", "ev": "illegal", "what": "illegal", "reason": "point 7 is closed", "side": 0,
      "dice_left": [], "await": "correct"}, "illegal: point 7 is closed. White must correct the play"),
    ({"t": "ev", "ev": "illegal", "what": "placement", "zones": ["7"]},
     "illegal: a checker was put on point 7, where no lifted checker may go: take it back (the point flashes)"),
    ({"t": "ev", "ev": "refused", "what": "condone", "reason": "illegal plays must be corrected (condone off)"},
     "refused, condoning the play: illegal plays must be corrected (condone off)"),
    ({"t": "ev", "ev": "refused", "what": "double", "reason": "side 0 may not double now"},
     "refused, a double: side 0 may not double now"),
    ({"t": "ev", "ev": "mismatch", "missing": ["6"], "extra": ["bar1"]},
     "the board does not match the game: checkers missing on point 6, extra on Black's bar. Put them back as the LEDs show"),
    ({"t": "ev", "ev": "time_out", "side": 1}, "Black's time ran out: Black loses the match"),
    ({"t": "ev", "ev": "resign_offer", "side": 1, "level": 2, "points": 2}, "Black offers to resign a gammon (2 points)"),
    ({"t": "ev", "ev": "resign", "side": 1, "level": 2, "accepted": False}, "White refuses Black's resignation"),
    ({"t": "ev", "ev": "game_over", "winner": 0, "points": 2, "how": "bearoff", "score": [2, 0], "match_over": False},
     "White wins 2 points: a gammon (Black bore off no checker)"),
    ({"t": "ev", "ev": "lift", "zone": "bar0", "count": 0}, "a checker lifted from White's bar"),
    ({"t": "ev", "ev": "power_restore", "turns": 4, "dropped": 0, "phase": "move", "seal": "x"},
     "power back: the game resumed after 4 turn(s)"),
    ({"t": "ev", "ev": "hw_fault", "part": "dice", "fault": True, "why": "a constant bit"},
     "hardware fault, the electronic dice: a constant bit. The first die's LEDs show its code"),
    ({"t": "ev", "ev": "hw_fault", "part": "p1", "fault": False}, "Black's button: working again"),
    ({"t": "err", "cmd": "roll 9 9", "msg": "dice are 1..6"}, "refused: roll 9 9: dice are 1..6"),
    ({"t": "ok", "cmd": "new"}, None),
    ({"t": "leds", "rgb": "000000"}, None),
])
def test_event_words(msg, said):
    assert words.event_words(msg, BG) == said


@pytest.mark.parametrize("variant, options, winner, points, how, cube, said", [
    ("backgammon", {}, 0, 1, "bearoff", 1, "White wins 1 point: a single game"),
    ("backgammon", {}, 1, 3, "bearoff", 1,
     "Black wins 3 points: a backgammon (White bore off no checker and still had one on the bar or in the winner's home)"),
    ("backgammon", {}, 0, 8, "bearoff", 4, "White wins 8 points: a gammon × cube 4 (Black bore off no checker)"),
    ("backgammon", {}, 1, 2, "drop", 2, "Black wins 2 points: White dropped the cube at 4"),
    ("backgammon", {}, 0, 3, "resign", 1, "White wins 3 points: Black resigned a backgammon"),
    ("backgammon", {}, 0, 5, "time", 1, "White wins 5 points: Black's time ran out (the points still needed for the match)"),
    ("short", {}, 0, 8, "bearoff", 1, "White wins 8 points: an octuple (a checker on the bar) (Black bore off no checker and had one on the bar)"),
    ("short", {}, 1, 4, "bearoff", 1, "Black wins 4 points: a quadruple (not all home) (White bore off no checker and had not brought all home)"),
    ("short", {"scoring": "backgammon"}, 0, 3, "bearoff", 1,
     "White wins 3 points: a koks (backgammon) (Black bore off no checker and still had one in the first quarter)"),
    ("long", {}, 0, 4, "bearoff", 1, "White wins 4 points: a quadruple mars (not all home) (Black bore off no checker and had not brought all home)"),
    ("long", {"scoring": "koks"}, 1, 3, "bearoff", 1, "Black wins 3 points: a koks (White bore off no checker and still had one in the first quarter)"),
    ("long", {"scoring": "fnr"}, 0, 2, "bearoff", 1, "White wins 2 points: a mars (Black bore off no checker)"),
    ("persian", {}, 0, 2, "bearoff", 1, "White wins 2 points: a mars (Black bore off no checker)"),
    ("matador", {}, 1, 1, "resign", 1, "Black wins 1 point: White resigned a single game"),
])
def test_result_names_the_winner_the_points_and_why(variant, options, winner, points, how, cube, said):
    assert words.result_words(get_rules(variant, **options), winner, points, how, cube) == said


def test_every_level_a_variant_can_score_has_a_name():
    for variant, options in [("backgammon", {}), ("short", {}), ("short", {"scoring": "backgammon"}),
                             ("long", {}), ("long", {"scoring": "koks"}), ("long", {"scoring": "fnr"}),
                             ("persian", {}), ("jacquet", {}), ("matador", {})]:
        rules = get_rules(variant, **options)
        names = words.level_names(rules)
        assert names[1] and max(names) >= 2, (variant, options)


STATUS = {"variant": "short", "phase": "move", "turn": 0, "dice": [6, 4], "dice_left": [4],
          "position": "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move",
          "score": [1, 3], "match_to": 5, "mode": "referee", "dice_mode": "auto", "condone": False,
          "game": 3, "cube": 2, "board": "settled"}


@pytest.mark.parametrize("changes, said", [
    ({}, "Short nardy (tric-trac) · White to play 6-4 (dice left: 4)"),
    ({"phase": "roll", "turn": 1}, "Short nardy (tric-trac) · Black to roll"),
    ({"phase": "flagged"}, "Short nardy (tric-trac) · White's play 6-4 is illegal: correct it"),
    ({"phase": "flagged", "condone": True}, "Short nardy (tric-trac) · White's play 6-4 is illegal: correct it, or Black condones it"),
    ({"phase": "doubled", "variant": "backgammon"}, "International backgammon · White doubles: Black takes (his button) or drops (Menu)"),
    ({"phase": "opening", "dice_mode": "manual"}, "Short nardy (tric-trac) · enter the opening throw"),
    ({"phase": "doublet", "variant": "matador"}, "Jacquet with the matador 4-3 · White: choose the doublet (Menu changes it, your button confirms)"),
    ({"phase": "resign"}, "Short nardy (tric-trac) · White offers to resign: Black accepts (his button) or refuses (Menu)"),
    ({"board": "mismatch"}, "Short nardy (tric-trac) · White to play 6-4 (dice left: 4) · the board does not match the game"),
    ({"hw_faults": ["dice", "menu"]},
     "Short nardy (tric-trac) · White to play 6-4 (dice left: 4) · out of order: the electronic dice, the Menu button"),
])
def test_status_line(changes, said):
    assert words.status_line(dict(STATUS, **changes)) == said


def test_status_line_of_a_side_that_cannot_move():
    view = GameView()
    view.take(dict(STATUS, t="status", dice_left=[6, 4]))
    view.take({"t": "ev", "ev": "no_move", "side": 0})
    assert view.view["line"] == "Short nardy (tric-trac) · White cannot play 6-4: press your button to pass"
    view.take({"t": "ev", "ev": "commit", "side": 0, "steps": [], "n": 1, "seal": "x", "condoned": None})
    assert "White to play 6-4" in view.view["line"]


def test_status_line_names_the_resignation_on_offer():
    line = words.status_line(dict(STATUS, phase="resign", variant="backgammon"), offer=(0, 2), rules=BG, cube=2)
    assert line.endswith("White offers to resign a gammon (4 points): Black accepts (his button) or refuses (Menu)")


def test_pips_cube_and_score():
    assert words.pip_counts(STATUS["position"]) == [167, 167]
    assert words.pip_counts("nonsense") is None
    assert words.cube_words(4, 1, True) == "cube 4, Black owns it"
    assert words.cube_words(1, -1, True) == "cube 1, in the middle (either side may double)"
    assert words.cube_words(1, -1, False) == "no cube in this game"
    assert words.score_words(STATUS, "crawford").startswith(
        "score White 1 – Black 3 · match to 5 · Crawford game (no doubling) · game 3")
    assert "after the Crawford game" in words.score_words(STATUS, "post")


@pytest.fixture(scope="module")
def bg_records():
    return play_match("backgammon", 3, 11, double=0.1)


def test_the_record_is_in_each_movers_own_numbering_as_gnubg_writes_it(bg_records):
    for record in bg_records:
        lines = words.record_lines(record)
        said = [line for line in lines if line[:6] in ("White ", "Black ") and ": " in line
                and line.split(":")[0].split()[-1].isdigit()]
        plays = [a for a in ex.replay_record(record)["actions"] if a[1] == "roll"]
        assert said == ["%s %d%d: %s" % (("White", "Black")[side], d[0], d[1], format_steps(steps) or "(no move)")
                        for side, _, d, steps in plays]
        end = next(e for e in record["events"] if e["k"] == "end")
        won = "%s wins %d point" % (("White", "Black")[end["winner"]], end["points"])
        assert any(line.startswith(won) and "; score " in line for line in lines), lines
        assert lines[0].startswith("game %d of International backgammon, match to 3" % (record["events"][0]["games"] + 1))


def test_the_game_view_follows_notices_offers_and_the_match(bg_records):
    view = GameView()
    assert view.take(dict(STATUS, t="status", variant="backgammon")) is True
    assert view.view["notice"] is None and view.view["pips"] == [167, 167]
    view.take({"t": "ev", "ev": "illegal", "what": "placement", "zones": ["7"]})
    assert view.view["notice"].startswith("illegal: a checker was put on point 7")
    view.take({"t": "ev", "ev": "lift", "zone": "8", "count": 1})
    assert view.view["notice"] is not None                 # another zone: still wrong
    view.take({"t": "ev", "ev": "lift", "zone": "7", "count": 0})
    assert view.view["notice"] is None                     # taken back
    view.take({"t": "ev", "ev": "refused", "what": "drop", "reason": "no cube offer"})
    assert view.view["notice"] == "refused, dropping the cube: no cube offer"
    view.take({"t": "ev", "ev": "step", "side": 0, "src": 13, "dst": 7, "die": 6, "hit": 0})
    assert view.view["notice"] is None
    view.take({"t": "ev", "ev": "resign_offer", "side": 0, "level": 3, "points": 6})
    view.take(dict(STATUS, t="status", variant="backgammon", phase="resign"))
    assert "White offers to resign a backgammon (6 points)" in view.view["line"]
    # the match's records: each game kept; a game 1 again means a new match
    for record in bg_records:
        view.take(dict(record, t="record"))
    assert view.match_records() == bg_records
    assert view.view["record"] == words.record_lines(bg_records[-1])
    view.take(dict(bg_records[0], t="record"))
    assert view.match_records() == [bg_records[0]]
    view.take(dict(STATUS, t="status", variant="backgammon", phase="over"))
    assert view.view["result"].startswith(("White wins", "Black wins"))


# -- the dice self-test ----------------------------------------------------------------------------
@pytest.mark.parametrize("x, dof, p", [
    (11.0705, 5, 0.05), (20.515, 5, 0.001), (1.1455, 5, 0.95), (4.351, 5, 0.50),
    (3.8415, 1, 0.05), (7.8147, 3, 0.05), (0.0, 5, 1.0),
])
def test_chi_square_tail_matches_the_tables(x, dof, p):
    assert math.isclose(fairness.chi2_sf(x, dof), p, rel_tol=2e-3, abs_tol=1e-5)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.floats(min_value=0, max_value=200), st.floats(min_value=0, max_value=50))
def test_chi_square_tail_falls_as_the_statistic_grows(x, dx):
    a, b = fairness.chi2_sf(x, 5), fairness.chi2_sf(x + dx, 5)
    assert 0.0 <= b <= a <= 1.0


def test_the_self_test_counts_only_the_boards_own_dice():
    record = {"events": [
        {"k": "game"}, {"k": "open", "dice": [3, 5], "i": 0}, {"k": "roll", "dice": [6, 6], "i": 2},
        {"k": "roll", "dice": [1, 2]},                           # entered by hand: not the board's
        {"k": "parity", "die": 4, "i": 4}, {"k": "choose", "value": 6},
    ]}
    t = fairness.self_test([record])
    assert t["n"] == 5 and t["counts"] == [0, 0, 1, 1, 1, 2]
    assert math.isclose(t["expected"], 5 / 6)
    assert math.isclose(t["chi2"], fairness.chi_square([0, 0, 1, 1, 1, 2]), abs_tol=1e-3)
    assert fairness.self_test([])["p"] is None
