"""Hands to steps: reconciles zone-count frames with the turn being played, and reads the gaps.

The tracker keeps the rules core's ``Turn`` at the last position the board showed exactly. On a
new frame it looks for the shortest change of that turn (take back some steps, then play some)
whose expected zone counts equal the frame; counts a sensor cannot see (a point fuller than its
slots, a sensor the zone reader distrusts) are taken from the tracked game, a hit is only read
on a point whose count the sensors saw change, and where analog sensing reports colours the
explanation must agree with them. When no such change exists, the difference is read as hands
at work: own checkers in the air (their legal destinations are lit), a checker put down where
no lifted checker may go (flashed), or more than one hand's work (a mismatch: every differing
zone is shown until the board matches again). The destinations of every checker are learnt
ahead, one checker per idle scan while the hands are free, so a lift is a lookup.
"""

from firmware.board.zonemap import ZONES, BAR_ZONE, shown

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

SETTLED = 0     # the board shows the tracked position exactly
HANDS = 1       # checkers in the air or half-made hits: one hand's work
ILLEGAL = 2     # a checker put down where none of the lifted checkers may go
MISMATCH = 3    # more than one hand's work: show the differences, wait

STATE_NAMES = ("settled", "hands", "illegal", "mismatch")

_FOUND_MAX = const(6)      # whole plays collected when full points hide the hands' work
_HAND_MISSING = const(3)   # up to two own checkers in the air plus a lifted blot
_HAND_EXTRA = const(2)


def _push(turn, pip, die):
    """Play a step ``turn.targets`` has just offered; returns 1 when it hits."""
    return turn.push_offered(pip, die)


