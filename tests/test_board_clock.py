"""The tournament clock: reserves and the simple delay, who must act, time-outs, power cuts."""


import pytest

from firmware.board.gameclock import GameClock


# (what happens, at ms) -> remaining reserves; reserve 60 s, delay 12 s
CLOCK_CASES = [
    ("White acts 10 s: inside the delay", [(0, 0), (-1, 10000)], [60000, 60000]),
    ("White acts 20 s: 8 s past the delay", [(0, 0), (-1, 20000)], [52000, 60000]),
    ("then Black 12.5 s", [(0, 0), (1, 20000), (-1, 32500)], [52000, 59500]),
    ("each period has its own delay", [(0, 0), (1, 13000), (0, 14000), (-1, 27000)],
     [58000, 60000]),
    ("the same side again is one period", [(0, 0), (0, 11000), (-1, 24000)], [48000, 60000]),
    ("never below 0", [(0, 0), (-1, 500000)], [0, 60000]),
]


@pytest.mark.parametrize("what,periods,left", CLOCK_CASES, ids=[c[0] for c in CLOCK_CASES])
def test_reserves_after_periods(what, periods, left):
    c = GameClock(60000, 12000)
    for side, at in periods:
        c.run(side, at)
    assert c.left == left and c.side == -1


def test_remaining_and_fall_while_running():
    c = GameClock(30000, 12000)
    c.run(1, 1000)
    assert c.remaining(1, 1000 + 12000) == 30000 and c.delay_left(1000 + 5000) == 7000
    assert c.remaining(1, 1000 + 22000) == 20000 and c.fallen(1000 + 41999) == -1
    assert c.fallen(1000 + 42000) == 1
    assert c.remaining(0, 10 ** 9) == 30000          # the other side's reserve stands still


def test_no_clock_never_runs():
    c = GameClock()
    c.run(0, 0)
    assert not c.on() and c.side == -1 and c.fallen(10 ** 9) == -1


@pytest.fixture
def vb(manual_board):
    return manual_board("backgammon")


def clock(vb):
    return vb.status()["clock"]


def test_the_movers_reserve_runs_after_the_delay_and_is_journaled_with_the_turn(vb):
    assert vb.cmd("match 5")["t"] == "ok"
    vb.setup()
    assert vb.cmd("clock 600 12")["t"] == "ok"
    assert clock(vb)["left"] == [600000, 600000] and clock(vb)["running"] == -1   # opening
    assert vb.cmd("roll 5 1")["t"] == "ok"          # White starts with 5-1
    vb.wait(40000)
    c = clock(vb)
    assert c["running"] == 0 and c["left"][1] == 600000
    assert 600000 - 40000 + 12000 <= c["left"][0] <= 600000 - 40000 + 12000 + 200
    m = vb.mark()
    z = vb.session.zmap.zone
    vb.move(z(0, 13), z(0, 8))
    vb.move(z(0, 24), z(0, 23))
    vb.press("p0")
    assert vb.since(m, ev="commit")
    turn = [e for e in vb.events() if e["k"] == "turn"][-1]
    used = 600000 - turn["clock"][0]
    assert 28000 <= used <= 30000 and turn["clock"][1] == 600000
    assert clock(vb)["running"] == 1                  # Black must act now (its roll)


def test_a_reserve_running_out_loses_the_match_and_the_record_says_so(vb):
    assert vb.cmd("match 3")["t"] == "ok"
    vb.setup()
    assert vb.cmd("clock 30 12")["t"] == "ok"
    assert vb.cmd("roll 2 6")["t"] == "ok"          # Black starts
    m = vb.mark()
    vb.wait(41000)
    assert not vb.since(m, ev="time_out")
    vb.wait(2000)
    out = vb.since(m, ev="time_out")
    assert out and out[0]["side"] == 1
    over = vb.since(m, ev="game_over")[0]
    assert over["winner"] == 0 and over["points"] == 3 and over["how"] == "time"
    assert over["match_over"] and vb.session.phase == "match_over"
    from host_tools.records.export import export, replay_record
    rec = vb.record()
    assert [e["k"] for e in vb.events()][-2:] == ["time", "end"]
    g = replay_record(rec)
    assert (g["winner"], g["points"], g["how"]) == (0, 3, "time")
    assert "Wins 3 points and the match" in export([rec], "mat")[0]


def test_the_doubled_side_decides_on_its_own_clock(vb):
    assert vb.cmd("match 7")["t"] == "ok"
    vb.setup()
    vb.cmd("clock 300 12")
    vb.cmd("roll 5 1")
    z = vb.session.zmap.zone
    vb.move(z(0, 13), z(0, 8))                       # White's move: well inside the delay
    vb.move(z(0, 24), z(0, 23))
    vb.press("p0")
    assert vb.session.phase == "roll" and vb.session.side == 1 and clock(vb)["running"] == 1
    assert vb.cmd("cube double")["t"] == "ok"        # Black doubles at once
    vb.wait(10)
    assert clock(vb)["running"] == 0                 # White decides on White's clock
    vb.wait(30000)
    assert vb.cmd("cube take")["t"] == "ok"
    left = clock(vb)["left"]
    assert 300000 - 18000 - 300 <= left[0] <= 300000 - 18000 and left[1] == 300000


def test_reserves_survive_a_power_cut(vb):
    assert vb.cmd("match 5")["t"] == "ok"
    vb.setup()
    vb.cmd("clock 600 12")
    vb.cmd("roll 5 1")
    vb.wait(30000)
    z = vb.session.zmap.zone
    vb.move(z(0, 13), z(0, 8))
    vb.move(z(0, 24), z(0, 23))
    vb.press("p0")
    before = clock(vb)["left"]
    vb.power_cut()
    after = clock(vb)
    assert after["reserve"] == 600000 and after["left"][0] == before[0]
    assert before[1] - 200 <= after["left"][1] <= 600000


@pytest.mark.parametrize("line,msg", [("clock", "usage"), ("clock 0", "1..36000"),
                                      ("clock x", "number"), ("clock 60 601", "0..600"),
                                      ("clock 60 12 3", "usage")])
def test_bad_clock_commands_change_nothing(vb, line, msg):
    vb.cmd("clock 90 10")
    r = vb.cmd(line)
    assert r["t"] == "err" and msg in r["msg"]
    assert clock(vb)["reserve"] == 90000 and clock(vb)["delay"] == 10000


def test_clock_off(vb):
    vb.cmd("clock 90")
    assert clock(vb)["delay"] == 12000
    assert vb.cmd("clock off")["t"] == "ok"
    vb.cmd("roll 5 1")
    vb.wait(200000)
    assert clock(vb)["reserve"] == 0 and vb.session.phase == "move"


def test_a_low_reserve_blinks_the_turn_light_of_its_side(vb):
    assert vb.cmd("match 3")["t"] == "ok"
    vb.setup()
    vb.cmd("clock 40 12")
    vb.cmd("roll 2 6")                               # Black to move
    led = vb.hw.config.turn_led[1]

    def lights(ms):
        seen = set()
        for _ in range(ms // 100):
            vb.wait(100)
            f = vb.world.led_frame()
            seen.add(bytes(f[3 * led:3 * led + 3]))
        return seen

    assert len(lights(20000)) == 1                   # delay, then 8 s of a full reserve: steady
    vb.wait(12000)                                   # 20 s left: under 30 s, it blinks
    assert len(lights(1000)) == 2
    vb.wait(9000)                                    # under 10 s: it blinks fast
    fast = lights(400)
    assert len(fast) == 2 and vb.session.phase == "move"
