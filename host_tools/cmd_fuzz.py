"""Fuzz the firmware's serial link and the host tools' readers: python -m host_tools fuzz KIND ...

    python -m host_tools fuzz serial --lines N --seed S [--batch B] [--jobs J] [--cpython]
                                     [--heap 230K] [--json]
    python -m host_tools fuzz serial --batch-seed X --lines N      (one failing batch again)

    python -m host_tools fuzz replay|legal|board|export --count N --seed S [--micropython] [--json]
    python -m host_tools fuzz journal [--turns 100] [--every K] [--first F] [--seed S]
                                      [--micropython] [--heap 230K] [--json]

``replay``, ``legal``, ``board`` and ``export`` run N seeded mutations of real inputs
(host_tools.fuzz.fuzz_files) through the match-file replay, the legal-move service (``--micropython``:
every line also through ``legal --micropython``), the firmware's board.json loader and the
record export (a match's protocol log mangled, its fields retyped, its lines edited and sealed
again with the board's key, as an insider could): each must answer or refuse with a reason, in
bounded work (counted: rules-core calls per roll, one answer per line).

``journal`` plays a game of N turns, damages its journal every way a worn flash or a power cut
can (every K-th byte of the game's file and of its header's copy XORed with 0x01 and with 0xFF,
and every K-th truncation; the first of each K is ``--first`` or chosen by the seed, so K runs
with ``--first`` 0 .. K-1 cover every case, on as many cores) and boots a board on each copy
(host_tools.fuzz.fuzz_journal): it must run, keep every line the damage did not touch and say when it
lost one. ``--micropython`` boots the firmware under the MicroPython unix port in a Pico-sized
heap.

``serial`` feeds N seeded hostile lines (host_tools.fuzz.fuzz_serial) to the firmware on the simulated
board under the MicroPython unix port with a Pico-sized heap (``--cpython``: on CPython), one
process per batch of B lines, and checks that it never crashes and that every command line gets
exactly one ok/err. It prints the seed first and the figures at the end; a failing batch prints
the command that runs it alone. Exit status 1 on any crash, unanswered line, internal error (a
bug the protocol caught) or output that is not JSON; commands refused because the heap ran out
(``out of memory: send it again``: answered, and the firmware goes on) are counted per command.
"""

import argparse
import json
import sys
import time

from host_tools import prog
from host_tools.fuzz import fuzz_serial


def _serial(args):
    where = "CPython" if args.cpython else "MicroPython -X heapsize=%s" % args.heap
    if args.batch_seed is not None:
        print("fuzz serial: batch seed %d, %d lines, %s" % (args.batch_seed, args.lines, where),
              flush=True)
        problems = fuzz_serial.run_batch(args.batch_seed, args.lines, not args.cpython, args.heap)
        for p in problems:
            print(p)
        print("batch seed %d: %s" % (args.batch_seed, "FAILED" if problems else "ok"))
        return 1 if problems else 0
    print("fuzz serial: seed %d, %d lines, batches of %d, %s" % (
        args.seed, args.lines, args.batch, where), flush=True)
    t0 = time.time()

    def progress(s):
        if not args.json and s["batches"] % 5 == 0:
            print("  %d lines, %d crashes, %d unanswered, %.0f s" % (
                s["lines"], s["crashes"], s["unanswered"], time.time() - t0),
                file=sys.stderr, flush=True)

    s = fuzz_serial.fuzz(args.lines, args.seed, args.batch, not args.cpython, args.heap, progress,
                         args.jobs)
    s["seconds"] = round(time.time() - t0, 1)
    failed = s["crashes"] or s["unanswered"] or s["internal_errors"] or s["not_json"] \
        or s["failures"]
    if args.json:
        print(json.dumps(s))
    else:
        print("lines %d (command lines %d, overlong %d), answers %d, crashes %d, unanswered %d, "
              "internal errors %d, output not JSON %d, power cuts %d, %.0f s" % (
                  s["lines"], s["command_lines"], s["overlong"], s["answers"], s["crashes"],
                  s["unanswered"], s["internal_errors"], s["not_json"], s["power_cuts"],
                  s["seconds"]))
        if s["out_of_memory"]:
            print("commands refused for want of heap (answered, the firmware went on): " +
                  ", ".join("%s %d" % kv for kv in sorted(s["out_of_memory"].items())))
        print("phases reported: " + ", ".join("%s %d" % kv for kv in sorted(s["phases"].items())))
        print("command x phase pairs met: %d of %d" % (
            s["commands_in_phases"], len(fuzz_serial.COMMANDS) * len(fuzz_serial.PHASES)))
        for f in s["failures"][:10]:
            print("FAILED batch %d (seed %d): exit %d; %s\n  %s\n  again: %s" % (
                f["batch"], f["batch_seed"], f["returncode"], "; ".join(f["problems"]),
                f["stderr"].strip().replace("\n", "\n  "), f["replay"]))
    if failed:
        print("fuzz serial: FAILED (seed %d)" % args.seed)
    return 1 if failed else 0


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("fuzz"))
    sub = ap.add_subparsers(dest="what", required=True)
    sp = sub.add_parser("serial", help="hostile command lines through the firmware")
    sp.add_argument("--lines", type=int, default=20000)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--batch", type=int, default=20000, help="lines per firmware process")
    sp.add_argument("--batch-seed", type=int, default=None, help="run one batch from its seed")
    sp.add_argument("--cpython", action="store_true", help="run the firmware on CPython")
    sp.add_argument("--jobs", type=int, default=1, help="firmware processes at a time")
    sp.add_argument("--heap", default=fuzz_serial.mpytree.HEAP)
    sp.add_argument("--json", action="store_true")
    for kind, what in (("replay", "mutated match files through replay"),
                       ("legal", "hostile request lines through legal"),
                       ("board", "mutated hardware/board.json through the firmware's loader"),
                       ("export", "mutated and resealed game records through export")):
        fp = sub.add_parser(kind, help=what)
        fp.add_argument("--count", type=int, default=500)
        fp.add_argument("--seed", type=int, default=1)
        fp.add_argument("--json", action="store_true")
        if kind == "legal":
            fp.add_argument("--micropython", action="store_true",
                            help="also every line through legal --micropython (one run)")
    jp = sub.add_parser("journal", help="damaged journals booted")
    jp.add_argument("--turns", type=int, default=100)
    jp.add_argument("--every", type=int, default=1, help="every K-th byte and truncation")
    jp.add_argument("--seed", type=int, default=1)
    jp.add_argument("--first", type=int, default=None, help="the first of each K (0..K-1)")
    jp.add_argument("--micropython", action="store_true")
    jp.add_argument("--heap", default=fuzz_serial.mpytree.HEAP)
    jp.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.what == "serial":
        return _serial(args)
    if args.what == "journal":
        return _journal(args)
    return _files(args)


