"""The dice driver: fair faces from whitened, biased raw bits, and never a modulo."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from firmware.sim import install  # noqa: E402

install()

from firmware.drivers import board_config, hardware  # noqa: E402
from firmware.drivers.dice import Dice  # noqa: E402
from firmware.sim import world as simworld  # noqa: E402
from firmware.sim.world import SimWorld  # noqa: E402

CHI2_5DOF_P001 = 20.52     # P(chi2 > 20.52) = 0.001 with 5 degrees of freedom
CHI2_35DOF_P001 = 66.62    # the same for the 36 ordered pairs of a two-dice roll


def chi2(counts):
    n = sum(counts)
    e = n / len(counts)
    return sum((c - e) ** 2 / e for c in counts)


def seeded_board(seed):
    """Simulated hardware whose raw random bits come from ``seed`` (a chi-square test at
    p = 0.001 would otherwise fail one run in a thousand by chance alone)."""
    cfg = board_config.load(hardware.DESCRIPTION, None)
    return simworld.build(world=SimWorld(cfg, seed=seed))


def rolls(n, seed=2026):
    hw = seeded_board(seed)
    assert hw.sim.rosc_p1 != 128            # the raw bits are biased on purpose
    roll = hw.dice.roll
    return [roll() for _ in range(n)], hw.dice


def test_chi_square_60k_rolls():
    values, _ = rolls(60000)
    counts = [values.count(v) for v in range(1, 7)]
    assert chi2(counts) < CHI2_5DOF_P001, counts
    pairs = [0] * 36
    for i in range(0, len(values) - 1, 2):
        pairs[(values[i] - 1) * 6 + values[i + 1] - 1] += 1
    assert chi2(pairs) < CHI2_35DOF_P001


@pytest.mark.soak
def test_chi_square_1m_rolls():
    values, dice = rolls(1000000)
    counts = [values.count(v) for v in range(1, 7)]
    assert chi2(counts) < CHI2_5DOF_P001, counts
    # rejection of 6 and 7 happens a quarter of the time
    assert abs(dice.rejected / (1000000 + dice.rejected) - 0.25) < 0.005


def test_the_same_seed_rolls_the_same_dice_and_no_seed_rolls_fresh_ones():
    a, b, c = (seeded_board(s).dice for s in (7, 7, 8))
    first = [a.roll() for _ in range(200)]
    assert first == [b.roll() for _ in range(200)]
    assert first != [c.roll() for _ in range(200)]
    unseeded = [simworld.build().dice for _ in range(2)]
    assert [unseeded[0].roll() for _ in range(200)] != [unseeded[1].roll() for _ in range(200)]


def test_biased_raw_bits_would_fail_without_whitening():
    hw = seeded_board(11)
    bits = [hw.sim.rosc_bit() for _ in range(20000)]
    assert abs(sum(bits) / len(bits) - hw.sim.rosc_p1 / 256) < 0.02    # p(1) ~ 0.6


def whitened(value_bits):
    out = []
    for b in value_bits:
        out += [1, 0] if b else [0, 1]
    return out


def test_no_modulo_every_3_bit_value():
    # Feed each 3-bit value v, then 000. Rejection: v < 6 gives face v + 1 and v = 6, 7 are
    # dropped (the next draw, 0, gives face 1). A modulo of the 3 bits would give faces 1 and 2
    # for 6 and 7 and consume no second draw; a modulo of a wider number would read more bits.
    for v in range(8):
        bits = whitened([(v >> 2) & 1, (v >> 1) & 1, v & 1]) + whitened([0, 0, 0])
        it = iter(bits)
        d = Dice(lambda: next(it))
        face = d.roll()
        if v < 6:
            assert face == v + 1 and d.rejected == 0 and d.raw_bits == 6
        else:
            assert face == 1 and d.rejected == 1 and d.raw_bits == 12


def test_faces_equally_likely_over_all_inputs():
    # Over every 6-bit input (two 3-bit draws), count the faces the driver returns on the first
    # accepted draw: exactly equal counts, which no modulo of a 3-, 4- or 6-bit number gives.
    counts = [0] * 6
    for x in range(64):
        v1, v2 = x >> 3, x & 7
        if v1 >= 6 and v2 >= 6:
            continue
        bits = whitened([(v1 >> 2) & 1, (v1 >> 1) & 1, v1 & 1, (v2 >> 2) & 1, (v2 >> 1) & 1, v2 & 1])
        it = iter(bits)
        counts[Dice(lambda: next(it)).roll() - 1] += 1
    assert len(set(counts)) == 1, counts


# A dead random source: (raw pattern the register cycles through, what the health check sees)
DEAD_SOURCES = [
    ((0,), "constantly"),                        # stuck low: every pair agrees
    ((1,), "constantly"),                        # stuck high
    ((0, 1), "repeat"),                          # 0101...: every pair whitens to 0
    ((1, 0), "repeat"),                          # every pair whitens to 1
    ((1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1), "6 or 7"),   # whitens 1,1,1,1,1,0 ...: 7 then 6, for ever
    ((1, 1, 0, 1, 0, 0), "repeat"),              # 11 dropped, 01 -> 0, 00 dropped: only 0s
]


@pytest.mark.parametrize("pattern,why", DEAD_SOURCES)
def test_a_dead_random_source_is_a_fault_after_a_bounded_number_of_reads(pattern, why):
    from firmware.drivers.dice import DiceFault, MAX_EQUAL_PAIRS, MAX_REJECTS, REPEAT_CUTOFF
    hw = seeded_board(3)
    hw.sim.stick_rosc(pattern)
    with pytest.raises(DiceFault) as info:
        for _ in range(REPEAT_CUTOFF // 3 + 1):      # a short cycle may give a few faces first
            hw.dice.roll()
    assert why in str(info.value) and why in hw.dice.fault
    # bounded: at most every pair of every bit of every draw, never a hang
    assert hw.dice.raw_bits <= 2 * MAX_EQUAL_PAIRS * 3 * MAX_REJECTS
    with pytest.raises(DiceFault):                   # still dead: refused again, still bounded
        hw.dice.roll()
    hw.sim.stick_rosc(None)                          # the source works again
    assert 1 <= hw.dice.roll() <= 6
    assert hw.dice.fault is None


def test_the_health_check_never_trips_on_a_healthy_source():
    # 200,000 dice of the biased simulated source (p(1) = 0.6): no fault
    values, dice = rolls(200000, seed=99)
    assert dice.fault is None and len(values) == 200000
