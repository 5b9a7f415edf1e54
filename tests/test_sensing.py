"""Stack counting: the analog front end's levels on the physically simulated Hall sensors."""

import random

import pytest

from firmware import sim as _sim

_sim.install()

from firmware.drivers import hardware  # noqa: E402
from firmware.sim import world as simworld  # noqa: E402
from firmware.sim.world import SimWorld  # noqa: E402
from firmware.drivers import board_config  # noqa: E402
from host_tools.boarddesign import magnetics  # noqa: E402


def _board(seed):
    cfg = board_config.load(hardware.DESCRIPTION, "analog")
    world = SimWorld(cfg, seed=seed)
    return simworld.build(front_end="analog", world=world)


def _settle(hw, ms=300):
    hw.sim.advance(ms, 5, lambda t: hw.zones.poll(t))


# (zone, its kind) for a point in the middle of a quarter, a point at a quarter's edge, a bar, a
# tray: each kind has its own neighbours and so its own crosstalk
ZONES = [(3, "point"), (6, "point"), (24, "bar"), (27, "tray")]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_count_of_every_zone_kind_is_read_with_crowded_neighbours(seed):
    hw = _board(seed)
    w = hw.sim
    rng = random.Random(seed)
    for z, kind in ZONES:
        for n in range(16):
            colour = rng.choice((1, 2))
            w.set_zone(z, n, colour)
            # neighbours full of either colour (crosstalk of both signs)
            for other in (z - 1, z + 1, z - 2):
                if 0 <= other < 24 and other != z:
                    w.set_zone(other, rng.choice((0, 7, 15)), rng.choice((1, 2)))
            _settle(hw)
            assert hw.zones.counts[z] == n, (seed, z, kind, n, list(hw.zones.counts))
            if n:
                assert hw.zones.colour[z] == colour, (seed, z, n)
            assert hw.zones.faults == 0
        w.set_zone(z, 0)


def test_a_lift_from_a_15_stack_is_seen_within_the_debounce():
    hw = _board(4)
    w = hw.sim
    w.set_zone(0, 15, 1)
    _settle(hw)
    assert hw.zones.counts[0] == 15
    w.set_zone(0, 14, 1)            # the top checker of the last stack leaves
    t = [0]

    def poll(now):
        if hw.zones.poll(now) and not t[0]:
            t[0] = now
    start = w.clock()
    w.advance(200, 5, poll)
    assert hw.zones.counts[0] == 14
    assert 0 < t[0] - start <= 80        # filter (a few scans) + release debounce (40 ms)


def test_physics_on_axis_closed_form_matches_the_integral():
    for h in (5.0, 12.5, 26.5):         # the integral is coarse right at a face
        a = magnetics.on_axis(1.19, 15, 2, h)
        b = magnetics.off_axis(1.19, 15, 2, 0.0, h)
        assert abs(a - b) < 0.01 * a


def test_a_fourth_checker_on_a_stack_is_not_told_from_three():
    # the design's limit, as the model says it: the 4th magnet adds less than the spread
    stack = dict(hardware_gen_desc()["analog"]["stack"], levels=4)
    lv = magnetics.StackGeometry(stack).level_fields()
    assert lv[3] - lv[2] < 0.1 * lv[2]


def hardware_gen_desc():
    from host_tools.boarddesign import hardware_gen
    return hardware_gen.load()


def test_classification_table_command_reads_every_count_of_every_kind():
    from host_tools import cmd_sensing
    res = cmd_sensing.table(2000, seed=5)
    assert set(res) == set(cmd_sensing.KINDS)
    for kind, r in res.items():
        assert r["readings"] == 500 and sum(map(sum, r["counts"])) == 500
        assert r["errors"] <= 2, (kind, r["errors"])     # the design reads ~all of them
