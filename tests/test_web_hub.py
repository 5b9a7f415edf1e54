"""The virtual board's server and hub against the real firmware on the simulated hardware (no browser)."""

import json
import os
import urllib.request

import pytest

from firmware.board.zonemap import ZONES, ZoneMap
from firmware.rules import Position, Turn, get_rules
from polling import wait_until
from rulesutil import reachable
from host_tools.device.fakeboard import FakeBoard
from host_tools.device.serial_link import SerialLink
from host_tools.web.checkers import VirtualCheckers, stacks_of_position
from host_tools.web.firmware_process import FirmwareProcess
from host_tools.web.hub import BoardHub
from host_tools.web.server import BoardPageServer

TARGET_COLOURS = (0x00C040, 0xFF8000)    # firmware/board/ledview.py: TARGET, HIT


@pytest.fixture(params=[pytest.param(False, id="cpython"),
                        pytest.param(True, id="micropython", marks=pytest.mark.micropython)])
def sim_hub(request, tmp_path):
    """The firmware on the simulated board, on CPython or under the MicroPython unix port."""
    hub = BoardHub(FirmwareProcess(micropython=request.param, flash_dir=str(tmp_path))).start()
    wait_until(lambda: hub.status, what="the first status")
    yield hub
    hub.close()


def lit_zones(hub):
    """Zones whose LEDs show a legal-destination colour in the latest frame."""
    with open(os.path.join(os.path.dirname(__file__), "..", "hardware", "board.json")) as f:
        led_map = json.load(f)["leds"]["zones"]
    frame = bytes.fromhex(hub.leds or "")
    lit = set()
    for z, (first, count) in enumerate(led_map):
        for i in range(first, first + count):
            r, g, b = frame[3 * i:3 * i + 3]
            if g > 0 and r == 0 and b > 0 or r > 0 and g > 0 and b == 0:
                lit.add(z)
    return lit


def test_checker_stacks_follow_accepted_commands():
    checkers = VirtualCheckers()
    checkers.set_out(stacks_of_position("short", "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move"))
    assert checkers.stacks[23] == [0, 0] and checkers.stacks[0] == [1, 1]
    checkers.accepted("sim lift 24".split())
    assert checkers.stacks[23] == [0] and checkers.hand == [0]
    checkers.accepted("sim place bar1 0".split())
    assert checkers.stacks[25] == [0] and checkers.hand == []
    checkers.accepted("sim lift 1 1".split())
    checkers.accepted("sim place off1".split())
    assert checkers.stacks[0] == [1] and checkers.stacks[27] == [1]


def test_long_nardy_start_stands_on_the_heads():
    stacks = stacks_of_position("long", str(get_rules("long").start_position()))
    heads = [z for z, s in enumerate(stacks) if s]
    assert len(heads) == 2 and sorted(len(stacks[z]) for z in heads) == [15, 15]


def test_setup_then_lift_lights_exactly_the_legal_destinations(sim_hub):
    hub = sim_hub
    assert hub.page_action({"do": "setup"}).wait()["t"] == "ok"
    wait_until(lambda: sum(map(len, hub.checkers.stacks)) == 30, what="the checkers set out")
    assert hub.page_action({"do": "command", "line": "dice manual"}).wait()["t"] == "ok"
    wait_until(lambda: hub.status["phase"] == "opening", what="the opening")
    assert hub.page_action({"do": "command", "line": "roll 3 1"}).wait()["t"] == "ok"
    status = wait_until(lambda: hub.status["phase"] == "move" and hub.status, what="a turn")
    rules = get_rules("short")
    pos = Position.parse(status["position"])
    side = status["turn"]
    zmap = ZoneMap(rules)
    turn = Turn(rules, pos, tuple(status["dice"]))
    src = next(p for p in range(24, 0, -1) if pos.board[side * 26 + p] and turn.targets(p))
    expected = {zmap.zone(side, dst) for dst in reachable(turn, src)}
    src_zone = zmap.zone(side, src)
    assert hub.page_action({"do": "lift", "zone": src_zone}).wait()["t"] == "ok"
    lit = wait_until(lambda: lit_zones(hub) or None, what="destination LEDs")
    assert lit == expected
    assert hub.checkers.hand == [side]


