"""Analog sensor front end: linear Hall sensors through two levels of 74HC4067 into ADC0."""

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
WHITE = 1
BLACK = 2


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
    """Scan ``n`` linear Hall sensors into ``raw``: occupancy bits, then Black bits (polarity).

    Per sensor: an IIR average (``filter_shift``), a calibrated baseline that slowly follows
    drift while the slot is empty (one slot per call, ``drift_shift``), hysteresis (``on_codes``
    from the baseline to become occupied, ``off_codes`` to stay so), thresholds kept clear of
    the RP2040 ADC's bad codes, and rail readings (open or shorted sensor) reported in
    ``faults``. ``per_scan`` slots are read per call, round robin, so a call stays short; the
    hot loop only compares a level with the slot's current band and does the bookkeeping in
    ``_change`` when the slot's state changes. Levels are kept in read_u16 units (code x 16).

    ``kernel`` (the analog_viper module on the RP2040, see ``rp2_kernel``) replaces the Python
    loop with its compiled ``scan`` (select, settle ``settle`` turns, convert, filter, band
    compare, changed slots into ``changed``) on the registers ``regs`` = (SIO base, ADC base);
    ``_change`` then runs for each changed slot as before. Same results as the Python loop,
    which the host always runs.
    """

    def __init__(self, adc_read, mem32, sel_base, n, zero_code=1241, on_codes=150, off_codes=90,
                 filter_shift=2, drift_shift=3, rail_low=80, rail_high=3900, white_below=True,
                 bad_codes=(512, 1536, 2560, 3584), bad_guard=12, per_scan=None, kernel=None,
                 regs=None, settle=SETTLE_LOOPS):
        self.adc_read = adc_read
        self.mem32 = mem32
        self.sel_base = sel_base
        self.n = n
        nb = (n + 7) >> 3
        self.nbytes = nb
        self.raw = bytearray(2 * nb)
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
            # the kernel's parameters (analog_viper.scan's p): first, end, filter shift, state
            # above the band, state below it, settle turns, conversions timed out; drift slot
            # (0xFFFF: drift step in Python), rails, drift shift, empty band, step deferred
            self._kp = array("i", [0, 0, filter_shift, BLACK if white_below else WHITE,
                                   WHITE if white_below else BLACK, settle, 0, 0xFFFF,
                                   self.rail_low, self.rail_high, drift_shift, self.on, 0])
            self.changed = array("H", [0] * n)      # changed slots, (slot << 2) | state
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
        """(hi, lo) band of slot s: outside it the slot reads occupied."""
        self._set_band(s, occupied)
        return self.hi[s], self.lo[s]

    def _set_band(self, s, occupied):
        base = self.baseline[s]
        d = self.off if occupied else self.on
        hi = base + d
        lo = base - d
        bins = self._bad_bins
        i = hi >> _BIN
        if not 0 <= i < 64 or bins[i]:           # _clear_of_bad's own test, without the call
            hi = self._clear_of_bad(hi, 1)
        i = lo >> _BIN
        if not 0 <= i < 64 or bins[i]:
            lo = self._clear_of_bad(lo, -1)
        self.hi[s] = hi if hi < 0xFFFF else 0xFFFF
        self.lo[s] = lo if lo > 0 else 0

    def set_baseline(self, s, base):
        """Set slot s's zero-field level (1/16 code) and its band."""
        self.baseline[s] = base
        self._set_band(s, self.state[s] != EMPTY)

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
            self.set_baseline(s, base)
        for b in range(len(self.raw)):
            self.raw[b] = 0
        for b in range(self.nbytes):
            self.faults[b] = 0
        self.fault_changed = True

    def calibration(self):
        """The baselines as bytes (to store on flash)."""
        return bytes(self.baseline)

    def load_calibration(self, data):
        base = array("H", data)
        for s in range(min(self.n, len(base))):
            self.level[s] = base[s]
            self.set_baseline(s, base[s])

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
        state = self.state
        black_high = BLACK if self.white_below else WHITE
        black_low = WHITE if self.white_below else BLACK
        for s in range(first, end):
            mem32[_SIO_GPIO_OUT_XOR] = step_xor[s]
            lv = level[s]
            lv += (adc_read() - lv) >> fshift
            level[s] = lv
            if lv > hi[s]:
                st = black_high
            elif lv < lo[s]:
                st = black_low
            else:
                st = EMPTY
            if st != state[s]:
                self._change(s, st, lv)

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
            v = changed[i]
            s = v >> 2
            self._change(s, v & 3, level[s])

    def adc_timeouts(self):
        """Conversions the viper kernel gave up waiting for (0 on the Python path)."""
        return self._kp[6] if self.kernel is not None else 0

    def _change(self, s, st, lv):
        was = self.state[s]
        self.state[s] = st
        if (was == EMPTY) != (st == EMPTY):
            self._set_band(s, st != EMPTY)
        b = s >> 3
        m = 1 << (s & 7)
        raw = self.raw
        nb = self.nbytes
        if st == EMPTY:
            raw[b] &= ~m
            raw[nb + b] &= ~m
        else:
            raw[b] |= m
            if st == BLACK:
                raw[nb + b] |= m
            else:
                raw[nb + b] &= ~m
        self._check_rail(s, lv)

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
                self._set_band(s, False)
        s += 1
        self._drift_slot = 0 if s == self.n else s
