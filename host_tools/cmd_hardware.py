"""Regenerate hardware/generated/ (BOM, wiring, power budget, SKiDL netlist) and board.json's stacked-magnet model.

board.json is checked first against hardware/board.schema.json and the firmware's own range
checks (host_tools/boarddesign/board_schema.py): a problem, named by its field, stops the command.

Usage: python -m host_tools hardware [--check]   (--check: exit 1 if a generated file or the
derived analog.stack line of board.json is stale, or the netlist's electrical rules check finds
an error)
"""

import argparse
import sys

from host_tools import prog
from host_tools.boarddesign import board_schema, hardware_gen


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("hardware"), description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a generated file or the "
                    "derived analog.stack line of board.json is stale, or the netlist's ERC fails")
    check = ap.parse_args(argv).check
    bad = board_schema.check_file()
    if bad:
        print("hardware/board.json:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    desc = hardware_gen.load()
    try:
        erc = hardware_gen.schematic(desc)
    except hardware_gen.SchematicError as exc:
        print("netlist: %s" % exc, file=sys.stderr)
        return 1
    if erc["erc_errors"] or erc["erc_warnings"]:
        print("netlist ERC: %d errors, %d warnings\n%s" % (erc["erc_errors"], erc["erc_warnings"],
                                                         erc["erc"]), file=sys.stderr)
        return 1
    if check:
        bad = hardware_gen.stale(desc)
        if hardware_gen.model_stale(desc):
            bad.append("board.json analog.stack levels_mT/lateral_per_mm2/crosstalk_mT")
        if bad:
            print("stale: %s (run: python -m host_tools hardware)" % ", ".join(bad), file=sys.stderr)
            return 1
        print("hardware/generated is up to date; the netlist's ERC is clean")
        return 0
    if hardware_gen.write_model(desc):
        print("wrote hardware/board.json analog.stack model")
    hardware_gen.write_all(desc)
    for name in sorted(hardware_gen.outputs(desc)):
        print("wrote hardware/generated/" + name)
    return 0
