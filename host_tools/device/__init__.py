"""Reaching a board: the serial link, the fake board on a pseudo-terminal, the firmware compiled for the unix port."""
