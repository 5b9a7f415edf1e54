"""Benchmark the drivers: full sensor scan and LED frame preparation, with RP2040 time estimates.

Usage: python -m host_tools benchdrivers [--iterations N] [--quick] [--only SUBSTRING] [--json] [--write-docs]

Counts instructions of the firmware's own driver code in the MicroPython unix port under
callgrind (host_tools/bench/rp2040_estimate.py) and converts them to RP2040 time with its calibrated
k (cycles per instruction, with its range, 125 MHz). Each figure is (workload - setup) / N.
Peripherals are replaced by the cheapest stand-ins that keep the driver code unchanged: a Python
`readinto` for SPI and a lambda for the ADC (both cost more than the C calls they replace, so
the figures err high); bus time is added by calculation (SPI bits / baud). Goals: scan < 1 ms
of CPU every 5 ms, LED frame prepared < 2 ms. The LED wire time (30 us per LED with interrupts
masked, neopixel/bitstream) is printed separately: it is not preparation.

The analog scan's viper kernels (firmware/drivers/analog_viper.py, the RP2040's path) run here
compiled for x64 (the estimator's -march=x64), the acquisition kernel against a bytearray standing
in for the SIO and ADC registers (READY preset: no conversion wait). k is calibrated for
bytecode only, so their x64 instruction counts are converted with a separate, stated factor
(ARMv6-M cycles per x64 instruction of viper code, cross-checked against a reference viper loop
viper loop), and the ADC's conversion and the multiplexer settle are added by calculation: an
estimate to confirm on a board.
"""

import argparse
import contextlib
import json
import os
import shutil
import sys

from host_tools import prog
from host_tools.bench import perf_docs, rp2040_estimate
from host_tools.bench.rp2040_estimate import K_CENTRAL as K_MID, K_HIGH, K_LOW, MHZ
from host_tools import REPO_ROOT

# Viper code: RP2040 cycles per x64 instruction, not covered by the estimator's k. One reference
# point: a reference viper loop timed in an RP2040 emulator, against its x64 count here gives ~0.76 (printed each
# run). Assumed 1.0 for the kernels, whose loads and stores (2 cycles on the Cortex-M0+, and
# Thumb-1 has no scaled-index addressing) weigh more than in that loop; range 0.7-1.5.
KV_MID, KV_LO, KV_HI = 1.0, 0.7, 1.5
ADC_US = 96 / 48.0           # one conversion: 96 cycles of the 48 MHz ADC clock
SETTLE_CYCLES = 8            # assumed cycles per turn of acquire's settle countdown
EMU_VIPER_US = 0.152         # `s += i & 7` per iteration, @viper, in an RP2040 emulator (design notes)

