"""Viper kernel of the analog sensor scan: multiplexer select, ADC conversion, IIR filter and
band compare for a range of slots. Owns no state; `AnalogScanner` (analog_scan.py) owns the
arrays and does the rare bookkeeping of a changed slot.

Native code, made by the board's own compiler: the kernel's source is the string below, compiled
when this module is imported (on the RP2040, and by tests and benchmarks on the unix port), so
`mpy-cross` builds this module like every other one (plain bytecode, no `-march`) and the native
code always fits the CPU that runs it. Compiling costs a few kilobytes of heap once, at start-up.
Never imported under CPython. Its pure-Python twin is `AnalogScanner._scan_range`, which the host
(simulator, browser board, tests) runs; the two must give identical levels, states and changes
(tests/test_drivers_analog_kernel.py). ``attach`` puts a scanner on the kernel (the scanner's
kernel-only code lives here, so the host's scanner does not carry it).
"""

from array import array

_KERNEL = '''
import micropython

_GPIO_OUT_XOR = const(0x1C)   # SIO offset
_RESULT = const(0x04)         # ADC offsets: CS at 0
_SET_ALIAS = const(0x2000)    # atomic bit-set alias of an APB register
_START_ONCE = const(0x4)      # ADC CS bit 2
_READY = const(0x100)         # ADC CS bit 8
_POLLS = const(2000)          # READY polls before a conversion counts as timed out (>> 2 us)

# p, the scalar parameters (an array of 32-bit ints; AnalogScanner builds it in this order)
_P_FIRST = const(0)
_P_END = const(1)
_P_SHIFT = const(2)            # filter shift
_P_RECHECK = const(3)          # 1: an occupied drift slot's stack level is read again (in Python)
# p[4]: unused
_P_SETTLE = const(5)           # countdown turns between the select write and the conversion
_P_TIMEOUTS = const(6)         # conversions that never became READY (added to)
_P_DRIFT = const(7)            # the drift slot; above 255: no drift step here
_P_RAIL_LOW = const(8)
_P_RAIL_HIGH = const(9)
_P_DRIFT_SHIFT = const(10)
_P_ON = const(11)              # an empty slot's band: baseline +- on
_P_DEFER = const(12)           # out: 1 = the caller must do this call's drift step itself
_BIN = const(10)               # bins[t >> 10]: a bad code's guard band is near threshold t


@micropython.viper
def scan(step_xor: ptr32, level: ptr16, hi: ptr16, lo: ptr16, state: ptr8, changed: ptr16,
         baseline: ptr16, faults: ptr8, bins: ptr8, p: ptr32, sio: uint, adc: uint) -> int:
    """Read and judge slots p[0] (first) .. p[1] (end) - 1, then the drift step of slot p[7];
    returns how many slots changed.

    Per slot s: write step_xor[s] to the SIO's GPIO_OUT_XOR (sio + 0x1C), count down p[5]
    turns while the multiplexers settle, start one conversion (START_ONCE through the set alias
    of the ADC's CS, so AINSEL and EN stay as set up), and while it runs judge slot s - 1; then
    poll READY in CS and take RESULT as read_u16 gives it ((code << 4) | (code >> 8)).
    Judging a slot: level += (code - level) >> p[2] (Python's floor shift, done on non-negative
    operands so the 32-bit wrap of viper arithmetic cannot bite), then its band: a slot whose
    level left [lo, hi] (the band of its present state) goes into changed as (s << 2) | 1
    (above) or | 2 (below); classifying it is left to the caller's bookkeeping. Conversions that never became READY are added to p[6]. The ADC must be
    enabled on the right channel.

    The drift step (AnalogScanner._track_drift), when p[7] <= 255, in its usual case only: the
    slot in the rails (p[8]..p[9]), no fault in its byte of faults, not changed by this call,
    empty or p[3] = 0 (an occupied slot of a stack-counting board is read again in Python);
    if empty, its baseline moves one step (shift p[10]) towards its level and its band
    (baseline +- p[11]) is set when clear of the bad codes' bins and of 0..0xFFFF. Then p[7]
    moves on (wrapping at p[1]: the whole board) and p[12] = 0; otherwise nothing is written
    and p[12] = 1."""
    sel = ptr32(sio + _GPIO_OUT_XOR)
    cs = ptr32(adc)
    result = ptr32(adc + _RESULT)
    start = ptr32(adc + _SET_ALIAS)
    first = p[_P_FIRST]
    end = p[_P_END]
    fshift = p[_P_SHIFT]
    settle = p[_P_SETTLE]
    rnd = (1 << fshift) - 1
    d = p[_P_DRIFT]
    defer = 0
    timeouts = 0
    n = 0
    c = 0
    s = first
    while s <= end:                  # one turn more than slots: the last one is judged after
        if s < end:
            sel[0] = step_xor[s]
            w = settle
            while w > 0:
                w -= 1
            start[0] = _START_ONCE
        # judge: begin (host_tools/cmd_benchdrivers.py drops this block to count the rest)
        if s > first:                # slot s - 1, its code in c, while slot s converts
            j = s - 1
            lv = level[j]
            if c >= lv:
                lv += (c - lv) >> fshift
            else:
                lv -= (lv - c + rnd) >> fshift
            level[j] = lv
            if lv > hi[j]:
                st = 1
            elif lv < lo[j]:
                st = 2
            else:
                st = 0
            if st:
                changed[n] = (j << 2) | st
                n += 1
                if j == d:
                    defer = 1
        # judge: end
        if s < end:
            polls = _POLLS
            while polls > 0 and not (cs[0] & _READY):
                polls -= 1
            if polls == 0:
                timeouts += 1
            r = result[0] & 0xFFF
            c = (r << 4) | (r >> 8)
        s += 1
    if timeouts:
        p[_P_TIMEOUTS] = p[_P_TIMEOUTS] + timeouts
    if d > 0xFF:                     # (a stored -1 would read back as 0xFFFFFFFF on x64)
        return n
    lv = level[d]
    if defer or lv < p[_P_RAIL_LOW] or lv > p[_P_RAIL_HIGH] or faults[d >> 3]:
        p[_P_DEFER] = 1
        return n
    if state[d] != 0:
        if p[_P_RECHECK]:
            p[_P_DEFER] = 1                  # an occupied slot's recheck: the Python step
            return n
    else:
        base = baseline[d]
        if lv > base:
            nb = base + ((lv - base) >> p[_P_DRIFT_SHIFT])
            if nb == base:
                nb = base + 1
        elif lv < base:
            nb = base - ((base - lv + (1 << p[_P_DRIFT_SHIFT]) - 1) >> p[_P_DRIFT_SHIFT])
        else:
            nb = base
        if nb != base:
            on = p[_P_ON]
            top = nb + on
            if nb < on or top > 0xFFFF or bins[top >> _BIN] or bins[(nb - on) >> _BIN]:
                p[_P_DEFER] = 1              # near 0, 0xFFFF or a bad code: the full search
                return n
            baseline[d] = nb
            hi[d] = top
            lo[d] = nb - on
    d += 1
    p[_P_DRIFT] = 0 if d == p[_P_END] else d
    p[_P_DEFER] = 0
    return n
'''

