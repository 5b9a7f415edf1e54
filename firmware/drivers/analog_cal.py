"""The analog scanner's rare work: its calibration (each sensor's zero and single-checker signal,
measured or restored from flash), its bands and kernel timeouts for tests. A feature module
(at start-up, and when a board is calibrated): the scanner's ``__getattr__`` imports it for the
call and drops it after, so its code takes no RAM while the board plays."""

from array import array

from firmware.drivers.analog_scan import SETTLE_LOOPS

try:
    from micropython import const
except ImportError:  # CPython without the sim stand-ins
    def const(x):
        return x

_Q = const(4)           # the scanner's levels are in 1/16 ADC code
_BIN = const(10)        # _bad_bins: which 1024-unit (64-code) bins a bad code's guard band touches
_NONE = const(255)      # no neighbour


def setup(sc, adc_read, mem32, sel_base, n, zero_code=1241, on_codes=150, off_codes=90,
          filter_shift=2, drift_shift=3, rail_low=80, rail_high=3900, white_below=True,
          bad_codes=(512, 1536, 2560, 3584), bad_guard=12, per_scan=None, kernel=None,
          regs=None, settle=SETTLE_LOOPS, levels=1, unit_codes=500, ratios=None,
          hyst=8, crosstalk=None, neighbours=None):
    """Set up the AnalogScanner ``sc`` (its ``__init__``; what the arguments mean: the class's
    docstring)."""
    sc.adc_read = adc_read
    sc.mem32 = mem32
    sc.sel_base = sel_base
    sc.n = n
    nb = (n + 7) >> 3
    sc.nbytes = nb
    sc.levels = levels
    sc.raw = bytearray((levels + 1) * nb)
    sc.faults = bytearray(nb)
    sc.fault_changed = False
    sc.on = on_codes << _Q
    sc.off = off_codes << _Q
    sc.filter_shift = filter_shift
    sc.drift_shift = drift_shift
    sc.rail_low = rail_low << _Q
    sc.rail_high = rail_high << _Q
    sc.white_below = white_below
    sc.bad_codes = bad_codes
    sc.bad_guard = bad_guard
    bins = bytearray(64)
    for code in bad_codes:
        low = ((code - bad_guard) << _Q) >> _BIN
        for b in range(low, (((code + bad_guard) << _Q) >> _BIN) + 1):
            if 0 <= b < 64:
                bins[b] = 1
    sc._bad_bins = bins
    # the stack: ratios[k] = field of k+1 checkers / field of one (x256); the thresholds
    # between level k and k+1 sit half-way, in units of each slot's calibrated unit
    sc.ratios = tuple(ratios) if ratios is not None else (256,)
    sc.hyst = hyst
    sc.crosstalk = crosstalk          # {kind index: bytes of signed /256 per level} or None
    sc.nbr = neighbours               # bytearray(4n): along-, along+, across-, across+
    sc.per_scan = per_scan or n
    z = array("H", bytes(2 * n))      # (no list of n values: a hole in the heap at boot)
    sc.hi = z                         # the band of the slot's current state
    sc.lo = array("H", z)
    sc.xoff = array("h", z)           # what the neighbours' stacks add to the baseline
    sc.unit = array("H", z)
    sc.level = array("H", z)
    for s in range(n):
        sc.unit[s] = unit_codes << _Q
        sc.level[s] = zero_code << _Q
    sc.baseline = array("H", sc.level)
    sc.state = bytearray(n)
    sc._selected = 0
    sc._next = 0
    sc._drift_slot = 0
    sc.kernel = kernel
    if kernel is not None:
        kernel.attach(sc, regs, settle)       # the kernel's arrays, scan and _scan_range
    for s in range(n):
        sc.set_baseline(s, zero_code << _Q)


def calibrate(sc, samples=16):
    """With the board empty: average ``samples`` readings per slot of the AnalogScanner ``sc``
    into its baseline."""
    for s in range(sc.n):
        total = 0
        for _ in range(samples):
            total += sc.read_code(s)
        base = (total << _Q) // samples
        sc.level[s] = base
        sc.state[s] = 0
        sc.xoff[s] = 0
        sc.set_baseline(s, base)
    for b in range(len(sc.raw)):
        sc.raw[b] = 0
    for b in range(sc.nbytes):
        sc.faults[b] = 0
    sc.fault_changed = True


def calibrate_units(sc, samples=16):
    """With one checker of one colour on every slot, after ``calibrate``: each sensor's
    single-checker signal, the unit its level thresholds scale with (the sensor's gain), net of
    the crosstalk of the checkers on its neighbours."""
    xt = sc.crosstalk
    for s in range(sc.n):
        total = 0
        for _ in range(samples):
            total += sc.read_code(s)
        d = ((total << _Q) // samples) - (sc.baseline[s] - sc.xoff[s])
        d = d if d >= 0 else -d
        if xt is not None:
            f = 256
            for i in range(4):
                if sc.nbr[4 * s + i] != _NONE:
                    x = xt[i >> 1][0]
                    f += x - 256 if x > 127 else x
            d = d * 256 // f
        if d > sc.on:
            sc.unit[s] = d if d < 0xFFFF else 0xFFFF
        sc._set_band(s, sc.state[s])


def calibration(sc):
    """The baselines (without crosstalk) and units of ``sc`` as bytes (to store on flash)."""
    base = array("H", sc.baseline)
    for s in range(sc.n):
        base[s] -= sc.xoff[s]
    return bytes(base) + bytes(sc.unit)


def load_calibration(sc, data):
    """Baselines, then (when present) units, as ``calibration`` gives them."""
    vals = array("H", data)
    n = sc.n
    for s in range(min(n, len(vals))):
        sc.level[s] = vals[s]
        if len(vals) >= 2 * n:
            sc.unit[s] = vals[n + s]
        sc.set_baseline(s, vals[s])


def thresholds(sc, s, occupied):
    """(hi, lo) band of slot s empty (occupied False) or holding its present state."""
    sc._set_band(s, sc.state[s] if occupied else 0)
    return sc.hi[s], sc.lo[s]


def adc_timeouts(sc):
    """Conversions the viper kernel gave up waiting for (0 on the Python path)."""
    return sc._kp[6] if sc.kernel is not None else 0
