"""Regenerate hardware/generated/ (BOM, wiring table and diagram, LED power budget) from board.json.

Usage: python -m host_tools hardware [--check]   (--check: exit 1 if a generated file is stale)
"""

import sys

from host_tools import hardware_gen


def main(argv):
    check = "--check" in argv
    desc = hardware_gen.load()
    if check:
        bad = hardware_gen.stale(desc)
        if bad:
            print("stale: %s (run: python -m host_tools hardware)" % ", ".join(bad), file=sys.stderr)
            return 1
        print("hardware/generated is up to date")
        return 0
    hardware_gen.write_all(desc)
    for name in sorted(hardware_gen.outputs(desc)):
        print("wrote hardware/generated/" + name)
    return 0
