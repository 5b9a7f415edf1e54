"""Boot a board as the rp2 port does (boot.py, then main.py) with a Ctrl-C or a power cut at a chosen point of start-up.

Runs under CPython and the MicroPython unix port: ``bootwindow.py ROOT FLASH SPEC...`` with the
current folder anywhere; FLASH is the board's flash folder (the simulator's), each SPEC one boot
in turn: ``ctrlc@K`` sends Ctrl-C at every point from the K-th on (a held key: the worst case),
``cut@C`` cuts the power at the C-th point. A point is where start-up takes time: each import
(but ``micropython``'s own, the first statement's lookup) and each file opened. As on the rp2
port, each script starts with Ctrl-C enabled and ends with it disabled; an exception out of
boot.py or main.py, or main.py ending, leaves the REPL's prompt. Each boot prints one line
``@@ {"outcome": ..., "points": N, "open": [points where Ctrl-C was enabled]}``, outcome one of
``prompt`` (with ``error``), ``reset`` (machine.reset), ``cut``, ``ended`` (the host's input
ended with the board running: sim only).
"""

import gc
import json
import os
import sys

import builtins


class Cut(BaseException):
    """The power went at this point."""


class Points:
    def __init__(self, mp):
        self.mp = mp
        self.n = 0
        self.ctrlc = None
        self.cut = None
        self.open = []
        self.imp = builtins.__import__
        self.opn = builtins.open

    def point(self):
        self.n += 1
        enabled = self.mp.interrupt == 3
        if enabled:
            self.open.append(self.n)
        if self.cut is not None and self.n >= self.cut:
            self.cut = None
            raise Cut()
        if self.ctrlc is not None and self.n >= self.ctrlc and enabled:
            raise KeyboardInterrupt()

    def do_import(self, name, *args):
        if name != "micropython" and name not in sys.modules:
            self.point()
        return self.imp(name, *args)

    def do_open(self, *args, **kw):
        self.point()
        return self.opn(*args, **kw)


def forget():
    """A fresh RAM: the firmware's modules go (the stand-ins stay: the board's silicon)."""
    for name in list(sys.modules):
        if name.startswith("firmware") and not name.startswith("firmware.sim"):
            del sys.modules[name]
    gc.collect()


def script(path, pts, name):
    with pts.opn(path) as f:
        code = compile(f.read(), path, "exec")     # (a code object: CPython would exit with
    gc.collect()                                  # SIGINT after a string's KeyboardInterrupt)
    pts.mp.kbd_intr(3)                 # pyexec: Ctrl-C enabled while a script runs
    try:
        exec(code, {"__name__": name, "__file__": path})
    finally:
        pts.mp.kbd_intr(-1)            # and disabled after it


def boot(root, flash, spec, pts):
    kind, at = spec.split("@")
    pts.n = 0
    pts.open = []
    pts.ctrlc = int(at) if kind == "ctrlc" else None
    pts.cut = int(at) if kind == "cut" else None
    out = {"outcome": "ended"}
    try:
        try:
            script(root + "/boot.py", pts, "boot")
            script(root + "/firmware/main.py", pts, "__main__")
        finally:
            builtins.__import__ = pts.imp      # the harness's own work is no point of start-up
            builtins.open = pts.opn
    except Cut:
        out["outcome"] = "cut"
    except BaseException as exc:
        name = type(exc).__name__
        out["outcome"] = "reset" if name == "ResetRequested" else "prompt"
        if name != "ResetRequested":
            out["error"] = name + ": " + str(exc)
    out["points"] = pts.n
    out["open"] = pts.open
    print("@@ " + json.dumps(out))
    forget()


def main(argv):
    root, flash = argv[0], argv[1]
    from firmware import sim
    sim.install(False)
    if sys.implementation.name == "micropython":
        import micropython as real

        class Recorder:                 # kbd_intr recorded, never the unix port's (a signal)
            interrupt = 3

            def kbd_intr(self, c):
                self.interrupt = c

            def __getattr__(self, name):
                return getattr(real, name)
        sys.modules["micropython"] = Recorder()
    mp = sys.modules["micropython"]
    os.chdir(flash)                     # the board's "/"
    sys.argv[:] = [root + "/firmware/main.py", "--sim", "--virtual-time", "--flash", ".",
                   "--seed", "3"]
    for spec in argv[2:]:
        pts = Points(mp)
        builtins.__import__ = pts.do_import
        builtins.open = pts.do_open
        boot(root, flash, spec, pts)


main(sys.argv[1:])
