"""Mutation-test the rules core: mutmut injects small bugs into firmware/rules/, the fast rules tests must catch them.

Runs outside CI (a full run takes tens of minutes on one core). mutmut is installed on first use into
its own environment (``build/mutate-venv``), beside the pinned pytest and hypothesis of this one; the
project's environment and requirements stay untouched. The run works on a copy of the tree in
``build/mutate/`` under ``nice -n 19`` with one worker, and tests each mutant with the fast rules tests
only (``TESTS``: no soak, MicroPython or browser tests).

Score = caught / (mutants tested): caught = killed (a test failed) or timed out; a mutant that no
selected test executes counts as not caught. Survivors are listed by mutmut's names; ``--show`` prints
each one's diff (``mutmut show NAME`` in ``build/mutate/`` does the same).
"""

import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
from host_tools import prog
from host_tools import REPO_ROOT

MUTMUT = "mutmut==3.8.1"
ROOT = REPO_ROOT                      # the tree measured (--tree: e.g. a worktree of an older commit)
VENV = os.path.join(REPO_ROOT, "build", "mutate-venv")
WORK = os.path.join(REPO_ROOT, "build", "mutate")
RULES = "firmware/rules"
# the fast rules tests: every test of the rules core that needs neither MicroPython, a browser,
# gnubg nor minutes
TESTS = ["tests/test_rules_game.py", "tests/test_rules_long.py", "tests/test_rules_short.py",
         "tests/test_rules_persian.py", "tests/test_rules_properties.py",
         "tests/test_rules_notation.py", "tests/test_lines.py", "tests/test_seed001.py",
         "tests/test_legal_cli.py", "tests/test_rules_referee.py", "tests/test_rules_turn.py",
         "tests/test_rules_game_edges.py", "tests/test_rules_variants.py",
         "tests/test_rules_legal_requests.py", "tests/test_rules_text_errors.py"]
PYTEST_ARGS = ["-m", "not soak and not micropython", "-p", "no:cacheprovider"]
# a mutant whose tests run this many times longer than the clean tests is stuck (caught)
TIMEOUT_MULTIPLIER = 5
CAUGHT = ("killed", "timeout")


def _venv_python():
    return os.path.join(VENV, "bin", "python")


