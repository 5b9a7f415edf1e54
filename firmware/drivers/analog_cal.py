"""The analog scanner's rare work: its calibration (each sensor's zero and single-checker signal,
measured or restored from flash), its bands and kernel timeouts for tests. A feature module
(at start-up, and when a board is calibrated): the scanner's ``__getattr__`` imports it for the
call and drops it after, so its code takes no RAM while the board plays."""

from array import array

try:
    from micropython import const
except ImportError:  # CPython without the sim stand-ins
    def const(x):
        return x

_Q = const(4)           # the scanner's levels are in 1/16 ADC code
_NONE = const(255)      # no neighbour


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
