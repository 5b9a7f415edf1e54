"""The seeds' line notation (firmware.rules.lines): line names, both colours, both geometries,
parsing, writing, errors; and the module runs under MicroPython and compiles with mpy-cross."""

import os
import shutil
import subprocess
import sys

import pytest

from firmware.rules import get_rules
from firmware.rules.lines import (parse_lines, format_lines, pip_of_line, line_of_pip,
                                  LineNotationError, line_k)

# rules.md §1.2, typed from its table: line -> (short White, short Black, long White, long Black)
TABLE = {
    "1": (1, 24, 24, 12), "2": (2, 23, 23, 11), "3": (3, 22, 22, 10), "4": (4, 21, 21, 9),
    "5": (5, 20, 20, 8), "6": (6, 19, 19, 7), "7": (7, 18, 18, 6), "8": (8, 17, 17, 5),
    "9": (9, 16, 16, 4), "10": (10, 15, 15, 3), "11": (11, 14, 14, 2), "12": (12, 13, 13, 1),
    "XII": (13, 12, 12, 24), "XI": (14, 11, 11, 23), "X": (15, 10, 10, 22), "IX": (16, 9, 9, 21),
    "VIII": (17, 8, 8, 20), "VII": (18, 7, 7, 19), "VI": (19, 6, 6, 18), "V": (20, 5, 5, 17),
    "IV": (21, 4, 4, 16), "III": (22, 3, 3, 15), "II": (23, 2, 2, 14), "I": (24, 1, 1, 13),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_line_to_pip_matches_the_rules_table(name):
    sw, sb, lw, lb = TABLE[name]
    short = get_rules("short")
    long_ = get_rules("long")
    assert pip_of_line(name, 0) == sw and pip_of_line(name, 1) == sb
    assert pip_of_line(name, 0, short) == sw and pip_of_line(name, 1, short) == sb
    assert pip_of_line(name, 0, long_) == lw and pip_of_line(name, 1, long_) == lb
    assert line_of_pip(sw, 0) == name and line_of_pip(sb, 1) == name
    assert line_of_pip(lw, 0, long_) == name and line_of_pip(lb, 1, long_) == name


def test_lower_case_and_cyrillic_letters():
    assert line_k("xii") == line_k("XII") == 13
    assert line_k("\u0425II") == 13          # Cyrillic Х as seed 000 writes it
    assert line_k("V\u0406") == line_k("VI")  # Cyrillic І


CASES = [
    # (text, side, expected movements (src, dst, marked))
    ("XII-5 I-1", 0, [(13, 8, False), (24, 23, False)]),
    ("12-4-3", 1, [(13, 9, False), (9, 6, False)]),
    ("XII-4(2) 8-4(2)", 0, [(13, 9, False)] * 2 + [(8, 4, False)] * 2),
    ("VIII-6* VI-4", 1, [(8, 2, True), (6, 2, False)]),
    ("bar>I XII-6", 0, [(25, 24, False), (13, 7, False)]),
    ("bar-1 XII-6", 0, [(25, 24, False), (13, 7, False)]),
    ("bar>III-6", 0, [(25, 22, False), (22, 16, False)]),
    ("bar>1*-6", 1, [(25, 24, True), (24, 18, False)]),
    ("12>VIII*", 1, [(13, 8, True)]),
    ("6>off(4)", 0, [(6, 0, False)] * 4),
    ("VI>\u0414", 1, [(6, 0, False)]),
    ("3-6", 0, [(3, 0, False)]),            # a larger die bears off
    ("-", 0, []),
    ("", 1, []),
    ("IX-1*-6", 0, [(16, 15, True), (15, 9, False)]),
    ("XII-5, I-1", 0, [(13, 8, False), (24, 23, False)]),
]


@pytest.mark.parametrize("text,side,expected", CASES)
def test_parse(text, side, expected):
    assert parse_lines(text, side) == expected


def test_long_nardy_geometry():
    long_ = get_rules("long")
    # White's head is line 1 (pip 24), Black's is XII (pip 24): both move six lines on
    assert parse_lines("1-6", 0, long_) == [(24, 18, False)]
    assert parse_lines("XII-6", 1, long_) == [(24, 18, False)]
    assert parse_lines("XII>VII", 1, long_) == [(24, 19, False)]


BAD = [
    ("XIII-5", "not a line"),
    ("XII", "no distance"),
    ("XII-7", "distance is 1..6"),
    ("XII-0", "distance is 1..6"),
    ("XII>XII", "does not move forward"),
    ("8>9", "does not move forward"),          # White moves from 9 down to 1
    ("off>3", "cannot be a source"),
    ("6>bar", "cannot be a destination"),
    ("6>off-1", "after bearing off"),
    ("XII-5(5)", "count"),
    ("XII-", "followed by a distance"),
    ("-5", "no source"),
]


@pytest.mark.parametrize("text,why", BAD)
def test_errors_say_why(text, why):
    with pytest.raises(LineNotationError) as info:
        parse_lines(text, 0)
    assert why in str(info.value)


def test_format_round_trips_through_parse():
    steps = [(13, 9, 4, 0), (13, 9, 4, 0), (9, 5, 4, 1), (9, 5, 4, 1)]
    text = format_lines(steps, 0)
    assert text == "XII-4-4*(2)"
    moves = parse_lines(text, 0)
    assert [(a, b) for a, b, _ in moves] == [(13, 9), (9, 5)] * 2
    assert format_lines([(25, 22, 3, 0), (22, 16, 6, 1)], 0) == "bar>III-6*"
    assert format_lines([(25, 24, 1, 1), (24, 18, 6, 0)], 1) == "bar>1*-6"
    assert format_lines([(3, 0, 5, 0), (2, 0, 2, 0)], 1) == "III>off II>off"
    assert format_lines([], 0) == "-"
    for text, side, _ in CASES:
        moves = parse_lines(text, side)
        if not moves or any(b == 0 or a == 25 for a, b, _ in moves):
            continue
        steps = [(a, b, a - b, int(h)) for a, b, h in moves]
        assert parse_lines(format_lines(steps, side), side) == moves, text


def _micropython():
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else shutil.which("micropython")


@pytest.mark.micropython
def test_lines_under_micropython(tmp_path):
    exe = _micropython()
    if exe is None:
        pytest.skip("no micropython")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = tmp_path / "lines_mp.py"
    script.write_text(
        "from firmware.rules.lines import parse_lines, format_lines\n"
        "print(parse_lines('XII-5 I-1', 0))\n"
        "print(parse_lines('bar>1*-6', 1))\n"
        "print(parse_lines('VI>\\u0414', 1))\n"
        "print(format_lines([(13, 9, 4, 0), (13, 9, 4, 0)], 0))\n"
        "try:\n    parse_lines('XIII-5', 0)\nexcept ValueError as e:\n    print('error', e)\n")
    env = dict(os.environ, MICROPYPATH=root)
    out = subprocess.run([exe, "-X", "heapsize=230K", str(script)], capture_output=True,
                         text=True, env=env, cwd=root, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "[(13, 8, False), (24, 23, False)]",
        "[(25, 24, True), (24, 18, False)]",
        "[(6, 0, False)]",
        "XII-4(2)",
        "error 'XIII' is not a line (1..12 or I..XII)",
    ]


def test_mpy_cross_compiles_lines(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if not os.path.exists(exe):
        exe = shutil.which("mpy-cross")
    if exe is None:
        pytest.skip("no mpy-cross")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in ("lines.py", "legal_cli.py"):
        src = os.path.join(root, "firmware", "rules", name)
        if not os.path.exists(src):
            continue
        out = subprocess.run([exe, "-o", str(tmp_path / (name + ".mpy")), src],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