def ensure_mutmut(log):
    """Make build/mutate-venv with mutmut and this environment's pytest and hypothesis (once)."""
    from importlib.metadata import version
    want = [MUTMUT, "pytest==" + version("pytest"), "hypothesis==" + version("hypothesis")]
    stamp = os.path.join(VENV, ".mutate-requirements")
    if os.path.exists(stamp) and open(stamp).read().split() == want:
        return
    log("installing %s into %s" % (" ".join(want), VENV))
    if not os.path.exists(_venv_python()):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([_venv_python(), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
                   + want, check=True)
    with open(stamp, "w") as f:
        f.write(" ".join(want))


def modules():
    """The rules core's modules (file stems)."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, RULES, "*.py"))):
        out.append(os.path.basename(path)[:-3])
    return out


def test_files():
    """The fast rules tests the measured tree has (an older tree may lack some)."""
    return [t for t in TESTS if os.path.exists(os.path.join(ROOT, t))]


def prepare(only, again=False):
    """A copy of the tree in build/mutate with mutmut's configuration (setup.cfg there): fresh, or
    (``again``) copied over the last run's, whose verdicts mutmut keeps."""
    if os.path.exists(WORK) and not again:
        shutil.rmtree(WORK)
    os.makedirs(WORK, exist_ok=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "artifacts")
    for name in ("firmware", "host_tools", "tests"):
        # fresh times (copy, not copy2): mutmut remakes the mutants of a file newer than them
        shutil.copytree(os.path.join(ROOT, name), os.path.join(WORK, name), ignore=skip,
                        dirs_exist_ok=True, copy_function=shutil.copy)
    shutil.copy(os.path.join(ROOT, "pytest.ini"), WORK)
    lines = ["[mutmut]", "source_paths=" + RULES,
             "also_copy=", "    firmware/__init__.py", "    host_tools", "    pytest.ini",
             "timeout_multiplier=%d" % TIMEOUT_MULTIPLIER,
             "pytest_add_cli_args="] + ["    " + a for a in PYTEST_ARGS]
    lines.append("pytest_add_cli_args_test_selection=")
    lines += ["    " + t for t in test_files()]
    if only:
        lines.append("only_mutate=")
        lines += ["    %s/%s.py" % (RULES, m) for m in only]
    with open(os.path.join(WORK, "setup.cfg"), "w") as f:
        f.write("\n".join(lines) + "\n")


def run_mutmut(log, names=(), check=True):
    """mutmut run (of every mutant, or of ``names``: names or fnmatch patterns) with one worker
    under nice; its progress goes to build/mutate/run.log."""
    path = os.path.join(WORK, "run.log")
    log("running mutmut (one worker, nice 19); progress in %s" % path)
    with open(path, "w") as out:
        rc = subprocess.call(["nice", "-n", "19", os.path.join(VENV, "bin", "mutmut"), "run",
                              "--max-children", "1"] + list(names), cwd=WORK, stdout=out,
                             stderr=subprocess.STDOUT)
    if rc and check:
        with open(path) as f:
            tail = f.read()[-3000:]
        raise SystemExit("mutmut failed (exit %d):\n%s" % (rc, tail))


_STATUSES = """
import json, sys
from mutmut.stats import status_by_exit_code
print(json.dumps({k: status_by_exit_code[v] for k, v in json.load(open(sys.argv[1]))
                  ["exit_code_by_key"].items()}))
"""


_RETEST = """
import glob, json, os
from mutmut.stats import status_by_exit_code
for path in glob.glob("mutants/%s/*.py.meta"):
    meta = json.load(open(path))
    codes = meta["exit_code_by_key"]
    for k, v in codes.items():
        if status_by_exit_code[v] not in %r:
            codes[k] = None
    json.dump(meta, open(path, "w"))
# tests and code may have changed since: mutmut maps tests to functions afresh when it has no
# stats (the verdicts above are kept; added tests cannot let a caught mutant survive)
if os.path.exists("mutants/mutmut-stats.json"):
    os.remove("mutants/mutmut-stats.json")
""" % (RULES, CAUGHT)


def forget_not_caught():
    """Mark every mutant the last run did not catch as not yet tested (--again)."""
    subprocess.check_call([_venv_python(), "-c", _RETEST], cwd=WORK)


def statuses():
    """{module: {mutant name: mutmut's status}} from the run's records."""
    out = {}
    for meta in sorted(glob.glob(os.path.join(WORK, "mutants", RULES, "*.py.meta"))):
        name = os.path.basename(meta)[:-len(".py.meta")]
        text = subprocess.check_output([_venv_python(), "-c", _STATUSES, meta])
        out[name] = json.loads(text)
    return out


def sample(n, seed):
    """n mutant names drawn at random (seeded) from every mutant of the rules core."""
    names = sorted(name for mod in statuses().values() for name in mod)
    return sorted(random.Random(seed).sample(names, min(n, len(names))))


def summarise(by_module, only=None):
    """Counts and score per module and in total, and the names of the mutants not caught
    (``only``: a sample of names, the rest left out)."""
    if only is not None:
        keep = set(only)
        by_module = {mod: {k: v for k, v in names.items() if k in keep}
                     for mod, names in by_module.items()}
    rows = []
    total = {"module": "total", "mutants": 0, "killed": 0, "timeout": 0, "survived": 0,
             "no tests": 0, "other": 0}
    missed = []
    for mod in sorted(by_module):
        row = {"module": mod, "mutants": 0, "killed": 0, "timeout": 0, "survived": 0,
               "no tests": 0, "other": 0}
        for name, status in sorted(by_module[mod].items(), key=lambda kv: _natural(kv[0])):
            if status in ("not checked", "skipped"):
                continue
            row["mutants"] += 1
            key = status if status in row else "other"
            row[key] += 1
            if status not in CAUGHT:
                missed.append({"mutant": name, "status": status})
        if row["mutants"]:
            rows.append(row)
            for k in total:
                if k != "module":
                    total[k] += row[k]
    for row in rows + [total]:
        caught = row["killed"] + row["timeout"]
        row["score"] = round(100.0 * caught / row["mutants"], 1) if row["mutants"] else 0.0
    return rows, total, missed


def _natural(name):
    head, _, num = name.rpartition("__mutmut_")
    return (head, int(num) if num.isdigit() else 0)


def show(name):
    return subprocess.run([os.path.join(VENV, "bin", "mutmut"), "show", name], cwd=WORK,
                          capture_output=True, text=True).stdout


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("mutate"), description=__doc__.split("\n")[0])
    ap.add_argument("--module", action="append", choices=modules(),
                    help="mutate only this module of firmware/rules (repeatable; default: all)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--show", action="store_true", help="print the diff of every mutant not caught")
    ap.add_argument("--again", action="store_true",
                    help="keep the last run's verdicts and test again only the mutants it did not "
                    "catch (and functions changed since): for adding tests; a fresh run is the figure")
    ap.add_argument("--resume", action="store_true",
                    help="go on with an interrupted run (keeps every verdict it has)")
    ap.add_argument("--sample", type=int, metavar="N",
                    help="test only N mutants drawn at random (seeded by --seed) and score them: "
                    "a quicker estimate of the whole")
    ap.add_argument("--seed", type=int, default=1, help="seed of --sample (default 1)")
    ap.add_argument("--tree", help="measure the rules core and tests of another checkout (say a "
                    "worktree of an older commit); the run still works in this one's build/")
    ap.add_argument("--report", action="store_true",
                    help="report the last run in build/mutate again, without running")
    args = ap.parse_args(argv)
    global ROOT
    if args.tree:
        ROOT = os.path.abspath(args.tree)

    def log(msg):
        print(msg, file=sys.stderr)

    if not args.report:
        ensure_mutmut(log)
        prepare(args.module, args.again or args.resume)
        if args.again:
            forget_not_caught()
        if args.sample:
            # mutmut makes (or remakes, for changed code) its mutants when it runs: a run of a few
            # quick ones does that, so the sample is drawn from the code as it is now
            run_mutmut(log, ["firmware.rules.position.*__mutmut_1"], check=False)
        if not args.sample:
            run_mutmut(log)
        else:
            now = {k: v for mod in statuses().values() for k, v in mod.items()}
            todo = [n for n in sample(args.sample, args.seed) if now[n] == "not checked"]
            if todo:
                run_mutmut(log, todo)
    chosen = sample(args.sample, args.seed) if args.sample else None
    rows, total, missed = summarise(statuses(), chosen)
    if args.json:
        print(json.dumps({"mutmut": MUTMUT, "tests": test_files(), "sample": args.sample,
                          "seed": args.seed if args.sample else None, "modules": rows,
                          "total": total, "not_caught": missed}, indent=1))
        return 0
    if args.sample:
        print("a sample of %d mutants (seed %d)" % (total["mutants"], args.seed))
    cols = ["module", "mutants", "killed", "timeout", "survived", "no tests", "other", "score"]
    print(" ".join("%10s" % c for c in cols))
    for row in rows + [total]:
        print(" ".join("%10s" % row[c] for c in cols))
    print("\nnot caught (%d):" % len(missed))
    for m in missed:
        print("  %s  (%s)" % (m["mutant"], m["status"]))
        if args.show:
            print(show(m["mutant"]))
    return 0
