"""The analog scanner's rare work: building it from board.json (its kernel, its stack tables),
and its calibration (each sensor's zero and single-checker signal, measured or restored from
flash); its functions take the scanner as ``self`` (methods kept out of the class). A feature
module (at start-up, and when a board is calibrated): analog_scan imports it for the call and
drops it after, so its code takes no RAM while the board plays."""

from array import array

try:
    from micropython import const
except ImportError:  # CPython without the sim stand-ins
    def const(x):
        return x

_Q = const(4)           # the scanner's levels are in 1/16 ADC code
_BIN = const(10)        # _bad_bins: which 1024-unit (64-code) bins a bad code's guard band touches
_NONE = const(255)      # no neighbour
# Multiplexer settle between the select write and the conversion start (setup's ``settle``), in
# turns of the kernel's countdown loop: 16 turns ~ 1 us at 125 MHz (an estimate of ~8 cycles per
# turn on the Cortex-M0+; 74HC4067 switching at 3.3 V is a few hundred ns). Confirm on a board.
_SETTLE = const(16)



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
    viper, regs = kernel(adc)
    levels = cfg.levels
    unit = ratios = xt = None
    hyst = 8
    nbr = None
    if levels > 1:
        unit, ratios, xt, hyst = stack(cfg)
        nbr = cfg.neighbours()
    sc = AnalogScanner(adc.read_u16, machine.mem32, base, cfg.n_slots,
                       zero_code=a["zero_code"], on_codes=a["on_codes"],
                       off_codes=a["off_codes"], filter_shift=a["filter_shift"],
                       drift_shift=a["drift_shift"], rail_low=a["rail_low"],
                       rail_high=a["rail_high"], white_below=a["white"] == "below",
                       bad_codes=a["bad_codes"], bad_guard=a["bad_guard"],
                       per_scan=None if viper or sim else a.get("per_scan"),
                       kernel=viper, regs=regs, levels=levels,
                       unit=unit or 500, ratios=ratios, hyst=hyst,
                       crosstalk=xt, neighbours=nbr)
    saved = storage.read(CALIBRATION)
    if saved is not None and len(saved) in (2 * cfg.n_slots, 4 * cfg.n_slots):
        load_calibration(sc, saved)
    elif sim is not None:
        # a simulated board comes calibrated from the factory: its own scanner measured it once
        # (zeros empty, gains under one checker per slot), kept in the world
        load_calibration(sc, sim.factory_calibration(sc))
    return sc


def kernel(adc):
    """(kernel, regs) for ``AnalogScanner`` on the RP2040: the viper kernel module (analog_viper)
    and the register bases it drives, after one ``adc.read_u16()`` has set the ADC to the
    sensors' channel (AINSEL stays set: nothing else uses the ADC). (None, None) anywhere else,
    or when the kernel cannot be compiled (a firmware built without the native emitter, or too
    little heap at start-up): the Python loop is used."""
    import sys
    if sys.platform != "rp2":
        return None, None
    from firmware import load
    try:
        viper = load("firmware.drivers.analog_viper")
    except (ImportError, SyntaxError, MemoryError):
        return None, None
    adc.read_u16()
    return viper, (0xD0000000, 0x4004C000)


def stack(cfg):
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


def setup(self, read_u16, mem32, sel_base, n, zero_code=1241, on_codes=150, off_codes=90,
          filter_shift=2, drift_shift=3, rail_low=80, rail_high=3900, white_below=True,
          bad_codes=(512, 1536, 2560, 3584), bad_guard=12, per_scan=None, kernel=None,
          regs=None, settle=_SETTLE, levels=1, unit=500, ratios=None,
          hyst=8, crosstalk=None, neighbours=None):
    """Set up the AnalogScanner ``self`` (its ``__init__``; what the arguments mean: the class's
    docstring)."""
    self.read_u16 = read_u16
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
    self.crosstalk = crosstalk          # {kind index: bytes of signed /256 per level} or None
    self.neighbours = neighbours               # bytearray(4n): along-, along+, across-, across+
    self.per_scan = per_scan or n
    z = array("H", bytes(2 * n))      # (no list of n values: a hole in the heap at boot)
    self.hi = z                         # the band of the slot's current state
    self.lo = array("H", z)
    self.xoff = array("h", z)           # what the neighbours' stacks add to the baseline
    self.unit = array("H", z)
    self.ueff = array("H", z)           # the unit of the stack on the slot, learnt (0: not yet)
    self.unclear = bytearray(nb)        # slots whose settled reading no stack of one colour gives
    self._pending = bytearray(nb)       # slots changed since the board was last still
    self._seen = array("H", z)           # each occupied slot's level at its last drift step
    self._wlevel = 0                    # the watched slot's level at the last scan
    self.level = array("H", z)
    for s in range(n):
        self.unit[s] = unit << _Q
        self.level[s] = zero_code << _Q
    self.baseline = array("H", self.level)
    self.state = bytearray(n)
    self._last = 0            # the slot selected last
    self._next = 0
    self._drift_slot = 0
    self._watch = 0           # the slot that changed last (bits 0-7), read again for as many
                              # scans as bits 8 up say
    self.kernel = kernel
    if kernel is not None:
        kernel.attach(self, regs, settle)       # the kernel's arrays, scan and _scan_range
    for s in range(n):
        self.set_baseline(s, zero_code << _Q)


def calibrate(self, samples=16):
    """With the board empty: average ``samples`` readings per slot of the AnalogScanner ``self``
    into its baseline."""
    for s in range(self.n):
        total = 0
        for _ in range(samples):
            total += self.read_code(s)
        base = (total << _Q) // samples
        self.level[s] = base
        self.state[s] = 0
        self.xoff[s] = 0
        self.set_baseline(s, base)
    for b in range(len(self.raw)):
        self.raw[b] = 0
    for b in range(self.nbytes):
        self.faults[b] = 0
    self.fault_changed = True


def calibrate_units(self, samples=16):
    """With one checker of one colour on every slot, after ``calibrate``: each sensor's
    single-checker signal, the unit its level thresholds scale with (the sensor's gain), net of
    the crosstalk of the checkers on its neighbours."""
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
                if self.neighbours[4 * s + i] != _NONE:
                    x = xt[i >> 1][0]
                    f += x - 256 if x > 127 else x
            d = d * 256 // f
        if d > self.on:
            self.unit[s] = d if d < 0xFFFF else 0xFFFF
        self._set_band(s, self.state[s])


def calibration(self):
    """The baselines (without crosstalk) and units of ``self`` as bytes (to store on flash)."""
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