SETUP = r'''
import gc
from firmware.drivers import board_config
from firmware.drivers.debounce import SlotDebouncer
from firmware.drivers.shift_scan import ShiftRegisterScanner
from firmware.drivers.analog_scan import AnalogScanner
from firmware.drivers.zones import ZoneReader
from firmware.drivers.leds import Leds
from firmware.board.zonemap import ZONES
cfg = board_config.load(DESC_PATH)
nb = (cfg.n_slots + 7) >> 3
s = cfg.sensing

class SPI:
    def __init__(self, frame):
        self.frame = frame
    def readinto(self, buf):
        buf[:] = self.frame

class Strip:
    def __init__(self, n):
        self.buf = bytearray(3 * n)
    def write(self):
        pass

idle = bytearray(b"\xff" * nb)
for z in (0, 5, 7, 11, 12, 16, 18, 23):          # an opening position: 30 checkers, points full
    first = cfg.zone_first[z]
    for j in range(cfg.zone_cap[z]):
        i = first + j
        idle[i >> 3] &= ~(1 << (i & 7))
busy = bytearray(idle)
busy[3] ^= 0x10                                  # one more checker on a point
spi = SPI(idle)
dig = ZoneReader(cfg, ShiftRegisterScanner(spi, abs, nb),
                 SlotDebouncer(nb, s["press_ms"], s["release_ms"], active_low=True))
code = [1241 << 4]
mem = {}
ana_scanner = AnalogScanner(lambda: code[0], mem, cfg.pins["mux_s0"], cfg.n_slots)
ana = ZoneReader(cfg, ana_scanner, SlotDebouncer(2 * nb, s["press_ms"], s["release_ms"]))
ana_slice = ZoneReader(cfg, AnalogScanner(lambda: code[0], mem, cfg.pins["mux_s0"], cfg.n_slots,
                                          per_scan=cfg.analog.get("per_scan")),
                       SlotDebouncer(2 * nb, s["press_ms"], s["release_ms"]))
leds = Leds(cfg, Strip(cfg.n_leds), cfg.led_budget_ma(), cfg.power["brightness_cap"])

if KERNELS:                                      # the RP2040's path, compiled here for x64
    import micropython
    import uctypes
    from firmware.drivers import analog_viper
    regfile = bytearray(0x2040)                  # ADC at +0x20 (CS, RESULT, CS set alias)
    regfile[0x20] = 0x01
    regfile[0x21] = 0x01                         # CS: EN, READY
    regfile[0x24] = 1241 & 0xFF
    regfile[0x25] = 1241 >> 8                    # RESULT: an empty slot's code
    ra = uctypes.addressof(regfile)              # SIO at +0 (GPIO_OUT_XOR at +0x1C)
    vsc = AnalogScanner(None, mem, cfg.pins["mux_s0"], cfg.n_slots, kernel=analog_viper,
                        regs=(ra, ra + 0x20), settle=0)
    ana_viper = ZoneReader(cfg, vsc, SlotDebouncer(2 * nb, s["press_ms"], s["release_ms"]))
    vargs = (vsc.step_xor, vsc.level, vsc.hi, vsc.lo, vsc.state, vsc.changed, vsc.baseline,
             vsc.faults, vsc._bad_bins, vsc._kp, ra, ra + 0x20)
    from firmware.drivers import analog_viper_acq    # the kernel without its judging block

    @micropython.viper
    def viper_ref(n: int) -> int:                # the emulated reference loop, written anew
        acc = 0
        for i in range(n):
            acc += i & 7
        return acc

def guidance(k):
    leds.clear()
    leds.zone(k % 24, 0x00FF00)
    leds.zone((k + 3) % 24, 0x00FF00)
    leds.zone((k + 5) % 24, 0x00FF00)
    leds.zone((k + 9) % 24, 0xFF0000, 2)
    leds.zone(24, 0xFFFFFF)
    leds.die(0, 1 + k % 6, 0xFFFFFF)
    leds.die(1, 1 + (k + 2) % 6, 0xFFFFFF)
    leds.turn(k & 1, 0xFFFF00)
    leds.write()

def white(k):
    v = 0xFFFFFF if k & 1 else 0xFEFEFE
    for z in range(ZONES):
        leds.zone(z, v)
    leds.die(0, 6, v)
    leds.die(1, 6, v)
    leds.turn(0, v)
    leds.turn(1, v)
    leds.write()

t = 0
for _ in range(3):                                # settle: debounced board, first frame sent
    t += 5
    dig.poll(t)
    ana.poll(t)
    if KERNELS:
        ana_viper.poll(t)
guidance(0)
white(0)
gc.collect()
'''

WORK = {
    "scan_digital_idle": "for i in range(N):\n    t += 5\n    dig.poll(t)\n",
    "scan_digital_busy": ("for i in range(N):\n    t += 5\n    spi.frame = busy if (i // 8) & 1 else idle\n"
                          "    dig.poll(t)\n"),
    "scan_analog_full": "for i in range(N):\n    t += 5\n    ana.poll(t)\n",
    "scan_analog_slice": "for i in range(N):\n    t += 5\n    ana_slice.poll(t)\n",
    "led_guidance_frame": "for i in range(N):\n    guidance(i + 1)\n",
    "led_full_white_limited": "for i in range(N):\n    white(i + 1)\n",
    "board_json_load": "for i in range(N):\n    board_config.load(DESC_PATH)\n",
}
ROW_N = {"board_json_load": 5}      # once per start-up and dear: a few iterations are enough

