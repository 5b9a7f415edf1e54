"""The 8-bit network's integer arithmetic in plain Python: encode a position, evaluate it.

The reference of the viper kernel (kernel.py), which must give the same integers, and the
board's fallback where the port has no viper. ``evaluate`` takes the rules core's Turn rows:
``mine`` (the mover's counts in its own pips) and ``opp`` (the other side's counts on the
mover's pips, 0 borne off and 25 the bar as its own); it writes the view of the side that moves
next into ``r`` (52 bytes), that view's Q8 inputs into ``x`` and its hidden sums into ``acc``,
which start from ``accb`` and add only the rows of ``w1`` whose input differs from ``xb``
(``xb``/``accb``: the position before the roll, or zeros and b1 for a whole evaluation).
Returns the next mover's equity in Q15 (32768 = one point).
"""

from firmware.engine.net8 import (P_INPUTS, P_HIDDEN, P_OUTPUTS, P_SH1, P_SH2, P_NEED,
                                  P_HITTING, P_OPPOSITE, P_AGAIN, P_EQ)


def _side(r, c, o, x, at, need, hitting, xl):
    """The 102 Q8 inputs of the side whose row starts at r[c], against the row at r[o]."""
    pip = 0
    run = 0
    best = 0
    home = 0
    blots = 0
    seen = r[o + 25]
    for j in range(1, 25):
        n = r[c + j]
        k = at + 4 * j - 4
        x[k] = 256 if n >= 1 else 0
        x[k + 1] = 256 if n >= 2 else 0
        x[k + 2] = 256 if n >= 3 else 0
        x[k + 3] = (n - 3) * 64 if n > 3 else 0
        pip += n * j
        if n >= need:
            run += 1
            if run > best:
                best = run
            if j <= 6:
                home += 1
        else:
            run = 0
        if hitting:
            if n == 1 and seen:
                blots += 1
            if r[o + xl[j]]:
                seen = 1
    pip += r[c + 25] * 25
    x[at + 96] = r[c + 25] * 128
    x[at + 97] = (r[c] * 512 + 15) // 30
    x[at + 98] = (pip * 512 + 375) // 750
    x[at + 99] = (blots * 512 + 5) // 10
    x[at + 100] = (best * 512 + 6) // 12
    x[at + 101] = (home * 512 + 6) // 12


def _far(r, c):
    for q in range(25, 0, -1):
        if r[c + q]:
            return q
    return 0


def encode(mine, opp, xl, r, x, p):
    """The next mover's view into r, its 205 Q8 inputs into x."""
    a = 0 if p[P_AGAIN] else 26          # where the mover's own row goes
    b = 26 - a
    for q in range(26):
        r[a + q] = mine[q]
        r[b + xl[q]] = opp[q]
    need = p[P_NEED]
    hit = p[P_HITTING]
    _side(r, 0, 26, x, 0, need, hit, xl)
    _side(r, 26, 0, x, 102, need, hit, xl)
    x[204] = 256 if p[P_OPPOSITE] and _far(r, 0) + _far(r, 26) <= 25 else 0


def _sig(z, sh, table):
    """Q15 sigmoid of sum z: shifted to units of 2**-12, read from the table, interpolated."""
    u = z >> sh if sh >= 0 else z << -sh
    a = -u if u < 0 else u
    i = a >> 6
    if i >= 512:
        v = table[512]
    else:
        t = table[i]
        v = t + (((table[i + 1] - t) * (a & 63)) >> 6)
    return 32768 - v if u < 0 else v


def head(acc, w2, b2, table, out, p):
    """The outputs (Q15, into out) and the equity (Q15) of the hidden sums acc."""
    h = p[P_HIDDEN]
    o = p[P_OUTPUTS]
    sh1 = p[P_SH1]
    for k in range(o):
        out[k] = b2[k]
    for j in range(h):
        v = _sig(acc[j], sh1, table)
        row = j * o
        for k in range(o):
            out[k] += v * ((w2[row + k] ^ 128) - 128)
    sh2 = p[P_SH2]
    for k in range(o):
        out[k] = _sig(out[k], sh2, table)
    # the equity of the outputs with each class capped by the one before it (outcomes.py)
    half = o >> 1
    cap = out[0]
    eq = p[P_EQ] * cap - 32768
    cap2 = 32768 - cap
    for k in range(1, half + 1):
        v = out[k]
        if v > cap:
            v = cap
        cap = v
        eq += p[P_EQ + k] * v
        v = out[k + half]
        if v > cap2:
            v = cap2
        cap2 = v
        eq += p[P_EQ + k + half] * v
    return eq


def evaluate(mine, opp, xl, r, x, xb, accb, acc, out, w1, w2, b2, table, p):
    """Encode, accumulate from (xb, accb), and score: the next mover's equity in Q15."""
    encode(mine, opp, xl, r, x, p)
    h = p[P_HIDDEN]
    for j in range(h):
        acc[j] = accb[j]
    for i in range(p[P_INPUTS]):
        d = x[i] - xb[i]
        if d:
            row = i * h
            for j in range(h):
                acc[j] += d * ((w1[row + j] ^ 128) - 128)
    return head(acc, w2, b2, table, out, p)
