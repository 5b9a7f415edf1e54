"""The lift-to-LED benchmark finds its worst cases and reports the hardware's share (quick mode)."""

import json

from host_tools import cmd_benchboard


def test_benchboard_quick_finds_the_worst_lift_and_placement(capsys):
    assert cmd_benchboard.main(["--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["worst_lift"]["position"] in cmd_benchboard.POSITIONS
    assert out["worst_place"]["position"] in cmd_benchboard.POSITIONS
    assert out["python_calls"]["lift"] > 0 and out["python_calls"]["place"] > 0
    assert out["hardware"]["scan_ms"] > 0 and out["hardware"]["leds"] > 0
    # the first lift from the long-nardy head (15 checkers), the worst of the first rolls
    assert out["python_calls"]["head"] > 0 and out["head_lift"]["budget_ms"] == 30
    assert tuple(out["head_lift"]["roll"]) in cmd_benchboard.HEAD_ROLLS


def test_a_lift_from_the_long_nardy_head_is_seen_and_lights_its_destinations():
    """The benchmark's head case measures a real lift: the stack-counting build sees the 15th
    checker leave and lights the destinations of the first roll."""
    from firmware.board.tracker import HANDS
    for dice in ((6, 5), (5, 5), (3, 3)):
        s, view, counts, cfg = cmd_benchboard._session("head-%d%d" % dice)
        z = s.zmap.zone(0, 24)
        assert counts[z] == 15 and s.game.turn.side == 0 and list(s.game.dice)[:2] == list(dice)
        counts[z] -= 1
        s.frame_in(counts)
        assert s.tracker.state == HANDS and s.tracker.lit, dice