# viper rows: (work, baseline, operations per iteration)
VIPER = {
    "viper_kernel_all": ("for i in range(N):\n    analog_viper.scan(*vargs)\n",
                         "for i in range(N):\n    pass\n", 1),
    "viper_kernel_acquire": ("for i in range(N):\n    analog_viper_acq.scan(*vargs)\n",
                             "for i in range(N):\n    pass\n", 1),
    "scan_analog_viper": ("for i in range(N):\n    t += 5\n    ana_viper.poll(t)\n",
                          "for i in range(N):\n    t += 5\n", 1),
    "viper_ref_iteration": ("for i in range(N):\n    viper_ref(1000)\n",
                            "for i in range(N):\n    viper_ref(0)\n", 1000),
}

BASE = {
    "scan_digital_busy": "for i in range(N):\n    t += 5\n    spi.frame = busy if (i // 8) & 1 else idle\n",
    "led_guidance_frame": "",
    "led_full_white_limited": "",
    "board_json_load": "",
}


def stage(out):
    src = os.path.join(out, "src")
    if os.path.exists(src):
        shutil.rmtree(src)
    os.makedirs(os.path.join(src, "firmware"))
    shutil.copy(os.path.join(REPO_ROOT, "firmware", "__init__.py"), os.path.join(src, "firmware"))
    # the drivers, and the board package they import from (its zone map, its feature loader)
    for pkg in ("drivers", "board"):
        shutil.copytree(os.path.join(REPO_ROOT, "firmware", pkg), os.path.join(src, "firmware", pkg),
                        ignore=shutil.ignore_patterns("__pycache__"))
    return src


def measure(out, src, name, n, kernels=False):
    desc = repr(os.path.join(REPO_ROOT, "hardware", "board.json"))
    setup = SETUP.replace("DESC_PATH", desc)
    setup = "KERNELS = %r\n" % kernels + setup
    base = os.path.join(out, name + "_base.py")
    work = os.path.join(out, name + ".py")
    if kernels:
        work_text, base_text, per_op = VIPER[name]
    else:
        work_text = WORK[name].replace("DESC_PATH", desc)
        base_text = BASE.get(name, "for i in range(N):\n    t += 5\n")
        per_op = 1
    with open(base, "w") as f:
        f.write(setup + "N = %d\n" % n + base_text)
    with open(work, "w") as f:
        f.write(setup + "N = %d\n" % n + work_text)
    res = rp2040_estimate.measure(work, [src], baseline=base)
    per = res["ir_net"] / n / per_op
    return per, rp2040_estimate.ms(per), rp2040_estimate.ms(per, K_LOW), rp2040_estimate.ms(per, K_HIGH)


def stage_acquire_only(src):
    """analog_viper.py without its judging block (between the '# judge:' markers), staged as
    analog_viper_acq.py: the kernel's instructions outside the conversion it overlaps."""
    with open(os.path.join(REPO_ROOT, "firmware", "drivers", "analog_viper.py")) as f:
        lines = f.read().split("\n")
    a = lines.index("        # judge: begin (host_tools/cmd_benchdrivers.py drops this block to count the rest)")
    b = lines.index("        # judge: end")
    with open(os.path.join(src, "firmware", "drivers", "analog_viper_acq.py"), "w") as f:
        f.write("\n".join(lines[:a] + lines[b + 1:]))


