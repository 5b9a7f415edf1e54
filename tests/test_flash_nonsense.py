"""Damaged flash boots to a running board that reports the loss (issue 23): a header sealed with the
board's own key but holding nonsense (``score: "x"``, ``match_to: -1``...), an erased sector (2 KB
or more without a newline) and a line moved or duplicated far from its place, on CPython and
under the MicroPython unix port (230K)."""

import json
import os

import pytest

from host_tools.soak.soakboard import VirtualBoard
from tests.test_boot_window import boots, make_flash

HEADER_NONSENSE = [
    {"score": "x"}, {"score": [0]}, {"score": [0, -1]}, {"score": None}, {"match_to": -1},
    {"match_to": "5"}, {"match_to": 10 ** 12}, {"games": "many"}, {"clock": [1, 2]},
    {"clock": {"reserve": "x"}}, {"clock": {"left": [1]}}, {"options": [1]}, {"variant": 7},
]


def _game_file(flash, serial):
    return os.path.join(flash, "data", "g%d" % serial)


def _reseal(vb, serial, text):
    return text + "|" + vb.session.journal.seal(text, serial)


def _played(tmp_path):
    """A backgammon game 30 plies in (some 70 lines), not over."""
    import random
    from host_tools.soak.soakplayer import Player
    vb = VirtualBoard("backgammon", flash_dir=str(tmp_path), fast=True, seed=5)
    vb.pace = 50
    Player(vb, random.Random(5), "none").play_match("backgammon", max_plies=30)
    return vb


def _runs(vb):
    """The board answers status after the reboot."""
    m = vb.mark()
    vb.cmd("status")
    return any(o.get("t") == "status" for o in vb.lines[m:])


@pytest.mark.parametrize("change", HEADER_NONSENSE, ids=[json.dumps(c) for c in HEADER_NONSENSE])
def test_a_well_sealed_nonsense_header_boots_and_is_reported(tmp_path, change):
    vb = _played(tmp_path)
    try:
        serial = vb.session.journal.serial
        path = _game_file(str(tmp_path), serial)
        with open(path) as f:
            lines = f.read().split("\n")
        header = json.loads(lines[0][:-33])
        assert header["k"] == "game"
        header.update(change)
        lines[0] = _reseal(vb, serial, json.dumps(header))
        for name in (path, path + ".h"):
            with open(name, "w") as f:
                f.write("\n".join(lines) if name == path else lines[0] + "\n")
        m = vb.mark()
        vb.reboot()
        said = vb.lines[m:]
        assert any(o.get("ev") == "journal_lost" or o.get("ev") == "power_restore"
                   and o.get("refused") for o in said), said[:5]
        assert _runs(vb)
    finally:
        vb.close()


@pytest.mark.parametrize("damage", ["erased 2K", "erased 4K at the end", "moved 15", "duplicated"])
def test_damaged_lines_boot_keep_the_rest_and_report(tmp_path, damage):
    vb = _played(tmp_path)
    try:
        serial = vb.session.journal.serial
        path = _game_file(str(tmp_path), serial)
        with open(path, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        if damage == "erased 2K":
            at = len(lines[0]) + 1 + len(lines[1]) + 1
            data = data[:at] + b"\xff" * 2048 + data[at + 2048:]
        elif damage == "erased 4K at the end":
            data = data + b"\xff" * 4096
        elif damage == "moved 15":
            line = lines.pop(3)
            lines.insert(18, line)
            data = b"\n".join(lines)
        else:
            lines.insert(20, lines[5])
            data = b"\n".join(lines)
        with open(path, "wb") as f:
            f.write(data)
        m = vb.mark()
        vb.reboot()
        said = vb.lines[m:]
        restore = [o for o in said if o.get("ev") == "power_restore"]
        assert restore, said[:5]
        assert _runs(vb)
        if damage.startswith("moved"):      # one line out of place: only it is lost
            r = restore[0]
            lost = sum(b - a + 1 for a, b, _why in r["lost"])
            assert lost + len(r["refused"]) <= 2, r
    finally:
        vb.close()


@pytest.mark.micropython
@pytest.mark.parametrize("change", [{"score": "x"}, {"match_to": -1}])
def test_a_nonsense_header_boots_under_micropython(tmp_path, change):
    """The real firmware at 230K (tests/mp/bootwindow.py, locked: no prompt either)."""
    flash = str(tmp_path / "f")
    key = make_flash(flash, True)
    vb = VirtualBoard("backgammon", flash_dir=flash, unique_id=b"NARDYSIM")
    try:
        serial = vb.session.journal.serial
        path = _game_file(flash, serial)
        with open(path) as f:
            lines = f.read().split("\n")
        header = json.loads(lines[0][:-33])
        header.update(change)
        lines[0] = _reseal(vb, serial, json.dumps(header))
    finally:
        vb.close()
    with open(path, "w") as f:
        f.write("\n".join(lines))
    with open(path + ".h", "w") as f:
        f.write(lines[0] + "\n")
    (got,), out = boots(flash, ["ctrlc@1"], micropython=True)
    assert got["outcome"] == "ended", (got, out[-2000:])
    assert "journal_lost" in out and key not in out


@pytest.mark.micropython
@pytest.mark.parametrize("where", ["end", "middle"])
def test_an_erased_sector_boots_under_micropython(tmp_path, where):
    """2 KB of 0xFF without a newline (an erased sector) in the game's file: the firmware at
    230K boots, runs and says what it lost."""
    flash = str(tmp_path / "f")
    key = make_flash(flash, True)
    path = _game_file(flash, 2)
    with open(path, "rb") as f:
        data = f.read()
    if where == "end":
        data += b"\xff" * 2048
    else:
        at = data.index(b"\n") + 1
        data = data[:at] + b"\xff" * 2048 + data[at:]
    with open(path, "wb") as f:
        f.write(data)
    (got,), out = boots(flash, ["ctrlc@1"], micropython=True)
    assert got["outcome"] == "ended", (got, out[-2000:])
    assert "power_restore" in out and key not in out
