"""Benchmark the rules core: CPython timings and RP2040 estimates (MicroPython under valgrind)."""

import argparse
import json
import sys

from host_tools import prog
from host_tools.bench import bench_rules, perf_docs, rp2040_estimate


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
    if argv and argv[0] == "engine":
        from host_tools.engine import bench as engine_bench
        return engine_bench.main(argv[1:])
    ap = argparse.ArgumentParser(prog=prog("bench"), description=__doc__,
                                 epilog="`bench engine --help`: the engine's strength benchmark")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--quick", action="store_true", help="CPython only (no valgrind runs)")
    ap.add_argument("--cases", help="comma-separated case names for the MicroPython part "
                    "(default: the worst cases and three opening rolls)")
    ap.add_argument("--repeat", type=int, default=20, help="CPython runs per figure (best kept)")
    ap.add_argument("--write-docs", action="store_true",
                    help="also rewrite the rules core's section of docs/perf.md from these figures")
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
        settle = bench_rules.opening_settle(progress)
        if settle:
            report["opening_settle"] = settle
            report["summary"]["rp2040_opening_mean_settle_ms"] = settle["settle_rp2040_ms_mean"]
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
    report["k_cycles_per_ir"] = [rp2040_estimate.K_LOW, rp2040_estimate.K_CENTRAL, rp2040_estimate.K_HIGH]
    if args.write_docs:
        if args.quick or not report.get("micropython"):
            print("bench: --write-docs needs the RP2040 estimates (not --quick; valgrind and the "
                  "unix port)", file=sys.stderr)
            return 2
        perf_docs.write("rules", docs_section(report, args.repeat))
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print("CPython %s (best of %d), milliseconds" % (sys.version.split()[0], args.repeat))
    print(_table(report["cpython"], ["case", "dice", "plays", "settle_ms", "count_ms",
                                     "enumerate_ms", "lift_all_ms"]))
    if report.get("micropython"):
        print("\nRP2040 estimates (MicroPython unix port under callgrind, %s);"
              " heap: smallest unix-port heap above the setup's, KiB (RP2040 needs about half);"
              " enumerate keeps the plays in a list, store in an array('I')" % rp2040_estimate.describe_k())
        print(_table(report["micropython"], ["case", "dice", "enumerate_rp2040_ms", "store_rp2040_ms",
                                             "count_rp2040_ms", "lift_all_rp2040_ms",
                                             "lift_one_rp2040_ms", "enumerate_heap_kib_unix",
                                             "store_heap_kib_unix", "count_heap_kib_unix"]))
    elif not args.quick:
        print("\n(no RP2040 estimates: needs %s)" % rp2040_estimate.missing())
    print("\nsummary:")
    for k, v in sorted(report["summary"].items()):
        print("  %-36s %s" % (k, ("%.3f" % v) if isinstance(v, float) else v))
    return 0


def docs_section(report, repeat):
    """docs/perf.md's rules-core section: the table per position and the summary lines."""
    mp = {r["case"]: r for r in report["micropython"]}
    rows = []
    for r in report["cpython"]:
        m = mp.get(r["case"])
        if m is None:
            continue
        rows.append(["%s %s" % (r["case"], r["dice"]), r["plays"],
                     "%.3f / %.3f / %.3f" % (r["settle_ms"], r["enumerate_ms"], r["lift_all_ms"]),
                     "%.0f / %.0f / %.0f / %.0f / %.1f" % (
                         m["enumerate_rp2040_ms"], m["store_rp2040_ms"], m["count_rp2040_ms"],
                         m["lift_all_rp2040_ms"], m["lift_one_rp2040_ms"]),
                     "%.0f / %.0f / %.0f" % (m.get("enumerate_heap_kib_unix", 0),
                                             m.get("store_heap_kib_unix", 0),
                                             m.get("count_heap_kib_unix", 0))])
    s = report["summary"]
    lines = [perf_docs.stamp("python -m host_tools bench --write-docs"),
             "CPython %s, best of %d; RP2040 figures are estimates: %s." % (
                 sys.version.split()[0], repeat, rp2040_estimate.describe_k()),
             "",
             perf_docs.table(["position", "plays:", "CPython: settle / enumerate / step query, every source (ms)",
                              "RP2040 est.: enumerate into a list / into an array / count / step query, "
                              "every source / one lift (ms)",
                              "unix-port heap: enumerate into a list / into an array / count (KiB)"], rows),
             "",
             "* worst case, every distinct play enumerated: %.0f ms on the RP2040 (%.0f ms into an "
             "array('I'), %.0f KiB of unix-port heap there, about half on the board);"
             % (s["rp2040_worst_enumerate_ms"], s["rp2040_worst_store_ms"], s["unix_heap_worst_store_kib"]),
             "* one lift (a fresh `Turn()` and one step query): at most %.1f ms; the step query for "
             "every source at most %.0f ms;" % (s["rp2040_worst_lift_one_ms"], s["rp2040_worst_lift_all_ms"])]
    if "rp2040_opening_mean_settle_ms" in s:
        lines.append("* settling a roll in the opening position: %.1f ms on average over its 21 rolls;"
                     % s["rp2040_opening_mean_settle_ms"])
    lines.append("* CPython: the worst case enumerates in %.2f ms, every source's step query in %.2f ms."
                 % (s["cpython_worst_enumerate_ms"], s["cpython_worst_lift_all_ms"]))
    return "\n".join(lines)
