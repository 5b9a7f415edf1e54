"""Every legal play of a roll, enumerated: packed into small ints, counted, listed, as positions.

The host's tools, the bench and the ``legal`` command enumerate; the board never does (it asks
``Turn.targets`` on a lift and ``Turn.check`` at the button), so this code lives apart from the
``Turn`` and is loaded only when a ``Turn``'s ``plays``, ``plays_packed``, ``count_plays``,
``finals`` or ``unpack`` is first called. Each function works on the ``Turn`` in place with its
make/unmake and leaves it as it found it (see ``firmware.rules.movegen`` for the design: doubles
in canonical order, non-doubles de-duplicated by an exact change key).
"""

from firmware.rules.position import BAR, PIP_OF_BIT

_PAD = 31        # no point: the change key's filler for a step or a hit that is not there


def plays_packed(turn, out=None):
    """Every distinct legal play from the start of the turn, as small ints < 2**24:
    bits 0-2 the number of steps, bit 3 set when a non-double played its lower die first,
    then 5 bits per step for its source pip (see ``unpack``); empty when no die can be
    played. Appended to ``out`` and returned: a new list by default, or e.g. an
    ``array("I")``, which keeps the worst case's 2,225 plays in 9 KB where a list, which
    doubles as it grows, may need twice that on an RP2040."""
    if out is None:
        out = []
    if turn.max_steps == 0:
        return out
    saved = turn._rewind()
    if turn.double and not turn.canon:
        _doubles_any_order(turn, 0, out, set())
    elif turn.double:
        _doubles(turn, 1, BAR, turn.max_steps, out)       # count bits = max_steps
    else:
        _pairs(turn, out)
    turn._replay(saved)
    return out


def _doubles(turn, depth, top, prefix, out):
    """Fast enumeration of a double with no whole-play rule but the final six-block: canonical
    order over bitmasks of candidate sources, a lean in-place make/unmake, the last step
    recorded unmade. ``prefix`` is the packed play so far (see plays_packed), its count
    already the final one; ``out`` None counts into ``turn._n`` instead."""
    d = turn.hi
    shift = 4 + 5 * (depth - 1)
    land = turn._sources(top, d)
    if depth == turn.max_steps:                  # only when one step is all that plays
        if turn.six:
            land = turn._six_leaves(land, d)
        _emit(turn, land, prefix, shift, out)
        return
    last = depth + 1 == turn.max_steps
    mine = turn.mine
    opp = turn.opp
    hitting = turn.blk == 2
    lift = turn.lift
    plain = not turn.guarded                     # no rule can forbid a source: inline leaves
    opened = turn.opened                         # shifted right, never left: opened << 6
    beard = (2 << d) - 2                         # reaches 2**30, a heap int on the RP2040
    while land:
        low = land & -land
        land ^= low
        s = PIP_OF_BIT[low]
        t = s - d if s > d else 0
        # make
        mine[s] -= 1
        mine[t] += 1
        src0 = turn.occupied
        src = src0
        if not mine[s]:
            src ^= low
        if t and mine[t] == 1:
            src |= 1 << t
        turn.occupied = src
        hit = t and hitting and opp[t] == 1
        locks0 = turn.locks
        if hit:
            opp[t] = 0
            opp[BAR] += 1
            if lift and t <= 6:
                turn.locks = locks0 | (1 << t)
        home = s >= 7 and t <= 6
        if home:
            turn.outside -= 1
        if s == 24:
            turn.head_moved += 1
        if last:
            if plain:
                leaves = src & ((2 << s) - 2)
                bear = leaves & beard
                leaves = ((leaves >> d) & opened) << d
                if bear:
                    leaves |= turn._bear_off(bear, d)
            else:
                leaves = turn._sources(s, d)
            if turn.six:
                leaves = turn._six_leaves(leaves, d)
            _emit(turn, leaves, prefix | (s << shift), shift + 5, out)
        else:
            _doubles(turn, depth + 1, s, prefix | (s << shift), out)
        # unmake
        if s == 24:
            turn.head_moved -= 1
        if home:
            turn.outside += 1
        if hit:
            opp[t] = 1
            opp[BAR] -= 1
        turn.locks = locks0
        turn.occupied = src0
        mine[t] -= 1
        mine[s] += 1


def _emit(turn, leaves, prefix, shift, out):
    """Record (or count) one play per source bit in ``leaves``."""
    if out is None:
        n = 0
        while leaves:
            leaves &= leaves - 1
            n += 1
        turn._n += n
        return
    while leaves:
        low = leaves & -leaves
        leaves ^= low
        out.append(prefix | (PIP_OF_BIT[low] << shift))