def _journal(args):
    from host_tools.fuzz import fuzz_journal
    where = "MicroPython -X heapsize=%s" % args.heap if args.micropython else "CPython"
    if args.every < 1 or args.first is not None and not 0 <= args.first < args.every:
        print("fuzz journal: --every is 1 or more, --first 0 .. every-1", file=sys.stderr)
        return 2
    print("fuzz journal: seed %d, %d turns, every %d, %s" % (
        args.seed, args.turns, args.every, where), flush=True)
    t0 = time.time()
    if args.micropython:
        s = fuzz_journal.run_micropython(args.turns, args.every, args.seed, heap=args.heap,
                                         first=args.first)
    else:
        s = fuzz_journal.run(args.turns, args.every, args.seed, first=args.first)
    s["seconds"] = round(time.time() - t0, 1)
    if args.json:
        print(json.dumps(s))
    else:
        print("game: %d turns, %d lines, %d bytes; first %d of every %d; boots %d: repaired or untouched %d, loss "
              "reported %d, header lost %d; problems %d; %.0f s" % (
                  s["turns"], s["lines"], s["bytes"], s["first"], s["every"], s["boots"],
                  s["repaired"], s["reported"],
                  s["journal_lost"], len(s["problems"]), s["seconds"]))
        for p in s["problems"][:10]:
            print("FAILED " + p)
    if s["problems"]:
        print("fuzz journal: FAILED (seed %d, every %d)" % (args.seed, args.every))
    return 1 if s["problems"] else 0


def _files(args):
    from host_tools.fuzz import fuzz_files
    if args.what == "replay" and not fuzz_files._mat_files():
        print("fuzz replay: no match files to mutate in %s (a checkout's tests/data/games)"
              % fuzz_files.GAMES, file=sys.stderr)
        return 2
    print("fuzz %s: seed %d, %d cases" % (args.what, args.seed, args.count), flush=True)
    s = fuzz_files.run(args.what, args.count, args.seed,
                       micropython=getattr(args, "micropython", False))
    if args.json:
        print(json.dumps(s))
    else:
        print("cases %d, outcomes %s, failures %d, slowest case %.3f s%s" % (
            s["cases"], ", ".join("%s %d" % kv for kv in sorted(s["outcomes"].items())),
            len(s["failures"]), s["slowest_s"],
            ", at most %.1f rules-core calls per roll" % s["max_calls_per_roll"]
            if args.what == "replay" else ""))
        if "micropython_answers" in s:
            print("legal --micropython: %d answers, one per request line" % s["micropython_answers"])
        for f in s["failures"][:10]:
            print("FAILED case %s (seed %d): %s" % (f["case"], args.seed, f["why"]))
    if s["failures"]:
        print("fuzz %s: FAILED (seed %d)" % (args.what, args.seed))
    return 1 if s["failures"] else 0
