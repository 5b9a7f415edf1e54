"""Viper kernels of the analog sensor scan: ADC acquisition over the multiplexers, and the
per-slot filter and band compare. Owns no state; `AnalogScanner` (analog_scan.py) owns the arrays.

Native code: MicroPython with a native emitter only (imported on the RP2040, and by tests on the
unix port); it needs `mpy-cross -march=...` and never loads under CPython. The pure-Python twin
of these two kernels is `AnalogScanner._scan_range`, which the host (simulator, tests) runs;
the two must give identical levels, states and changes (tests/test_drivers_analog_kernel.py).
"""

import micropython

_START_ONCE = const(0x4)      # ADC CS bit 2
_READY = const(0x100)         # ADC CS bit 8
_POLLS = const(2000)          # READY polls before a conversion counts as timed out (>> 2 us)


@micropython.viper
def acquire(step_xor: ptr32, codes: ptr16, first: int, end: int, xor_reg: uint, start_reg: uint,
            cs_reg: uint, result_reg: uint, settle: int) -> int:
    """For slots first..end-1: write the slot's select change to the SIO's GPIO_OUT_XOR, wait
    ``settle`` loop turns for the multiplexers, start one conversion (START_ONCE through
    ``start_reg``, the CS register's atomic set alias on the RP2040), poll READY in CS and store
    RESULT as read_u16 would give it ((code << 4) | (code >> 8)) in codes[slot]. The ADC must be
    enabled on the right channel (AINSEL) beforehand. Returns how many conversions timed out."""
    sel = ptr32(xor_reg)
    start = ptr32(start_reg)
    cs = ptr32(cs_reg)
    result = ptr32(result_reg)
    timeouts = 0
    s = first
    while s < end:
        sel[0] = step_xor[s]
        w = settle
        while w > 0:
            w -= 1
        start[0] = _START_ONCE
        polls = _POLLS
        while polls > 0 and not (cs[0] & _READY):
            polls -= 1
        if polls == 0:
            timeouts += 1
        code = result[0] & 0xFFF
        codes[s] = (code << 4) | (code >> 8)
        s += 1
    return timeouts


@micropython.viper
def process(codes: ptr16, level: ptr16, hi: ptr16, lo: ptr16, state: ptr8, changed: ptr16,
            first: int, end: int, fshift: int, black_high: int, black_low: int) -> int:
    """For slots first..end-1: level += (code - level) >> fshift (Python's floor shift, done on
    non-negative operands so the 32-bit wrap of viper arithmetic cannot bite), then the state the
    slot's band gives (above hi: black_high, below lo: black_low, else 0 = empty). Each slot whose
    state differs from state[slot] goes into changed as (slot << 2) | new_state; state itself is
    left for the caller's bookkeeping. Returns the number of changed entries."""
    rnd = (1 << fshift) - 1
    n = 0
    s = first
    while s < end:
        c = codes[s]
        lv = level[s]
        if c >= lv:
            lv += (c - lv) >> fshift
        else:
            lv -= (lv - c + rnd) >> fshift
        level[s] = lv
        if lv > hi[s]:
            st = black_high
        elif lv < lo[s]:
            st = black_low
        else:
            st = 0
        if st != state[s]:
            changed[n] = (s << 2) | st
            n += 1
        s += 1
    return n
