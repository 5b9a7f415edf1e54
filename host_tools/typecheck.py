"""Type-check the firmware against the published MicroPython rp2 stubs, and the simulated stand-ins against the same stubs.

The firmware runs on an RP2040, where ``machine``, ``rp2``, ``neopixel``, ``time`` and the rest
are MicroPython's, not CPython's. mypy checks ``firmware/`` (the simulator excepted) and
``boot.py`` with the stubs the MicroPython stubs project publishes for the Pico
(``micropython-rp2-rpi-pico-stubs``, pinned in ``requirements/rp2-stubs.txt``) in place of
CPython's standard library, so a call the real modules do not have fails here, not on a board.

The simulated stand-ins (``firmware/sim/machine.py``, ``rp2.py``, ``neopixel.py``) must not
offer what the real modules lack, or firmware tested on them could break on a board: every
public name they define must exist in the stub, and every parameter a stand-in's function or
method accepts by name must be accepted by the real one (``drift()`` lists the differences).

Run: ``python -m host_tools.typecheck`` (exit status 1 on a finding); tests/test_lint.py runs it.
The stubs are installed apart from the virtual environment (``pip install --target``), since
they shadow CPython's own modules: ``.venv/rp2-stubs`` (scripts/bootstrap.sh test), else
``build/rp2-stubs``.
"""

import ast
import os
import subprocess
import sys
import tempfile
from host_tools import REPO_ROOT

REQUIREMENTS = os.path.join(REPO_ROOT, "requirements", "rp2-stubs.txt")
STAND_INS = ("machine", "rp2", "neopixel")

_MYPY_INI = """[mypy]
python_version = 3.10
custom_typeshed_dir = %(stubs)s
mypy_path = %(stubs)s
no_site_packages = True
cache_dir = %(cache)s
# MicroPython's const() fallback (a plain function where micropython.const is missing) and the
# uasyncio fallback are deliberate redefinitions
disable_error_code = misc, no-redef, annotation-unchecked

# the stubs' own slips (an undefined name here and there) are not the firmware's
[mypy-%(stub_modules)s]
ignore_errors = True

[mypy-firmware.sim.*]
follow_imports = skip

# a Pico W's own modules (firmware/board/hall_link.py): the radio's ``network``, which the Pico's
# stubs lack, and umqtt.simple, which mip installs on the board
[mypy-network,umqtt,umqtt.*]
ignore_missing_imports = True
"""


def stubs_dir(install=True):
    """The folder holding the rp2 stubs (installed there with pip on first use)."""
    for d in (os.path.join(REPO_ROOT, ".venv", "rp2-stubs"), os.path.join(REPO_ROOT, "build", "rp2-stubs")):
        if os.path.exists(os.path.join(d, "machine.pyi")):
            return d
    if not install:
        return None
    d = os.path.join(REPO_ROOT, "build", "rp2-stubs")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--target", d, "-r", REQUIREMENTS], check=True)
    return d


def stub_modules(stubs):
    """The modules the stubs define (patterns for mypy's per-module sections)."""
    out = []
    for name in sorted(os.listdir(stubs)):
        if name.endswith(".pyi"):
            out.append(name[:-4])
        elif os.path.exists(os.path.join(stubs, name, "__init__.pyi")):
            out += [name, name + ".*"]
    return out


def firmware_files():
    out = [os.path.join(REPO_ROOT, "boot.py")]
    for folder, dirs, files in os.walk(os.path.join(REPO_ROOT, "firmware")):
        dirs[:] = sorted(d for d in dirs if d not in ("sim", "__pycache__"))
        out += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    return out


def run_mypy(stubs):
    """(exit status, output) of mypy on the firmware with the rp2 stubs as its world."""
    with tempfile.TemporaryDirectory() as tmp:
        ini = os.path.join(tmp, "mypy.ini")
        with open(ini, "w") as f:
            f.write(_MYPY_INI % {"stubs": stubs, "cache": os.path.join(REPO_ROOT, "build", "mypy-rp2"),
                                 "stub_modules": ",".join(stub_modules(stubs))})
        done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", ini]
                              + firmware_files(), cwd=REPO_ROOT, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


# -- the stand-ins against the stubs -----------------------------------------------------------
def _arity(fn):
    """How many arguments a function takes by position (None: any number), ``self`` excepted."""
    a = fn.args
    if a.vararg is not None:
        return None
    names = [p.arg for p in a.posonlyargs + a.args]
    return len([n for n in names if n not in ("self", "cls")])


def _signatures(tree):
    """{name: positional arity, or None for any} for top-level functions and classes' methods
    ('Class.method'); classes and plain names map to 0. Overloads take the largest."""
    out = {}

    def put(key, fn):
        got = _arity(fn)
        prev = out.get(key, 0)
        out[key] = None if got is None or prev is None else max(prev, got)

    def names(node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            put(node.name, node)
        elif isinstance(node, ast.ClassDef):
            out.setdefault(node.name, 0)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    put(node.name + "." + item.name, item)
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    for n in names(item):
                        out.setdefault(node.name + "." + n, 0)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for n in names(node):
                out.setdefault(n, 0)
    return out


def _stub_source(stubs, name):
    for rel in (name + ".pyi", os.path.join(name, "__init__.pyi")):
        path = os.path.join(stubs, rel)
        if os.path.exists(path):
            with open(path) as f:
                return f.read()
    raise FileNotFoundError("no stub for %s in %s" % (name, stubs))


def drift(stubs, sim_dir=None):
    """Every way the stand-ins offer more than the real modules: a list of sentences."""
    sim_dir = sim_dir or os.path.join(REPO_ROOT, "firmware", "sim")
    found = []
    for name in STAND_INS:
        real = _signatures(ast.parse(_stub_source(stubs, name)))
        with open(os.path.join(sim_dir, name + ".py")) as f:
            sim = _signatures(ast.parse(f.read()))
        for key, takes in sorted(sim.items()):
            parts = key.split(".")
            if any(p.startswith("_") and not (p.startswith("__") and p.endswith("__"))
                   for p in parts):
                continue              # the stand-in's own helpers are not API
            if key.endswith("__") and key not in real:
                continue              # dunders the stand-in needs for itself (__len__, ...)
            if key not in real:
                found.append("%s.%s: the stand-in has it, the real module does not" % (name, key))
                continue
            allows = real[key]
            if allows is not None and (takes is None or takes > allows):
                found.append("%s.%s: the stand-in takes %s arguments by position, the real one %d"
                             % (name, key, "any number of" if takes is None else takes, allows))
    return found


# Names the stand-ins define for the simulator's own use (not MicroPython API): kept out of
# the drift check, with the reason.
SIM_ONLY = {
    "machine.bind": "attaches the simulated world",
    "machine.current_world": "the simulated world the parts belong to",
    "machine.Mem32": "the class behind machine.mem32 (the real one is a built-in object)",
    "machine.ResetRequested": "how a simulated reset unwinds",
    "neopixel.NeoPixel.world": "the simulated world the strip draws into",
    "rp2.StateMachine.sent": "what the simulated PIO received",
    "rp2.StateMachine.running": "the simulated PIO's state",
    "rp2.DMA.world": "the simulated world a DMA transfer reaches",
}


def main(argv=None):
    stubs = stubs_dir()
    status, out = run_mypy(stubs)
    print(out.strip())
    problems = [p for p in drift(stubs) if p.split(":")[0] not in SIM_ONLY]
    for p in problems:
        print("drift: " + p)
    if not problems:
        print("drift: the stand-ins offer nothing the rp2 stubs lack")
    return 1 if status or problems else 0


if __name__ == "__main__":
    sys.exit(main())
