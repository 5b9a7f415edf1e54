"""Consistency of hardware/board.json, its generated files, and the firmware that reads it."""

import json
import os
import random
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from firmware.sim import install  # noqa: E402

install()

from firmware.board.zonemap import ZONES  # noqa: E402
from firmware.drivers import board_config  # noqa: E402
from firmware.sim import world as simworld  # noqa: E402
from host_tools.boarddesign import hardware_gen  # noqa: E402

DESC = hardware_gen.load()
SPI0_SCK, SPI0_RX, SPI0_TX = {2, 6, 18, 22}, {0, 4, 16, 20}, {3, 7, 19}


def gpio(name):
    return DESC["pins"][name]["gpio"]


def test_no_pin_used_twice_and_every_pin_exists():
    used = [p["gpio"] for p in DESC["pins"].values()]
    assert len(used) == len(set(used)), sorted(used)
    assert set(used) <= hardware_gen.USABLE_GPIO


@pytest.mark.parametrize("front_end", ["digital", "analog"])
def test_pins_fit_the_peripherals_the_drivers_use(front_end):
    pins = hardware_gen.pins_for(DESC, front_end)
    if front_end == "digital":
        assert pins["sr_clk"] in SPI0_SCK and pins["sr_data"] in SPI0_RX and pins["sr_tx"] in SPI0_TX
    else:
        base = pins["mux_s0"]
        order = ["mux_s0", "mux_s1", "mux_s2", "mux_s3", "bank_s0", "bank_s1", "bank_s2", "bank_s3"]
        assert [pins[k] for k in order] == list(range(base, base + 8))   # one SIO write selects
        assert pins["adc"] in (26, 27, 28)
    assert [pins["btn_p0"], pins["btn_p1"], pins["btn_menu"]] == [gpio("btn_p0") + i for i in range(3)]


def test_boot_py_reads_the_menu_pin_of_the_description():
    text = open(os.path.join(ROOT, "boot.py")).read()
    assert int(re.search(r"BTN_MENU_GPIO = (\d+)", text).group(1)) == gpio("btn_menu")


def test_every_zone_has_sensors_and_leds():
    z = DESC["zones"]
    assert len(z["names"]) == len(z["slots"]) == len(DESC["leds"]["zones"]) == ZONES
    for i in range(ZONES):
        assert z["slots"][i] >= 1, z["names"][i]
        assert DESC["leds"]["zones"][i][1] == z["slots"][i], z["names"][i]   # one LED per slot
    slots = sum(z["slots"])
    assert DESC["digital"]["chips"] * 8 >= slots
    assert DESC["analog"]["muxes"] * 16 >= slots and DESC["analog"]["muxes"] <= 16


def test_led_indices_contiguous_and_disjoint():
    leds = DESC["leds"]
    seen = []
    for first, count in leds["zones"] + leds["dice"]:
        seen += range(first, first + count)
    seen += leds["turn"]
    assert sorted(seen) == list(range(leds["count"]))
    assert all(count == 7 for _, count in leds["dice"]) and len(leds["pips"]) == 7


def test_firmware_tables_match_the_description():
    cfg = board_config.load(hardware_gen.DESCRIPTION)
    for z, name, first, cap in hardware_gen.zone_slots(DESC):
        assert cfg.zone_first[z] == first and cfg.zone_cap[z] == cap
        assert all(cfg.slot_zone[s] == z for s in range(first, first + cap))
    assert cfg.n_slots == len(cfg.slot_zone) == hardware_gen.n_slots(DESC)


@pytest.mark.parametrize("front_end", ["digital", "analog"])
def test_worst_frame_within_the_current_limit(front_end):
    hw = simworld.build(front_end=front_end)
    leds = hw.leds
    budget = hardware_gen.power_budget(DESC, front_end)
    assert leds.limit_ma == budget["budget"] > 0
    rng = random.Random(7)
    frames = [[0xFFFFFF] * leds.n, [0xFF0000] * leds.n,
              [rng.randrange(1 << 24) for _ in range(leds.n)]]
    for frame in frames:
        for i, c in enumerate(frame):
            leds.pixel(i, c)
        leds.write()
        shown = hw.sim.led_frame()
        drive = sum(shown) * DESC["power"]["led_ma_per_channel"] // 255
        assert drive <= leds.limit_ma
        total = drive + budget["logic"] + budget["sensors"] + budget["idle"]
        assert total <= budget["usable"], (front_end, total)


