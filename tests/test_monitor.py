"""monitor: a board's protocol lines in the terminal, here from the real firmware under MicroPython on a pty."""

import io
import json
import os
import shutil
import subprocess
import sys
import time

import serial

import pytest

from host_tools.cmd_deploy import deploy
from host_tools.cmd_monitor import describe
from host_tools.__main__ import version

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# On the stand-in board the firmware runs on its simulated hardware (the unix port has no pins).
SIM_MAIN = "from firmware.main import main\nmain(['--sim', '--flash', '/simflash'])\n"


def test_describe_makes_one_readable_line_per_message():
    assert describe({"t": "leds", "rgb": "00ff00"}) is None
    assert describe({"t": "ev", "ev": "step", "side": 1, "from": 19, "to": "off", "die": 6,
                     "hit": 0}) == "step     Black 19/off (die 6)"
    assert describe({"t": "ev", "ev": "commit", "side": 0, "steps": [["bar", 22, 3, 1], [12, 11, 1, 0]]}) \
        == "commit   White: bar/22* 12/11"
    assert describe({"t": "ev", "ev": "lift", "zone": "13", "count": 4}) == "lift     k13 (4 there)"
    assert describe({"t": "ev", "ev": "place", "zone": "bar1", "count": 1}) == "place    bar1 (1 there)"
    assert describe({"t": "err", "cmd": "sim lift 3", "msg": "no checker"}) == "refused: sim lift 3: no checker"
    line = describe({"t": "status", "variant": "long", "phase": "move", "turn": 1, "dice": [6, 5],
                     "score": [1, 0], "match_to": 3, "board": "hands", "position": "P"})
    assert line.startswith("status: long, move, Black to move, dice 6-5, score 1-0 of 3")


@pytest.mark.micropython
def test_monitor_shows_the_firmware_running_on_a_board(fake_board):
    root = fake_board.root
    deploy(fake_board.port, root=REPO, reset=False, out=io.StringIO())
    shutil.copytree(os.path.join(REPO, "firmware", "sim"), os.path.join(root, "firmware", "sim"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(REPO, "firmware", "main.py"), os.path.join(root, "firmware", "main.py"))
    os.mkdir(os.path.join(root, "simflash"))
    with open(os.path.join(root, "main.py"), "w") as f:
        f.write(SIM_MAIN)
    mpremote = os.path.join(os.path.dirname(sys.executable), "mpremote")
    subprocess.run([mpremote, "connect", fake_board.port, "reset"], check=True, timeout=60)

    done = subprocess.run(
        [sys.executable, "-m", "host_tools", "monitor", "--port", fake_board.port, "--seconds", "6",
         "--send", "status", "--send", "sim setup"],
        cwd=REPO, capture_output=True, text=True, timeout=60)
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "status: short, setup, White to move" in out
    assert "ok sim" in out
    assert "place    k13 (5 there)" in out and "place    k24 (2 there)" in out
    assert "setup_ok" in out
    assert "Traceback" not in out


@pytest.mark.micropython
def test_deployed_firmware_boots_and_monitor_shows_it(fake_board):
    """The stand-in board has an RP2040's peripherals (simulated): the deployed firmware starts
    at reset as on a board, with nothing added to its flash."""
    with serial.Serial(fake_board.port, timeout=0.2) as line:
        deploy(fake_board.port, root=REPO, out=io.StringIO())        # and reset
        boot = b""
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and b'"hello"' not in boot:
            boot += line.read(4096)
        boot += line.read(4096)
    boot = boot.decode("utf-8", "replace")
    assert '"hello"' in boot and "Traceback" not in boot, boot
    hello = json.loads([t for t in boot.splitlines() if '"hello"' in t][0].strip())
    assert hello["hw"] == "rp2040" and hello["fw"] == version()

    done = subprocess.run(
        [sys.executable, "-m", "host_tools", "monitor", "--port", fake_board.port, "--seconds", "3"],
        cwd=REPO, capture_output=True, text=True, timeout=60)
    out = done.stdout
    assert "status: short, setup" in out, out
    assert "Traceback" not in out and "NameError" not in out, out
