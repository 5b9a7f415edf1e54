"""Turn: the legal plays of one roll, the step query a lifted checker needs, and turn validation.

One engine serves every variant; ``Rules`` declares the differences (block size, head rule,
six-block rule, hit-and-lift). The generator works in place on two 26-count arrays seen from
the mover (``mine[pip]``, ``opp[pip]`` = opposing checkers on the mover's pip), with make/unmake,
an undo stack of small integers and bitmasks of the candidate source pips (occupied points
and open landing points, the sources shifted down by the die to meet them), so a search
allocates (almost) nothing per node. No mask ever reaches 2**30: the RP2040's small ints have
31 bits, and a larger value is a heap object at every operation (``host_tools.bench.smallint_audit``).

Legality (rules.md §2.2, D1): the candidate plays are all step sequences (prefixes included)
whose final position passes the variant's whole-play rules (six-block); a legal play uses the
largest number of steps M among them and, when M is 1 for a non-double, the larger die if any
candidate uses it. The takhteh lock and the long-nardy first-turn head exception are settled
before that (rules.md §6.4, §5.4).

Doubles are enumerated in canonical order (sources never increase along a sequence). Any legal
sequence of equal dice can be reordered that way, and since from every pip a die of value d
leads to exactly one place, two different canonical sequences end in different positions: the
enumeration yields each distinct play exactly once with no de-duplication (under long nardy's
``block_check=every_step`` the order matters, so every order is tried and plays are merged by
their multiset of sources). Non-doubles (at most two steps) are de-duplicated by an exact
30-bit key of the change they make.
"""

from firmware.rules.position import Position, SIDE, CHECKERS, BAR, PIP_OF_BIT

try:
    from micropython import const
except ImportError:                 # CPython
    def const(x):
        return x

_MASK24 = const(0xFFFFFF)

# The referee's reasons for refusing a play (``check``), each a code. When several readings of
# the position reached fail, the reason of the lowest rank is given (among equals, the first
# reading's): rank 0, a rule of whole plays (what a player learns most from); rank 2, a step
# from a point with no checker (the reading that fails soonest); rank 1, every other reason.
_TOO_FEW = const(1)      # fewer dice played than can be                               (rank 0)
_LARGER = const(2)       # one die only can be played, and not the larger               (rank 0)
_SIX_BLOCK = const(3)    # a block of six points with no opposing checker ahead of it   (rank 0)
_HIT = const(4)          # the opponent's checkers are not where the play leaves them
_BAR_FIRST = const(5)    # a checker moved while one of the mover's is on the bar
_STEPS = const(6)        # more steps than the dice allow
_NO_DIE = const(7)       # a step by a number no die shows
_DIE_USED = const(8)     # a step by a die already played
_HEAD = const(9)         # more checkers off the head than the turn allows
_LOCKED = const(10)      # a checker left a point where it hit in the home board (no hit-and-lift)
_CLOSED = const(11)      # a step onto a point the opponent holds
_SIX_STEP = const(12)    # a step building a six-point block (block_check=every_step)
_NOT_HOME = const(13)    # a bear-off with a checker outside the home board
_HIGHER = const(14)      # a bear-off by a larger die with a checker standing higher
_NO_CHECKER = const(15)  # a step from a point with no checker                          (rank 2)


def _rank(code):
    return 0 if code <= _SIX_BLOCK else 2 if code == _NO_CHECKER else 1


class IllegalStep(ValueError):
    """A step that is not a legal part of any legal play of this roll; ``reason`` says why."""

    def __init__(self, reason):
        ValueError.__init__(self, reason)
        self.reason = reason


def _windows(m):
    """Bits i where the mask holds six consecutive bits i..i+5."""
    return m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4) & (m >> 5)


