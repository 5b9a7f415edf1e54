"""Regenerate hardware/generated/ (BOM, wiring table and diagram, LED power budget) and board.json's stacked-magnet model.

Usage: python -m host_tools hardware [--check]   (--check: exit 1 if a generated file or the
derived analog.stack line of board.json is stale)
"""

import sys

from host_tools import hardware_gen


def main(argv):
    check = "--check" in argv
    desc = hardware_gen.load()
    if check:
        bad = hardware_gen.stale(desc)
        if hardware_gen.model_stale(desc):
            bad.append("board.json analog.stack levels_mT/lateral_per_mm2/crosstalk_mT")
        if bad:
            print("stale: %s (run: python -m host_tools hardware)" % ", ".join(bad), file=sys.stderr)
            return 1
        print("hardware/generated is up to date")
        return 0
    if hardware_gen.write_model(desc):
        print("wrote hardware/board.json analog.stack model")
    hardware_gen.write_all(desc)
    for name in sorted(hardware_gen.outputs(desc)):
        print("wrote hardware/generated/" + name)
    return 0
