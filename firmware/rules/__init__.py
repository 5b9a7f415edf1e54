"""The rules core: positions, variants, legal plays, notation and game flow (pure, no I/O)."""

from firmware.rules.position import Position, PositionError, WHITE, BLACK, OFF, BAR
from firmware.rules.variants import get_rules, VARIANTS
from firmware.rules.movegen import Turn, IllegalStep
