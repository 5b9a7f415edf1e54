"""Bounded reading of untrusted JSON (hall messages, records, pages' bodies): size, depth and types checked, refusals with a reason.

Every external input the station, its pages, ``export`` and ``director verify`` read goes through
``loads``: the size is checked before a byte is parsed, the nesting depth is counted by a scan
that never recurses (so 100,000 levels cost a scan and a refusal, never a RecursionError), only
UTF-8 is read, and the constants JSON does not have (NaN, Infinity, numbers that overflow to
them, integers longer than ``MAX_DIGITS``) are refused. ``fields`` then checks a message's
fields against a small schema. Each refusal is a ``Refused`` (a ValueError) whose text says why.
"""

import json
import re

MAX_BYTES = 64 * 1024          # one MQTT message or one record line
MAX_RECORD_BYTES = 16 * 1024 * 1024    # a whole exported record (a file, a store row)
MAX_DEPTH = 32                 # the deepest the protocol nests is 4 (lost: [[a, b, why]])
MAX_DIGITS = 30                # the largest number the protocol carries is a millisecond count

_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_LONG_NUMBER = re.compile(r"(?<![\w.\"])-?\d{%d,}" % (MAX_DIGITS + 1))


class Refused(ValueError):
    """Input refused before or while it was parsed; ``str()`` says why."""


def _constant(name):
    raise Refused("not JSON: %s" % name)


def _number(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise Refused("a number out of range: %s" % text[:40])
    return value


def depth(text):
    """The deepest nesting of arrays and objects in ``text`` (strings skipped), by a scan."""
    level = deepest = 0
    for m in _NESTING.finditer(text):
        c = m.group()
        if c in "[{":
            level += 1
            if level > deepest:
                deepest = level
        elif c in "]}":
            level -= 1
    return deepest


def loads(data, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH):
    """The JSON value of ``data`` (bytes or str), or Refused: too large, not UTF-8, nested
    deeper than ``max_depth``, a non-JSON constant or an overlong number."""
    if len(data) > max_bytes:
        raise Refused("too large: %d bytes, at most %d" % (len(data), max_bytes))
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refused("not UTF-8 (byte %d)" % exc.start) from None
    elif not isinstance(data, str):
        raise Refused("not text: %s" % type(data).__name__)
    if data.count("[") + data.count("{") > max_depth and depth(data) > max_depth:
        raise Refused("nested deeper than %d levels" % max_depth)
    if _LONG_NUMBER.search(data) and _LONG_NUMBER.search(_NESTING.sub('""', data)):
        raise Refused("a number longer than %d digits" % MAX_DIGITS)
    try:
        return json.loads(data, parse_constant=_constant, parse_float=_number)
    except Refused:
        raise
    except (ValueError, RecursionError) as exc:
        raise Refused("not JSON: %s" % str(exc)[:80]) from None


def obj(data, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH):
    """``loads``, and the value must be an object."""
    value = loads(data, max_bytes, max_depth)
    if not isinstance(value, dict):
        raise Refused("not a JSON object: %s" % type(value).__name__)
    return value


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# schema kinds: what a field may hold (None is always allowed: the field is absent)
INT, STR, BOOL, LIST, DICT, NUM, ANY = "int", "str", "bool", "list", "dict", "num", "any"
_CHECK = {
    INT: is_int,
    STR: lambda v: isinstance(v, str),
    BOOL: lambda v: isinstance(v, bool),
    LIST: lambda v: isinstance(v, list),
    DICT: lambda v: isinstance(v, dict),
    NUM: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    ANY: lambda v: True,
}


def fields(msg, schema, what="message"):
    """Refused unless every field of ``msg`` named in ``schema`` ({name: kind or (kind, lo,
    hi)}) is absent, None, or of its kind (and, for numbers, within lo..hi)."""
    for name, kind in schema.items():
        v = msg.get(name)
        if v is None:
            continue
        lo = hi = None
        if isinstance(kind, tuple):
            kind, lo, hi = kind
        if not _CHECK[kind](v):
            raise Refused("%s: %s is not %s" % (what, name, kind))
        if lo is not None and not lo <= v <= hi:
            raise Refused("%s: %s out of range (%s..%s)" % (what, name, lo, hi))
    return msg
