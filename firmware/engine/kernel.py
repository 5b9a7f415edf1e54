"""Viper twin of arith.evaluate (same arguments, same integers); never imported under CPython.

Compiled from the source below at import, like firmware/drivers/analog_viper.py, so the native
code fits the CPU that runs it. Machine words are 32 bits on the RP2040 and 64 on the unix
port: every sum stays within 32 bits (quantize.py's bounds), so both give arith's integers.
"""

_KERNEL = '''
import micropython

@micropython.viper
def evaluate(mine: ptr8, opp: ptr8, xl: ptr8, r: ptr8, x: ptr32, xb: ptr32, accb: ptr32,
             acc: ptr32, out: ptr32, w1: ptr8, w2: ptr8, b2: ptr32, t: ptr16, p: ptr32) -> int:
    sx = 1
    sx <<= 31              # (not folded into a constant: 2**31 is no small int on the RP2040)
    # x ^ sx - sx sign-extends a 32-bit load on a 64-bit port and changes nothing on 32 bits
    a = 0 if int(p[8]) else 26
    b = 26 - a
    q = 0
    while q < 26:
        r[a + q] = mine[q]
        r[b + int(xl[q])] = opp[q]
        q += 1
    need = int(p[5])
    hitting = int(p[6])
    side = 0
    while side < 2:
        c = 26 * side
        o = 26 - c
        at = 102 * side
        pip = 0
        run = 0
        best = 0
        home = 0
        blots = 0
        seen = int(r[o + 25])
        j = 1
        while j < 25:
            n = int(r[c + j])
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
                if int(r[o + int(xl[j])]):
                    seen = 1
            j += 1
        bar = int(r[c + 25])
        pip += bar * 25
        x[at + 96] = bar * 128
        x[at + 97] = (int(r[c]) * 512 + 15) // 30
        x[at + 98] = (pip * 512 + 375) // 750
        x[at + 99] = (blots * 512 + 5) // 10
        x[at + 100] = (best * 512 + 6) // 12
        x[at + 101] = (home * 512 + 6) // 12
        side += 1
    race = 0
    if int(p[7]):
        fa = 0
        q = 25
        while q > 0:
            if int(r[q]):
                fa = q
                break
            q -= 1
        fb = 0
        q = 25
        while q > 0:
            if int(r[26 + q]):
                fb = q
                break
            q -= 1
        if fa + fb <= 25:
            race = 256
    x[204] = race
    h = int(p[1])
    j = 0
    while j < h:
        acc[j] = int(accb[j])
        j += 1
    n = int(p[0])
    i = 0
    while i < n:
        d = int(x[i]) - int(xb[i])
        if d:
            row = i * h
            j = 0
            while j < h:
                acc[j] = int(acc[j]) + d * ((int(w1[row + j]) ^ 128) - 128)
                j += 1
        i += 1
    o = int(p[2])
    k = 0
    while k < o:
        out[k] = int(b2[k])
        k += 1
    sh1 = int(p[3])
    j = 0
    while j < h:
        z = (int(acc[j]) ^ sx) - sx
        if sh1 >= 0:
            u = z >> sh1
        else:
            u = z << (0 - sh1)
        a = 0 - u if u < 0 else u
        i = a >> 6
        if i >= 512:
            v = int(t[512])
        else:
            v = int(t[i])
            v = v + (((int(t[i + 1]) - v) * (a & 63)) >> 6)
        if u < 0:
            v = 32768 - v
        row = j * o
        k = 0
        while k < o:
            out[k] = int(out[k]) + v * ((int(w2[row + k]) ^ 128) - 128)
            k += 1
        j += 1
    sh2 = int(p[4])
    k = 0
    while k < o:
        z = (int(out[k]) ^ sx) - sx
        if sh2 >= 0:
            u = z >> sh2
        else:
            u = z << (0 - sh2)
        a = 0 - u if u < 0 else u
        i = a >> 6
        if i >= 512:
            v = int(t[512])
        else:
            v = int(t[i])
            v = v + (((int(t[i + 1]) - v) * (a & 63)) >> 6)
        if u < 0:
            v = 32768 - v
        out[k] = v
        k += 1
    # the equity of the outputs with each class capped by the one before it (outcomes.py)
    half = o >> 1
    cap = int(out[0])
    eq = int(p[9]) * cap - 32768
    cap2 = 32768 - cap
    k = 1
    while k <= half:
        v = int(out[k])
        if v > cap:
            v = cap
        cap = v
        eq += ((int(p[9 + k]) ^ sx) - sx) * v
        v = int(out[k + half])
        if v > cap2:
            v = cap2
        cap2 = v
        eq += ((int(p[9 + k + half]) ^ sx) - sx) * v
        k += 1
    return eq
'''

exec(_KERNEL, globals())      # defines evaluate()
del _KERNEL
