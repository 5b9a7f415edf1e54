"""Scenario tests with deep stacks on the stack-counting (analog) build: the long-nardy head, the
15-checker starts of jacquet and matador, a 12-checker pile, a tray holding 14. Every lift lights
its checker's legal destinations; the head rule's limit shows as a lifted checker with none."""

import pytest

from firmware.board.tracker import SETTLED, HANDS


def zone(vb, side, pip):
    return vb.session.zmap.zone(side, pip)


def zones(vb, side, pips):
    out = 0
    for p in pips:
        out |= 1 << zone(vb, side, p)
    return out


@pytest.fixture
def board(manual_board):
    return lambda variant: manual_board(variant, "analog")


def opening(vb, white, black, again=None):
    """Manual opening dice; White starts when white > black; ``again``: the starter's roll when
    the variant throws again after the opening."""
    assert vb.cmd("roll %d %d" % (white, black))["t"] == "ok"
    if vb.session.phase == "roll":
        assert vb.cmd("roll %d %d" % again)["t"] == "ok"
    assert vb.session.phase == "move"


def lift_lights(vb, side, pip, want):
    """Lift a checker of ``side`` from ``pip``: the board sees it and lights exactly ``want``."""
    s = vb.session
    before = vb.hw.zones.counts[zone(vb, side, pip)]
    vb.lift(zone(vb, side, pip), side)
    assert vb.hw.zones.counts[zone(vb, side, pip)] == before - 1     # seen, however deep
    tr = s.tracker
    assert tr.state == HANDS
    assert tr.lit == zones(vb, side, want), (bin(tr.lit), want)
    return tr


# (first roll, destinations of the head's checker, may a second one leave the head?)
LONG_FIRST = [((6, 5), (18, 19, 13), False),
              ((6, 6), (18,), True),          # 24/18(2): the first-turn head exceptions
              ((4, 4), (20, 16), True),
              ((3, 3), (21, 18, 15), True)]


@pytest.mark.parametrize("roll,dests,second", LONG_FIRST)
def test_long_nardy_opening_from_the_head_lights_and_shows_the_head_rule(board, roll, dests, second):
    vb = board("long")
    assert vb.hw.zones.counts[zone(vb, 0, 24)] == 15 and vb.hw.zones.counts[zone(vb, 1, 24)] == 15
    opening(vb, 6, 1, roll)
    lift_lights(vb, 0, 24, dests)
    vb.place(zone(vb, 0, 24 - roll[0]), 0)
    s = vb.session
    assert s.tracker.state == SETTLED and s.game.turn.steps[0][:2] == (24, 24 - roll[0])
    vb.lift(zone(vb, 0, 24), 0)                 # a second checker from the head
    tr = s.tracker
    assert tr.state == HANDS
    if second:
        assert tr.lit, roll                     # the first-turn doubles let two leave
    else:
        assert tr.lit == 0 and tr.stuck == 1 << zone(vb, 0, 24)   # dark: the head rule
    vb.place(zone(vb, 0, 24), 0)


def test_long_nardy_both_sides_play_from_their_heads(board):
    vb = board("long")
    opening(vb, 5, 2, (6, 5))
    lift_lights(vb, 0, 24, (18, 19, 13))
    vb.place(zone(vb, 0, 13), 0)                # 24/13 with both dice
    vb.press("p0")
    s = vb.session
    assert s.turns == 1 and s.side == 1
    assert vb.cmd("roll 4 2")["t"] == "ok"
    lift_lights(vb, 1, 24, (20, 22, 18))        # Black's head is the other corner
    vb.place(zone(vb, 1, 20), 1)
    vb.lift(zone(vb, 1, 24), 1)
    assert s.tracker.lit == 0 and s.tracker.stuck == 1 << zone(vb, 1, 24)
    vb.place(zone(vb, 1, 24), 1)
    vb.lift(zone(vb, 1, 20), 1)
    vb.place(zone(vb, 1, 18), 1)
    vb.press("p1")
    assert s.turns == 2


@pytest.mark.parametrize("variant", ["jacquet", "matador"])
def test_jacquet_and_matador_lift_from_the_15_checker_start(board, variant):
    vb = board(variant)
    s = vb.session
    start = zone(vb, 0, 24)
    assert vb.hw.zones.counts[start] == 15
    opening(vb, 6, 1, (5, 2))
    first = set(dst for dst, die in s.game.turn.targets(24))
    assert first                                 # the start stack's checker can move
    vb.lift(start, 0)
    tr = s.tracker
    assert vb.hw.zones.counts[start] == 14 and tr.state == HANDS
    assert tr.lit & zones(vb, 0, first) == zones(vb, 0, first)


def test_a_twelve_checker_pile_in_backgammon(board):
    vb = board("backgammon")
    vb.force_position("white 24:2 6:12 8:1; black 24:2 13:5 8:3 6:5; white to move")
    s = vb.session
    assert vb.hw.zones.counts[zone(vb, 0, 6)] == 12
    assert vb.cmd("roll 3 1")["t"] == "ok"
    lift_lights(vb, 0, 6, (5, 3, 2))            # 6/5, 6/3, and 6/2 with both dice
    vb.place(zone(vb, 0, 5), 0)
    assert s.tracker.state == SETTLED and s.game.turn.steps == [(6, 5, 1, 0)]
    assert vb.hw.zones.counts[zone(vb, 0, 6)] == 11


def test_bear_off_into_a_tray_already_holding_14(board):
    vb = board("backgammon")
    vb.force_position("white 2:1 off:14; black 24:2 13:5 8:3 6:5; white to move")
    s = vb.session
    tray = zone(vb, 0, 0)
    assert vb.hw.zones.counts[tray] == 14
    assert vb.cmd("roll 5 3")["t"] == "ok"
    lift_lights(vb, 0, 2, (0,))
    vb.place(tray, 0)
    assert vb.hw.zones.counts[tray] == 15           # the 15th, counted
    m = vb.mark()
    vb.press("p0")
    assert vb.since(m, ev="game_over") and s.game.winner == 0
