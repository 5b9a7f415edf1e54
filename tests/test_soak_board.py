"""Soak: whole games with realistic hands, noise and power cuts; every failure counter must stay 0."""

import json
import os
import subprocess
import sys

import pytest

from host_tools import cmd_soak

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST_GAMES = 100       # per variant, frame-level hardware: the board logic at speed (CI's budget;
                       # the long runs of docs/testing.md play thousands with the soak command)
LONG_GAMES = ("jacquet", "matador")     # twice as many turns a game: half the games (500 in all)
CHUNKS = 4             # each variant's games in 4 runs of their own seed, to spread over workers
# the front end of each chunk: board.json's (None) but the last, the other build's, so both stay
# soaked whichever is the default
CHUNK_FRONT_ENDS = (None, None, None, "other")
FULL_GAMES = 2         # per variant and front end, the slot-level simulation: scanner, debounce, zone reader


def _assert_clean(variant, c):
    d = c.as_dict()
    assert d["games"] > 0 and d["turns"] > 0, d
    assert c.failures() == 0, (variant, d)


def _front_end(which):
    if which != "other":
        return which
    from firmware.drivers import board_config
    default = board_config.load(os.path.join(ROOT, "hardware", "board.json")).front_end
    return "digital" if default == "analog" else "analog"


@pytest.mark.soak
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("variant", cmd_soak.VARIANTS)
def test_soak_board_logic(variant, chunk):
    games = (FAST_GAMES // 2 if variant in LONG_GAMES else FAST_GAMES) // CHUNKS
    _assert_clean(variant, cmd_soak.run(variant, games, seed=2026 + 1000 * chunk, noise="high",
                                        fast=True, front_end=_front_end(CHUNK_FRONT_ENDS[chunk])))


@pytest.mark.soak
@pytest.mark.parametrize("front_end", ["analog", "digital"])
@pytest.mark.parametrize("variant", cmd_soak.VARIANTS)
def test_soak_full_simulation(variant, front_end):
    _assert_clean(variant, cmd_soak.run(variant, FULL_GAMES, seed=7, noise="high",
                                        front_end=front_end))


def test_soak_command_prints_counters_and_exits_0_when_clean():
    proc = subprocess.run([sys.executable, "-m", "host_tools", "soak", "--variant", "short",
                           "--games", "1", "--seed", "3", "--noise", "low", "--fast", "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("games", "turns", "desyncs", "rejected_legal", "accepted_illegal", "lost_turns"):
        assert key in out
    assert out["games"] == 1 and out["turns"] > 0


def test_soak_exit_status_reflects_the_failure_counters(monkeypatch, capsys):
    from host_tools.soak.soakplayer import Counters

    def broken(*args, **kwargs):
        c = Counters()
        c.games = 1
        c.turns = 5
        c.lost_turns = 1
        return c
    monkeypatch.setattr(cmd_soak, "run", broken)
    assert cmd_soak.main(["--variant", "short", "--games", "1"]) == 1
    assert "lost turns 1" in capsys.readouterr().out


@pytest.mark.parametrize("variant", cmd_soak.VARIANTS)
def test_stack_counting_build_has_no_blind_plays_and_no_unlit_lifts(variant):
    # the analog build counts every checker: no play is hidden from the sensors, and every lift
    # of a checker with a legal step lights its destinations (the long-nardy head included)
    c = cmd_soak.run(variant, 1, seed=31, noise="high", fast=True, front_end="analog")
    _assert_clean(variant, c)
    assert c.lifts > 0 and c.unlit_lifts == 0 and c.sensor_blind == 0, c.as_dict()


@pytest.mark.parametrize("front_end,want", [("analog", [1, 2, 3, 0]), ("digital", [0, 0, 0, 0])])
def test_the_fast_soak_reads_colours_where_the_front_end_tells_them(tmp_path, front_end, want):
    """The frame-level stand-in hands the board the zone colours the analog sensors report (a
    play that differs only in which blots were hit is no sensor-blind play there), and none for
    presence-only reed switches."""
    from host_tools.soak.soakfast import FastHardware, FastWorld
    from firmware.drivers import hardware
    cfg = hardware.config(front_end=front_end)
    world = FastWorld(cfg, str(tmp_path))
    hw = FastHardware(world)
    first = cfg.zone_first
    world.set_stack(first[0], (1,))                 # White on zone 0
    world.set_stack(first[1], (2, 2))               # two Black stacked on zone 1
    world.set_stack(first[2], (1,))                 # zone 2: both colours (a hit half made)
    world.set_stack(first[2] + 1, (2,))
    assert hw.zones.poll(0)
    assert list(hw.zones.colour[:4]) == want
    world.set_stack(first[0], (2,))                 # a colour change alone is a new frame
    assert hw.zones.poll(0) == (front_end == "analog")