def viper_estimate(out, src, n, slots):
    """The RP2040 path: x64 instruction counts of the viper kernel and of a whole-board poll on
    it, and the stated estimate they give (see the module docstring)."""
    import inspect
    from firmware.drivers import analog_cal
    # the multiplexer settle the scanner is built with (turns of the kernel's countdown loop)
    SETTLE_LOOPS = inspect.signature(analog_cal.setup).parameters["settle"].default
    stage_acquire_only(src)
    ir = {name: measure(out, src, name, n, kernels=True)[0] for name in VIPER}
    print("analog scan on the viper kernel (the RP2040's path; x64 instructions, k above not used):")
    for name in VIPER:
        print("%-24s %12.1f x64 Ir%s" % (name, ir[name], " per loop turn" if name == "viper_ref_iteration"
                                          else " per call, %d slots" % slots))
    kernel = ir["viper_kernel_all"]
    acquire = min(ir["viper_kernel_acquire"], kernel)
    judge = kernel - acquire
    rest = max(ir["scan_analog_viper"] - kernel, 0.0)
    kv_ref = EMU_VIPER_US * MHZ / ir["viper_ref_iteration"]
    conv_ms = slots * ADC_US / 1000
    settle_us = SETTLE_LOOPS * SETTLE_CYCLES / MHZ
    settle_ms = slots * settle_us / 1000

    def ms(ir_count, k):
        return ir_count * k / (MHZ * 1000)

    def total(k_byte, kv, overlap=True):
        # judging slot s-1 runs while slot s converts: only what exceeds the conversions counts
        judged = max(ms(judge, kv) - conv_ms, 0.0) if overlap else ms(judge, kv)
        return ms(rest, k_byte) + ms(acquire, kv) + judged + conv_ms + settle_ms

    print("  reference: the emulated viper loop is 0.152 us per turn emulated = %.1f cycles for "
          "%.1f x64 Ir here -> %.2f cycles/Ir" % (EMU_VIPER_US * MHZ, ir["viper_ref_iteration"], kv_ref))
    print("  assumed for viper code: %.1f (%.1f-%.1f) RP2040 cycles per x64 Ir" % (KV_MID, KV_LO, KV_HI))
    print("  per whole-board scan (ZoneReader.poll, %d slots), RP2040 ms at 125 MHz:" % slots)
    print("    kernel, select/convert  %7.0f x64 Ir  %6.3f (%.3f-%.3f)" % (
        acquire, ms(acquire, KV_MID), ms(acquire, KV_LO), ms(acquire, KV_HI)))
    print("    kernel, judging         %7.0f x64 Ir  %6.3f (%.3f-%.3f)  runs during the conversions" % (
        judge, ms(judge, KV_MID), ms(judge, KV_LO), ms(judge, KV_HI)))
    print("    bytecode                %7.0f Ir      %6.3f (%.3f-%.3f)  call, debouncer, zones" % (
        rest, ms(rest, K_MID), ms(rest, K_LOW), ms(rest, K_HIGH)))
    print("    ADC conversions  %d x %.1f us           %6.3f" % (slots, ADC_US, conv_ms))
    print("    settle           %d x %.2f us           %6.3f  (%d turns x ~%d cycles)" % (
        slots, settle_us, settle_ms, SETTLE_LOOPS, SETTLE_CYCLES))
    print("    total (estimate, confirm on a board) %.3f ms (%.3f-%.3f); goal < 1 ms"
          % (total(K_MID, KV_MID), total(K_LOW, KV_LO), total(K_HIGH, KV_HI)))
    print("    without the overlap: %.3f ms (%.3f-%.3f)" % (
        total(K_MID, KV_MID, False), total(K_LOW, KV_LO, False), total(K_HIGH, KV_HI, False)))
    return {"ms": total(K_MID, KV_MID), "low": total(K_LOW, KV_LO), "high": total(K_HIGH, KV_HI),
            "conversions_ms": conv_ms, "settle_ms": settle_ms, "kv": [KV_LO, KV_MID, KV_HI]}


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("benchdrivers"), description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="the report as JSON on stdout")
    ap.add_argument("--write-docs", action="store_true", help="write the table into docs/perf.md")
    ap.add_argument("--only", metavar="NAME", help="only the workloads whose name holds NAME")
    ap.add_argument("--iterations", type=int, metavar="N", help="iterations a workload (100)")
    ap.add_argument("--quick", action="store_true", help="40 iterations")
    ap.parse_args(argv)                 # (--help, and bad arguments refused before any work)
    report = {}
    out = sys.stderr if "--json" in argv else sys.stdout
    with contextlib.redirect_stdout(out):
        code = run(argv, report)
    if code:
        return code
    if "--write-docs" in argv:
        if "--only" in argv:
            print("benchdrivers: --write-docs measures every workload (no --only)", file=sys.stderr)
            return 2
        perf_docs.write("drivers", docs_section(report))
    if "--json" in argv:
        print(json.dumps(report, indent=1))
    return 0


