"""Resigning: offered by the side to move (a long press of its button, or `resign [1|2|3]`),
accepted by the opponent's button or refused with MENU; journaled, exported, resumed."""


import pytest

from host_tools.records.export import export


@pytest.fixture
def vb(manual_board):
    board = manual_board("backgammon")
    assert board.cmd("match 7")["t"] == "ok"
    board.setup()
    assert board.cmd("roll 5 1")["t"] == "ok"        # White to move
    return board


def test_a_long_press_offers_a_single_and_the_opponents_button_accepts(vb):
    s = vb.session
    m = vb.mark()
    vb.press("p0", 1500)
    offer = vb.since(m, ev="resign_offer")
    assert offer and offer[0]["side"] == 0 and offer[0]["points"] == 1 and s.phase == "resign"
    assert vb.status()["clock"]["running"] == -1          # no clock set: nobody's runs
    vb.press("p1")
    over = vb.since(m, ev="game_over")[0]
    assert (over["winner"], over["points"], over["how"]) == (1, 1, "resign")
    assert s.phase == "over" and s.match.score == [0, 1]
    rec = vb.record()
    evs = vb.events()
    assert [e["k"] for e in evs][-2:] == ["resign", "end"]
    assert evs[-2]["offer"] == "p0" and evs[-2]["by"] == "p1"
    assert "Wins 1 point" in export([rec], "mat")[0]


def test_menu_refuses_and_the_turn_goes_on_where_it_was(vb):
    s = vb.session
    z = s.zmap.zone
    vb.move(z(0, 13), z(0, 8))
    vb.cmd("resign 2")
    assert s.phase == "resign"
    m = vb.mark()
    vb.press("menu")
    ans = vb.since(m, ev="resign")
    assert ans and ans[0]["accepted"] is False
    assert s.phase == "move" and s.game.turn.steps == [(13, 8, 5, 0)]
    vb.move(z(0, 24), z(0, 23))
    vb.press("p0")
    assert vb.since(m, ev="commit")


def test_the_offering_side_may_withdraw(vb):
    s = vb.session
    z = s.zmap.zone
    vb.move(z(0, 13), z(0, 8))
    assert vb.cmd("resign")["t"] == "ok"
    assert s.phase == "resign" and s.resign_offer == (0, 1, "host")   # White's offer stands
    m = vb.mark()
    vb.press("p0")                                              # White's own button: withdrawn
    ans = vb.since(m, ev="resign")
    assert [(a["side"], a["accepted"]) for a in ans] == [(0, False)]
    assert not vb.since(m, ev="game_over")
    assert s.resign_offer is None and s.phase == "move" and s.game.winner == -1
    assert s.match.score == [0, 0] and s.game.turn.steps == [(13, 8, 5, 0)]
    r = vb.cmd("resign accept")                                 # nothing left for Black to accept
    assert r["t"] == "err" and "no resignation" in r["msg"]
    vb.move(z(0, 24), z(0, 23))                                 # the turn goes on and commits
    vb.press("p0")
    assert vb.since(m, ev="commit") and s.side == 1


def test_a_gammon_resignation_counts_the_cube_and_survives_a_power_cut(vb):
    s = vb.session
    z = s.zmap.zone
    vb.move(z(0, 13), z(0, 8))
    vb.move(z(0, 24), z(0, 23))
    vb.press("p0")
    vb.cmd("roll 3 2")                                     # Black's roll (manual dice)
    vb.cmd("resign 2")
    assert vb.cmd("resign accept")["t"] == "ok"
    assert (s.game.winner, s.game.points, s.game.result) == (0, 2, "resign")
    vb.power_cut()
    assert vb.session.phase == "over" and vb.session.match.score == [2, 0]


@pytest.mark.parametrize("line,msg", [("resign 4", "1, 2, 3 points"), ("resign 9", "1..8"), ("resign accept", "no resignation"),
                                      ("resign x", "number"), ("resign 1 2", "usage")])
def test_bad_resign_commands_change_nothing(vb, line, msg):
    r = vb.cmd(line)
    assert r["t"] == "err" and msg in r["msg"] and vb.session.phase == "move"


def test_no_resignation_before_the_game_is_under_way(manual_board):
    board = manual_board("short")
    r = board.cmd("resign")
    assert r["t"] == "err" and "own turn" in r["msg"]


def test_the_offer_runs_the_opponents_clock(vb):
    vb.cmd("clock 300 12")
    vb.wait(10)
    assert vb.status()["clock"]["running"] == 0
    vb.cmd("resign")
    vb.wait(10)
    assert vb.status()["clock"]["running"] == 1          # Black must answer


@pytest.mark.parametrize("command", ["new short", "match 3", "new backgammon"])
def test_an_offer_on_the_table_ends_with_its_game(vb, command):
    # found by the serial fuzzer: the offer outlived 'new', leaving the new game in phase resign
    vb.cmd("resign 2")
    assert vb.session.phase == "resign"
    assert vb.cmd(command)["t"] == "ok"
    assert vb.session.resign_offer is None and vb.session.phase in ("setup", "opening")
