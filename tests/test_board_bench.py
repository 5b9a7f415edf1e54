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
