"""The virtual board's checkers and hands: which colours stand on each zone, what is in the air.

Used only with the simulated hardware: the ``sim`` protocol commands move checkers here, and this
puts the resulting magnets on the simulated sensor slots, so the firmware's own scanner, debounce
and zone reader see them exactly as they would see real checkers. Kept on the SimWorld so the
checkers stay where they are across a simulated power cut.
"""

from firmware.board.zonemap import ZONES


class SimHands:
    """Stacks of sides (0 White, 1 Black) per zone, bottom first, and the hand (lifted sides)."""

    def __init__(self, world):
        self.world = world
        self.stacks = [[] for _ in range(ZONES)]
        self.hand = []
        self.tick = None          # called with the clock while waiting (the App's tick)
        self.led_lines = True     # write a "leds" line for every LED frame
        self.scan_ms = 5          # the firmware's scan period while waiting

    def _show(self, z):
        w = self.world
        cfg = w.cfg
        first = cfg.zone_first[z]
        st = self.stacks[z]
        for j in range(cfg.zone_cap[z]):
            if j < len(st):
                w.set_slot(first + j, 1, st[j] + 1)
            else:
                w.set_slot(first + j, 0)

    def count(self, z):
        return len(self.stacks[z])

    def lift(self, z, side=-1):
        """Take a checker off zone z: the top one, or the top one of ``side``."""
        st = self.stacks[z]
        if side < 0:
            if not st:
                raise ValueError("no checker on that zone")
            self.hand.append(st.pop())
        else:
            for i in range(len(st) - 1, -1, -1):
                if st[i] == side:
                    self.hand.append(st.pop(i))
                    break
            else:
                raise ValueError("no checker of that side on that zone")
        self._show(z)

    def place(self, z, side=-1):
        """Put down a checker: of ``side`` (taken from the hand when one is there), or the last
        one lifted."""
        if side < 0:
            if not self.hand:
                raise ValueError("no checker in the hand; give a side")
            side = self.hand.pop()
        elif side in self.hand:
            self.hand.remove(side)
        self.stacks[z].append(side)
        self._show(z)

    def put(self, counts, sides):
        """Replace everything: zone z holds counts[z] checkers of sides[z]."""
        self.hand = []
        for z in range(ZONES):
            self.stacks[z] = [sides[z]] * counts[z]
            self._show(z)

    def frame(self, counts):
        """Set every zone's count; colours kept where checkers stay, new ones White."""
        for z in range(ZONES):
            st = self.stacks[z]
            while len(st) > counts[z]:
                st.pop()
            while len(st) < counts[z]:
                st.append(st[-1] if st else (1 if z in (25, 27) else 0))
            self._show(z)

    def setup(self, board, zmap):
        """Set out the checkers of a 52-count board (a rules Position's) as the variant places them."""
        self.hand = []
        for z in range(ZONES):
            self.stacks[z] = []
        for side in (0, 1):
            for pip in range(26):
                n = board[side * 26 + pip]
                if n:
                    self.stacks[zmap.zone(side, pip)].extend([side] * n)
        for z in range(ZONES):
            self._show(z)

    def press(self, button, ms):
        self.world.press(button, ms)

    def wait(self, ms):
        """Let simulated time pass, the firmware ticking every 5 ms."""
        if self.tick is None:
            self.world.advance(ms)
        else:
            self.world.advance(ms, self.scan_ms, self.tick)