def test_full_white_frame_needs_the_limiter():
    b = hardware_gen.power_budget(DESC, "digital")
    assert b["white_at_cap"] > b["budget"]            # the limiter is not decorative
    assert b["limited"] <= b["budget"]


def test_generated_files_are_up_to_date():
    assert hardware_gen.stale(DESC) == [], "run: python -m host_tools hardware"


def test_bom_counts_follow_the_description():
    rows = hardware_gen.bom_rows(DESC)
    by = {(r["front_end"], r["value"]): r["quantity"] for r in rows}
    slots = hardware_gen.n_slots(DESC)
    assert by[("digital", "74HC165")] == DESC["digital"]["chips"]
    assert by[("analog", "DRV5053 -11 mV/mT")] == slots
    assert by[("both", "WS2812B")] == DESC["leds"]["count"]
    assert all(r["example_part_number"] for r in rows)


def test_stale_check_notices_a_change(tmp_path):
    desc = json.loads(json.dumps(DESC))
    hardware_gen.write_all(desc, str(tmp_path), netlist=False)
    assert hardware_gen.stale(desc, str(tmp_path), netlist=False) == []
    desc["leds"]["count"] += 1
    assert "bom.csv" in hardware_gen.stale(desc, str(tmp_path), netlist=False)


def test_netlist_from_skidl_is_erc_clean_and_wires_every_sensor():
    out = hardware_gen.schematic(DESC)
    assert out["erc_errors"] == 0 and out["erc_warnings"] == 0, out["erc"]
    net = out["netlist"]
    slots = hardware_gen.n_slots(DESC)
    comps = re.findall(r'\(comp\s+\(ref "([A-Z#]+)\d+"\)', net)
    assert comps.count("H") == slots and comps.count("D") == DESC["leds"]["count"]
    sensor_nets = re.findall(r'\(name "S\d+_[A-Z0-9]+_\d"\)\s+\(node\s+\(ref "(\w+)"\)', net)
    assert len(sensor_nets) == slots                   # one net per sensor, to its mux
    assert "(date \"\")" in net                       # no date: regenerating changes nothing


def test_stack_model_follows_the_geometry(tmp_path):
    # board.json's derived levels/crosstalk are what its geometry gives; a changed geometry is
    # stale until `hardware` rewrites that line
    assert not hardware_gen.model_stale(DESC)
    desc = json.loads(json.dumps(DESC))
    desc["analog"]["stack"]["sensor_depth_mm"] = 10
    assert hardware_gen.model_stale(desc)
    path = tmp_path / "board.json"
    path.write_text(open(hardware_gen.DESCRIPTION).read().replace('"sensor_depth_mm": 12',
                                                                  '"sensor_depth_mm": 10'))
    assert hardware_gen.write_model(desc, str(path))
    again = hardware_gen.load(str(path))
    assert not hardware_gen.model_stale(again)
    assert again["analog"]["stack"]["levels_mT"][0] > DESC["analog"]["stack"]["levels_mT"][0]


def test_stacked_levels_are_apart_and_within_the_sensor_range():
    st = DESC["analog"]["stack"]
    lv = st["levels_mT"]
    assert lv == sorted(lv) and lv[1] - lv[0] > 10 and lv[2] - lv[1] > 5
    worst = lv[-1] + 4 * max(abs(x) for k in st["crosstalk_mT"].values() for x in k)
    sens = abs(DESC["analog"]["sensitivity_mv_mt"])
    linear = 800 / sens                       # DRV5053: 0.2-1.8 V around 1.0 V
    assert worst * (1 + st["tolerances"]["gain_pct"] / 100) < linear


def test_cmd_hardware_check_passes():
    from host_tools import cmd_hardware
    assert cmd_hardware.main(["--check"]) == 0
    assert cmd_hardware.__doc__.strip().splitlines()[0]
