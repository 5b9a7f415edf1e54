"""Calibrate a board's analog Hall sensors: sample every slot empty, under White and under Black, store thresholds.

The board's app is interrupted (mpremote's raw REPL), the firmware's own scanner reads each slot
(``hw.scanner.read_code``), and the host asks you to take the checkers off, then to put White
checkers (north pole up) and Black ones (south pole up) on the slots of one zone after another.
Stored on the board where ``hw.storage`` keeps its files (/data): the empty-slot baselines under the
name the firmware loads at start-up (``hardware.CALIBRATION``, the scanner's own format), and the
same name + ``.json``, per slot
the three levels, the two thresholds half-way between empty and each colour, and the slots whose
magnets move their sensor too little for the firmware's fixed band (``analog.on_codes``).
"""

import argparse
import ast
import json
import sys

from firmware.board.zonemap import ZONES, zone_name
from host_tools import prog
from host_tools.device.serial_link import find_board_ports

SAMPLES = 16
ZONE_NAMES = [zone_name(z) for z in range(ZONES)]
Q = 4           # the scanner keeps levels in 1/16 code

# Runs on the board once: the hardware as the firmware builds it.
_OPEN = """
from firmware.drivers import hardware as _hwmod
_hw = _hwmod.build()
_sc = getattr(_hw, 'scanner', None)
print(repr({'front_end': _hw.config.front_end, 'first': list(_hw.config.zone_first),
            'cap': list(_hw.config.zone_cap), 'analog': _hw.config.analog}))
"""

# Runs on the board per batch: mean, min and max of SAMPLES conversions of each slot.
_SAMPLE = """
_out = []
for _s in %(slots)r:
    _v = [_sc.read_code(_s) for _ in range(%(n)d)]
    _out.append((sum(_v) / len(_v), min(_v), max(_v)))
print(repr(_out))
"""

# Written where hw.storage keeps its files (hardware.DATA_ROOT), temp file then rename.
_STORE = """
import os
def _put(name, data):
    path = _hwmod.DATA_ROOT + '/' + name
    with open(path + '.tmp', 'wb') as f:
        f.write(data)
    os.rename(path + '.tmp', path)
try:
    os.mkdir(_hwmod.DATA_ROOT)
except OSError:
    pass
_put(_hwmod.CALIBRATION, %(baselines)r)
_put(_hwmod.CALIBRATION + '.json', %(report)r)
_sc.load_calibration(%(baselines)r)
print('stored')
"""


class CalibrationError(Exception):
    """Something the user must fix."""


class BoardSensors:
    """The firmware's analog scanner on the board, driven through mpremote's raw REPL."""

    def __init__(self, transport):
        self.transport = transport
        self.layout = ast.literal_eval(transport.exec(_OPEN).decode().strip())
        if self.layout["front_end"] != "analog":
            raise CalibrationError("this board's sensors are %s switches: there is nothing to "
                                   "calibrate" % self.layout["front_end"])

    def slots(self, zone):
        first = self.layout["first"][zone]
        return list(range(first, first + self.layout["cap"][zone]))

    def all_slots(self):
        return [s for z in range(len(ZONE_NAMES)) for s in self.slots(z)]

    def sample(self, slots, n=SAMPLES):
        """{slot: (mean, min, max)} in ADC codes."""
        got = ast.literal_eval(self.transport.exec(_SAMPLE % {"slots": slots, "n": n}).decode().strip())
        return dict(zip(slots, got))

    def store(self, baselines, report):
        self.transport.exec(_STORE % {"baselines": baselines, "report": report})


def thresholds(empty, white, black, on_codes):
    """Per slot: the levels, thresholds half-way to each colour, and whether the band fits.

    ``empty`` maps every slot to its (mean, min, max); ``white`` and ``black`` the slots sampled
    under a checker of that colour. A slot is ``weak`` when a checker moves it less than the
    firmware's band plus the noise seen, so that it could read empty under a checker."""
    slots = {}
    for s, (mean, lo, hi) in sorted(empty.items()):
        row = {"empty": round(mean, 1), "noise": hi - lo}
        for name, table, sign in (("white", white, -1), ("black", black, 1)):
            if s in table:
                level = table[s][0]
                row[name] = round(level, 1)
                row[name + "_threshold"] = round((mean + level) / 2, 1)
                moved = (level - mean) * sign
                row["weak"] = row.get("weak", False) or moved < on_codes + (hi - lo)
        slots[str(s)] = row
    return slots


