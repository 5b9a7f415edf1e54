"""The virtual board's checkers and hands: which colours stand on each zone, what is in the air.

Used only with the simulated hardware: the ``sim`` protocol commands (firmware.sim.commands,
registered by the App only when it runs on the simulated hardware, and loaded for each such
command, so the deployed firmware holds no simulation code) move checkers here, and this puts the resulting
magnets on the simulated sensor slots, so the firmware's own scanner, debounce and zone reader
see them exactly as they would see real checkers. Kept on the SimWorld so the checkers stay where
they are across a simulated power cut. ``sim position`` also sets the game's position
(``force_position``), which a real board never does.
"""

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_MAX_STACK = const(30)            # checkers a zone may hold: both sides' 15 (bounds the sim's memory)


class SimHands:
    """Stacks of sides (0 White, 1 Black) per zone, bottom first, and the hand (lifted sides).

    Each checker keeps its magnet (``ids``: White 0..14, Black 15..29, beside ``stacks``), so the
    simulated sensors see that magnet's own tolerances wherever it goes. A zone's checkers stand
    as people set them: a row from the base, then stacked on it (checker i of the zone on slot
    i % slots, level i // slots)."""

    def __init__(self, world):
        self.world = world
        from firmware.board.zonemap import ZONES    # (not at import: the fake board loads
        self.stacks = [[] for _ in range(ZONES)]    # this module with the peripherals alone)
        self.ids = [[] for _ in range(ZONES)]
        self.hand = []
        self.hand_ids = []
        self.tick = None          # called with the clock while waiting (the App's tick)
        self.led_lines = True     # write a "leds" line for every LED frame
        self.scan_ms = 5          # the firmware's scan period while waiting

    def pack(self):
        """Copy the stacks' lists into the heap's lowest holes (a simulated reboot, once the
        board's RAM is free): a session's moves leave them spread over the heap, where they
        would stand as islands between the blocks the next boot needs."""
        self.stacks = [st[:] for st in self.stacks]
        self.ids = [ids[:] for ids in self.ids]
        self.hand = self.hand[:]
        self.hand_ids = self.hand_ids[:]

    def _show(self, z):
        w = self.world
        cfg = w.cfg
        first = cfg.zone_first[z]
        cap = cfg.zone_cap[z]
        st = self.stacks[z]
        ids = self.ids[z]
        for j in range(cap):
            sides = [st[i] + 1 for i in range(j, len(st), cap)]
            w.set_stack(first + j, sides, [ids[i] for i in range(j, len(st), cap)])

    def _free_id(self, side):
        used = set(self.hand_ids)
        for z in range(len(self.stacks)):
            used.update(self.ids[z])
        for i in range(15 * side, 15 * side + 15):
            if i not in used:
                return i
        return None

    def count(self, z):
        return len(self.stacks[z])

    def lift(self, z, side=-1):
        """Take a checker off zone z: the top one, or the top one of ``side``."""
        st = self.stacks[z]
        if side < 0:
            if not st:
                raise ValueError("no checker on that zone")
            self.hand.append(st.pop())
            self.hand_ids.append(self.ids[z].pop())
        else:
            for i in range(len(st) - 1, -1, -1):
                if st[i] == side:
                    self.hand.append(st.pop(i))
                    self.hand_ids.append(self.ids[z].pop(i))
                    break
            else:
                raise ValueError("no checker of that side on that zone")
        self._show(z)

    def place(self, z, side=-1):
        """Put down a checker: of ``side`` (taken from the hand when one is there), or the last
        one lifted."""
        if len(self.stacks[z]) >= _MAX_STACK:
            raise ValueError("a zone holds at most %d checkers" % _MAX_STACK)
        if side < 0:
            if not self.hand:
                raise ValueError("no checker in the hand; give a side")
            side = self.hand.pop()
            mid = self.hand_ids.pop()
        elif side in self.hand:
            i = len(self.hand) - 1 - self.hand[::-1].index(side)
            self.hand.pop(i)
            mid = self.hand_ids.pop(i)
        else:
            mid = self._free_id(side)
        self.stacks[z].append(side)
        self.ids[z].append(mid)
        self._show(z)

    def put(self, counts, sides):
        """Replace everything: zone z holds counts[z] checkers of sides[z]."""
        self.hand = []
        self.hand_ids = []
        nxt = [0, 15]
        for z in range(len(self.stacks)):
            self.stacks[z] = [sides[z]] * counts[z]
            self.ids[z] = []
            for _ in range(counts[z]):
                sd = sides[z]
                self.ids[z].append(nxt[sd] if nxt[sd] < 15 * sd + 15 else None)
                nxt[sd] += 1
            self._show(z)

    def frame(self, counts):
        """Set every zone's count; colours kept where checkers stay, new ones White."""
        for z in range(len(self.stacks)):
            if counts[z] > _MAX_STACK:
                raise ValueError("a zone holds at most %d checkers" % _MAX_STACK)
        for z in range(len(self.stacks)):
            st = self.stacks[z]
            ids = self.ids[z]
            while len(st) > counts[z]:
                st.pop()
                ids.pop()
            while len(st) < counts[z]:
                st.append(st[-1] if st else (1 if z in (25, 27) else 0))
                ids.append(self._free_id(st[-1]))
            self._show(z)

    def setup(self, board, zmap):
        """Set out the checkers of a 52-count board (a rules Position's) as the variant places
        them, as people do: the checkers already standing right stay where they are (a zone keeps
        the bottom of its stack while it is of the side the zone gets), the others are moved."""
        done = 0                        # zones the position has checkers on
        for side in (0, 1):
            for pip in range(26):
                n = board[side * 26 + pip]
                if n:
                    z = zmap.zone(side, pip)
                    done |= 1 << z
                    st = self.stacks[z]
                    k = 0
                    while k < len(st) and k < n and st[k] == side:
                        k += 1
                    del st[k:]
                    del self.ids[z][k:]
        used = 0                        # (a bit per magnet id: no set built per checker)
        for z in range(len(self.stacks)):
            if not (done >> z) & 1:
                self.stacks[z] = []
                self.ids[z] = []
            for i in self.ids[z]:
                if i is not None:
                    used |= 1 << i
        self.hand = []
        self.hand_ids = []
        for side in (0, 1):
            mid = 15 * side
            for pip in range(26):
                n = board[side * 26 + pip]
                if n:
                    z = zmap.zone(side, pip)
                    while len(self.stacks[z]) < n:
                        while mid < 15 * side + 15 and (used >> mid) & 1:
                            mid += 1
                        self.stacks[z].append(side)
                        self.ids[z].append(mid if mid < 15 * side + 15 else None)
                        mid += 1
        for z in range(len(self.stacks)):
            self._show(z)

    def press(self, button, ms):
        self.world.press(button, ms)

    def wait(self, ms):
        """Let simulated time pass, the firmware ticking every 5 ms."""
        if self.tick is None:
            self.world.advance(ms)
        else:
            self.world.advance(ms, self.scan_ms, self.tick)




def force_position(session, pos, by="host"):
    """Go on from ``pos`` (its side to roll next), not journaled as play; the journal gets a
    marked position line so a restore lands here too."""
    game = session.game
    game.set_position(pos)
    session.setup_done = True
    session.verdict = None
    session.journal_line({"k": "position", "pos": pos.encode()}, by)
    session.tracker.follow(None, game.pos)
    session.refresh()