def _doubles_any_order(turn, depth, out, seen):
    """Doubles when the order of the steps matters (block_check=every_step): every order,
    de-duplicated by the multiset of sources, which fixes the final position."""
    if depth == turn.max_steps:
        if turn._accept(depth):
            srcs = sorted(e & 31 for e in turn.stack)
            key = 0
            for q in srcs:
                key = (key << 5) | q
            if key not in seen:
                seen.add(key)
                p = depth
                shift = 4
                for e in turn.stack:
                    p |= (e & 31) << shift
                    shift += 5
                out.append(p)
        return
    d = turn.hi
    cand = turn._sources(BAR, d)
    while cand:
        low = cand & -cand
        cand ^= low
        s = PIP_OF_BIT[low]
        turn._make(s, d)
        _doubles_any_order(turn, depth + 1, out, seen)
        turn._unmake()


def _pairs(turn, out):
    """Fast enumeration of a non-double with no whole-play rule: both orders, the second
    step recorded unmade, duplicates removed by the exact change key."""
    seen = set()
    m = turn.max_steps
    need = turn.need_die
    opp = turn.opp
    hitting = turn.blk == 2
    for first, second in ((turn.hi, turn.lo), (turn.lo, turn.hi)):
        if m == 1 and need and first != need:
            continue
        firsts = turn._sources(BAR, first)
        if m == 1 and turn.six:
            firsts = turn._six_leaves(firsts, first)
        lo_first = 8 if first == turn.lo else 0
        while firsts:
            low = firsts & -firsts
            firsts ^= low
            s1 = PIP_OF_BIT[low]
            t1 = s1 - first if s1 > first else 0
            h1 = 1 if (t1 and hitting and opp[t1] == 1) else 0
            if m == 1:
                k = _change_key(s1, t1, h1, _PAD, _PAD, 0)
                if k not in seen:
                    seen.add(k)
                    out.append(1 | lo_first | (s1 << 4))
                continue
            turn._make(s1, first)
            seconds = turn._sources(BAR, second)
            if turn.six:
                seconds = turn._six_leaves(seconds, second)
            while seconds:
                low2 = seconds & -seconds
                seconds ^= low2
                s2 = PIP_OF_BIT[low2]
                t2 = s2 - second if s2 > second else 0
                h2 = 1 if (t2 and hitting and opp[t2] == 1) else 0
                k = _change_key(s1, t1, h1, s2, t2, h2)
                if k not in seen:
                    seen.add(k)
                    out.append(2 | lo_first | (s1 << 4) | (s2 << 9))
            turn._unmake()


def count_plays(turn):
    """How many distinct legal plays the roll has (doubles: counted without storing them)."""
    if turn.max_steps == 0:
        return 0
    if not turn.canon:
        return len(plays_packed(turn))
    saved = turn._rewind()
    turn._n = 0
    _doubles(turn, 1, BAR, turn.max_steps, None)
    turn._replay(saved)
    return turn._n


def plays(turn):
    """Every distinct legal play: a list of step lists [(src, dst, die, hit), ...];
    empty when no die can be played (the turn passes)."""
    result = []
    saved = turn._rewind()
    for p in plays_packed(turn):
        for s, d in unpack(turn, p):
            turn._make(s, d)
        result.append(turn.steps)
        while turn.stack:
            turn._unmake()
    turn._replay(saved)
    return result


def finals(turn):
    """Yield the position after each distinct legal play, one at a time (frugal: nothing
    but the packed plays is kept)."""
    saved = turn._rewind()
    try:
        for p in plays_packed(turn):
            for s, d in unpack(turn, p):
                turn._make(s, d)
            yield turn.position()
            while turn.stack:
                turn._unmake()
    finally:
        while turn.stack:
            turn._unmake()
        turn._replay(saved)


def unpack(turn, p):
    """[(src, die), ...] of a packed play."""
    n = p & 7
    out = []
    first = turn.lo if p & 8 else turn.hi
    for i in range(n):
        s = (p >> (4 + 5 * i)) & 31
        if turn.double:
            d = turn.hi
        elif i == 0:
            d = first
        else:
            d = turn.hi if first == turn.lo else turn.lo
        out.append((s, d))
    return out


def _change_key(s1, t1, h1, s2, t2, h2):
    """Exact identity (< 2**30) of the change made by steps s1->t1 (hit h1) then s2->t2 (hit h2);
    s2 = _PAD for a single step. Chains cancel (13/10 10/7 == 13/7 with no hit on 10)."""
    ha = t1 if h1 else _PAD
    hb = t2 if h2 else _PAD
    if s2 == _PAD:
        r1, r2, a1, a2 = s1, _PAD, t1, _PAD
    elif t1 == s2:
        r1, r2, a1, a2 = s1, _PAD, t2, _PAD
    elif t2 == s1:
        r1, r2, a1, a2 = s2, _PAD, t1, _PAD
    else:
        r1, r2 = (s1, s2) if s1 < s2 else (s2, s1)
        a1, a2 = (t1, t2) if t1 < t2 else (t2, t1)
    if hb < ha:
        ha, hb = hb, ha
    return r1 | (r2 << 5) | (a1 << 10) | (a2 << 15) | (ha << 20) | (hb << 25)
