"""benchboot: the heap the firmware leaves after boot under MicroPython, and a boot that does not fit said so."""

import json

import pytest

from host_tools import cmd_benchboot


@pytest.mark.micropython
def test_the_heap_after_boot_adds_up_and_leaves_room(capsys):
    assert cmd_benchboot.main(["--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["heap"] == "230K"
    # (the collector's own tables take a little of the heap before any object)
    assert 225 * 1024 < r["free"] + r["used"] <= 230 * 1024
    assert 0 < r["max_free_block"] <= r["free"]
    assert 0 < r["qstrs"] < 1261        # past 1,261 names MicroPython takes a 15 KB qstr pool


@pytest.mark.micropython
def test_a_heap_too_small_to_boot_in_is_said(capsys):
    with pytest.raises(SystemExit, match="the boot failed under 120K"):
        cmd_benchboot.main(["--heap", "120K"])
