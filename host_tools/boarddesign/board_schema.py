"""The hardware description checked on the host: hardware/board.schema.json (JSON Schema, with
the jsonschema package) and the firmware's own range checks (firmware/drivers/board_check.py,
which also run on the board), each problem named by its field."""

import json
import os
from host_tools import REPO_ROOT

SCHEMA = os.path.join(REPO_ROOT, "hardware", "board.schema.json")
DESCRIPTION = os.path.join(REPO_ROOT, "hardware", "board.json")


def _field(path):
    out = ""
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else ("." if out else "") + str(p)
    return out or "(the description)"


def problems(desc):
    """Every problem of a decoded description: ["field: message", ...] (schema first, then the
    firmware's first refusal); empty when the board can use it."""
    out = []
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        with open(SCHEMA) as f:
            schema = json.load(f)
        validator = jsonschema.Draft202012Validator(schema)
        for err in sorted(validator.iter_errors(desc), key=lambda e: list(map(str, e.absolute_path))):
            out.append("%s: %s" % (_field(err.absolute_path), err.message))
    from firmware.drivers.board_check import check
    try:
        check(desc)
    except ValueError as exc:
        out.append(str(exc))
    return out


def check_file(path=DESCRIPTION):
    """["field: message", ...] for a board.json file (not JSON at all: one problem saying so)."""
    try:
        with open(path, "rb") as f:
            desc = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError) as exc:
        return ["%s: not a JSON description: %s" % (path, exc)]
    return problems(desc)
