"""Table-driven driver vectors (QMK debounce-test style); run by pytest and by the real MicroPython.

Each table row is (time ms, raw input, expected output). Under MicroPython this file runs as a
script (`micropython tests/test_drivers_vectors.py`, repo root on MICROPYPATH) and prints "ok N".
"""

import gc
import sys

if sys.implementation.name != "micropython":
    sys.path.insert(0, __file__.rsplit("/", 2)[0])

from firmware.sim import install

install()

from firmware.drivers.analog_scan import AnalogScanner  # noqa: E402
from firmware.drivers.buttons import BTN_MENU, BTN_P0, BTN_P1, LONG, Buttons  # noqa: E402
from firmware.drivers.debounce import SlotDebouncer  # noqa: E402
from firmware.drivers.dice import Dice  # noqa: E402
from firmware.drivers import hardware  # noqa: E402
from firmware.sim import world as simworld  # noqa: E402
from firmware.drivers.storage import seal, unseal  # noqa: E402
from firmware.drivers.ticks import ticks_add, ticks_diff  # noqa: E402


def run_debounce(rows, nbytes=1, press=20, release=40, active_low=False, slot=0):
    d = SlotDebouncer(nbytes, press, release, active_low)
    raw = bytearray(b"\xff" * nbytes) if active_low else bytearray(nbytes)
    for t, level, want in rows:
        raw[slot >> 3] = level
        d.update(raw, t)
        got = d.active(slot)
        assert got == want, "t=%d raw=%s: got %d want %d" % (t, level, got, want)
    return d


# (t, raw byte, expected active state of slot 0); press 20 ms, release 40 ms
BOUNCING_CONTACT = [
    (0, 0, 0),
    (5, 1, 0),     # contact closes: wait starts
    (10, 0, 0),    # bounce: wait abandoned
    (15, 1, 0),    # closes again: wait restarts
    (30, 1, 0),    # 15 ms
    (35, 1, 1),    # 20 ms: pressed
    (40, 0, 1),    # release starts
    (45, 1, 1),    # bounce back
    (50, 0, 1),    # release restarts
    (85, 0, 1),    # 35 ms
    (90, 0, 0),    # 40 ms: released
]

LATE_SCANS = [
    (0, 0, 0),
    (200, 1, 0),   # first scan to see it: the wait starts now, not at the last scan
    (205, 1, 0),
    (220, 1, 1),
    (500, 0, 1),
    (700, 0, 0),   # a late scan after the wait started counts the whole gap (saturates)
]

