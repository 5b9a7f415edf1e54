"""Benchmark the rules core: CPython timings and RP2040 estimates (MicroPython under valgrind)."""

import argparse
import json
import sys

from host_tools import bench_rules


def _table(rows, cols):
    lines = [" ".join("%14s" % c for c in cols)]
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c, "")
            cells.append("%14s" % (("%.3f" % v) if isinstance(v, float) else v))
        lines.append(" ".join(cells))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m host_tools bench", description=__doc__)
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--quick", action="store_true", help="CPython only (no valgrind runs)")
    ap.add_argument("--cases", help="comma-separated case names for the MicroPython part "
                    "(default: the worst cases and three opening rolls)")
    ap.add_argument("--repeat", type=int, default=20, help="CPython runs per figure (best kept)")
    args = ap.parse_args(argv)
    report = {"cpython": bench_rules.cpython_figures(args.repeat)}
    worst = [r for r in report["cpython"] if r["case"].startswith("W")]
    opening = [r for r in report["cpython"] if r["case"].startswith("O")]
    report["summary"] = {
        "cpython_worst_enumerate_ms": max(r["enumerate_ms"] for r in worst),
        "cpython_worst_lift_all_ms": max(r["lift_all_ms"] for r in worst),
        "cpython_opening_mean_enumerate_ms": sum(r["enumerate_ms"] for r in opening) / len(opening),
    }
    if not args.quick:
        names = args.cases.split(",") if args.cases else (
            [w[0] for w in bench_rules.WORST] + ["O65", "O11", "O31"])

        def progress(msg):
            print("  measuring " + msg, file=sys.stderr)

        mp = bench_rules.micropython_figures(names, progress)
        report["micropython"] = mp
        if mp:
            mw = [r for r in mp if r["case"].startswith("W")]
            mo = [r for r in mp if r["case"].startswith("O")]
            if mw:
                report["summary"]["rp2040_worst_enumerate_ms"] = max(r["enumerate_rp2040_ms"] for r in mw)
                report["summary"]["rp2040_worst_lift_all_ms"] = max(r["lift_all_rp2040_ms"] for r in mw)
                report["summary"]["rp2040_worst_lift_one_ms"] = max(r["lift_one_rp2040_ms"] for r in mw)
                report["summary"]["unix_heap_worst_enumerate_kib"] = max(r.get("enumerate_heap_kib_unix", 0) for r in mw)
                report["summary"]["rp2040_worst_store_ms"] = max(r["store_rp2040_ms"] for r in mw)
                report["summary"]["unix_heap_worst_store_kib"] = max(r.get("store_heap_kib_unix", 0) for r in mw)
                report["summary"]["unix_heap_worst_count_kib"] = max(r.get("count_heap_kib_unix", 0) for r in mw)
            if mo:
                report["summary"]["rp2040_opening_mean_enumerate_ms"] = sum(
                    r["enumerate_rp2040_ms"] for r in mo) / len(mo)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print("CPython %s (best of %d), milliseconds" % (sys.version.split()[0], args.repeat))
    print(_table(report["cpython"], ["case", "dice", "plays", "settle_ms", "count_ms",
                                     "enumerate_ms", "lift_all_ms"]))
    if report.get("micropython"):
        print("\nRP2040 estimates (MicroPython unix port under callgrind, k = 2.2 cycles/Ir, 125 MHz);"
              " heap: smallest unix-port heap above the setup's, KiB (RP2040 needs about half);"
              " enumerate keeps the plays in a list, store in an array('I')")
        print(_table(report["micropython"], ["case", "dice", "enumerate_rp2040_ms", "store_rp2040_ms",
                                             "count_rp2040_ms", "lift_all_rp2040_ms",
                                             "lift_one_rp2040_ms", "enumerate_heap_kib_unix",
                                             "store_heap_kib_unix", "count_heap_kib_unix"]))
    elif not args.quick:
        print("\n(no RP2040 estimates: needs valgrind and ../shared/tools/mpy_cost.py)")
    print("\nsummary:")
    for k, v in sorted(report["summary"].items()):
        print("  %-36s %s" % (k, ("%.3f" % v) if isinstance(v, float) else v))
    return 0
