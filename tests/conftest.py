"""Shared pytest fixtures."""

import pytest


@pytest.fixture
def fake_board(tmp_path):
    """A board on a pty: the real MicroPython unix port with a temporary folder as its flash
    (host_tools/device/fakeboard.py); `.port` is opened like a USB serial port, `.root` is the flash."""
    from host_tools.device.fakeboard import FakeBoard
    root = tmp_path / "flash"
    root.mkdir()
    board = FakeBoard(str(root)).start()      # a Pico-sized heap and simulated peripherals
    yield board
    board.stop()


@pytest.fixture
def manual_board():
    """``manual_board(variant, front_end=None)``: the whole firmware on a virtual board
    (host_tools/soak/soakboard.py; front end as board.json says, or "digital"/"analog") with dice
    entered by hand and the checkers set out; closed after the test."""
    from host_tools.soak.soakboard import VirtualBoard
    boards = []

    def make(variant, front_end=None):
        board = VirtualBoard(variant, front_end=front_end)
        boards.append(board)
        assert board.cmd("dice manual")["t"] == "ok"
        board.setup()
        return board
    yield make
    for board in boards:
        board.close()


@pytest.fixture(scope="session")
def mosquitto():
    """Mosquitto's programs on this machine (the broker and its password tool), or the test is
    skipped saying how to install them (scripts/system_deps.sh)."""
    from host_tools.hall.broker import BrokerError, find
    try:
        find("mosquitto")
        find("mosquitto_passwd")
    except BrokerError as exc:
        pytest.skip(str(exc))
