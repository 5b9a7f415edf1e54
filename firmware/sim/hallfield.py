"""The simulated linear Hall sensors' physics: stacked checker magnets, crosstalk, tolerances, noise.

Each slot's reading is computed from what stands on it, as board.json's ``analog.stack`` model
describes the board (host_tools/boarddesign/magnetics.py derives it): the on-axis field of every magnet of the
stack at its own height (closed form, with that magnet's remanence, thickness, seat depth and the
thickness of the checkers under it), reduced by its lateral offset (``lateral_per_mm2``), plus
the crosstalk of the neighbouring slots' stacks; times the sensor's gain, plus its zero offset,
drift and noise. Magnets (one per checker, ids 0..29; more for loose magnets) and sensors draw
their tolerances from the seed; each placement draws a fresh lateral offset.
Runs on MicroPython too (the firmware's simulated board): the draws of magnets and sensors are
hashes of the seed (nothing stored per part), a slot's mean code is cached until its stack or a
neighbour's changes.
"""

import math

from firmware import call

# Magnets: 0..29 the checkers, 30..61 loose ones (tests' set_slot/set_zone). A stack position's
# byte in ``ids``: the magnet's id, | 0x40 for a Black checker (south up); 255: none.
# The model's parameters, in one array of doubles (``p``): 0-3 a magnet's nominal Br (T),
# thickness and seat depth, the checker's thickness (mm); 4-7 their tolerances; 8-10 the
# sensor's tolerances (gain %, zero offset in codes, depth mm); 11-12 the placement tolerances of
# a bottom and a stacked checker (mm); 13 the magnet's radius, 14 the sensors' depth (mm); from 15
# per level the lateral factor (/mm^2), then the crosstalk along, then across (mT): read from
# board.json by firmware.sim.hallsetup (plain numbers, no const(): this module runs on CPython
# too).


class HallField:
    """Mean ADC code per slot (``code[s]``) from the stacks on it and beside it (cached until
    they change)."""

    def __init__(self, cfg, seed=1):
        # board.json's model read into this field's tables: firmware.sim.hallsetup (one-time
        # work, loaded for the call and dropped again)
        call("firmware.sim.hallsetup", "setup", self, cfg, seed)

    def draw(self, key, i, t):
        """The tolerance draw ``i`` of a magnet or sensor ``key``: uniform in [-t, t], the same
        every time (a hash of the seed, key and i: nothing stored)."""
        x = (self.seed * 2654435761 + key * 40503 + i * 9973 + 12345) & 0x7FFFFFFF
        for _ in range(3):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        return t * ((x >> 7) / 8388607.5 - 1.0)

    def magnet(self, i):
        """(Br in T, thickness, seat depth, checker thickness in mm) of magnet ``i``."""
        p = self.p
        k = 1000 + i
        return (p[0] + self.draw(k, 0, p[4]), p[1] + self.draw(k, 1, p[5]),
                p[2] + self.draw(k, 2, p[6]), p[3] + self.draw(k, 3, p[7]))

    def sensor(self, s):
        """(gain factor, zero offset in codes, depth error in mm) of the sensor under slot s."""
        p = self.p
        return (1.0 + self.draw(s, 0, p[8]) / 100.0, self.draw(s, 1, p[9]),
                self.draw(s, 2, p[10]))

    def noise_code(self):
        """Noise of one conversion: a sum of three uniforms (close to normal), std ``noise``
        codes; integers only (a scan allocates nothing, even on MicroPython)."""
        x = self._noise
        t = 0
        for _ in range(3):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            t += (x >> 15) & 0xFFFF
        self._noise = x
        return (t - 98302) * self.noise // 32768

    def put(self, s, sides, ids):
        """Slot s now holds a stack: ``sides`` (1 White / 2 Black) and magnet ``ids``, bottom
        first (at most ``levels``; more do not fit on a slot). Positions that changed draw a
        new lateral offset."""
        k = self.levels
        n = len(sides)
        if n > k:
            n = k
        base = s * k
        for j in range(k):
            i = base + j
            if j < n:
                m = ids[j] if ids is not None else None
                if m is None:
                    m = 30 + (s * k + j) % 32           # a loose magnet
                if sides[j] == 2:
                    m |= 0x40
                if self.ids[i] != m:              # (255 where it was empty)
                    t = self.p[11 if j == 0 else 12]
                    r2 = 0.0
                    for _ in range(2):                 # x, then y: uniform in [-t, t]
                        self._lcg = (self._lcg * 1103515245 + 12345) & 0x7FFFFFFF
                        x = t * ((self._lcg >> 7) / 8388607.5 - 1.0)
                        r2 += x * x
                    r2 = int(r2 * 10)
                    self.r2[i] = r2 if r2 < 255 else 255
                self.ids[i] = m
            else:
                self.ids[i] = 255
        self.refresh(s)
        nbr = self.neighbours
        for j in range(4):
            t = nbr[4 * s + j]
            if t != 255:
                self.refresh(t)

    def refresh(self, s):
        """Compute slot s's mean code (when its stack or a neighbour's changed): the field (mT;
        White's polarity counted positive) of its own stack at its sensor, plus the crosstalk
        the neighbouring slots' stacks put on it."""
        k = self.levels
        p = self.p
        gain, zero, h = self.sensor(s)
        h += p[14]
        total = 0.0
        rad2 = p[13] * p[13]
        for j in range(k):
            i = s * k + j
            m = self.ids[i]
            if m == 255:                          # the top of the stack
                break
            br, length, seat, thick = self.magnet(m & 0x3F)
            lo = h + seat
            hi = lo + length
            b = br * 500.0 * (hi / math.sqrt(hi * hi + rad2) - lo / math.sqrt(lo * lo + rad2))
            b *= 1.0 - p[15 + j] * self.r2[i] / 10.0
            total += -b if m & 0x40 else b
            h += thick
        nbr = self.neighbours
        beside = 0.0
        for j in range(4):
            t = nbr[4 * s + j]
            if t == 255:
                continue
            lev = 0                               # checkers on slot t
            while lev < k and self.ids[t * k + lev] != 255:
                lev += 1
            if lev:
                x = p[15 + k * (1 + (j >> 1)) + lev - 1]
                beside += -x if self.ids[t * k] & 0x40 else x
        v = zero + gain * self.per_mt * (total + beside)
        self.code[s] = int(v + 0.5) if v >= 0 else -int(0.5 - v)



def calibration(world, scanner):
    """What the factory measures on the simulated board ``world`` with its own scanner (bytes;
    firmware.sim.hallsetup's ``calibration``)."""
    return call("firmware.sim.hallsetup", "calibration", world, scanner)