def baseline_bytes(empty):
    """The baselines in the scanner's format: one uint16 per slot, in 1/16 code."""
    import array
    n = max(empty) + 1
    return bytes(array.array("H", [int(round(empty[s][0] * (1 << Q))) if s in empty else 0
                                   for s in range(n)]))


def ask_on_terminal(text):
    print(text)
    input("  ... then press Enter ")


def calibrate(transport, zones=None, ask=ask_on_terminal, out=sys.stdout, samples=SAMPLES):
    """The whole procedure on an open transport (in the raw REPL); returns the report dict."""
    board = BoardSensors(transport)
    zones = range(len(ZONE_NAMES)) if zones is None else zones
    ask("Take every checker off the board.")
    print("Sampling %d slots empty" % len(board.all_slots()), file=out, flush=True)
    empty = board.sample(board.all_slots(), samples)
    white, black = {}, {}
    for i, z in enumerate(zones):
        slots = board.slots(z)
        where = "point " + ZONE_NAMES[z] if z < 24 else ZONE_NAMES[z]
        ask("[%d/%d] Put White checkers (north pole up) on all %d slots of %s."
            % (i + 1, len(zones), len(slots), where))
        white.update(board.sample(slots, samples))
        ask("[%d/%d] Now Black checkers (south pole up) on those %d slots of %s."
            % (i + 1, len(zones), len(slots), where))
        black.update(board.sample(slots, samples))
    on_codes = board.layout["analog"]["on_codes"]
    report = {"samples": samples, "on_codes": on_codes,
              "slots": thresholds(empty, white, black, on_codes)}
    report["weak"] = [int(s) for s, row in report["slots"].items() if row.get("weak")]
    board.store(baseline_bytes(empty), json.dumps(report).encode())
    print("Stored the baselines of %d slots and %d thresholds on the board; %d weak slot(s)%s"
          % (len(empty), len(white) + len(black), len(report["weak"]),
             (": " + ", ".join(map(str, report["weak"]))) if report["weak"] else ""), file=out)
    return report


def main(argv):
    p = argparse.ArgumentParser(prog=prog("calibrate"), description=__doc__.split("\n\n")[0])
    p.add_argument("--port", help="serial port of the board (default: the first one found)")
    p.add_argument("--zones", help="only these zones, comma separated (1..24, bar0, bar1, off0, off1)")
    p.add_argument("--empty-only", action="store_true", help="only the empty-board baselines")
    p.add_argument("--samples", type=int, default=SAMPLES, help="readings per slot (default %d)" % SAMPLES)
    args = p.parse_args(argv)
    port = args.port or next(iter(find_board_ports()), None)
    if port is None:
        print("calibrate: no board found: plug one in over USB, or give --port", file=sys.stderr)
        return 1
    zones = None
    if args.empty_only:
        zones = []
    elif args.zones:
        try:
            zones = [ZONE_NAMES.index(w.strip()) for w in args.zones.split(",")]
        except ValueError:
            print("calibrate: zones are 1..24, bar0, bar1, off0, off1", file=sys.stderr)
            return 2
    from mpremote.transport import TransportError, TransportExecError
    from host_tools.cmd_deploy import enter_raw_repl, open_transport
    try:
        transport = open_transport(port)
    except TransportError as exc:
        print("calibrate: cannot open %s: %s" % (port, exc), file=sys.stderr)
        return 1
    try:
        enter_raw_repl(transport)
        calibrate(transport, zones, samples=args.samples)
        print("Resetting the board")
        transport.exec_raw_no_follow("import time, machine\ntime.sleep_ms(100)\nmachine.reset()")
        return 0
    except CalibrationError as exc:
        print("calibrate: %s" % exc, file=sys.stderr)
        return 1
    except TransportExecError as exc:
        lines = exc.error_output.strip().splitlines()
        print("calibrate: the board's firmware could not sample its sensors: %s"
              % (lines[-1] if lines else exc), file=sys.stderr)
        return 1
    except (TransportError, KeyboardInterrupt) as exc:
        print("calibrate: stopped: %s" % exc, file=sys.stderr)
        return 1
    finally:
        transport.close()
