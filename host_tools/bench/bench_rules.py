"""The rules core's benchmark positions and measurements (CPython timings, MicroPython estimates).

Positions: the opening position's 21 rolls and the worst cases for full-turn generation (found
by search and confirmed by GNU Backgammon). For each: how many distinct plays, the time to settle
a roll (``Turn()``: the number of dice a play must use), to enumerate every play, and to answer
the step query for every source pip (what the LEDs need when a checker is lifted). Under the
MicroPython unix port, ``host_tools.bench.rp2040_estimate`` gives the instruction count, the RP2040
time estimate and the smallest heap the workload runs in.
"""

import os
import shutil
import sys
import tempfile
import time
from host_tools import REPO_ROOT

sys.path.insert(0, REPO_ROOT)

from firmware.rules import Position, Turn, get_rules  # noqa: E402
from host_tools.bench import rp2040_estimate  # noqa: E402

# The worst cases: the roller's checkers (own pips), the opponent borne off ("opp=" empty)
WORST = [
    ("W11", (1, 1), (24, 23, 21, 20, 18, 16, 15, 13, 11, 10, 9, 7, 6, 4, 3), 2225),
    ("W22", (2, 2), (24, 23, 22, 21, 18, 17, 16, 14, 13, 12, 11, 9, 8, 6, 5), 2137),
    ("W33", (3, 3), (24, 23, 22, 21, 19, 18, 17, 16, 14, 13, 12, 11, 8, 7, 6), 2037),
    ("W44", (4, 4), (24, 23, 22, 21, 20, 19, 18, 16, 15, 14, 13, 12, 11, 10, 9), 1965),
    ("W55", (5, 5), (24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 8), 1869),
    ("W66", (6, 6), (24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 9, 7), 1761),
    ("W21", (2, 1), (24, 23, 21, 20, 18, 17, 15, 14, 12, 11, 9, 8, 6, 4, 3), 210),
    ("W65", (6, 5), (24, 23, 22, 21, 20, 19, 18, 15, 14, 12, 11, 10, 9, 8, 7), 207),
]
OPENING_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def worst_position(points):
    pos = Position(None, 0)
    for q in points:
        pos.board[q] = 1
    pos.board[26] = 15
    return pos


def cases():
    """(name, position, dice, expected plays or None)."""
    rules = get_rules("backgammon")
    out: list = []
    for name, dice, points, plays in WORST:
        out.append((name, worst_position(points), dice, plays))
    start = rules.start_position()
    for dice in OPENING_ROLLS:
        out.append(("O%d%d" % dice, start, dice, None))
    return rules, out


def _best_of(fn, repeat):
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000.0


def cpython_figures(repeat=20):
    rules, table = cases()
    rows = []
    for name, pos, dice, want in table:
        turn = Turn(rules, pos, dice)
        n = turn.count_plays()
        if want is not None and n != want:
            raise AssertionError("%s: %d plays, expected %d" % (name, n, want))

        def lift_all():
            t = Turn(rules, pos, dice)
            for s in range(25, 0, -1):
                t.targets(s)

        rows.append({
            "case": name, "dice": "%d-%d" % dice, "plays": n,
            "settle_ms": _best_of(lambda: Turn(rules, pos, dice), repeat),
            "count_ms": _best_of(lambda: Turn(rules, pos, dice).count_plays(), repeat),
            "enumerate_ms": _best_of(lambda: Turn(rules, pos, dice).plays_packed(), repeat),
            "lift_all_ms": _best_of(lift_all, repeat),
        })
    return rows


