"""The walk-through of docs/play.md without a board, run as written: fake board, deploy (the default
analog front end), monitor, calibrate, deploy for the digital front end."""

import os
import re
import shlex
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "<!-- walkthrough: tests/test_walkthrough.py runs these lines as written -->"
EXAMPLE_PORT = "/dev/pts/3"


def walkthrough():
    """The command lines of the walk-through block (docs/play.md)."""
    with open(os.path.join(REPO, "docs", "play.md")) as f:
        text = f.read()
    block = re.search(re.escape(MARK) + r"\s*```\n(.*?)```", text, re.S)
    assert block, "docs/play.md lost its walk-through block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_walkthrough_is_the_documented_sequence():
    lines = walkthrough()
    assert lines[0].startswith("python -m host_tools.device.fakeboard ")
    steps = [shlex.split(x)[3] for x in lines[1:]]
    assert steps == ["deploy", "monitor", "calibrate", "deploy"]
    assert all(EXAMPLE_PORT in x for x in lines[1:])


@pytest.mark.micropython
def test_the_walkthrough_runs_as_written(tmp_path):
    lines = walkthrough()
    first = shlex.split(lines[0])
    first[-1] = str(tmp_path / "board")         # the flash folder: a fresh one
    board = subprocess.Popen([sys.executable] + first[1:], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        port = board.stdout.readline().strip()
        assert port.startswith("/dev/"), board.stderr.read()
        outs = []
        for line in lines[1:]:
            argv = shlex.split(line.replace(EXAMPLE_PORT, port))
            done = subprocess.run([sys.executable] + argv[1:], cwd=REPO, input="\n",
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, (line, done.stdout, done.stderr)
            outs.append(done.stdout + done.stderr)
    finally:
        board.terminate()
        board.wait(timeout=20)
    deploy1, monitor, calibrate, deploy2 = outs
    assert "copied" in deploy1 and "Resetting the board" in deploy1
    assert "status: short, setup" in monitor, monitor
    assert "Traceback" not in monitor and "Error" not in monitor, monitor
    from firmware.drivers import board_config
    slots = board_config.load(os.path.join(REPO, "hardware", "board.json"), "analog").n_slots
    assert "Stored the baselines of %d slots" % slots in calibrate, calibrate
    data = tmp_path / "board" / "data"
    assert (data / "hall_calibration").stat().st_size == 2 * slots
    assert "1 copied" in deploy2 and "hardware/board.json" in deploy2, deploy2
    with open(tmp_path / "board" / "hardware" / "board.json") as f:
        assert '"front_end": "digital"' in f.read()
