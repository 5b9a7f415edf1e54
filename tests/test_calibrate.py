"""calibrate: the firmware's analog scanner sampled on a board (the real MicroPython on a pty, simulated Hall sensors)."""

import io
import json
import os
import struct
import subprocess
import sys
import time

import serial

import pytest

from host_tools.cmd_calibrate import ZONE_NAMES, baseline_bytes, calibrate, thresholds
from host_tools.cmd_deploy import deploy

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The stand-in board's simulated world (host_tools/device/fakeboard.py), moved by the test's hand.
PLACE = """
from firmware.sim import machine as _m
from firmware.board.zonemap import ZONES
_w = _m.current_world()
for _z in range(ZONES):
    _w.set_zone(_z, 0)
%s
"""
ZERO_CODE = 1241          # hardware/board.json analog.zero_code, what the simulated sensors read
SIGNAL = 500              # firmware/sim/world.py: one magnet in the idealised sensor model


def sim_offset(slot):
    """The fixed zero offset SimWorld gives each simulated sensor."""
    return ((slot * 37) % 121) - 60


def test_thresholds_sit_half_way_and_flag_weak_slots():
    empty = {0: (1000.0, 995, 1005), 1: (1200.0, 1198, 1202)}
    white = {0: (600.0, 598, 602), 1: (1080.0, 1079, 1081)}
    black = {0: (1400.0, 1399, 1401), 1: (1500.0, 1499, 1501)}
    rows = thresholds(empty, white, black, on_codes=150)
    assert rows["0"]["white_threshold"] == 800.0 and rows["0"]["black_threshold"] == 1200.0
    assert rows["0"]["weak"] is False
    assert rows["1"]["weak"] is True          # White moves slot 1 by only 120 codes
    assert struct.unpack("<2H", baseline_bytes(empty)) == (16000, 19200)


@pytest.fixture
def analog_board(fake_board):
    """The firmware deployed for the analog front end and started by a reset (calibrate
    interrupts it). The sensors are the idealised ones (equal magnets, fixed zero offsets, no
    noise: exact readings to compare); the stacked-magnet physics is tested in
    tests/test_sensing.py."""
    deploy(fake_board.port, root=REPO, reset=False, out=io.StringIO(), front_end="analog")
    desc_path = os.path.join(fake_board.root, "hardware", "board.json")
    with open(desc_path) as f:
        desc = json.load(f)
    desc["analog"].pop("stack", None)
    with open(desc_path, "w") as f:
        json.dump(desc, f)
    mpremote = os.path.join(os.path.dirname(sys.executable), "mpremote")
    with serial.Serial(fake_board.port, timeout=0.2) as line:
        subprocess.run([mpremote, "connect", fake_board.port, "reset"], check=True, timeout=60)
        seen = b""
        deadline = time.monotonic() + 20
        while b'"hello"' not in seen:
            assert time.monotonic() < deadline, "the firmware did not start: %r" % seen[-300:]
            seen += line.read(4096)
    return fake_board


@pytest.mark.micropython
def test_calibration_measures_every_slot_and_stores_it_on_the_board(analog_board):
    from mpremote.transport_serial import SerialTransport
    zones = [0, ZONE_NAMES.index("bar1"), ZONE_NAMES.index("off0")]
    prompts = []
    transport = SerialTransport(analog_board.port, baudrate=115200)

    def hand(text):            # the person at the board, here moving simulated magnets
        prompts.append(text)
        if "off the board" in text:
            transport.exec(PLACE % "")
            return
        zone = zones[(len(prompts) - 2) // 2]
        colour = 1 if "White" in text else 2
        transport.exec(PLACE % ("_w.set_zone(%d, 99, %d)" % (zone, colour)))

    try:
        transport.enter_raw_repl(soft_reset=False)
        out = io.StringIO()
        report = calibrate(transport, zones, ask=hand, out=out, samples=4)
    finally:
        transport.close()
    assert len(prompts) == 1 + 2 * len(zones)
    slots = report["slots"]
    for s, row in slots.items():
        assert row["empty"] == ZERO_CODE + sim_offset(int(s))
    first_of_bar1 = 24 * 5 + 5          # 24 points of 5 slots, then bar0 (5), then bar1
    row = slots[str(first_of_bar1)]
    assert row["white"] == ZERO_CODE + sim_offset(first_of_bar1) - SIGNAL
    assert row["black_threshold"] == ZERO_CODE + sim_offset(first_of_bar1) + SIGNAL / 2
    assert report["weak"] == []
    measured = sum(1 for r in slots.values() if "white" in r)
    assert measured == 5 + 5 + 5

    data = open(os.path.join(analog_board.root, "data", "hall_calibration"), "rb").read()
    stored = struct.unpack("<%dH" % (len(data) // 2), data)
    assert len(stored) == 140
    assert all(stored[s] == (ZERO_CODE + sim_offset(s)) * 16 for s in range(140))
    saved = json.loads(open(os.path.join(analog_board.root, "data", "hall_calibration.json")).read())
    assert saved["slots"] == slots
