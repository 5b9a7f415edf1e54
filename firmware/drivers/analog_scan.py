"""Analog sensor front end: linear Hall sensors through two levels of 74HC4067 into ADC0, read as
stack levels (how many same-colour checkers stand on a slot) with the neighbours' crosstalk taken out."""

from firmware import call

try:
    from micropython import const
except ImportError:  # CPython without the sim stand-ins
    def const(x):
        return x

# Electrical: DRV5053RA sensors run from 5 V (134 x 3.6 mA would overload the Pico's 3V3) but
# their output stays within 0.2-1.8 V, 1.0 V (code ~1241 of 4095 at 3.3 V) with no field, so
# they feed the 3.3 V muxes and the ADC without dividers. Slot s is channel s % 16 of sensor mux
# s // 16, whose output is channel s // 16 of the bank mux into ADC0. The eight select lines are
# GP(sel_base) .. GP(sel_base + 7), slot bits 0..7 in order, so one write to the SIO's GPIO_OUT_XOR
# register selects a slot. 74HC4067 on-resistance (~70 ohm at 3.3 V) and ~50 pF settle in well
# under a microsecond, less than the interpreter spends between the select and the read.
# Magnets: White checkers north-up lower the output, Black south-up raise it ("white": "below").

_SIO_GPIO_OUT_XOR = const(0xD000001C)
_Q = const(4)          # levels and baselines are kept in 1/16 ADC code (12.4 fixed point)

# The viper kernel's registers: the SIO (GPIO_OUT_XOR at +0x1C) and the ADC (datasheet 4.9.6:
# CS at +0 with EN bit 0, START_ONCE bit 2, READY bit 8, AINSEL bits 12-14; RESULT at +4;
# +0x2000 is CS's atomic set alias, so a start leaves AINSEL and EN as they are): (SIO, ADC) bases
# in analog_cal.kernel; the multiplexer's settle time: analog_cal's setup (``settle``).
_BIN = const(10)       # _bad_bins: which 1024-unit (64-code) bins a bad code's guard band touches


_WATCH = const(5)      # a slot that changed is read again for _WATCH << filter_shift scans
                       # while its filtered level settles (to within a code of a full checker)
_EMPTY = const(0)
_BLACK_FLAG = const(4)  # state: 0 empty, else the level (1..3) | 4 when Black
_NONE = const(255)      # no neighbour
_SIG_OWN = const(6)     # a clean stack reads within r >> 6 of its ratio r by its learnt unit,
_SIG_CAL = const(3)     # within r >> 3 by the calibrated one (board.json's magnet tolerances:
                        # Br 1.7 %, thickness 2.5 %, seat ~0.5 %, lateral ~1 %, twice: the
                        # calibration's magnet and the stack's)


def build(cfg, machine, sim, storage):
    """The board's AnalogScanner from board.json's tables (``cfg``) on ``machine``'s parts,
    calibrated as ``storage`` keeps it (hardware.Hardware; ``sim``: the simulator's world or
    None): analog_cal.build."""
    return call("firmware.drivers.analog_cal", "build", cfg, machine, sim, storage)


