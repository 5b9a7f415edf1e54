"""Where the checkers stand, zone by zone, as the page draws them: the virtual board's hands, or a position."""

from firmware.board.zonemap import ZONES, ZoneMap, parse_zone
from firmware.rules import Position, get_rules


def stacks_of_position(variant, position_text):
    """Stacks (bottom first, 0 White / 1 Black) of the checkers a Position text shows."""
    pos = Position.parse(position_text)
    zmap = ZoneMap(get_rules(variant))
    stacks = [[] for _ in range(ZONES)]
    for side in (0, 1):
        for pip in range(26):
            stacks[zmap.zone(side, pip)].extend([side] * pos.board[side * 26 + pip])
    return stacks


class VirtualCheckers:
    """The physical checkers of the simulated board, kept in step with the ``sim`` commands the
    firmware accepted (the same moves the firmware's own simulated hands make)."""

    def __init__(self):
        self.stacks = [[] for _ in range(ZONES)]
        self.hand = []

    def snapshot(self):
        return {"stacks": [list(s) for s in self.stacks], "hand": list(self.hand)}

    def top(self, zone):
        """The side of the top checker of a zone, or None when the zone is empty."""
        stack = self.stacks[zone]
        return stack[-1] if stack else None

    def accepted(self, words):
        """A ``sim`` command line (split) that the firmware answered with ``ok``."""
        if len(words) < 3 or words[0] != "sim":
            return
        zone = parse_zone(words[2])
        side = int(words[3]) if len(words) > 3 else -1
        if words[1] == "lift" and zone >= 0:
            stack = self.stacks[zone]
            if side < 0 and stack:
                self.hand.append(stack.pop())
            elif side in stack:
                i = len(stack) - 1 - stack[::-1].index(side)
                self.hand.append(stack.pop(i))
        elif words[1] == "place" and zone >= 0:
            if side < 0:
                if not self.hand:
                    return
                side = self.hand.pop()
            elif side in self.hand:
                self.hand.remove(side)
            self.stacks[zone].append(side)

    def set_out(self, stacks):
        """Everything replaced (``sim setup``): the hand is emptied."""
        self.stacks = [list(s) for s in stacks]
        self.hand = []
