"""Analog sensor front end: linear Hall sensors through two levels of 74HC4067 into ADC0, read as
stack levels (how many same-colour checkers stand on a slot) with the neighbours' crosstalk taken out."""

from array import array

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
# +0x2000 is CS's atomic set alias, so a start leaves AINSEL and EN as they are).
RP2040_REGS = (0xD0000000, 0x4004C000)
# Multiplexer settle between the select write and the conversion start, in turns of the
# kernel's countdown loop: 16 turns ~ 1 us at 125 MHz (an estimate of ~8 cycles per turn on the
# Cortex-M0+; 74HC4067 switching at 3.3 V is a few hundred ns). Confirm on a board.
SETTLE_LOOPS = 16
_BIN = const(10)       # _bad_bins: which 1024-unit (64-code) bins a bad code's guard band touches


EMPTY = 0
_BLACK_FLAG = const(4)  # state: 0 empty, else the level (1..3) | 4 when Black
_NONE = const(255)      # no neighbour


def rp2_kernel(adc):
    """(kernel, regs) for ``AnalogScanner`` on the RP2040: the viper kernel module (analog_viper)
    and the register bases it drives, after one ``adc.read_u16()`` has set the ADC to the
    sensors' channel (AINSEL stays set: nothing else uses the ADC). (None, None) anywhere else,
    or when the kernel cannot be compiled (a firmware built without the native emitter, or too
    little heap at start-up): the Python loop is used."""
    import sys
    if sys.platform != "rp2":
        return None, None
    try:
        from firmware.drivers import analog_viper
    except (ImportError, SyntaxError, MemoryError):
        return None, None
    adc.read_u16()
    return analog_viper, RP2040_REGS


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

    ``kernel`` (the analog_viper module on the RP2040, see ``rp2_kernel``) replaces the Python
    loop with its compiled ``scan`` (select, settle ``settle`` turns, convert, filter, band
    compare, slots that left their band into ``changed``) on the registers ``regs`` = (SIO base,
    ADC base); ``_change`` then runs for each of them as before. Same results as the Python loop,
    which the host always runs.
    """

    def __init__(self, adc_read, mem32, sel_base, n, zero_code=1241, on_codes=150, off_codes=90,
                 filter_shift=2, drift_shift=3, rail_low=80, rail_high=3900, white_below=True,
                 bad_codes=(512, 1536, 2560, 3584), bad_guard=12, per_scan=None, kernel=None,
                 regs=None, settle=SETTLE_LOOPS, levels=1, unit_codes=500, ratios=None,
                 hyst=8, crosstalk=None, neighbours=None):
        self.adc_read = adc_read
        self.mem32 = mem32
        self.sel_base = sel_base
        self.n = n
        nb = (n + 7) >> 3
        self.nbytes = nb
        self.levels = levels
        self.raw = bytearray((levels + 1) * nb)
        self.faults = bytearray(nb)
        self.fault_changed = False
        self.on = on_codes << _Q
        self.off = off_codes << _Q
        self.filter_shift = filter_shift
        self.drift_shift = drift_shift
        self.rail_low = rail_low << _Q
        self.rail_high = rail_high << _Q
        self.white_below = white_below
        self.bad_codes = bad_codes
        self.bad_guard = bad_guard
        bins = bytearray(64)
        for code in bad_codes:
            low = ((code - bad_guard) << _Q) >> _BIN
            for b in range(low, (((code + bad_guard) << _Q) >> _BIN) + 1):
                if 0 <= b < 64:
                    bins[b] = 1
        self._bad_bins = bins
        # the stack: ratios[k] = field of k+1 checkers / field of one (x256); the thresholds
        # between level k and k+1 sit half-way, in units of each slot's calibrated unit
        self.ratios = tuple(ratios) if ratios is not None else (256,)
        self.hyst = hyst
        self.unit = array("H", [unit_codes << _Q] * n)
        self.crosstalk = crosstalk          # {kind index: bytes of signed /256 per level} or None
        self.nbr = neighbours               # bytearray(4n): along-, along+, across-, across+
        self.xoff = array("h", [0] * n)     # what the neighbours' stacks add to the baseline
        self.per_scan = per_scan or n
        self.level = array("H", [zero_code << _Q] * n)
        self.baseline = array("H", [zero_code << _Q] * n)
        self.state = bytearray(n)
        self.hi = array("H", [0] * n)      # the band of the slot's current state
        self.lo = array("H", [0] * n)
        # select word changes: going from slot s-1 (or n-1 for s = 0) to s, shifted to the pins
        self.step_xor = array("I", [((s - 1 if s else n - 1) ^ s) << sel_base for s in range(n)])
        self._selected = 0
        self._next = 0
        self._drift_slot = 0
        self.kernel = kernel
        if kernel is not None:
            self._sio, self._adc = regs
            # the kernel's parameters (analog_viper.scan's p): first, end, filter shift, (unused
            # x2), settle turns, conversions timed out; drift slot (0xFFFF: drift step in
            # Python), rails, drift shift, empty band, step deferred
            self._kp = array("i", [0, 0, filter_shift, 0, 0, settle, 0, 0xFFFF,
                                   self.rail_low, self.rail_high, drift_shift, self.on, 0])
            self.changed = array("H", [0] * n)      # slots that left their band, (slot << 2) | 1|2
            self._scan_range = self._scan_range_kernel
            if self.per_scan == n:                  # the whole board per call: the kernel
                self._kp[1] = n                     # also does the usual drift step
                self._kp[7] = 0
                self.scan = self._scan_board
        for s in range(n):
            self.set_baseline(s, zero_code << _Q)

    def _clear_of_bad(self, t, away):
        """Move threshold t (1/16 code) out of the guard band around a bad ADC code, in
        direction ``away`` (+1 up, -1 down), so noise there cannot make the decision stick."""
        i = t >> _BIN
        if 0 <= i < 64 and not self._bad_bins[i]:    # no guard band near: the usual case
            return t
        g = self.bad_guard << _Q
        for code in self.bad_codes:
            c = code << _Q
            if c - g <= t <= c + g:
                return c + g + 1 if away > 0 else c - g - 1
        return t

    def thresholds(self, s, occupied):
        """(hi, lo) band of slot s empty (occupied False) or holding its present state."""
        self._set_band(s, self.state[s] if occupied else EMPTY)
        return self.hi[s], self.lo[s]

    def _edge(self, s, k):
        """Deviation (1/16 code) between level k and k+1 (k >= 1) of slot s, no hysteresis."""
        r = self.ratios
        return self.unit[s] * (r[k - 1] + r[k]) >> 9

    def _set_band(self, s, st):
        base = self.baseline[s]
        if st == EMPTY:
            hi = base + self.on
            lo = base - self.on
        else:
            lv = st & 3
            h = self.unit[s] * self.hyst >> 8
            low = self.off if lv == 1 else self._edge(s, lv - 1) - h
            high = self._edge(s, lv) + h if lv < self.levels else 0x10000
            if ((st & _BLACK_FLAG) == 0) == self.white_below:      # this colour reads below
                hi = base - low
                lo = base - high
            else:
                hi = base + high
                lo = base + low
        bins = self._bad_bins
        i = hi >> _BIN
        if not 0 <= i < 64 or bins[i]:           # _clear_of_bad's own test, without the call
            hi = self._clear_of_bad(hi, 1)
        i = lo >> _BIN
        if not 0 <= i < 64 or bins[i]:
            lo = self._clear_of_bad(lo, -1)
        self.hi[s] = hi if 0 <= hi < 0xFFFF else 0xFFFF if hi > 0 else 0
        self.lo[s] = lo if 0 < lo <= 0xFFFF else 0 if lo <= 0 else 0xFFFF

    def classify(self, s, lv):
        """The state a filtered level ``lv`` of slot s reads as, without hysteresis: 0 empty,
        else the stack level | 4 for Black."""
        d = lv - self.baseline[s]
        m = d if d >= 0 else -d
        if m <= self.on:
            return EMPTY
        k = 1
        while k < self.levels and m > self._edge(s, k):
            k += 1
        return k | (_BLACK_FLAG if (d > 0) == self.white_below else 0)

    def set_baseline(self, s, base):
        """Set slot s's zero-field level (1/16 code, without the neighbours' crosstalk) and its
        band."""
        self.baseline[s] = base + self.xoff[s]
        self._set_band(s, self.state[s])

    def select(self, s):
        self.mem32[_SIO_GPIO_OUT_XOR] = (self._selected ^ s) << self.sel_base
        self._selected = s

    def read_code(self, s):
        """One 12-bit conversion of slot s."""
        self.select(s)
        return self.adc_read() >> 4

    def calibrate(self, samples=16):
        """With the board empty: average ``samples`` readings per slot into its baseline."""
        for s in range(self.n):
            total = 0
            for _ in range(samples):
                total += self.read_code(s)
            base = (total << _Q) // samples
            self.level[s] = base
            self.state[s] = EMPTY
            self.xoff[s] = 0
            self.set_baseline(s, base)
        for b in range(len(self.raw)):
            self.raw[b] = 0
        for b in range(self.nbytes):
            self.faults[b] = 0
        self.fault_changed = True

    def calibrate_units(self, samples=16):
        """With one checker of one colour on every slot, after ``calibrate``: each sensor's
        single-checker signal, the unit its level thresholds scale with (the sensor's gain),
        net of the crosstalk of the checkers on its neighbours."""
        xt = self.crosstalk
        for s in range(self.n):
            total = 0
            for _ in range(samples):
                total += self.read_code(s)
            d = ((total << _Q) // samples) - (self.baseline[s] - self.xoff[s])
            d = d if d >= 0 else -d
            if xt is not None:
                f = 256
                for i in range(4):
                    if self.nbr[4 * s + i] != _NONE:
                        x = xt[i >> 1][0]
                        f += x - 256 if x > 127 else x
                d = d * 256 // f
            if d > self.on:
                self.unit[s] = d if d < 0xFFFF else 0xFFFF
            self._set_band(s, self.state[s])

    def calibration(self):
        """The baselines (without crosstalk) and units as bytes (to store on flash)."""
        base = array("H", self.baseline)
        for s in range(self.n):
            base[s] -= self.xoff[s]
        return bytes(base) + bytes(self.unit)

    def load_calibration(self, data):
        """Baselines, then (when present) units, as ``calibration`` gives them."""
        vals = array("H", data)
        n = self.n
        for s in range(min(n, len(vals))):
            self.level[s] = vals[s]
            if len(vals) >= 2 * n:
                self.unit[s] = vals[n + s]
            self.set_baseline(s, vals[s])

    def scan(self):
        """Read the next ``per_scan`` slots; returns ``raw`` (occupancy bytes, then Black bytes)."""
        s = self._next
        if self._selected != (s - 1 if s else self.n - 1):
            self.select(s - 1 if s else self.n - 1)
        self._next = self._scan(s, self.per_scan)
        self._selected = self._next - 1 if self._next else self.n - 1
        self._track_drift()
        return self.raw

    def _scan(self, s, count):
        """Read ``count`` slots from slot s on (wrapping); returns the next slot."""
        n = self.n
        end = s + count
        if end <= n:
            self._scan_range(s, end)
            return 0 if end == n else end
        self._scan_range(s, n)
        self._scan_range(0, end - n)
        return end - n

    def _scan_range(self, first, end):
        mem32 = self.mem32
        step_xor = self.step_xor
        adc_read = self.adc_read
        fshift = self.filter_shift
        level = self.level
        hi = self.hi
        lo = self.lo
        for s in range(first, end):
            mem32[_SIO_GPIO_OUT_XOR] = step_xor[s]
            lv = level[s]
            lv += (adc_read() - lv) >> fshift
            level[s] = lv
            if lv > hi[s] or lv < lo[s]:
                self._change(s, lv)

    def _scan_range_kernel(self, first, end):
        """``_scan_range`` by the viper kernel; ``_change`` runs after it for the slots that
        changed (same results: a slot's reading does not depend on other slots' states)."""
        p = self._kp
        p[0] = first
        p[1] = end
        c = self.kernel.scan(self.step_xor, self.level, self.hi, self.lo, self.state,
                             self.changed, self.baseline, self.faults, self._bad_bins, p,
                             self._sio, self._adc)
        if c:
            self._changes(c)

    def _scan_board(self):
        """``scan`` when the kernel reads the whole board per call (the RP2040's case); the
        kernel does the drift step too, unless it is a rare case (p[12]): then ``_track_drift``."""
        if self._selected != self.n - 1:
            self.select(self.n - 1)
        p = self._kp
        c = self.kernel.scan(self.step_xor, self.level, self.hi, self.lo, self.state,
                             self.changed, self.baseline, self.faults, self._bad_bins, p,
                             self._sio, self._adc)
        if c:
            self._changes(c)
        if p[12]:
            self._drift_slot = p[7]
            self._track_drift()
            p[7] = self._drift_slot
        return self.raw

    def _changes(self, c):
        changed = self.changed
        level = self.level
        for i in range(c):
            s = changed[i] >> 2
            self._change(s, level[s])

    def adc_timeouts(self):
        """Conversions the viper kernel gave up waiting for (0 on the Python path)."""
        return self._kp[6] if self.kernel is not None else 0

    def _change(self, s, lv):
        """Slot s left its band: read its new state, set its band, its raw bits and its
        neighbours' crosstalk."""
        was = self.state[s]
        st = self.classify(s, lv)
        if st != was:
            self.state[s] = st
            if self.crosstalk is not None:
                self._neighbours(s, was, st)
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
        self._check_rail(s, lv)

    def _field(self, st, kind, unit):
        """What a stack in state ``st`` adds to a ``kind`` neighbour with that ``unit`` (1/16
        code, signed as the reading moves)."""
        if st == EMPTY:
            return 0
        x = self.crosstalk[kind][(st & 3) - 1]
        if x > 127:
            x -= 256
        v = unit * x >> 8
        return v if ((st & _BLACK_FLAG) != 0) == self.white_below else -v

    def _neighbours(self, s, was, st):
        nbr = self.nbr
        for i in range(4):
            t = nbr[4 * s + i]
            if t == _NONE:
                continue
            kind = i >> 1
            u = self.unit[t]
            d = self._field(st, kind, u) - self._field(was, kind, u)
            if d:
                self.xoff[t] += d
                self.baseline[t] += d
                self._set_band(t, self.state[t])

    def _check_rail(self, s, lv):
        b = s >> 3
        m = 1 << (s & 7)
        railed = lv < self.rail_low or lv > self.rail_high
        if railed != bool(self.faults[b] & m):
            self.faults[b] ^= m
            self.fault_changed = True

    def _track_drift(self):
        """For one slot per call: check for a railed (open/shorted) sensor, and move an empty
        slot's baseline a step towards its level (temperature, stray fields)."""
        s = self._drift_slot
        lv = self.level[s]
        if lv < self.rail_low or lv > self.rail_high or self.faults[s >> 3]:
            self._check_rail(s, lv)                  # nothing to do when in range, no fault
        if self.state[s] == EMPTY:
            base = self.baseline[s]
            step = (lv - base) >> self.drift_shift
            if step == 0 and lv != base:
                step = 1 if lv > base else -1
            if step:
                self.baseline[s] = base + step
                self._set_band(s, EMPTY)
        s += 1
        self._drift_slot = 0 if s == self.n else s
