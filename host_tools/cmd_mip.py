"""Write package.json, the list of files `mpremote mip install github:OWNER/REPO` fetches onto a board.

mip reads package.json at the repository's root and copies every file of its "urls" from the
repository to the board: `mpremote mip install --target / github:OWNER/REPO` puts the firmware
where deploy does (/boot.py, /main.py, /firmware/..., /hardware/board.json), as source rather
than bytecode (the board compiles each module when it first imports it, which needs more heap
than deploy's .mpy files: deploy, or a frozen build, is the way for a game; mip is the way to
fetch the firmware onto a board without a clone). The list is the same as deploy's
(``cmd_deploy.board_files``); ``--check`` fails when package.json is not what it would write.
"""

import argparse
import json
import os
import sys

from host_tools import prog
from host_tools.__main__ import version
from host_tools.cmd_deploy import REPO_ROOT, board_files

PACKAGE_JSON = os.path.join(REPO_ROOT, "package.json")


def package(root=REPO_ROOT):
    """package.json's content: [board path, repository path] per file, and the version."""
    urls = [[remote.lstrip("/"), rel] for rel, remote in board_files(root)]
    return {"urls": urls, "deps": [], "version": version()}


def text(root=REPO_ROOT):
    """package.json as written: one file per line."""
    pkg = package(root)
    rows = ",\n".join("    " + json.dumps(u) for u in pkg["urls"])
    return '{\n  "urls": [\n%s\n  ],\n  "deps": [],\n  "version": %s\n}\n' % (
        rows, json.dumps(pkg["version"]))


def main(argv):
    p = argparse.ArgumentParser(prog=prog("mip"), description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="fail if package.json is stale; write nothing")
    args = p.parse_args(argv)
    want = text()
    try:
        with open(PACKAGE_JSON) as f:
            have = f.read()
    except FileNotFoundError:
        have = None
    if have is None and not os.path.exists(os.path.join(REPO_ROOT, "pyproject.toml")):
        print("mip: package.json belongs to a clone of the repository (%s is an installed copy): "
              "run it in a clone" % REPO_ROOT, file=sys.stderr)
        return 2
    if args.check:
        if have is None:
            print("package.json is missing: run %s" % prog("mip"), file=sys.stderr)
            return 1
        if have != want:
            print("package.json is stale: run %s" % prog("mip"), file=sys.stderr)
            return 1
        print("package.json is up to date (%d files)" % len(package()["urls"]))
        return 0
    if have != want:
        with open(PACKAGE_JSON, "w") as f:
            f.write(want)
    print("package.json: %d files, version %s" % (len(package()["urls"]), version()))
    return 0