def test_page_server_serves_page_board_and_a_snapshot_stream(sim_hub):
    server = BoardPageServer(sim_hub, port=0)
    server.serve_in_thread()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    key = {"X-Nardy-Token": server.guard.token}
    try:
        assert server.url == base + "?t=" + server.guard.token
        page = urllib.request.urlopen(server.url).read().decode()
        assert "<svg id=\"board\"" in page
        board = json.load(urllib.request.urlopen(urllib.request.Request(base + "api/board", headers=key)))
        assert len(board["zones"]["slots"]) == ZONES and board["leds"]["count"] > 0
        with urllib.request.urlopen(base + "api/stream?t=" + server.guard.token, timeout=5) as stream:
            first = stream.readline().decode()
            assert first.startswith("data: ")
            snap = json.loads(first[6:])
        assert snap["t"] == "snapshot" and snap["hello"]["hw"] == "sim" and snap["mode"] == "sim"
        req = urllib.request.Request(base + "api/act", method="POST",
                                     data=json.dumps({"do": "command", "line": "reboot now"}).encode(),
                                     headers=dict(key, Origin=base[:-1], **{"Content-Type": "application/json"}))
        refused = json.load(urllib.request.urlopen(req))
        assert refused["ok"] is False and "may not" in refused["answer"]["msg"]
    finally:
        server.stop()


BOARD_MAIN = """
import json, sys, time
turns = 0
print('{"t": "hello", "fw": "test", "variant": "long", "hw": "rp2040"}')
while True:
    line = sys.stdin.readline().strip()
    if line == "export":
        print('{"t": "record", "format": "nardy-record/2", "board": "b1", "serial": 1, '
              '"key": "00000000", "open": true}')
        for i in range(turns):
            text = json.dumps({"k": "turn", "side": i % 2, "n": i})
            print(json.dumps({"t": "rl", "l": text + "|%032d" % i}))
        print('{"t": "record_end", "serial": 1, "lines": %d, "head": "", "tag": ""}' % turns)
        print('{"t": "ok", "cmd": "export"}')
        if turns < 3:             # the players go on: another turn is committed
            time.sleep(0.05)
            turns += 1
            print('{"t": "ev", "ev": "commit", "side": %d, "n": %d, "steps": [], "seal": "%d"}'
                  % ((turns - 1) % 2, turns, turns))
    elif line == "status":
        print('{"t": "status", "variant": "long", "phase": "move", "turn": 0, "dice": [6, 5], '
              '"dice_left": [6, 5], "position": "white 24:15; black 24:15; white to move", '
              '"score": [0, 0], "match_to": 1, "mode": "guide", "dice_mode": "auto"}')
        print('{"t": "ok", "cmd": "status"}')
    elif line.startswith("sim"):
        print('{"t": "err", "cmd": "sim", "msg": "sim commands need the simulated hardware"}')
    elif line:
        print('{"t": "ok", "cmd": "%s"}' % line.split()[0])
"""


@pytest.mark.micropython
def test_live_view_over_a_serial_port_shows_the_board_and_refuses_hands(tmp_path):
    (tmp_path / "main.py").write_text(BOARD_MAIN)
    with FakeBoard(str(tmp_path)) as board:
        hub = BoardHub(SerialLink(board.port)).start()
        try:
            assert hub.mode == "live"
            status = wait_until(lambda: hub.status, what="the board's status")
            assert status["variant"] == "long"
            view = hub.snapshot()["checkers"]["stacks"]
            assert sorted(len(s) for s in view if s) == [15, 15]
            for action in ({"do": "lift", "zone": 23}, {"do": "command", "line": "status"},
                           {"do": "command", "line": "new short"}, {"do": "press", "button": "p0"}):
                refused = hub.page_action(action).wait()
                assert refused["t"] == "err" and "read-only" in refused["msg"], action
            # the record grows as turns are committed on the board
            wait_until(lambda: hub.record and len(hub.record["events"]) == 3, what="3 turns")
            assert [e["n"] for e in hub.record["events"]] == [0, 1, 2]
        finally:
            hub.close()


def test_power_cut_from_the_page_resumes_the_journaled_game(sim_hub):
    hub = sim_hub
    assert hub.page_action({"do": "setup"}).wait()["t"] == "ok"
    assert hub.page_action({"do": "command", "line": "dice manual"}).wait()["t"] == "ok"
    wait_until(lambda: hub.status["phase"] == "opening", what="the opening")
    assert hub.page_action({"do": "command", "line": "roll 6 1"}).wait()["t"] == "ok"
    before = wait_until(lambda: hub.status["phase"] == "move" and hub.status, what="a turn")
    stacks = hub.checkers.snapshot()
    assert hub.page_action({"do": "power_cut"}).wait()["t"] == "ok"
    restored = wait_until(lambda: [e for e in list(hub.log) if e["dir"] == "in"
                                   and e["line"].get("ev") == "power_restore"],
                          what="the board back on")
    assert restored[0]["line"]["turns"] == 0
    after = wait_until(lambda: hub.status["phase"] == "move" and hub.status, what="the turn again")
    assert (after["dice"], after["position"]) == (before["dice"], before["position"])
    assert hub.checkers.snapshot() == stacks          # the checkers stayed where they stood