FLICKER = [(t, (t // 5) & 1, 0) for t in range(0, 300, 5)]   # toggles every scan: never believed


def test_debounce_bouncing_contact():
    run_debounce(BOUNCING_CONTACT)


def test_debounce_late_scans():
    run_debounce(LATE_SCANS)


def test_debounce_flicker_never_passes():
    run_debounce(FLICKER)


def test_debounce_active_low_and_far_slot():
    rows = [(t, 0xFF if v == 0 else 0xFF & ~(1 << 5), v) for t, _, v in BOUNCING_CONTACT
            if True for v in [v]]
    # rebuild BOUNCING_CONTACT's raw levels as active-low bit 5 of byte 2
    rows = []
    for t, level, want in BOUNCING_CONTACT:
        rows.append((t, 0xFF & ~(level << 5), want))
    run_debounce(rows, nbytes=3, active_low=True, slot=2 * 8 + 5)


def test_debounce_reports_changed_bits_once():
    d = SlotDebouncer(2, 10, 10)
    raw = bytearray(2)
    raw[1] = 0x81
    assert not d.update(raw, 0)
    assert d.update(raw, 10)
    assert d.changed[1] == 0x81 and d.changed[0] == 0
    assert not d.update(raw, 15)
    assert d.changed[1] == 0


def test_ticks_wrap():
    near = 0x3FFFFFFF - 5
    assert ticks_diff(ticks_add(near, 10), near) == 10
    assert ticks_diff(near, ticks_add(near, 10)) == -10


def test_debounce_across_tick_wrap():
    base = 0x3FFFFFFF - 12
    rows = [(ticks_add(base, t), lv, want) for t, lv, want in BOUNCING_CONTACT]
    run_debounce(rows)


# Buttons: (t, levels of P0 P1 MENU as a 3-bit int, 1 = pressed, expected event or None)
BUTTON_ROWS = [
    (0, 0b000, None),
    (5, 0b001, None),      # P0 down (bouncing)
    (10, 0b000, None),
    (15, 0b001, None),
    (40, 0b001, None),     # debounced down: no event yet
    (100, 0b000, None),    # released: wait for the debounce
    (125, 0b000, BTN_P0),  # short click
    (200, 0b100, None),    # MENU down
    (225, 0b100, None),    # debounced down: the long-press clock starts
    (1230, 0b100, BTN_MENU | LONG),  # held 1 s: long press, once
    (1400, 0b100, None),
    (1500, 0b000, None),
    (1530, 0b000, None),   # no event on release after a long press
    (1600, 0b010, None),
    (1625, 0b010, None),
    (1700, 0b000, None),
    (1725, 0b000, BTN_P1),
]


def test_buttons_click_and_long_press():
    state = [0]
    b = Buttons(lambda: (~state[0]) & 7, debounce_ms=20, long_ms=1000)
    for t, pressed, want in BUTTON_ROWS:
        state[0] = pressed
        got = b.poll(t)
        assert got == want, "t=%d: got %r want %r" % (t, got, want)


# A stuck button: (t, pressed levels, expected event, expected stuck bits); stuck_ms 3000
BUTTON_STUCK_ROWS = [
    (0, 0b001, None, 0),        # P0 already down at the first poll (held at power-up)
    (30, 0b001, None, 0),       # debounced down: no event, and no long press from it
    (1500, 0b001, None, 0),
    (3100, 0b001, None, 0b001),  # held 3 s: stuck
    (3200, 0b000, None, 0b001),
    (3225, 0b000, None, 0),     # released: works again, and its release is no click
    (3300, 0b010, None, 0),     # P1 down, held until it is stuck
    (3325, 0b010, None, 0),
    (4330, 0b010, BTN_P1 | LONG, 0),
    (6330, 0b010, None, 0b010),
    (9000, 0b010, None, 0b010),  # nothing more from it while it stays down
    (9100, 0b000, None, 0b010),
    (9125, 0b000, None, 0),
    (9200, 0b001, None, 0),     # P0 clicks normally now
    (9225, 0b001, None, 0),
    (9300, 0b000, None, 0),
    (9325, 0b000, BTN_P0, 0),
]

# a glitch at the very first read is not a held button: the first real click counts
GLITCH_ROWS = [(0, 0b100, None, 0), (5, 0b000, None, 0), (100, 0b000, None, 0),
               (200, 0b100, None, 0), (225, 0b100, None, 0), (300, 0b000, None, 0),
               (325, 0b000, BTN_MENU, 0)]


def test_buttons_stuck_or_held_from_power_up():
    for rows in (BUTTON_STUCK_ROWS, GLITCH_ROWS):
        state = [0]
        b = Buttons(lambda: (~state[0]) & 7, debounce_ms=20, long_ms=1000, stuck_ms=3000)
        changes = 0
        for t, pressed, want, stuck in rows:
            state[0] = pressed
            got = b.poll(t)
            assert got == want, "t=%d: got %r want %r" % (t, got, want)
            assert b.stuck == stuck, "t=%d: stuck %r want %r" % (t, b.stuck, stuck)
            changes += b.stuck_changed
            b.stuck_changed = False
        assert changes == (4 if rows is BUTTON_STUCK_ROWS else 0)


def scripted_bits(bits):
    it = iter(bits)
    return lambda: next(it)


def pairs(value_bits):
    """Raw bit pairs that von Neumann whitening turns into value_bits (1 -> 10, 0 -> 01)."""
    out = []
    for b in value_bits:
        out += [1, 0] if b else [0, 1]
    return out


def test_dice_rejects_6_and_7_and_whitens():
    # whitened 110 (6) and 111 (7) must be rejected, then 101 (5) -> face 6; 00/11 pairs dropped
    raw = [0, 0, 1, 1] + pairs([1, 1, 0]) + pairs([1, 1, 1]) + [1, 1] + pairs([1, 0, 1])
    d = Dice(scripted_bits(raw))
    assert d.roll() == 6
    assert d.rejected == 2
    assert d.raw_bits == len(raw)


def test_dice_every_face_from_its_three_bits():
    for v in range(6):
        bits = [(v >> 2) & 1, (v >> 1) & 1, v & 1]
        d = Dice(scripted_bits(pairs(bits)))
        assert d.roll() == v + 1 and d.rejected == 0


def test_seal_detects_corruption():
    blob = seal(b"turn 12: 6-5 24/18 13/8")
    assert unseal(blob) == b"turn 12: 6-5 24/18 13/8"
    bad = bytearray(blob)
    bad[3] ^= 1
    assert unseal(bytes(bad)) is None
    assert unseal(blob[:-1]) is None
    assert unseal(None) is None


_WORLDS = []


def _hw(front_end=None, **options):
    hw = simworld.build(front_end=front_end, **options)
    if sys.implementation.name == "micropython":
        _WORLDS.append(hw.sim.fs.root)      # CPython removes a world's folder by itself
    return hw


def _rmtree(path):
    import os
    for name in os.listdir(path):
        p = path + "/" + name
        try:
            os.remove(p)
        except OSError:
            _rmtree(p)
    os.rmdir(path)


def _run(hw, ms, changes=None):
    def each(t):
        if hw.zones.poll(t) and changes is not None:
            changes.append(t)
    hw.sim.advance(ms, 5, each)


# front end: (what a 15-checker point reads, its capacity); digital sees a slot occupied or not
# (a full point), analog counts every stack level (3 per slot: 15 on 5 slots)
FULL_POINT = {"digital": (5, 5), "analog": (15, 15)}


def test_zone_counts_full_point_digital_and_analog():
    for fe, (head, cap) in FULL_POINT.items():
        hw = _hw(fe)
        sim = hw.sim
        sim.set_zone(0, 15, 1)        # long nardy head: a row of 5, stacked three high
        sim.set_zone(5, 2, 2)
        sim.set_zone(24, 1, 1)
        changes = []
        _run(hw, 200, changes)
        z = hw.zones
        assert z.counts[0] == head and z.capacity[0] == cap, fe
        assert z.counts[5] == 2 and z.counts[24] == 1 and sum(z.counts) == head + 3, fe
        assert z.faults == 0
        if fe == "analog":
            assert z.colour[0] == 1 and z.colour[5] == 2 and z.colour[1] == 0
        else:
            assert z.colour[5] == 0
        assert len(changes) >= 1
        hw = sim = z = None           # a board holds one Hardware: free it before the next
        gc.collect()


# Zone timeline: (t, expected count of zone 3, expected fault bit of zone 3, then this action)
STUCK_ROWS = [
    (0, 0, 0, ("stick", 3 * 5 + 3, 1)),     # slot 3 of point k4 sticks on, slots 0-2 empty
    (100, 1, 0, None),                      # believed at first (could be a checker set down)
    (4000, 1, 0, None),
    (5200, 0, 1, ("zone", 3, 2)),           # isolated for stuck_ms: reported, not believed
    (5400, 2, 1, ("stick", 3 * 5 + 3, None)),   # real checkers still counted
    (9000, 2, 0, None),                     # the sensor came free: believed again
]


def test_stuck_sensor_reported_not_believed():
    for fe in ("digital", "analog"):
        hw = _hw(fe)
        sim = hw.sim
        t0 = 0
        for t, count, fault, action in STUCK_ROWS:
            _run(hw, t - t0)
            t0 = t
            assert hw.zones.counts[3] == count, (fe, t, hw.zones.counts[3])
            assert (hw.zones.faults >> 3) & 1 == fault, (fe, t, hw.zones.faults)
            if action:
                if action[0] == "stick":
                    sim.stick(action[1], action[2])
                else:
                    sim.set_zone(action[1], action[2], 1)


def test_chattering_slot_masked():
    hw = _hw("digital")
    sim = hw.sim
    s = 7 * 5          # slot 0 of point k8
    for i in range(8):           # on and off every 100 ms: passes debounce, but chatters
        sim.set_slot(s, i % 2 == 0)
        _run(hw, 100)
    assert (hw.zones.faults >> 7) & 1
    assert hw.zones.counts[7] == 0
    sim.set_slot(s, 0)
    _run(hw, 4500)                 # quiet for two windows: believed again
    assert hw.zones.faults == 0
    sim.set_slot(s, 1)
    _run(hw, 100)
    assert hw.zones.counts[7] == 1


def test_hand_speed_lift_and_place_is_not_chatter():
    hw = _hw("digital")
    sim = hw.sim
    s = 7 * 5
    for i in range(12):          # the same checker lifted and put back every 300 ms
        sim.set_slot(s, i % 2 == 0)
        _run(hw, 300)
        assert hw.zones.faults == 0
        assert hw.zones.counts[7] == (1 if i % 2 == 0 else 0)


def test_analog_drift_followed_then_recalibrated():
    hw = _hw("analog")
    sim = hw.sim
    sim.set_zone(2, 1, 2)
    _run(hw, 300)
    assert hw.zones.counts[2] == 1
    # (t, drift in codes, expected total count): a slow drift of +120 codes (more than the
    # 90-code hold threshold), 10 codes a second, never makes empty slots read occupied
    rows = [(100 + 1000 * i, 10 * i, 1) for i in range(1, 13)] + [(14000, 120, 1)]
    t0 = 100
    for t, drift, total in rows:
        sim.drift(drift)
        _run(hw, t - t0)
        t0 = t
        assert sum(hw.zones.counts) == total, (t, list(hw.zones.counts))
    # a sudden jump is not followed as drift: recalibrate with the board empty
    sim.set_zone(2, 0)
    sim.drift(-400)
    _run(hw, 300)
    assert sum(hw.zones.counts) > 0
    hw.scanner.calibrate(4)
    hw.zones.clear_faults()
    _run(hw, 300)
    assert sum(hw.zones.counts) == 0
    sim.set_zone(2, 3, 1)
    _run(hw, 300)
    assert hw.zones.counts[2] == 3 and hw.zones.colour[2] == 1


def test_calibration_is_kept_across_a_reboot():
    hw = _hw("analog")
    sim = hw.sim
    sim.drift(-300)                  # a board whose sensors all read 300 codes low
    assert hw.calibrate_sensors(4)
    base = hw.scanner.baseline[40]
    del hw                           # a board holds one Hardware: the old one goes at a reboot
    gc.collect()
    hw2 = sim.reboot()
    assert hw2.scanner.baseline[40] == base
    _run(hw2, 300)
    assert sum(hw2.zones.counts) == 0
    sim.set_zone(9, 2, 1)
    _run(hw2, 300)
    assert hw2.zones.counts[9] == 2 and hw2.zones.colour[9] == 1
    assert not _hw("digital").calibrate_sensors()


def test_sim_frame_sets_slots():
    hw = _hw("digital")
    frame = bytearray(18)
    frame[0] = 0b00000111            # slots 0-2: three checkers on k1
    frame[16] = 0b00001000           # slot 131: tray off0's second slot
    hw.sim.set_frame(frame)
    _run(hw, 100)
    assert hw.zones.counts[0] == 3 and hw.zones.counts[26] == 1 and sum(hw.zones.counts) == 4


def test_analog_reading_at_threshold_does_not_flicker():
    hw = _hw("analog")
    sim = hw.sim
    s = 10
    base = hw.scanner.baseline[s] >> 4
    # put the sensor's mean right on the "occupied" threshold, with +-20 codes of noise
    sim.signal_codes = hw.scanner.on >> 4
    sim.noise = 20
    sim.drift(0)
    sim.set_slot(s, 1, 2)
    seen = []

    def each(t):
        if hw.zones.poll(t):
            seen.append((t, bytes(hw.zones.counts), getattr(hw.zones, "unclear", 0)))
    hw.sim.advance(2000, 5, each)
    counts = [c for i, (_, c, _) in enumerate(seen) if i == 0 or c != seen[i - 1][1]]
    marks = [u for i, (_, _, u) in enumerate(seen) if i == 0 or u != seen[i - 1][2]]
    assert len(counts) <= 1, seen          # the count changes once (the checker is seen) ...
    # ... and a third of a checker's field is no clean checker (a checker half off its slot, or
    # one of the other colour on it): the slot may be marked unclear once, and stays so
    assert len(marks) <= 2 and marks[0] == 0, seen
    assert base > 0


class _Registers:
    """The SIO's select register, standing in for a scanner fed by a list: writes go nowhere."""

    def __setitem__(self, address, value):
        pass


def _stack_scanner(codes, hyst_pct=3):
    """A 3-level AnalogScanner on ``len(codes)`` slots whose ADC reads ``codes[slot]`` (a
    list: change it to move a stack), one checker = 400 codes, levels 1 / 1.5 / 1.77."""
    n = len(codes)
    sel = [0]                                   # the scanner starts with slot 0 selected

    class Regs(_Registers):
        def __setitem__(self, address, value):
            sel[0] ^= value >> 6

    def read():
        c = codes[sel[0]]
        return (c << 4) | (c >> 8)

    return AnalogScanner(read, Regs(), 6, n, zero_code=1241, levels=3, unit=400,
                         ratios=(256, 384, 452), hyst=hyst_pct * 256 // 100, bad_codes=())


def _scans(sc, k):
    for _ in range(k):
        sc.scan()


def test_analog_stack_settling_inside_the_hysteresis_is_read_again():
    # A Black 3-stack reading 661 codes above zero: past the 2|3 edge (653) by 8 codes, inside
    # level 2's hysteresis (12 codes) and past half of it. Read as 3 set down at once (its
    # filtered level passes level 2 on the way up), built checker by checker, and put back after
    # a lift (no band left: the drift round's second reading); 3 codes past the edge (less than
    # half the hysteresis) it stays as it was entered: no flicker at an edge.
    zero = 1241
    codes = [zero] * 4
    sc = _stack_scanner(codes)
    _scans(sc, 20)
    assert list(sc.state) == [0, 0, 0, 0]
    codes[1] = zero + 661                       # set down whole
    _scans(sc, 20)
    assert sc.state[1] == 3 | 4
    codes[2] = zero + 400                       # built up checker by checker
    _scans(sc, 20)
    codes[2] = zero + 600
    _scans(sc, 20)
    assert sc.state[2] == 2 | 4
    codes[2] = zero + 700                       # (the 2-stack's own unit now known:
    _scans(sc, 20)                              # 661 would read as one topped by White)
    assert sc.state[2] == 3 | 4
    codes[1] = zero + 600                       # a checker lifted, then put back
    _scans(sc, 20)
    assert sc.state[1] == 2 | 4
    codes[1] = zero + 661
    _scans(sc, 40)                              # it settles, and a drift round comes
    assert sc.state[1] == 3 | 4
    raw = sc.raw                                # the planes say three on slot 1
    assert [(raw[p * sc.nbytes] >> 1) & 1 for p in range(4)] == [1, 1, 1, 1]
    codes[3] = zero + 600
    _scans(sc, 20)
    codes[3] = zero + 656                       # 3 codes past the edge: as entered (2)
    _scans(sc, 40)
    assert sc.state[3] == 2 | 4


def thresholds(sc, s, occupied):
    """(hi, lo) band of slot s of the AnalogScanner ``sc``: empty (occupied False) or holding its
    present state."""
    sc._set_band(s, sc.state[s] if occupied else 0)
    return sc.hi[s], sc.lo[s]


def test_analog_thresholds_avoid_bad_codes():
    sc = AnalogScanner(lambda: 0, None, 6, n=4, bad_guard=12)
    for base in range(1300, 1500):
        sc.set_baseline(0, base << 4)
        for t in thresholds(sc, 0, False) + thresholds(sc, 0, True):
            for bad in sc.bad_codes:
                assert abs((t >> 4) - bad) > 12 or abs(t - (bad << 4)) > 12 << 4, (base, t)


def test_analog_open_sensor_is_a_fault():
    hw = _hw("analog")
    sim = hw.sim
    sim.stick(30, "open")
    _run(hw, 1000)          # the rail check visits one slot per scan
    z = hw.config.slot_zone[30]
    assert (hw.zones.faults >> z) & 1 and hw.zones.counts[z] == 0
    sim.stick(30, None)
    _run(hw, 1000)
    assert hw.zones.faults == 0


def test_led_limiter_scales_full_white():
    hw = _hw("digital")
    leds = hw.leds
    for i in range(leds.n):
        leds.pixel(i, 0xFFFFFF)
    assert leds.write()
    assert leds.scale < 256
    assert leds.frame_ma() <= leds.limit_ma
    assert leds.frame_ma() > leds.limit_ma * 9 // 10
    assert not leds.write()                # unchanged frame: nothing sent
    frames = hw.sim.frames
    leds.clear()
    leds.zone(3, (0, 255, 0))
    assert leds.write() and hw.sim.frames == frames + 1
    assert leds.scale == 256
    shown = hw.sim.led_frame()
    first = hw.config.led_first[3]
    assert shown[3 * first:3 * first + 3] == bytes((0, leds.cap, 0))
    assert shown[3 * (first + 5):3 * (first + 5) + 3] == b"\x00\x00\x00"


# Limiter rows: (white LEDs lit at the cap, limited?) for the digital budget (1530 mA of drive:
# 18.8 mA per white LED at cap 80, so up to 81 LEDs pass untouched)
# digital build: (white LEDs at the brightness cap, limited?); 80 fit power.md's budget
LIMITER_ROWS = [(0, False), (10, False), (80, False), (81, True), (120, True), (156, True)]


def test_led_limiter_rows():
    hw = _hw("digital")
    leds = hw.leds
    for lit, limited in LIMITER_ROWS:
        leds.clear()
        for i in range(lit):
            leds.pixel(i, 0xFFFFFF)
        leds.write()
        assert (leds.scale < 256) == limited, (lit, leds.scale)
        shown = hw.sim.led_frame()
        drive = sum(shown) * leds.ma_per_channel // 255
        assert drive <= leds.limit_ma, (lit, drive)
        if limited:                  # scaled just enough: within 2 % of the budget
            assert drive >= leds.limit_ma * 98 // 100, (lit, drive)


def test_led_pio_driver_shows_the_same_frame():
    frames = []
    for driver in ("neopixel", "pio"):
        hw = _hw(led_driver=driver)
        hw.leds.zone(5, 0x00FF00)
        hw.leds.die(0, 3, 0xFFFFFF)
        for i in range(hw.leds.n):
            hw.leds.pixel(i, 0xFFFFFF) if i > 140 else None
        assert hw.leds.write()
        frames.append(hw.sim.led_frame())
    assert frames[0] == frames[1] and any(frames[0])


def test_led_overpainting_does_not_dim():
    hw = _hw("digital")
    leds = hw.leds
    for _ in range(400):               # repaint without clear(): the bound grows, the exact sum not
        leds.zone(3, 0xFFFFFF)
        leds.zone(4, (255, 0, 0))
    leds.write()
    assert leds.scale == 256
    assert leds.frame_ma() == sum(hw.sim.led_frame()) * leds.ma_per_channel // 255


def test_led_dice_pips():
    hw = _hw("digital")
    leds = hw.leds
    lit = {}
    for v in range(7):
        leds.clear()
        leds.die(1, v, 0xFFFFFF)
        leds.write()
        f = hw.sim.led_frame()
        first = hw.config.dice_first[1]
        lit[v] = sum(1 for p in range(7) if f[3 * (first + p)])
    assert lit == {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}


def test_storage_power_cut_leaves_old_or_new():
    hw = _hw("digital")
    old = b"old record " * 20
    new = b"NEW RECORD!" * 23
    hw.storage.write_atomic("game", old)
    for cut in range(0, len(new) + 3):      # every byte, and the rename
        hw.sim.power_cut(after_bytes=cut)
        try:
            hw.storage.write_atomic("game", new)
            done = True
        except BaseException as e:       # PowerCut
            assert type(e).__name__ == "PowerCut"
            done = False
        hw = hw.sim.reboot()
        got = hw.storage.read("game")
        assert got == (new if done else old) or got == new, (cut, got[:12])
        if got == new:
            hw.storage.write_atomic("game", old)


def test_storage_on_the_boards_own_filesystem():
    # the board's path: fs=None means the os module and the built-in open (os has no open)
    import os
    from firmware.drivers.storage import Storage
    root = "/tmp/nardy-storage-%d" % int.from_bytes(os.urandom(3), "little")
    st = Storage(root)
    try:
        assert st.read("a") is None
        st.write_atomic("a", b"one")
        st.write_atomic("a", b"two")
        assert st.read("a") == b"two" and list(st.names()) == ["a"]
        st.remove("a")
        assert st.read("a") is None
    finally:
        for name in os.listdir(root):
            os.remove(root + "/" + name)
        os.rmdir(root)


def test_power_cut_darkens_strip_and_refuses_writes():
    hw = _hw("digital")
    hw.leds.zone(0, 0xFFFFFF)
    hw.leds.write()
    assert any(hw.sim.led_frame())
    hw.sim.power_cut()
    assert not any(hw.sim.led_frame())
    try:
        hw.storage.write_atomic("x", b"1")
        raise AssertionError("write after a power cut")
    except BaseException as e:
        assert type(e).__name__ == "PowerCut"
    hw2 = hw.sim.reboot()
    assert hw2.storage.read("x") is None


def test_watchdog_starts_on_first_feed():
    hw = _hw("digital")
    hw.sim.advance(20000)
    assert not hw.sim.wdt_fired
    hw.wdt.feed()
    hw.sim.advance(5000)
    hw.wdt.feed()
    hw.sim.advance(5000)
    assert not hw.sim.wdt_fired
    hw.sim.advance(5000)
    assert hw.sim.wdt_fired


def test_sim_buttons_through_gpio():
    hw = _hw("digital")
    hw.buttons.poll(hw.ticks_ms())     # the board polls from power-up (a button down then is ignored)
    hw.sim.press("menu", 1500)
    events = []
    hw.sim.advance(2000, 5, lambda t: events.append(hw.buttons.poll(t)))
    assert [e for e in events if e] == [BTN_MENU | LONG]
    hw.sim.press(0, 80)
    events = []
    hw.sim.advance(200, 5, lambda t: events.append(hw.buttons.poll(t)))
    assert [e for e in events if e] == [BTN_P0]


def test_realtime_world_releases_a_press():
    from firmware.sim.world import SimWorld
    from firmware.drivers import board_config
    import time
    cfg = board_config.load(hardware.DESCRIPTION)
    world = SimWorld(cfg, realtime=True)
    hw = _hw(world=world)
    hw.buttons.poll(hw.ticks_ms())     # polled from power-up, as on the board
    world.press("p0", 30)
    events = []
    end = world.clock() + 200
    while world.clock() < end:
        events.append(hw.buttons.poll(hw.ticks_ms()))
        if hasattr(time, "sleep_ms"):
            time.sleep_ms(2)
        else:
            time.sleep(0.002)
    assert [e for e in events if e] == [BTN_P0]


def test_scan_debounce_zones_buttons_and_painting_allocate_nothing():
    # under MicroPython the heap is locked: any allocation raises MemoryError
    import micropython
    for fe in ("digital", "analog"):
        hw = _hw(fe)
        sim = hw.sim
        clock = [0]

        def scans(n):
            for _ in range(n):
                clock[0] += 5
                hw.zones.poll(clock[0])
                hw.buttons.poll(clock[0])

        scans(50)
        for phase in range(4):
            sim.set_zone(phase, 3, 1 + phase % 2)     # checkers arrive: flips, recounts
            sim.press(phase % 3, 40)
            micropython.heap_lock()
            try:
                scans(60)
            finally:
                micropython.heap_unlock()
            assert hw.zones.counts[phase] == 3, (fe, phase)
        leds = hw.leds
        leds.clear()
        leds.zone(3, 0x00FF00)
        micropython.heap_lock()
        try:
            leds.clear()
            leds.zone(3, 0x00FF00)
            leds.zone(5, 0xFF0000, 2)
            leds.die(0, 4, 0xFFFFFF)
            leds.turn(1, 0x0000FF)
        finally:
            micropython.heap_unlock()


def _main():
    names = sorted(k for k in globals() if k.startswith("test_"))
    try:
        for name in names:
            globals()[name]()
    finally:
        for path in _WORLDS:
            _rmtree(path)
    print("ok", len(names))


if __name__ == "__main__":
    _main()
