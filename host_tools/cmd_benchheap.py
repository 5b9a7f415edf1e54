"""The rules core's heap per roll: unix-port bytes and the RP2040's heap ints: python -m host_tools benchheap

    python -m host_tools benchheap [--rev GIT_REV] [--json]

For the worst-case positions (host_tools.bench.bench_rules.WORST) with their own roll and with every
double, it measures the three things the board does with a roll: settling it (``Turn()``), the
step query for every source (``targets``), and counting its plays (``count_plays``):

* unix-port heap: bytes allocated (``gc.mem_alloc()`` with the collector off) under the
  MicroPython unix port, the firmware's rules core as .py files;
* RP2040 heap ints: integer operations that would allocate on the board, whose small ints have
  31 bits where the unix port's have 63 (host_tools.bench.smallint_audit), and their bytes at about 32
  each.

``--rev`` measures another version of firmware/rules/movegen.py (e.g. the one before a change),
taken from git, against the same workloads.
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile

from host_tools import prog
from host_tools.device import mpytree
from host_tools.bench import smallint_audit
from host_tools.bench.bench_rules import WORST, worst_position
from host_tools import REPO_ROOT


SCRIPT = r"""
import gc
from firmware.rules import Position, Turn, get_rules
rules = get_rules("backgammon")
CASES = %(cases)r
def alloc(fn):
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    r = fn()
    b = gc.mem_alloc()
    gc.enable()
    return b - a, r
out = []
for name, dice, points in CASES:
    pos = Position(None, 0)
    for q in points:
        pos.board[q] = 1
    pos.board[26] = 15
    settle, t = alloc(lambda: Turn(rules, pos, tuple(dice)))
    targets, _ = alloc(lambda: [t.targets(s) for s in range(1, 26)])
    count, n = alloc(lambda: t.count_plays())
    out.append([name, dice, settle, targets, count, n])
print(repr(out))
"""


def cases():
    out = []
    for name, dice, points, _ in WORST:
        out.append((name, list(dice), list(points)))
        if dice[0] == dice[1] and dice[0] != 6:
            out.append((name, [6, 6], list(points)))
    return out


def movegen_source(rev):
    if rev is None:
        return None
    done = subprocess.run(["git", "show", "%s:firmware/rules/movegen.py" % rev], cwd=REPO_ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("git show %s: %s" % (rev, done.stderr.strip()))
    return done.stdout


def unix_port(source):
    """[name, dice, settle, targets, count, plays] per case, bytes under the unix port."""
    exe = mpytree.micropython_path()
    if exe is None:
        return None
    work = tempfile.mkdtemp(prefix="benchheap-")
    try:
        shutil.copytree(os.path.join(REPO_ROOT, "firmware", "rules"),
                        os.path.join(work, "firmware", "rules"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        with open(os.path.join(work, "firmware", "__init__.py"), "w"):
            pass
        if source is not None:
            with open(os.path.join(work, "firmware", "rules", "movegen.py"), "w") as f:
                f.write(source)
        script = os.path.join(work, "bench.py")
        with open(script, "w") as f:
            f.write(SCRIPT % {"cases": cases()})
        done = subprocess.run([exe, "-X", "heapsize=4M", script], capture_output=True, text=True,
                              cwd=work, env=dict(os.environ, MICROPYPATH=work), timeout=600)
        if done.returncode != 0:
            raise SystemExit("micropython failed:\n" + done.stdout[-1500:] + done.stderr[-1500:])
        import ast
        return ast.literal_eval(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def rp2040_ints(source):
    """{(name, dice): (settle, targets, count)} heap-int operations."""
    from firmware.rules import get_rules
    mg = smallint_audit.load_movegen(source)
    rules = get_rules("backgammon")
    out = {}
    for name, dice, points in cases():
        pos = worst_position(points)
        box = []
        settle = smallint_audit.count(lambda: box.append(mg.Turn(rules, pos, tuple(dice))))[1]
        t = box[0]
        targets = smallint_audit.count(lambda: [t.targets(s) for s in range(1, 26)])[1]
        count = smallint_audit.count(t.count_plays)[1]
        out[(name, tuple(dice))] = (settle, targets, count)
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("benchheap"))
    ap.add_argument("--rev", help="measure firmware/rules/movegen.py as of this git revision")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    source = movegen_source(args.rev)
    unix = unix_port(source)
    ints = rp2040_ints(source)
    rows = []
    for i, (name, dice, _) in enumerate(cases()):
        u = unix[i][2:6] if unix else [None] * 4
        b = ints[(name, tuple(dice))]
        rows.append({"position": name, "dice": "%d-%d" % tuple(dice), "plays": u[3],
                     "unix_bytes": {"settle": u[0], "targets": u[1], "count": u[2]},
                     "rp2040_heap_ints": {"settle": b[0], "targets": b[1], "count": b[2]},
                     "rp2040_bytes": {"settle": b[0] * smallint_audit.MPZ_BYTES,
                                      "targets": b[1] * smallint_audit.MPZ_BYTES,
                                      "count": b[2] * smallint_audit.MPZ_BYTES}})
    if args.json:
        print(json.dumps({"movegen": args.rev or "working tree", "rows": rows}))
        return 0
    print("movegen.py: %s" % (args.rev or "working tree"))
    print("%-5s %-4s %6s | %-32s | %-30s" % ("pos", "roll", "plays", "unix-port bytes: settle/targets/count",
                                          "RP2040 heap ints (bytes at 32 each)"))
    for r in rows:
        u = r["unix_bytes"]
        b = r["rp2040_heap_ints"]
        print("%-5s %-4s %6s | %-37s | %d/%d/%d (%d B)" % (
            r["position"], r["dice"], r["plays"], "%s/%s/%s" % (u["settle"], u["targets"], u["count"]),
            b["settle"], b["targets"], b["count"], sum(r["rp2040_bytes"].values())))
    return 0
