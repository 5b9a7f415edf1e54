"""The analog scanner's rare work: building it from board.json (its kernel, its stack tables),
its calibration (each sensor's zero and single-checker signal, measured or restored from flash),
and its bands and kernel timeouts for tests. A feature module (at start-up, and when a board is
calibrated): analog_scan imports it for the call and drops it after, so its code takes no RAM
while the board plays."""

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



def build(cfg, machine, sim, storage):
    """The board's AnalogScanner (analog_scan.build): its select lines low, the ADC on its pin,
    the viper kernel where it loads, board.json's stack model as its tables, and the
    calibration ``storage`` keeps (a simulated board without one: the world's factory
    calibration)."""
    from firmware.drivers.analog_scan import AnalogScanner
    from firmware.drivers.hardware import CALIBRATION
    a = cfg.analog
    Pin = machine.Pin
    base = cfg.pins["mux_s0"]
    for i in range(8):
        Pin(base + i, Pin.OUT, value=0)
    adc = machine.ADC(Pin(cfg.pins["adc"]))
    # On the RP2040 the viper kernel reads the whole board per call (well under 1 ms), and so
    # does the simulator (its Python loop costs nothing on a PC), so slots are seen as often as
    # on the board; board.json's per_scan slices the Python loop only on a board whose kernel
    # cannot load.
    kernel, regs = rp2_kernel(adc)
    levels = cfg.levels
    unit = ratios = xt = None
    hyst = 8
    nbr = None
    if levels > 1:
        unit, ratios, xt, hyst = stack_tables(cfg)
        nbr = cfg.neighbours()
    sc = AnalogScanner(adc.read_u16, machine.mem32, base, cfg.n_slots,
                       zero_code=a["zero_code"], on_codes=a["on_codes"],
                       off_codes=a["off_codes"], filter_shift=a["filter_shift"],
                       drift_shift=a["drift_shift"], rail_low=a["rail_low"],
                       rail_high=a["rail_high"], white_below=a["white"] == "below",
                       bad_codes=a["bad_codes"], bad_guard=a["bad_guard"],
                       per_scan=None if kernel or sim else a.get("per_scan"),
                       kernel=kernel, regs=regs, levels=levels,
                       unit_codes=unit or 500, ratios=ratios, hyst=hyst,
                       crosstalk=xt, neighbours=nbr)
    saved = storage.read(CALIBRATION)
    if saved is not None and len(saved) in (2 * cfg.n_slots, 4 * cfg.n_slots):
        load_calibration(sc, saved)
    elif sim is not None:
        # a simulated board comes calibrated from the factory: its own scanner measured it once
        # (zeros empty, gains under one checker per slot), kept in the world
        load_calibration(sc, sim.factory_calibration(sc))
    return sc


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
    return analog_viper, (0xD0000000, 0x4004C000)


def stack_tables(cfg):
    """(unit in ADC codes, ratios: field of 1..levels checkers /256 of one, crosstalk {0 along,
    1 across: signed /256 bytes}, hysteresis /256) of board.json's analog stack model
    (``cfg``: a BoardConfig), for the scanner."""
    a = cfg.analog
    st = a["stack"]
    mt = st["levels_mT"]
    per_mt = a["sensitivity_mv_mt"] * 4095 / a["adc_mv"]
    unit = int(abs(mt[0] * per_mt) + 0.5)
    ratios = tuple(int(256 * x / mt[0] + 0.5) for x in mt)
    xt = {}
    for i, kind in enumerate(("along", "across")):
        xt[i] = bytes((int(round(256 * x / mt[0])) & 0xFF) for x in st["crosstalk_mT"][kind])
    return unit, ratios, xt, st["level_hyst_pct"] * 256 // 100

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
    sc._watch = 0           # the slot that changed last, read again for _watch_n more scans
    sc._watch_n = 0
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