# -- MicroPython estimates -------------------------------------------------------------------
_SETUP = """from firmware.rules import Position, Turn, get_rules
r = get_rules("backgammon")
p = Position.decode("%s")
"""
_WORK = {
    "enumerate": "t = Turn(r, p, %s)\nn = len(t.plays_packed())\n",
    "store": "from array import array\nt = Turn(r, p, %s)\nn = len(t.plays_packed(array('I')))\n",
    "count": "t = Turn(r, p, %s)\nn = t.count_plays()\n",
    "lift_all": "t = Turn(r, p, %s)\nfor s in range(25, 0, -1):\n    t.targets(s)\n",
    "lift_one": "t = Turn(r, p, %s)\nt.targets(%d)\n",
}


def mpy_cost(script, baseline, stage, heap=True):
    """The estimator's figures for ``script`` net of ``baseline``, modules from ``stage``."""
    return rp2040_estimate.measure(script, [stage], baseline=baseline, min_heap=heap)


def micropython_figures(names=None, progress=None):
    """RP2040 estimates; None when valgrind or the unix port is missing."""
    if rp2040_estimate.missing():
        return None
    rules, table = cases()
    work = tempfile.mkdtemp(prefix="nardy_bench_")
    stage = _stage(work)
    rows = []
    try:
        for name, pos, dice, _want in table:
            if names and name not in names:
                continue
            setup = _SETUP % pos.encode()
            base = os.path.join(work, "base.py")
            with open(base, "w") as f:
                f.write(setup)
            row = {"case": name, "dice": "%d-%d" % dice}
            for kind in ("enumerate", "store", "count", "lift_all", "lift_one"):
                script = os.path.join(work, kind + ".py")
                body = _WORK[kind] % ((repr(dice),) if kind != "lift_one" else (repr(dice), _first_source(pos)))
                with open(script, "w") as f:
                    f.write(setup + body)
                if progress:
                    progress("%s %s" % (name, kind))
                res = mpy_cost(script, base, stage, heap=kind in ("enumerate", "store", "count"))
                row[kind + "_rp2040_ms"] = round(res["rp2040_ms_est"], 2)
                row[kind + "_ir"] = res["ir_net"]
                if res.get("min_heap_bytes_unix64"):
                    net = res["min_heap_bytes_unix64"] - res["min_heap_bytes_baseline_unix64"]
                    row[kind + "_heap_kib_unix"] = round(net / 1024.0, 1)
            rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def opening_settle(progress=None):
    """Settling each of the opening position's 21 rolls (``Turn()``), as the board does once per
    roll: net instructions and RP2040 ms, mean per roll; None without the estimator's tools."""
    if rp2040_estimate.missing():
        return None
    rules = get_rules("backgammon")
    work = tempfile.mkdtemp(prefix="nardy_bench_")
    stage = _stage(work)
    setup = _SETUP % rules.start_position().encode() + "rolls = %r\n" % (OPENING_ROLLS,)
    try:
        base = os.path.join(work, "base.py")
        with open(base, "w") as f:
            f.write(setup + "for d in rolls:\n    pass\n")
        script = os.path.join(work, "settle.py")
        with open(script, "w") as f:
            f.write(setup + "for d in rolls:\n    Turn(r, p, d)\n")
        if progress:
            progress("opening settle, 21 rolls")
        res = mpy_cost(script, base, stage, heap=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ir = res["ir_net"] / len(OPENING_ROLLS)
    return {"rolls": len(OPENING_ROLLS), "settle_ir_mean": round(ir),
            "settle_rp2040_ms_mean": round(rp2040_estimate.ms(ir), 2)}


def _stage(work):
    """The rules core alone, as the estimator compiles it (firmware/__init__.py and rules/)."""
    stage = os.path.join(work, "stage")
    os.makedirs(os.path.join(stage, "firmware"))
    shutil.copy(os.path.join(REPO_ROOT, "firmware", "__init__.py"), os.path.join(stage, "firmware"))
    shutil.copytree(os.path.join(REPO_ROOT, "firmware", "rules"), os.path.join(stage, "firmware", "rules"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    return stage


def _first_source(pos):
    for s in range(25, 0, -1):
        if pos.board[pos.turn * 26 + s]:
            return s
    return 25
