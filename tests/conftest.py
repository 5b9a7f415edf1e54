"""Shared pytest fixtures."""

import pytest


@pytest.fixture
def fake_board(tmp_path):
    """A board on a pty: the real MicroPython unix port with a temporary folder as its flash
    (host_tools/fakeboard.py); `.port` is opened like a USB serial port, `.root` is the flash."""
    from host_tools.fakeboard import FakeBoard
    root = tmp_path / "flash"
    root.mkdir()
    board = FakeBoard(str(root), heap="1M").start()
    yield board
    board.stop()