class AnalogScanner:
    """Scan ``n`` linear Hall sensors into ``raw``: one occupancy plane per stack level (bit s of
    plane k: slot s holds more than k checkers), then the Black plane (polarity).

    Per sensor: an IIR average (``filter_shift``), a calibrated baseline that slowly follows
    drift while the slot is empty (one slot per call, ``drift_shift``), and a band: the levels
    the slot's present state (empty, or a stack of 1..``levels`` checkers of one colour) allows,
    widened by hysteresis (``on_codes``/``off_codes`` at the empty edge, ``hyst`` elsewhere).
    The hot loop only compares a level with the slot's band; ``_change`` classifies a slot that
    left it: the deviation from the baseline, in units of the slot's calibrated single-checker
    signal ``unit``, against the half-way points of ``ratios`` (the fields of 1..``levels``
    stacked checkers relative to one, /256). A stack also moves its neighbours' sensors a little (``crosstalk``: per kind
    of neighbour, per level, /256 of a single checker's signal, signed); each slot's baseline
    carries what its neighbours' present stacks add, so the band compare stays one compare.
    Thresholds are kept clear of the RP2040 ADC's bad codes, and rail readings (open or shorted
    sensor) are reported in ``faults``. ``per_scan`` slots are read per call, round robin.
    Levels are kept in read_u16 units (code x 16).

    ``levels`` = 1 with no ratios is the plain presence-and-colour scanner.

    ``kernel`` (the analog_viper module on the RP2040, see analog_cal's ``kernel``) replaces
    the Python loop with its compiled ``scan`` (select, settle ``settle`` turns, convert, filter,
    band compare, slots that left their band into ``changed``) on the registers ``regs`` = (SIO
    base, ADC base); ``_change`` then runs for each of them as before. Same results as the Python
    loop, which the host always runs.
    """

    # the rare work, in analog_cal (loaded for the call and dropped again): with the board
    # empty, each sensor's zero; with one checker on every slot, its gain; both as bytes (to
    # store on flash), and restored from them
    def calibrate(self, *args):             # (samples=16)
        call("firmware.drivers.analog_cal", "calibrate", self, *args)

    def calibrate_units(self, *args):       # (samples=16)
        call("firmware.drivers.analog_cal", "calibrate_units", self, *args)

    def calibration(self):
        return call("firmware.drivers.analog_cal", "calibration", self)

    def load_calibration(self, data):
        call("firmware.drivers.analog_cal", "load_calibration", self, data)

    def __init__(self, *args, **kw):
        # the arguments and their defaults: analog_cal.setup (run once per boot: a feature
        # module's work, loaded for the call and dropped again)
        call("firmware.drivers.analog_cal", "setup", self, *args, **kw)

    def _clear_of_bad(self, t, v):
        """Move threshold t (1/16 code) out of the guard band around a bad ADC code, in
        direction ``v`` (+1 up, -1 down), so noise there cannot make the decision stick."""
        i = t >> _BIN
        if 0 <= i < 64 and not self._bad_bins[i]:    # no guard band near: the usual case
            return t
        g = self.bad_guard << _Q
        for code in self.bad_codes:
            c = code << _Q
            if c - g <= t <= c + g:
                return c + g + 1 if v > 0 else c - g - 1
        return t

    def _edge(self, s, k):
        """Deviation (1/16 code) between level k and k+1 (k >= 1) of slot s, no hysteresis."""
        r = self.ratios
        return (self.ueff[s] or self.unit[s]) * (r[k - 1] + r[k]) >> 9

    def _top(self, k):
        """What one more checker adds on a k-stack (/256 of one; past the levels, extrapolated)."""
        r = self.ratios
        if k < self.levels:
            return r[k] - r[k - 1]
        a = r[k - 1] - r[k - 2]
        return a * a // (r[k - 2] - (r[k - 3] if k > 2 else 0))

    def _judge(self, s, v):
        """Slot s has settled at level ``v``: learn the unit of the stack standing there (its
        own magnets, not the calibration's), or, when the reading lies nearer a stack topped by
        a checker of the other colour (its field subtracts) than the state's, mark it unclear
        (then its band follows the reading, so the next change is seen)."""
        st = self.state[s]
        b = s >> 3
        m = 1 << (s & 7)
        was = self.unclear[b] & m
        mixed = False
        if st == _EMPTY or self.levels == 1:
            self.ueff[s] = 0
        else:
            k = st & 3
            d = v - self.baseline[s]
            d = d if d >= 0 else -d
            u = self.ueff[s]
            unit = self.unit[s]
            r = self.ratios[k - 1]
            # how far a clean stack's reading may stray from r: little by its own learnt unit
            # (a checker put back lies a little aside), by the calibrated one the spread of the
            # magnets (the calibration's own and the stack's: Br, thickness, seat, lateral)
            sig = r >> _SIG_OWN if u else r >> _SIG_CAL
            x = d * 256 // (u or unit)
            e = x - r if x >= r else r - x
            if e > sig:
                y = x - r + self._top(k)                   # from a k-stack topped by the other
                mixed = (y if y >= 0 else -y) < e
                if k < self.levels and not mixed:          # ... or a k+1-stack so topped
                    y = x - self.ratios[k] + self._top(k + 1)
                    mixed = (y if y >= 0 else -y) < e
            if not mixed:
                u = d * 256 // r
                lo = unit - (unit >> 3)
                hi = unit + (unit >> 3)
                self.ueff[s] = u if lo <= u <= hi else 0     # (not a checker's reading)
        if mixed:
            self.unclear[b] |= m
            # the band follows the reading, half as wide as the least change one checker more
            # or less makes (never narrower than the hysteresis: noise at a threshold must not
            # make the slot flicker), so the next change is seen
            k = st & 3
            u = self.ueff[s] or self.unit[s]
            h = u * self._top(k + 1 if k < self.levels else k) >> 9
            t = u * self.hyst >> 8
            h = t if t > h else h
            self.hi[s] = v + h if v + h < 0xFFFF else 0xFFFF
            self.lo[s] = v - h if v > h else 0
        else:
            self.unclear[b] &= ~m
            self._set_band(s, st)
        if bool(was) != mixed:
            self.fault_changed = True

    def forget(self):
        """Forget every slot's learnt unit and unclear mark (the checkers set out anew: other
        magnets may stand where the units were learnt); each is learnt again once still."""
        for s in range(self.n):
            self.ueff[s] = 0
            self._set_band(s, self.state[s])
        for b in range(self.nbytes):
            if self.unclear[b]:
                self.unclear[b] = 0
                self.fault_changed = True
            self._pending[b] = 0

    def _set_band(self, s, v):
        """Set slot s's band for state v."""
        base = self.baseline[s]
        if v == _EMPTY:
            hi = base + self.on
            lo = base - self.on
        else:
            lv = v & 3
            u = self.ueff[s] or self.unit[s]
            h = u * self.hyst >> 8
            low = self.off if lv == 1 else self._edge(s, lv - 1) - h
            if self.ueff[s]:      # below half of what a checker of the other colour takes
                t = u * (2 * self.ratios[lv - 1] - self._top(lv)) >> 9
                low = t if t > low else low
            high = self._edge(s, lv) + h if lv < self.levels else 0x10000
            if ((v & _BLACK_FLAG) == 0) == self.white_below:       # this colour reads below
                hi = base - low
                lo = base - high
            else:
                hi = base + high
                lo = base + low
        # a threshold on a bad code moves inwards (the band narrows): a level past it is then
        # classified again, and classify() keeps the state unless it is past the edge; moved
        # outwards it would widen the hysteresis into the next level's readings (a 3-stack
        # could stay read as 2). One past the ADC's range is no bound: it stays.
        bins = self._bad_bins
        i = hi >> _BIN
        if 0 <= i < 64 and bins[i]:              # _clear_of_bad's own test, without the call
            hi = self._clear_of_bad(hi, -1)
        i = lo >> _BIN
        if 0 <= i < 64 and bins[i]:
            lo = self._clear_of_bad(lo, 1)
        self.hi[s] = hi if 0 <= hi < 0xFFFF else 0xFFFF if hi > 0 else 0
        self.lo[s] = lo if 0 < lo <= 0xFFFF else 0 if lo <= 0 else 0xFFFF

    def classify(self, s, v):
        """The state a filtered level ``v`` of slot s reads as, without hysteresis: 0 empty,
        else the stack level | 4 for Black."""
        d = v - self.baseline[s]
        m = d if d >= 0 else -d
        if m <= self.on:
            return _EMPTY
        k = 1
        while k < self.levels and m > self._edge(s, k):
            k += 1
        return k | (_BLACK_FLAG if (d > 0) == self.white_below else 0)

    def set_baseline(self, s, v):
        """Set slot s's zero-field level ``v`` (1/16 code, without the neighbours' crosstalk) and
        its band."""
        self.baseline[s] = v + self.xoff[s]
        self._set_band(s, self.state[s])

    def select(self, s):
        self.mem32[_SIO_GPIO_OUT_XOR] = (self._last ^ s) << self.sel_base
        self._last = s

    def read_code(self, s):
        """One 12-bit conversion of slot s."""
        self.select(s)
        return self.read_u16() >> 4

    def scan(self):
        """Read the next ``per_scan`` slots; returns ``raw`` (occupancy bytes, then Black bytes)."""
        s = self._next
        n = self.n
        if self._last != (s - 1 if s else n - 1):
            self.select(s - 1 if s else n - 1)
        end = s + self.per_scan              # (wrapping)
        if end <= n:
            self._scan_range(s, end)
            s = 0 if end == n else end
        else:
            self._scan_range(s, n)
            self._scan_range(0, end - n)
            s = end - n
        self._next = s
        self._last = s - 1 if s else n - 1
        self._track_drift()
        if self._watch:
            self._follow()
        return self.raw

    def _scan_range(self, first, end):
        mem32 = self.mem32
        sel = self.sel_base
        t = first - 1 if first else self.n - 1       # the slot selected before
        read_u16 = self.read_u16
        fshift = self.filter_shift
        level = self.level
        hi = self.hi
        lo = self.lo
        for s in range(first, end):
            mem32[_SIO_GPIO_OUT_XOR] = (t ^ s) << sel
            t = s
            lv = level[s]
            lv += (read_u16() - lv) >> fshift
            level[s] = lv
            if lv > hi[s] or lv < lo[s]:
                self._change(s, lv)

    def _change(self, s, v):
        """Slot s left its band (its level ``v``): read its new state, set its band, its raw bits
        and its neighbours' crosstalk."""
        old = self.state[s]
        st = self.classify(s, v)
        if st == old and old and self.levels > 1:
            # the same stack, a new reading (a checker of the other colour put on or taken off,
            # one pushed aside, or a level still settling): follow it closely, judge it when the
            # board has been still for the watch (_judge)
            h = (self.ueff[s] or self.unit[s]) >> 4
            self.hi[s] = v + h if v + h < 0xFFFF else 0xFFFF
            self.lo[s] = v - h if v > h else 0
            self._pending[s >> 3] |= 1 << (s & 7)
            self._watch = (_WATCH << self.filter_shift) << 8 | s
            return
        if st != old:
            self.state[s] = st
            if (st ^ old) & _BLACK_FLAG:
                self.ueff[s] = 0          # the other colour: other magnets, a unit to learn anew
            if self.crosstalk is not None:
                self._neighbours(s, old, st)
            b = s >> 3
            m = 1 << (s & 7)
            raw = self.raw
            nb = self.nbytes
            k = st & 3
            for p in range(self.levels):
                if p < k:
                    raw[p * nb + b] |= m
                else:
                    raw[p * nb + b] &= ~m
            c = self.levels * nb + b
            if st & _BLACK_FLAG:
                raw[c] |= m
            else:
                raw[c] &= ~m
        self._set_band(s, st)
        self._check_rail(s, v)
        if st == _EMPTY:
            self._judge(s, v)
        elif self.levels > 1:
            self._pending[s >> 3] |= 1 << (s & 7)
            self._watch = (_WATCH << self.filter_shift) << 8 | s   # scans left << 8 | slot

    def field(self, v, kind, unit):
        """What a stack in state ``v`` adds to a ``kind`` neighbour whose unit is ``unit`` (1/16
        code, signed as the reading moves)."""
        if v == _EMPTY:
            return 0
        x = self.crosstalk[kind][(v & 3) - 1]
        if x > 127:
            x -= 256
        x = unit * x >> 8
        return x if ((v & _BLACK_FLAG) != 0) == self.white_below else -x

    def _neighbours(self, s, old, v):
        nbr = self.neighbours
        for i in range(4):
            t = nbr[4 * s + i]
            if t == _NONE:
                continue
            kind = i >> 1
            u = self.unit[t]
            d = self.field(v, kind, u) - self.field(old, kind, u)
            if d:
                self.xoff[t] += d
                self.baseline[t] += d
                self._set_band(t, self.state[t])

    def _check_rail(self, s, v):
        b = s >> 3
        m = 1 << (s & 7)
        railed = v < self.rail_low or v > self.rail_high
        if railed != bool(self.faults[b] & m):
            self.faults[b] ^= m
            self.fault_changed = True

    def _recheck(self, s, v):
        """Read an occupied slot's stack level again when its level ``v`` has settled inside
        its band's hysteresis but past a level's edge by at least half the hysteresis (a
        stack built up checker by checker whose last one read short, or a drift): the band
        alone would keep the old level for good. Empty and colour are left to the band."""
        old = self.state[s]
        if old == _EMPTY:
            return
        m = self.unit[s] * self.hyst >> 9
        st = self.classify(s, v - m)
        if st != old and st and (st ^ old) & _BLACK_FLAG == 0 and st == self.classify(s, v + m):
            self._change(s, v)

    def _follow(self):
        """Read the slot that changed last again (``_recheck``) for some scans while its
        filtered level settles: a stack set down at once passes level 2's band on its way up,
        and a 3-stack near the edge would stay there inside the hysteresis. When it has kept
        still for the watch, the other slots that changed meanwhile are looked at once more a
        scan later, and each judged only if it kept still too: a slot still moving inside its
        band (a checker lifted while the board settles after power-up) is watched in turn, so
        no stack is judged, nor its unit learnt, from a passing level."""
        w = self._watch - 0x100
        s = w & 0xFF
        level = self.level
        pend = self._pending
        seen = self._seen
        if w & 0x10000:                       # the scan after the watch (bit 16: above the
            self._watch = 0                   # scan count, at most 0x50 << 8)
            for b in range(self.nbytes):
                m = pend[b]
                pend[b] = 0
                t = b << 3
                while m:
                    if m & 1:
                        lv = level[t]
                        d = lv - seen[t]
                        if d > self.unit[t] >> 6 or -d > self.unit[t] >> 6:
                            pend[b] |= 1 << (t & 7)         # still moving: watch it
                            self._watch = (_WATCH << self.filter_shift) << 8 | t
                            self._wlevel = lv
                        else:
                            self._recheck(t, lv)
                            self._judge(t, level[t])
                    m >>= 1
                    t += 1
            return
        lv = level[s]
        d = lv - self._wlevel
        self._wlevel = lv
        if d > self.unit[s] >> 5 or -d > self.unit[s] >> 5:
            w = (_WATCH << self.filter_shift) << 8 | s    # not yet still
        self._watch = w if w > 0xFF else 0
        self._recheck(s, level[s])
        if w <= 0xFF and not self._watch:     # still for the watch: note what changed, to
            for b in range(self.nbytes):      # judge it a scan later
                m = pend[b]
                t = b << 3
                while m:
                    if m & 1:
                        seen[t] = level[t]
                    m >>= 1
                    t += 1
            self._watch = 0x10100 | s

    def _track_drift(self):
        """For one slot per call: check for a railed (open/shorted) sensor, move an empty
        slot's baseline a step towards its level (temperature, stray fields), and read an
        occupied one's stack level again (``_recheck``)."""
        s = self._drift_slot
        lv = self.level[s]
        if lv < self.rail_low or lv > self.rail_high or self.faults[s >> 3]:
            self._check_rail(s, lv)                  # nothing to do when in range, no fault
        if self.state[s] != _EMPTY:
            if self.levels > 1 and not self._watch:
                self._recheck(s, lv)
                # judged only when still since this slot's last drift step (a round ago): a
                # level read while a checker comes or goes is a passing value, no stack's own
                lv = self.level[s]
                d = lv - self._seen[s]
                self._seen[s] = lv
                if (d if d >= 0 else -d) <= self.unit[s] >> 5:
                    self._judge(s, lv)
        else:
            base = self.baseline[s]
            step = (lv - base) >> self.drift_shift
            if step == 0 and lv != base:
                step = 1 if lv > base else -1
            if step:
                self.baseline[s] = base + step
                self._set_band(s, _EMPTY)
        s += 1
        self._drift_slot = 0 if s == self.n else s

