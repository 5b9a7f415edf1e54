"""hardware/board.json checked before use: on the board (firmware/drivers/board_check.py, also
under MicroPython) and on the host (hardware/board.schema.json with jsonschema); nonsense values
are refused with a message naming the field."""

import copy
import json
import os

import pytest

from firmware.drivers import board_config
from firmware.drivers.board_check import check
from host_tools.boarddesign import board_schema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "hardware", "board.json")) as _f:
    DESC = json.load(_f)


def _set(path, value):
    def edit(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return edit


def _all(*edits):
    def edit(d):
        for e in edits:
            e(d)
    return edit


DELETE = object()

# (edit, the field the refusal must name)
BAD = [
    (_set(["zones", "slots", 3], 0), "zones.slots[3]"),
    (_set(["zones", "slots"], [5] * 27), "zones.slots"),
    # 28 x 10 = 280 sensors: more than an analog board's 8 select lines and byte slot numbers
    (_all(_set(["front_end"], "analog"), _set(["zones", "slots"], [10] * 28)), "zones.slots"),
    (_set(["sensing", "scan_ms"], 0), "sensing.scan_ms"),
    (_set(["sensing", "scan_ms"], 2.5), "sensing.scan_ms"),
    (_set(["leds", "count"], 0), "leds.count"),
    (_set(["leds", "zones", 7], [150, 10]), "leds.zones[7]"),
    (_set(["leds", "dice", 1], [0, 6]), "leds.dice[1]"),
    (_set(["leds", "turn", 0], 9999), "leds.turn[0]"),
    (_set(["pins", "led_data", "gpio"], 30), "pins.led_data.gpio"),
    (_set(["pins", "btn_p0"], DELETE), "pins.btn_p0"),
    (_set(["front_end"], "optical"), "front_end"),
    # too few shift registers matter on a digital board (whichever front end is the default)
    (_all(_set(["front_end"], "digital"), _set(["digital", "chips"], 1)), "digital.chips"),
    (_set(["digital", "active_low"], "yes"), "digital.active_low"),
    (_set(["analog", "rail_high"], 5000), "analog.rail_high"),
    (_set(["buttons", "long_ms"], 5), "buttons.long_ms"),
    (_set(["power", "derate_pct"], 0), "power.derate_pct"),
    (_set(["power", "supply_ma"], 50), "power.supply_ma"),
    (_set(["sensing"], DELETE), "sensing"),
    (_set(["name"], 7), "name"),
    (_set(["mcu", "wifi"], "yes"), "mcu.wifi"),
    (_set(["mcu"], []), "mcu"),
    (_set(["zones", "beside"], 3), "zones.beside"),
    # the analog stack model, which the scanner and the simulated Hall field read
    (_set(["analog", "stack"], []), "analog.stack"),
    (_set(["analog", "stack", "levels"], 0), "analog.stack.levels"),
    (_set(["analog", "stack", "levels"], 4), "analog.stack.levels"),
    (_set(["analog", "stack", "levels_mT"], [32.6, 30.0, 57.7]), "analog.stack.levels_mT"),
    (_set(["analog", "stack", "levels_mT"], [32.6, 49.0]), "analog.stack.levels_mT"),
    (_set(["analog", "stack", "levels_mT", 0], 0), "analog.stack.levels_mT[0]"),
    (_set(["analog", "stack", "crosstalk_mT", "along", 1], -20.0),
     "analog.stack.crosstalk_mT.along[1]"),
    (_set(["analog", "stack", "crosstalk_mT", "across"], DELETE),
     "analog.stack.crosstalk_mT.across"),
    (_set(["analog", "stack", "lateral_per_mm2", 2], "x"), "analog.stack.lateral_per_mm2[2]"),
    (_set(["analog", "stack", "magnet", "diameter_mm"], 0), "analog.stack.magnet.diameter_mm"),
    (_set(["analog", "stack", "sensor_depth_mm"], DELETE), "analog.stack.sensor_depth_mm"),
    (_set(["analog", "stack", "tolerances", "placement_mm"], [1]),
     "analog.stack.tolerances.placement_mm"),
    (_set(["analog", "stack", "tolerances", "noise_codes"], 2.5),
     "analog.stack.tolerances.noise_codes"),
    (_set(["analog", "adc_mv"], 0), "analog.adc_mv"),
    (_set(["analog", "sensitivity_mv_mt"], DELETE), "analog.sensitivity_mv_mt"),
    # one checker would move its sensor past the ADC's range
    (_set(["analog", "sensitivity_mv_mt"], -900), "analog.sensitivity_mv_mt"),
]


def test_the_real_description_passes_both_checks():
    check(copy.deepcopy(DESC))
    assert board_schema.check_file() == []


@pytest.mark.parametrize("edit,field", BAD, ids=[b[1] for b in BAD])
def test_the_firmware_names_the_field(edit, field, tmp_path):
    desc = copy.deepcopy(DESC)
    edit(desc)
    path = tmp_path / "board.json"
    path.write_text(json.dumps(desc))
    with pytest.raises(board_config.BoardConfigError) as info:
        board_config.load(str(path))
    assert str(info.value).startswith(str(path) + ": " + field), str(info.value)


@pytest.mark.parametrize("edit,field", BAD, ids=[b[1] for b in BAD])
def test_the_host_check_names_the_field(edit, field):
    pytest.importorskip("jsonschema")
    desc = copy.deepcopy(DESC)
    edit(desc)
    found = board_schema.problems(desc)
    assert any(p.startswith(field) or ("'%s'" % field.split(".")[-1]) in p for p in found), found


@pytest.mark.parametrize("data,why", [(b"{", "not a JSON description"),
                                      (b"\xff\xfe{}", "not a JSON description"),
                                      (b"[]", "must be a JSON object"),
                                      (b"{}", "name is missing")])
def test_files_that_are_no_description(data, why, tmp_path):
    path = tmp_path / "board.json"
    path.write_bytes(data)
    with pytest.raises(board_config.BoardConfigError) as info:
        board_config.load(str(path))
    assert why in str(info.value)
    assert board_schema.check_file(str(path))


def test_the_firmware_says_why_it_cannot_start(tmp_path):
    # the board's start-up with a broken description: one line saying why, not a traceback
    import subprocess
    import sys
    desc = copy.deepcopy(DESC)
    desc["sensing"]["scan_ms"] = 0
    hw = tmp_path / "hardware"
    hw.mkdir()
    (hw / "board.json").write_text(json.dumps(desc))
    (tmp_path / "firmware").symlink_to(os.path.join(ROOT, "firmware"))
    proc = subprocess.run([sys.executable, "-m", "firmware.main", "--sim", "--virtual-time"],
                          input="status\n", capture_output=True, text=True, cwd=str(tmp_path),
                          timeout=60)
    line = json.loads(proc.stdout.strip().splitlines()[0])
    assert line["t"] == "fatal" and "sensing.scan_ms" in line["msg"]
    assert "Traceback" not in proc.stderr


@pytest.mark.micropython
def test_the_check_runs_under_micropython(tmp_path):
    # the same table as on CPython: every bad description refused, naming its field
    from mphelp import run
    paths = []
    for i, (edit, _field) in enumerate(BAD):
        bad = copy.deepcopy(DESC)
        edit(bad)
        paths.append(str(tmp_path / ("bad%d.json" % i)))
        with open(paths[-1], "w") as f:
            json.dump(bad, f)
    script = tmp_path / "check.py"
    script.write_text(
        "from firmware.drivers import board_config\n"
        "print(board_config.load('hardware/board.json').n_slots)\n"
        "for path in %r:\n"
        "    try:\n"
        "        board_config.load(path)\n"
        "        print('accepted', path)\n"
        "    except board_config.BoardConfigError as e:\n"
        "        print('refused', e)\n" % paths)
    out = run(str(script)).strip().splitlines()
    assert out[0] == str(sum(DESC["zones"]["slots"]))
    assert len(out) == 1 + len(BAD), out
    for path, (_edit, field), line in zip(paths, BAD, out[1:]):
        assert line.startswith("refused %s: %s" % (path, field)), line
