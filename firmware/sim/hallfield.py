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
from array import array

MAGNETS = 62          # 0..29: the checkers; 30..61: loose magnets (tests' set_slot/set_zone)
LOOSE = 30


class HallField:
    """Mean ADC code per slot from the stacks on it and beside it (cached until they change)."""

    def __init__(self, cfg, seed=1):
        a = cfg.analog
        st = a["stack"]
        self.n = n = cfg.n_slots
        self.levels = st["levels"]
        self.l1 = st["levels_mT"][0]          # one checker's field (mT)
        self.per_mt = a["sensitivity_mv_mt"] * 4095 / a["adc_mv"]     # codes per mT (signed)
        if a["white"] != "below":
            self.per_mt = -self.per_mt
        m = st["magnet"]
        self.radius = m["diameter_mm"] / 2.0
        self.depth = st["sensor_depth_mm"]
        self.lat = st["lateral_per_mm2"]
        self.xt = (st["crosstalk_mT"]["along"], st["crosstalk_mT"]["across"])
        tol = st["tolerances"]
        self.noise = tol["noise_codes"]
        self.nbr = cfg.neighbours()
        self._x = (seed * 2654435761 + 7) & 0x7FFFFFFF or 1
        self.seed = seed
        self.mag = m
        self.ct0 = st["checker"]["thickness_mm"]
        self.tol = tol
        self.place_tol = (tol["placement_mm"], tol["stack_mm"])
        k = self.levels
        self.lev = bytearray(n)              # checkers on the slot's stack
        self.ids = bytearray(b"\xff" * (k * n))   # magnet id per stack position
        self.side = bytearray(k * n)         # 1 White, 2 Black per stack position
        self.r2 = bytearray(k * n)           # lateral offset squared, 0.1 mm^2
        self.mean = array("h", [0] * n)     # codes off the nominal zero, no noise
        self._nx = self._x
        for i in range(n):
            self.refresh(i)

    def _uniform(self, half):
        """A uniform draw in [-half, half] (31-bit LCG)."""
        self._x = (self._x * 1103515245 + 12345) & 0x7FFFFFFF
        return half * ((self._x >> 7) / 8388607.5 - 1.0)

    def _drawn(self, key, i, half):
        """The tolerance draw ``i`` of a magnet or sensor ``key``: uniform in [-half, half],
        the same every time (a hash of the seed, key and i: nothing stored)."""
        x = (self.seed * 2654435761 + key * 40503 + i * 9973 + 12345) & 0x7FFFFFFF
        for _ in range(3):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        return half * ((x >> 7) / 8388607.5 - 1.0)

    def magnet(self, mid):
        """(Br in T, thickness, seat depth, checker thickness in mm) of magnet ``mid``."""
        m = self.mag
        t = self.tol
        k = 1000 + mid
        return (m["br_t"] + self._drawn(k, 0, t["br_t"]),
                m["thickness_mm"] + self._drawn(k, 1, t["thickness_mm"]),
                m["seat_mm"] + self._drawn(k, 2, t["seat_mm"]),
                self.ct0 + self._drawn(k, 3, t["checker_mm"]))

    def sensor(self, s):
        """(gain factor, zero offset in codes, depth error in mm) of the sensor under slot s."""
        t = self.tol
        return (1.0 + self._drawn(s, 0, t["gain_pct"]) / 100.0, self._drawn(s, 1, t["offset_codes"]),
                self._drawn(s, 2, t["depth_mm"]))

    def noise_code(self):
        """Noise of one conversion: a sum of three uniforms (close to normal), std ``noise``
        codes; integers only (a scan allocates nothing, even on MicroPython)."""
        x = self._nx
        t = 0
        for _ in range(3):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            t += (x >> 15) & 0xFFFF
        self._nx = x
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
                mid = ids[j] if ids is not None else None
                if mid is None:
                    mid = LOOSE + (s * k + j) % (MAGNETS - LOOSE)
                if self.ids[i] != mid or self.side[i] != sides[j] or j >= self.lev[s]:
                    t = self.place_tol[0 if j == 0 else 1]
                    x = self._uniform(t)
                    y = self._uniform(t)
                    r2 = int((x * x + y * y) * 10)
                    self.r2[i] = r2 if r2 < 255 else 255
                self.ids[i] = mid
                self.side[i] = sides[j]
            else:
                self.ids[i] = 255
                self.side[i] = 0
        self.lev[s] = n
        self.refresh(s)
        nbr = self.nbr
        for j in range(4):
            t = nbr[4 * s + j]
            if t != 255:
                self.refresh(t)

    def _own(self, s):
        """Field (mT; White's polarity counted positive) of slot s's own stack at its sensor."""
        k = self.levels
        h = self.depth + self.sensor(s)[2]
        total = 0.0
        rad2 = self.radius * self.radius
        for j in range(self.lev[s]):
            i = s * k + j
            br, length, seat, thick = self.magnet(self.ids[i])
            lo = h + seat
            hi = lo + length
            b = br * 500.0 * (hi / math.sqrt(hi * hi + rad2) - lo / math.sqrt(lo * lo + rad2))
            b *= 1.0 - self.lat[j] * self.r2[i] / 10.0
            total += b if self.side[i] == 1 else -b
            h += thick
        return total

    def _beside(self, s):
        """Crosstalk (mT) the neighbouring slots' stacks put on slot s's sensor."""
        nbr = self.nbr
        total = 0.0
        k = self.levels
        for j in range(4):
            t = nbr[4 * s + j]
            if t == 255:
                continue
            lev = self.lev[t]
            if lev:
                x = self.xt[j >> 1][lev - 1]
                total += x if self.side[t * k] == 1 else -x
        return total

    def refresh(self, s):
        """Compute slot s's mean code (when its stack or a neighbour's changed)."""
        gain, zero, _ = self.sensor(s)
        v = zero + gain * self.per_mt * (self._own(s) + self._beside(s))
        self.mean[s] = int(v + 0.5) if v >= 0 else -int(0.5 - v)

    def code(self, s):
        """Mean ADC code offset of slot s from the nominal zero (no noise): an int."""
        return self.mean[s]