def run(argv, report):
    n = 100
    if "--iterations" in argv:
        n = int(argv[argv.index("--iterations") + 1])
    if "--quick" in argv:
        n = 40
    why = rp2040_estimate.missing()
    if why:
        print("benchdrivers: the RP2040 estimates need %s" % why, file=sys.stderr)
        return 2
    sys.path.insert(0, REPO_ROOT)
    from firmware.sim import install
    install()
    from firmware.drivers import board_config
    cfg = board_config.load(os.path.join(REPO_ROOT, "hardware", "board.json"))
    out = os.path.join(REPO_ROOT, "build", "benchdrivers")
    os.makedirs(out, exist_ok=True)
    src = stage(out)
    report.update({"iterations": n, "slots": cfg.n_slots, "leds": cfg.n_leds,
                   "k_cycles_per_ir": [K_LOW, K_MID, K_HIGH], "workloads": {}})
    print("driver benchmarks: %d iterations each, %d slots, %d LEDs; RP2040 ms with %s"
          % (n, cfg.n_slots, cfg.n_leds, rp2040_estimate.describe_k()))
    print("%-24s %12s %10s %16s" % ("workload", "Ir/op", "RP2040 ms", "range"))
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    for name in WORK:
        if only not in name:
            continue
        ir, ms, lo, hi = measure(out, src, name, min(n, ROW_N.get(name, n)))
        report["workloads"][name] = {"ir": round(ir), "ms": ms, "low": lo, "high": hi}
        print("%-24s %12.0f %10.3f %7.3f - %6.3f" % (name, ir, ms, lo, hi))
    if "viper" in only or not only:
        report["viper_scan"] = viper_estimate(out, src, n, cfg.n_slots)
    nb = (cfg.n_slots + 7) // 8
    spi_ms = nb * 8 / cfg.digital["spi_baud"] * 1000
    report["spi_ms"] = spi_ms
    report["led_wire_ms"] = cfg.n_leds * 0.030
    report["scan_ms"] = cfg.sensing["scan_ms"]
    print("SPI bus time per digital scan: %.3f ms (%d bytes at %d baud), add to scan_digital_*"
          % (spi_ms, nb, cfg.digital["spi_baud"]))
    print("LED wire time per frame (neopixel bitstream, IRQs masked): %.2f ms for %d LEDs"
          % (cfg.n_leds * 0.030, cfg.n_leds))
    print("goals: scan < 1 ms every %d ms; LED frame prepared < 2 ms" % cfg.sensing["scan_ms"])
    return 0


def docs_section(report):
    """docs/perf.md's driver section."""
    w = report["workloads"]
    v = report["viper_scan"]

    def est(name):
        return "%.2f ms (%.2f-%.2f)" % (w[name]["ms"], w[name]["low"], w[name]["high"])

    rows = [
        ["digital scan, whole board, idle / a checker moving",
         "%.2f / %.2f ms + %.2f ms SPI transfer" % (w["scan_digital_idle"]["ms"],
                                                     w["scan_digital_busy"]["ms"], report["spi_ms"]),
         "< 1 ms every %d ms" % report["scan_ms"]],
        ["analog scan on the RP2040: viper kernel, whole board (%d slots) every %d ms, incl. %.2f ms "
         "of ADC conversions and %.2f ms of multiplexer settle" % (report["slots"], report["scan_ms"],
                                                                   v["conversions_ms"], v["settle_ms"]),
         "%.2f ms (%.2f-%.2f), an estimate to confirm on a board" % (v["ms"], v["low"], v["high"]),
         "< 1 ms every %d ms" % report["scan_ms"]],
        ["analog scan, pure-Python loop (simulator, tests): one slice / all %d slots per call" % report["slots"],
         "%.2f / %.2f ms" % (w["scan_analog_slice"]["ms"], w["scan_analog_full"]["ms"]), "(host path)"],
        ["LED guidance frame prepared (5 zones, 2 dice, turn, compare, send)", est("led_guidance_frame"),
         "< 2 ms"],
        ["all-white frame painted by zones, then scaled by the limiter", est("led_full_white_limited"),
         "rare"],
        ["loading board.json at start-up", est("board_json_load"), "once"],
    ]
    return "\n".join([perf_docs.stamp("python -m host_tools benchdrivers --write-docs"),
                      "%d iterations per workload; RP2040 estimates: %s. The viper kernel's x64 "
                      "instructions are converted with %.1f (%.1f-%.1f) cycles each instead (not "
                      "bytecode: see the command's docstring). Sending a frame to the strip takes "
                      "%.1f ms more (neopixel bitstream, interrupts masked)."
                      % (report["iterations"], rp2040_estimate.describe_k(), v["kv"][1], v["kv"][0],
                         v["kv"][2], report["led_wire_ms"]), "",
                      perf_docs.table(["workload", "RP2040 estimate", "goal"], rows)])