exec(_KERNEL, globals())      # defines scan()
del _KERNEL


def attach(sc, regs, settle):
    """Make the AnalogScanner ``sc`` read its slots with ``scan`` on the registers ``regs`` =
    (SIO base, ADC base), ``settle`` countdown turns per slot (AnalogScanner.__init__ calls
    this when given this module as its kernel): its ``_scan_range``, and its ``scan`` when it
    reads the whole board per call (the RP2040's case: the kernel then does the drift step too)."""
    n = sc.n
    sc._sio, sc._adc = regs
    # select word changes: going from slot s-1 (or n-1 for s = 0) to s, shifted to the pins
    sc.step_xor = array("I", [((s - 1 if s else n - 1) ^ s) << sc.sel_base for s in range(n)])
    # the kernel's parameters (scan's p): first, end, filter shift, stack levels recheck,
    # (unused), settle turns,
    # conversions timed out; drift slot (0xFFFF: drift step in Python), rails, drift shift,
    # empty band, step deferred
    sc._kp = array("i", [0, 0, sc.filter_shift, int(sc.levels > 1), 0, settle, 0, 0xFFFF,
                         sc.rail_low, sc.rail_high, sc.drift_shift, sc.on, 0])
    sc.changed = array("H", [0] * n)        # slots that left their band, (slot << 2) | 1|2
    sc._scan_range = lambda first, end: _range(sc, first, end)
    if sc.per_scan == n:
        sc._kp[1] = n
        sc._kp[7] = 0
        sc.scan = lambda: _board(sc)


def _range(sc, first, end):
    """``AnalogScanner._scan_range`` by the kernel; ``_change`` runs after it for the slots that
    changed (same results: a slot's reading does not depend on other slots' states)."""
    p = sc._kp
    p[0] = first
    p[1] = end
    c = scan(sc.step_xor, sc.level, sc.hi, sc.lo, sc.state, sc.changed,  # noqa: F821 (exec'd)
             sc.baseline, sc.faults, sc._bad_bins, p, sc._sio, sc._adc)
    if c:
        _changes(sc, c)


def _board(sc):
    """``AnalogScanner.scan`` of the whole board by the kernel, the drift step included unless
    it is a rare case (p[12]): then ``_track_drift``."""
    if sc._last != sc.n - 1:
        sc.select(sc.n - 1)
    p = sc._kp
    c = scan(sc.step_xor, sc.level, sc.hi, sc.lo, sc.state, sc.changed,  # noqa: F821 (exec'd)
             sc.baseline, sc.faults, sc._bad_bins, p, sc._sio, sc._adc)
    if c:
        _changes(sc, c)
    if p[12]:
        sc._drift_slot = p[7]
        sc._track_drift()
        p[7] = sc._drift_slot
    if sc._watch:
        sc._follow()
    return sc.raw


def _changes(sc, c):
    changed = sc.changed
    level = sc.level
    for i in range(c):
        s = changed[i] >> 2
        sc._change(s, level[s])