class Tracker:
    """Follows one side's turn (or a fixed position) from debounced zone counts."""

    def __init__(self, zmap, capacity):
        self.zmap = zmap
        self.cap = bytearray(capacity)
        self.exp = bytearray(ZONES)      # counts the tracked state should show
        self.work = bytearray(ZONES)     # scratch for the search
        self.frame = bytearray(ZONES)    # last frame seen
        self.turn = None
        self.side = 0
        self.state = SETTLED
        self.missing = 0    # bitmap: zones showing fewer checkers than tracked
        self.extra = 0      # bitmap: zones showing more
        self.lifted = 0     # bitmap: own zones with checkers in the air
        self.lit = 0        # bitmap: legal destinations of the lifted checkers
        self.stuck = 0      # bitmap: lifted zones whose checker has no legal step (head rule...)
        self.hint = 0       # bitmap: where the top checker of a stack the sensors cannot see
                            # lifted may go (lit ahead, while the hands are free)
        self.blind = 0      # bitmap: own zones a lift from which no sensor would see
        self.hitlit = 0     # bitmap: those destinations that hit
        self.back = 0       # bitmap: where a lifted checker came from this turn (undo)
        self.flash = 0      # bitmap: illegal placements
        self.n_missing = 0
        self.n_extra = 0
        self.events = []    # ("step"|"undo", (src, dst, die, hit)) since the last drain
        self.gen = 0        # bumped whenever the tracked turn changes
        self.reach_lit = [0] * 26   # per pip: zones its checker may reach (this gen)
        self.reach_hit = [0] * 26   # per pip: those that hit
        self.reach_done = 0         # bitmap of pips whose reach is known for reach_gen
        self.reach_gen = -1
        self.touched = 0    # bitmap: zones whose count changed since the turn began
        self.faults = 0     # bitmap: zones with a sensor the zone reader does not believe
        self.unclear = 0    # bitmap: zones with a stack the sensors cannot count (flashed)
        self.colour = None  # per zone 0 unknown, 1 White, 2 Black, 3 mixed (analog sensing)
        self.ambiguous = 0  # plays the last turn-end frame fits (full points hide which one)
        self.read_from = 0  # bitmap: while ambiguous, the zones the board's reading moves from
        self.read_to = 0    # bitmap: ... and the zones it moves to
        self._cache = -1

    # -- what is tracked --------------------------------------------------------------------
    def follow(self, turn, position=None, restored=False):
        """Track ``turn`` (a rules Turn, steps kept) or, with turn None, a fixed ``position``.
        ``restored``: after a power cut the hands may have worked while the board was off (what
        they did there is unseen): for the rest of this turn a hit is read first where the
        sensors saw a change, then, if nothing else explains the board, anywhere."""
        self.turn = turn
        self.gen += 1
        self.touched = 0
        self.hint = self.blind = 0
        self.loose = restored
        if turn is not None:
            self.side = turn.side
            position = turn.position()
        self.zmap.expected(position.board, self.exp)
        if restored:              # zones that differ from the journal count as touched
            for z in range(ZONES):
                self.frame[z] = shown(self.exp[z], self.cap[z])
        self._cache = -1

    loose = False

    def _loosely(self, search, *args):
        """Search again with a hit allowed on any zone (after a power cut, as a last resort)."""
        keep = self.touched
        self.touched = (1 << ZONES) - 1
        if search(*args):
            return True
        self.touched = keep
        return False

    def _refresh_expected(self):
        self.gen += 1
        self.hint = self.blind = 0
        self.zmap.expected(self.turn.position().board, self.exp)

    def read_board(self, frame):
        """The position ``frame`` (zone counts) shows when the turn cannot explain it: the
        mover's checkers missing from some zones moved to the zones showing more. None when the
        difference cannot be read that way (then only a correction helps)."""
        pos = self.turn.position()
        b = pos.board
        side = self.turn.side
        zmap = self.zmap
        exp = self.work                 # (scratch: the search fills it afresh)
        zmap.expected(b, exp, None, self.cap)
        short = []
        more = []
        for z in range(ZONES):
            e = exp[z]
            for _ in range(e - frame[z]):
                short.append(z)
            for _ in range(frame[z] - e):
                more.append(z)
        if len(short) != len(more):
            return None
        opp = (1 - side) * 26
        for i in range(len(short)):
            ps = zmap.pip(side, short[i])
            pd = zmap.pip(side, more[i])
            if ps < 1 or pd < 0 or pd == 25 or not b[side * 26 + ps]:
                return None
            po = zmap.pip(1 - side, more[i])
            if po > 0 and b[opp + po]:
                return None
            b[side * 26 + ps] -= 1
            b[side * 26 + pd] += 1
        return pos

    # -- frames ---------------------------------------------------------------------------------
    def update(self, frame, force=False, faults=None):
        """Reconcile with a frame (bytearray 28); ``force`` also accepts changes that only a
        point fuller than its slots hides (used at the turn-end press); ``faults`` (bitmap):
        zones whose count is not to be believed (the tracked game says). Returns the state."""
        if faults is not None:
            self.faults = faults
        f = self.frame
        touched = self.touched
        changed = False
        for z in range(ZONES):
            if f[z] != frame[z]:
                touched |= 1 << z
                f[z] = frame[z]
                changed = True
        self.touched = touched
        if changed and self.ambiguous:
            self.ambiguous = 0             # the board changed: the reading shown is void
            self.read_from = self.read_to = 0
        self._diff()
        turn = self.turn
        if force and turn is not None and not self.unclear and not (
                self.n_missing == 0 and self.n_extra == 0 and turn.complete()):
            if self._search_complete() or (self.loose and not self.ambiguous and
                                            self._loosely(self._search_complete)):
                self._diff()
                return self._settle()
            if self.ambiguous:
                self._read_hands()
                return self.state
        if self.n_missing == 0 and self.n_extra == 0 and not self.unclear:
            return self._settle()
        if turn is not None and (self.n_extra or force) and not self.unclear:
            if self._search(force) or (self.loose and self._loosely(self._search, force)):
                self._diff()
                return self._settle()
        self._read_hands()
        return self.state

    def _settle(self):
        self.state = SETTLED
        self.missing = self.extra = self.lifted = self.lit = self.hitlit = self.stuck = 0
        self.back = self.flash = 0
        self._cache = -1
        return SETTLED

    def _diff(self):
        exp = self.exp
        cap = self.cap
        f = self.frame
        missing = extra = nm = ne = 0
        faults = self.faults
        for z in range(ZONES):
            if (faults >> z) & 1:
                continue
            d = f[z] - shown(exp[z], cap[z])
            if d < 0:
                missing |= 1 << z
                nm -= d
            elif d > 0:
                extra |= 1 << z
                ne += d
        self.missing = missing
        self.extra = extra
        self.n_missing = nm
        self.n_extra = ne

    # -- the search for an exact explanation -------------------------------------------------------
    def _zone_cost(self, work, z):
        if (self.faults >> z) & 1:
            return 0
        d = self.frame[z] - shown(work[z], self.cap[z])
        return d if d > 0 else -d

    def _move(self, work, src, dst, hit, sign):
        """Apply (sign 1) or undo (-1) a step on the zone counts; returns the mismatch change."""
        zone_of = self.zmap.zone_of
        base = self.side * 26
        zs = zone_of[base + src]
        zd = zone_of[base + dst]
        cost = self._zone_cost
        before = cost(work, zs) + cost(work, zd)
        work[zs] -= sign
        if not hit:
            work[zd] += sign
            return cost(work, zs) + cost(work, zd) - before
        zb = BAR_ZONE + 1 - self.side
        before += cost(work, zb)
        work[zb] += sign
        return cost(work, zs) + cost(work, zd) + cost(work, zb) - before

    def _search(self, force):
        turn = self.turn
        work = self.work
        exp = self.exp
        for z in range(ZONES):
            work[z] = exp[z]
        old = turn.steps
        popped = []
        m = self.n_missing + self.n_extra    # work is exp: _diff just counted it
        while True:
            if self._dfs(work, m):
                self._report(old)
                self._refresh_expected()
                return True
            if not turn.depth:
                break
            step = turn.pop()
            popped.append(step)
            m += self._move(work, step[0], step[1], step[3], -1)
        while popped:
            step = popped.pop()
            turn.push(step[0], step[2])
        return False

    def _search_complete(self):
        """At the turn-end press: the whole plays the frame can show (full points hide some
        checkers). Adopted only when exactly one final position fits."""
        turn = self.turn
        work = self.work
        for z in range(ZONES):
            work[z] = self.exp[z]
        old = turn.steps
        self._found = []
        m = self.n_missing + self.n_extra    # work is exp: _diff just counted it
        popped = []
        while len(self._found) < _FOUND_MAX:
            self._dfs(work, m)
            if not turn.depth:
                break
            step = turn.pop()
            popped.append(step)
            m += self._move(work, step[0], step[1], step[3], -1)
        while turn.depth:
            turn.pop()
        found = self._found
        self._found = None
        self.ambiguous = 0
        self.read_from = self.read_to = 0
        if len(found) > 1:
            # full points and a full tray hide which checkers moved: nothing is adopted unseen.
            # The board's reading is the play that needs the fewest steps no sensor saw, then
            # the one bearing off most; the LEDs show it and the player confirms it.
            best = None
            for key, steps in found:
                rank = self._hidden(steps) * 16 - key[0]
                if best is None or rank < best:
                    best = rank
                    self.guess = steps
            self.ambiguous = len(found)
            self._mark_reading(self.guess)
            found = ()
        chosen = found[0][1] if len(found) == 1 else old
        for src, dst, die, hit in chosen:
            turn.push(src, die)
        if len(found) != 1:
            return False
        self._report(old)
        self._refresh_expected()
        return True

    _found = None
    guess = None

    def adopt_guess(self):
        """Take the best reading of an ambiguous turn end (the player confirmed it)."""
        turn = self.turn
        old = turn.steps
        while turn.depth:
            turn.pop()
        for src, dst, die, hit in self.guess:
            turn.push(src, die)
        self._report(old)
        self._refresh_expected()
        self.ambiguous = 0
        self.read_from = self.read_to = 0
        self.guess = None
        self._diff()
        return self._settle()

    def _mark_reading(self, steps):
        """read_from/read_to: the zones a play takes the mover's checkers from and puts them on
        (a zone a checker only passes through is in neither), and the bar a hit blot goes to."""
        zone_of = self.zmap.zone_of
        base = self.side * 26
        net = [0] * ZONES
        for src, dst, die, hit in steps:
            net[zone_of[base + src]] -= 1
            net[zone_of[base + dst]] += 1
            if hit:
                net[BAR_ZONE + 1 - self.side] += 1
        for z in range(ZONES):
            if net[z] < 0:
                self.read_from |= 1 << z
            elif net[z] > 0:
                self.read_to |= 1 << z

    def _hidden(self, steps):
        """How many steps of a play change no zone count the sensors can see."""
        counts = bytearray(ZONES)
        self.zmap.expected(self.turn.start.board, counts)
        cap = self.cap
        zone_of = self.zmap.zone_of
        base = self.side * 26
        hidden = 0
        for src, dst, die, hit in steps:
            zs = zone_of[base + src]
            zd = zone_of[base + dst]
            seen = counts[zs] <= cap[zs] or hit
            counts[zs] -= 1
            if hit:
                counts[BAR_ZONE + 1 - self.side] += 1
            else:
                seen = seen or counts[zd] < cap[zd]
                counts[zd] += 1
            if not seen:
                hidden += 1
        return hidden

    def _colours_fit(self):
        """Where the sensors see one colour on a point, the explanation must put that side
        there (analog Hall sensing tells north-up White from south-up Black)."""
        col = self.colour
        if col is None:
            return True
        turn = self.turn
        mine = turn.mine
        opp = turn.opp
        side = self.side
        zone_of = self.zmap.zone_of
        base = side * 26
        for pip in range(1, 25):
            c = col[zone_of[base + pip]]
            if c == 1 or c == 2:
                if (mine[pip] and c - 1 != side) or (opp[pip] and c - 1 == side):
                    return False
        return True

    def _dfs(self, work, m):
        found = self._found
        if m == 0 and not self._colours_fit():
            m = -1                # fits the counts, not the colours: search on
        if m == 0:
            if found is None:
                return True
            turn = self.turn
            if turn.complete():
                key = bytes(turn.mine) + bytes(turn.opp)
                for k, steps in found:
                    if k == key:
                        break
                else:
                    found.append((key, turn.steps))
                return len(found) >= _FOUND_MAX
        turn = self.turn
        left = turn.max_steps - turn.depth
        if m < 0:
            m = 0
        if left <= 0 or m > 2 * left:
            return False
        mine = turn.mine
        zone_of = self.zmap.zone_of
        base = self.side * 26
        cap = self.cap
        f = self.frame
        for pip in range(25, 0, -1):
            if not mine[pip]:
                continue
            z = zone_of[base + pip]
            c = shown(work[z] - 1, cap[z])
            if c < f[z] and not (self.faults >> z) & 1:
                continue      # the frame still shows this checker where it was
            for dst, die in turn.targets(pip):
                hit = _push(turn, pip, die)
                if hit and not ((self.touched | self.faults) >> zone_of[base + dst]) & 1:
                    turn.pop()        # a blot the hands never touched was not hit
                    continue
                dm = self._move(work, pip, dst, hit, 1)
                if self._dfs(work, m + dm):
                    if self._found is not None:
                        turn.pop()
                        self._move(work, pip, dst, hit, -1)
                    return True
                turn.pop()
                self._move(work, pip, dst, hit, -1)
        return False

    def _report(self, old):
        new = self.turn.steps
        keep = 0
        while keep < len(old) and keep < len(new) and old[keep] == new[keep]:
            keep += 1
        for i in range(len(old) - 1, keep - 1, -1):
            self.events.append(("undo", old[i]))
        for i in range(keep, len(new)):
            self.events.append(("step", new[i]))

    # -- reading the hands -------------------------------------------------------------------------
    def _read_hands(self):
        turn = self.turn
        missing = self.missing
        if turn is None:
            self.lifted = self.lit = self.hitlit = self.back = 0
            self.flash = self.unclear
            self.state = ILLEGAL if self.unclear and not (missing | self.extra) else MISMATCH
            return
        zone_of = self.zmap.zone_of
        base = self.side * 26
        mine = turn.mine
        lifted = 0
        for pip in range(1, 26):
            if mine[pip]:
                z = zone_of[base + pip]
                if (missing >> z) & 1:
                    lifted |= 1 << z
        key = lifted | (self.gen << ZONES)
        if key != self._cache:
            self._cache = key
            self.lifted = lifted
            lit = hitlit = back = stuck = 0
            for pip in range(25, 0, -1):
                if mine[pip] and (lifted >> zone_of[base + pip]) & 1:
                    self._know(pip)
                    lit |= self.reach_lit[pip]
                    hitlit |= self.reach_hit[pip]
                    if not self.reach_lit[pip]:
                        stuck |= 1 << zone_of[base + pip]
            for src, dst, die, hit in turn.steps:
                if (lifted >> zone_of[base + dst]) & 1:
                    back |= 1 << zone_of[base + src]
            self.lit = lit
            self.hitlit = hitlit
            self.back = back
            self.stuck = stuck
        allowed = self.lit | self.back | (1 << (BAR_ZONE + 1 - self.side))
        self.flash = (self.extra & ~allowed) | self.unclear
        if self.n_missing > _HAND_MISSING or self.n_extra > _HAND_EXTRA:
            self.state = MISMATCH
        elif self.flash:
            self.state = ILLEGAL
        else:
            self.state = HANDS

    def _know(self, pip):
        """Make sure the reach of the checker on ``pip`` is known for this state of the turn."""
        if self.reach_gen != self.gen:
            self.reach_gen = self.gen
            self.reach_done = 0
        if not (self.reach_done >> pip) & 1:
            self._lit = self._hit = 0
            self._reach(pip)
            self.reach_lit[pip] = self._lit
            self.reach_hit[pip] = self._hit
            self.reach_done |= 1 << pip

    def prepare(self):
        """Idle work while the hands are free: learn the reach of one more checker, so that a
        lift only looks it up. Returns True while there is more to learn."""
        turn = self.turn
        if turn is None or self.state != SETTLED:
            return False
        if self.reach_gen != self.gen:
            self.reach_gen = self.gen
            self.reach_done = 0
        if self._hint_gen != self.gen or self._hint_faults != self.faults:
            self._hint_gen = self.gen           # first the stacks no sensor sees whole (again
            self._hint_faults = self.faults     # when the zone reader distrusts another sensor)
            self._blind_hint()
            return True
        mine = turn.mine
        for pip in range(25, 0, -1):
            if mine[pip] and not (self.reach_done >> pip) & 1:
                self._know(pip)
                return True
        return False

    _hint_gen = -1
    _hint_faults = 0

    def _blind_hint(self):
        """``blind``: the mover's zones whose top checker could leave unseen (more checkers than
        the sensors count there, or a sensor not believed); ``hint``: where those checkers may
        go. Shown ahead, so a hand lifting from such a stack still sees its destinations."""
        turn = self.turn
        zone_of = self.zmap.zone_of
        base = self.side * 26
        mine = turn.mine
        blind = hint = 0
        for pip in range(25, 0, -1):
            if not mine[pip]:
                continue
            z = zone_of[base + pip]
            if self.exp[z] > self.cap[z] or (self.faults >> z) & 1:
                blind |= 1 << z
                self._know(pip)
                hint |= self.reach_lit[pip]
        self.blind = blind
        self.hint = hint

    def _reach(self, pip):
        """Every zone the checker on ``pip`` may reach with the dice left (into _lit/_hit)."""
        turn = self.turn
        zone_of = self.zmap.zone_of
        base = self.side * 26
        for dst, die in turn.targets(pip):
            z = zone_of[base + dst]
            self._lit |= 1 << z
            if _push(turn, pip, die):
                self._hit |= 1 << z
            if dst:
                self._reach(dst)
            turn.pop()

    def drain(self):
        """The step/undo events since the last call."""
        ev = self.events
        self.events = []
        return ev