class Turn:
    """One roll of one side: query, play and take back steps; list or check whole plays."""

    def __init__(self, rules, pos, dice, first_turn=False):
        d1, d2 = dice
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6) or int(d1) != d1 or int(d2) != d2:
            raise ValueError("dice must be two numbers 1..6, got %r" % (dice,))
        self.rules = rules
        self.start = pos.copy()
        self.side = pos.turn
        self.hi = d1 if d1 > d2 else d2
        self.lo = d2 if d1 > d2 else d1
        self.double = d1 == d2
        self.ndice = 4 if self.double else 2
        self.first_turn = first_turn
        self.mine = bytearray(SIDE)
        self.opp = bytearray(SIDE)
        self._load(pos)
        self.blk = rules.block
        self.hitting = rules.block == 2
        self.head_on = rules.head_rule
        self.head_moved = 0
        limit, self._limit2 = rules.head_limit(first_turn, self.hi, self.lo)
        self.head_limit = limit
        self.lift = rules.hit_lift
        self.lock_on = False
        self.locks = 0
        self.six = rules.six_block
        self.six_each = self.six and rules.block_check_each_step()
        # canonical order (sources never increase) is complete unless the order of the steps
        # matters for a rule judged after every step
        self.canon = self.double and not self.six_each
        # can a rule forbid a source pip this turn (bar, head, lock)? if not, skip those tests
        self.guarded = self.head_on or self.lift or self.six_each or self.mine[BAR] > 0
        self.used = 0          # non-doubles: bit 0 = higher die used, bit 1 = lower die used
        self.stack = []        # one int per step: src | die<<5 | dst<<8 | hit<<13 | locks_before<<14
        self.need_die = 0
        self._settle()

    # -- state -----------------------------------------------------------------------------
    def _load(self, pos):
        """Fill the mover's view in one pass: counts, bitmasks of occupied and open points."""
        me = pos.turn * SIDE
        op = (1 - pos.turn) * SIDE
        b = pos.board
        x = self.rules.xlat
        blk = self.rules.block
        mine = self.mine
        opp = self.opp
        src = 0
        own = 0
        opened = 0
        out = 0
        for q in range(1, SIDE):
            n = b[me + q]
            mine[q] = n
            o = b[op + x[q]]
            opp[q] = o
            if n:
                src |= 1 << q
                if q >= 7:
                    out += n
            if q < 25:
                if o < blk:
                    opened |= 1 << q
                if o:
                    own |= 1 << (x[q] - 1)
        mine[0] = b[me]
        opp[0] = b[op]
        self.occupied = src                    # bitmask of the pips the mover's checkers hold
        self.outside = out
        self.opp_own = own                     # opposing checkers, in the opponent's own pips
        self.opened = opened                   # points 1..24 a checker may land on
        self.w0 = _windows(self._occ_for_opp((src >> 1) & _MASK24))

    def _occ_for_opp(self, m):
        """The mover's occupied points as a mask in the opponent's own pips (long geometry)."""
        return ((m & 0xFFF) << 12) | (m >> 12)

    def _six_ok(self):
        return self._six_ok_src(self.occupied)

    def _six_ok_src(self, src):
        """Does the mover's occupancy ``src`` (bit = pip) avoid building a six-point block with
        no opposing checker ahead of it (rules.md §5.5, D5)? Blocks already standing at the
        start of the turn are not re-judged."""
        w = _windows(self._occ_for_opp((src >> 1) & _MASK24)) & ~self.w0
        if not w:
            return True
        low = w & -w
        return (self.opp_own & (low - 1)) != 0

    def _six_leaves(self, leaves, d):
        """The sources in ``leaves`` whose step of d leaves no illegal six-point block."""
        out = 0
        mine = self.mine
        src = self.occupied
        while leaves:
            low = leaves & -leaves
            leaves ^= low
            s = PIP_OF_BIT[low]
            after = src
            if mine[s] == 1:
                after ^= low
            if s > d:
                after |= 1 << (s - d)
            if self._six_ok_src(after):
                out |= low
        return out

    def _legal(self, s, d):
        mine = self.mine
        if not mine[s]:
            return False
        if mine[BAR] and s != BAR:
            return False
        if self.lock_on and (self.locks >> s) & 1:
            return False
        if s == 24 and self.head_on and self.head_moved >= self.head_limit:
            return False
        t = s - d
        if t > 0:
            if self.opp[t] >= self.blk:
                return False
            return not self.six_each or self._six_leaves(1 << s, d) != 0
        if self.outside:
            return False
        if t == 0:
            return True
        for q in range(s + 1, 7):
            if mine[q]:
                return False
        return True

    def _make(self, s, d):
        t = s - d
        if t < 0:
            t = 0
        mine = self.mine
        mine[s] -= 1
        mine[t] += 1
        if not mine[s]:
            self.occupied ^= 1 << s
        if t and mine[t] == 1:
            self.occupied |= 1 << t
        e = s | (d << 5) | (t << 8) | (self.locks << 14)
        if t:
            opp = self.opp
            if opp[t] == 1 and self.hitting:
                opp[t] = 0
                opp[BAR] += 1
                e |= 1 << 13
                if self.lift and t <= 6:
                    self.locks |= 1 << t
        if s >= 7 and t <= 6:
            self.outside -= 1
        if s == 24 and self.head_on:
            self.head_moved += 1
        if not self.double:
            self.used |= 1 if d == self.hi else 2
        self.stack.append(e)

    def _unmake(self):
        e = self.stack.pop()
        s = e & 31
        d = (e >> 5) & 7
        t = (e >> 8) & 31
        mine = self.mine
        mine[t] -= 1
        mine[s] += 1
        if mine[s] == 1:
            self.occupied |= 1 << s
        if t and not mine[t]:
            self.occupied &= ~(1 << t)
        if (e >> 13) & 1:
            self.opp[t] = 1
            self.opp[BAR] -= 1
        self.locks = e >> 14
        if s >= 7 and t <= 6:
            self.outside += 1
        if s == 24 and self.head_on:
            self.head_moved -= 1
        if not self.double:
            self.used &= 2 if d == self.hi else 1

    def _next_dice(self):
        """Die values that may be played next (distinct)."""
        if self.double:
            return (self.hi,) if len(self.stack) < 4 else ()
        u = self.used
        if u == 0:
            return (self.hi, self.lo)
        if u == 1:
            return (self.lo,)
        if u == 2:
            return (self.hi,)
        return ()

    # -- searches ------------------------------------------------------------------------------
    def _search(self, depth, top, goal):
        """Depth-first over the legal next steps from the current node. goal < 0: the largest
        depth of a candidate play reachable (-1: none); goal = M: M if a whole legal play of M
        steps is reachable, else -1. Stops as soon as the answer cannot improve."""
        if goal < 0:
            best = depth if (not self.six or self._six_ok()) else -1
            stop = self.ndice
        else:
            if depth == goal:
                return goal if self._accept(depth) else -1
            best = -1
            stop = goal
        if depth == stop:
            return best
        for d in self._next_dice():
            cand = self._sources(top, d)
            while cand:
                low = cand & -cand
                cand ^= low
                s = PIP_OF_BIT[low]
                self._make(s, d)
                r = self._search(depth + 1, s if self.canon else BAR, goal)
                self._unmake()
                if r > best:
                    best = r
                    if best == stop:
                        return best
        return best

    def _best(self, depth, top):
        """Largest candidate depth reachable from the current node (-1: none)."""
        return self._search(depth, top, -1)

    def _completable(self, depth, top):
        """Can the play so far be completed into a whole legal play?"""
        m = self.max_steps
        return self._search(depth, top, m) == m

    def _accept(self, depth):
        """Is the current node a whole legal play (depth == M, rules on the final position)?"""
        if depth != self.max_steps:
            return False
        if self.six and not self._six_ok():
            return False
        if self.need_die and depth == 1 and ((self.stack[0] >> 5) & 7) != self.need_die:
            return False
        return True

    def _settle(self):
        """Fix the number of steps a legal play must use, and the rule modes that decide it."""
        m = self._best(0, BAR)
        if self.head_on and self._limit2 > self.head_limit and m < self.ndice:
            keep = self.head_limit
            self.head_limit = self._limit2
            m2 = self._best(0, BAR)
            if m2 > m:
                m = m2
            else:
                self.head_limit = keep
        if self.lift and m >= 2:
            self.lock_on = True
            ml = self._best(0, BAR)
            if self.rules.hit_lift_lock_first():
                if ml >= 1:
                    m = ml
                else:
                    self.lock_on = False
            elif ml != m:
                self.lock_on = False
        if m < 0:
            m = 0
        self.max_steps = m
        self.need_die = 0
        if m == 1 and not self.double:
            if self._has_single(self.hi):
                self.need_die = self.hi

    def _has_single(self, d):
        """Is there a one-step candidate play with die d?"""
        cand = self._sources(BAR, d)
        if self.six:
            cand = self._six_leaves(cand, d)
        return cand != 0

    # -- public: the play in progress --------------------------------------------------------------
    def dice_left(self):
        if self.double:
            return [self.hi] * (4 - len(self.stack))
        out = []
        if not self.used & 1:
            out.append(self.hi)
        if not self.used & 2:
            out.append(self.lo)
        return out

    @property
    def steps(self):
        """Steps played so far: (src, dst, die, hit) in the mover's pips (dst 0 = borne off)."""
        out = []
        for e in self.stack:
            out.append((e & 31, (e >> 8) & 31, (e >> 5) & 7, (e >> 13) & 1))
        return out

    def targets(self, src):
        """Steps from ``src`` that keep a legal play reachable: [(dst, die), ...]."""
        out = []  # type: list
        depth = len(self.stack)
        if depth >= self.max_steps or not (0 < src <= BAR) or not self.mine[src]:
            return out
        for d in self._next_dice():
            if self._legal(src, d):
                self._make(src, d)
                ok = self._completable(depth + 1, BAR)
                self._unmake()
                if ok:
                    t = src - d
                    out.append((t if t > 0 else 0, d))
        return out

    def sources(self):
        """Pips holding a checker that has at least one offered step now."""
        out = []
        for s in range(BAR, 0, -1):
            if self.mine[s] and self.targets(s):
                out.append(s)
        return out

    def push(self, src, die):
        """Play one step; raises IllegalStep (with the rule it breaks) if it is not offered."""
        for t, d in self.targets(src):
            if d == die:
                self._make(src, die)
                return (self.stack[-1] >> 13) & 1
        raise IllegalStep(self.explain_step(src, die))

    def push_offered(self, src, die):
        """Play a step that ``targets(src)`` has just offered, without searching its legality
        again (the caller vouches for it); returns 1 when it hits."""
        self._make(src, die)
        return (self.stack[-1] >> 13) & 1

    @property
    def depth(self):
        """How many steps have been played so far."""
        return len(self.stack)

    def push_move(self, src, dst):
        """Play the step src -> dst (dst 0 = off), choosing the die; returns the die used."""
        offered = self.targets(src)
        exact = src - dst
        for t, d in offered:
            if t == dst and d == exact:
                self._make(src, d)
                return d
        for t, d in offered:          # bearing off with a higher die
            if t == dst:
                self._make(src, d)
                return d
        if dst == 0 or 1 <= exact <= 6:
            raise IllegalStep(self.explain_step(src, exact if dst else max(exact, 1)))
        raise IllegalStep("%d/%d is not a move of one die" % (src, dst))

    def pop(self):
        """Take the last step back; returns it as (src, dst, die, hit) or None."""
        if not self.stack:
            return None
        e = self.stack[-1]
        self._unmake()
        return (e & 31, (e >> 8) & 31, (e >> 5) & 7, (e >> 13) & 1)

    def complete(self):
        """True when the steps played so far are a whole legal play."""
        return self._accept(len(self.stack))

    def position(self):
        """The position after the steps played so far (the same side still to move)."""
        pos = Position(None, self.side)
        me = self.side * SIDE
        op = (1 - self.side) * SIDE
        x = self.rules.xlat
        for q in range(SIDE):
            pos.board[me + q] = self.mine[q]
            pos.board[op + x[q]] = self.opp[q]
        return pos

    # -- public: whole plays (enumerated by ``firmware.rules.plays``, loaded when first asked:
    # the board never enumerates, it asks ``targets`` on a lift and ``check`` at the button) ----
    def plays_packed(self, out=None):
        """Every distinct legal play from the start of the turn, as small ints < 2**24 (see
        ``plays.plays_packed``), appended to ``out`` (a new list by default, or an ``array("I")``)."""
        from firmware.rules import plays
        return plays.plays_packed(self, out)

    def count_plays(self):
        """How many distinct legal plays the roll has (doubles: counted without storing them)."""
        from firmware.rules import plays
        return plays.count_plays(self)

    def plays(self):
        """Every distinct legal play: a list of step lists [(src, dst, die, hit), ...];
        empty when no die can be played (the turn passes)."""
        from firmware.rules import plays
        return plays.plays(self)

    def finals(self):
        """Yield the position after each distinct legal play, one at a time."""
        from firmware.rules import plays
        return plays.finals(self)

    def unpack(self, p):
        """[(src, die), ...] of a packed play."""
        from firmware.rules import plays
        return plays.unpack(self, p)

    def _sources(self, top, d):
        """Bitmask of the pips (<= top) a step of d may leave now: landing on an open point, or
        bearing off when the rules allow; never a point the bar, head or lock rule holds."""
        allowed = self.occupied & ((2 << top) - 2)
        if self.guarded:
            f = 0x1FFFFFE if self.mine[BAR] else 0  # a checker on the bar enters first
            if self.head_on and self.head_moved >= self.head_limit:
                f |= 1 << 24
            if self.lock_on:
                f |= self.locks
            allowed &= ~f
        land = ((allowed >> d) & self.opened) << d     # never opened << d: 2**30 for a 6
        bear = allowed & ((2 << d) - 2)
        if bear:
            land |= self._bear_off(bear, d)
        if self.guarded and self.six_each:
            land = self._six_leaves(land, d)
        return land

    def _bear_off(self, bear, d):
        """The sources in ``bear`` (pips <= d) from which a die of d may bear off now."""
        if self.outside:
            return 0
        ok = 0
        while bear:                                  # at most six sources; the rules decide
            low = bear & -bear
            bear ^= low
            if self._legal(PIP_OF_BIT[low], d):
                ok |= low
        return ok

    def _rewind(self):
        saved = []
        while self.stack:
            e = self.stack[-1]
            saved.append((e & 31, (e >> 5) & 7))
            self._unmake()
        return saved

    def _replay(self, saved):
        while saved:
            s, d = saved.pop()
            self._make(s, d)

    # -- public: validation ----------------------------------------------------------------------------
    def check(self, final):
        """Is ``final`` the result of a legal play of this roll? (True, steps) or (False, reason)."""
        problem = self._final_problem(final)
        if problem:
            return False, problem
        saved = self._rewind()
        try:
            return self._check_from_start(final)
        finally:
            while self.stack:
                self._unmake()
            self._replay(saved)

    def _final_problem(self, final):
        if final.turn != self.side:
            return "the position has the wrong side to move"
        for side in (0, 1):
            total = 0
            for q in range(SIDE):
                total += final.board[side * SIDE + q]
            if total != CHECKERS:
                return "%s has %d checkers on the board, bar and tray, not 15" % (
                    ("white", "black")[side], total)
        return None

    def _target_arrays(self, final):
        me = self.side * SIDE
        op = (1 - self.side) * SIDE
        x = self.rules.xlat
        fm = bytearray(SIDE)
        fo = bytearray(SIDE)
        for q in range(SIDE):
            fm[q] = final.board[me + q]
            fo[q] = final.board[op + x[q]]
        return fm, fo

    def _check_from_start(self, final):
        fm, fo = self._target_arrays(final)
        if self.mine == fm and self.opp == fo:
            if self.max_steps == 0:
                return True, []
            return False, "no checker was moved, but %d %s can be played (play as many dice as possible)" % (
                self.max_steps, "die" if self.max_steps == 1 else "dice")
        candidates = self._decompose(fm, fo)
        if not candidates:
            return False, "the checkers did not move by the dice %d-%d (no sequence of steps leads there)" % (
                self.hi, self.lo)
        best = 3                         # the best rank so far, and its reason
        reason = None
        for seq in candidates:
            code, why = self._judge(seq, fo)
            if not code:
                return True, why
            if _rank(code) < best:
                best = _rank(code)
                reason = why
        return False, reason

    def _decompose(self, fm, fo):
        """Step sequences (ignoring every rule but the dice) that turn the start into fm/fo."""
        if self.double:
            seq = self._flow(fm)
            if seq is None:
                return []
            if self.canon:
                return [seq]
            return _orders(seq)
        found = []  # type: list
        self._loose(fm, fo, found)
        return found

    def _flow(self, fm):
        """Doubles: the unique multiset of steps (as a canonical sequence) reaching fm."""
        d = self.hi
        inflow = bytearray(SIDE)
        seq = []
        for s in range(BAR, 0, -1):
            have = self.mine[s] + inflow[s]
            out = have - fm[s]
            if out < 0:
                return None
            t = s - d if s > d else 0
            inflow[t] += out
            for _ in range(out):
                seq.append((s, d))
        if self.mine[0] + inflow[0] != fm[0] or len(seq) > 4:
            return None
        return seq

    def _loose(self, fm, fo, found):
        """Non-doubles: every order and choice of up to two steps matching the target."""
        mine = self.mine
        for d1 in (self.hi, self.lo):
            for s1 in range(BAR, 0, -1):
                if not mine[s1]:
                    continue
                self._make(s1, d1)
                if mine == fm and self.opp == fo:
                    found.append([(s1, d1)])
                d2 = self.lo if d1 == self.hi else self.hi
                for s2 in range(BAR, 0, -1):
                    if mine[s2]:
                        self._make(s2, d2)
                        if mine == fm and self.opp == fo:
                            found.append([(s1, d1), (s2, d2)])
                        self._unmake()
                self._unmake()

    def _judge(self, seq, fo):
        """Replay seq from the start under the rules: (0, steps), or (the reason's code, the
        reason)."""
        try:
            for s, d in seq:
                why = self._step_problem(s, d)
                if why:
                    return why
                self._make(s, d)
            if self.opp != fo:
                return _HIT, "the opponent's checkers are not where this play leaves them (a hit missed or made up)"
            depth = len(self.stack)
            if self.six and not self._six_ok():
                return _SIX_BLOCK, "it builds a block of six points with no opposing checker ahead of it"
            if depth < self.max_steps:
                return _TOO_FEW, "it plays %d %s, but %d can be played (play as many dice as possible)" % (
                    depth, "die" if depth == 1 else "dice", self.max_steps)
            if self.need_die and depth == 1 and seq[0][1] != self.need_die:
                return _LARGER, "only one die can be played and it must be the larger (%d)" % self.need_die
            return 0, self.steps
        finally:
            while self.stack:
                self._unmake()

    def _step_problem(self, s, d):
        """Why the step (s, d) is illegal in the current node: (the reason's code, the reason),
        or None."""
        mine = self.mine
        t = s - d
        where = "bar" if s == BAR else str(s)
        if not mine[s]:
            return _NO_CHECKER, "there is no checker on %s" % where
        if mine[BAR] and s != BAR:
            return _BAR_FIRST, "a checker on the bar must enter before any other checker moves"
        if len(self.stack) >= self.ndice:
            return _STEPS, "more steps than the dice allow"
        if d not in self._next_dice():
            if d != self.hi and d != self.lo:
                return _NO_DIE, "no die shows %d (the roll is %d-%d)" % (d, self.hi, self.lo)
            return _DIE_USED, "the die %d is already used" % d
        if s == 24 and self.head_on and self.head_moved >= self.head_limit:
            return _HEAD, "only %d checker%s may leave the head this turn" % (
                self.head_limit, "" if self.head_limit == 1 else "s")
        if self.lock_on and (self.locks >> s) & 1:
            return _LOCKED, "a checker may not leave point %d after hitting there in the home board (no hit-and-lift)" % s
        if t > 0:
            if self.opp[t] >= self.blk:
                return _CLOSED, "point %d is closed: the opponent holds it" % t
            if self.six_each and not self._six_leaves(1 << s, d):
                return _SIX_STEP, "%d/%d builds a block of six points with no opposing checker ahead of it" % (s, t)
            return None
        if self.outside:
            return _NOT_HOME, "bearing off needs every checker home first"
        if t < 0:
            for q in range(s + 1, 7):
                if mine[q]:
                    return _HIGHER, "a %d bears off from %d only when no checker stands higher (on %d)" % (d, s, q)
        return None

    def explain_step(self, src, die):
        """Why the step src by die is not offered now."""
        why = self._step_problem(src, die) if 0 < src <= BAR else (0, "no such point %r" % src)
        if why:
            return why[1]
        if len(self.stack) >= self.max_steps:
            return "the play is already complete"
        self._make(src, die)
        ok = self._completable(len(self.stack), BAR)
        self._unmake()
        if ok:
            return "the step is legal"
        if self.need_die and die != self.need_die:
            return "only one die can be played and it must be the larger (%d)" % self.need_die
        if self.six:
            return "after it no legal play remains (play as many dice as possible; no six-point block ahead of every opposing checker)"
        return "after it the rest of the roll cannot be played, but a play using %d dice exists" % self.max_steps


def _orders(seq):
    """Every distinct ordering of a short step list (at most 4! = 24)."""
    if len(seq) <= 1:
        return [list(seq)]
    out = []
    for i in range(len(seq)):
        if seq[i] in seq[:i]:
            continue
        for rest in _orders(seq[:i] + seq[i + 1:]):
            out.append([seq[i]] + rest)
    return out

