"""The `legal` command: JSON lines in and out, the point conversion of both geometries, hand
cases of rules.md §10, agreement with gnubg, error lines, and the same answers under MicroPython."""

import io
import json
import os
import subprocess
import sys

import pytest

from firmware.rules import get_rules, Position, Turn
from firmware.rules.legal_cli import serve
from host_tools.bench import positions as P

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_lines(lines):
    out = io.StringIO()
    serve(io.StringIO("".join(line + "\n" for line in lines)), out)
    return [json.loads(x) for x in out.getvalue().splitlines()]


def request(points, dice, variant="backgammon", bar=(0, 0), off=None, **extra):
    """points: {mover point: count}, negative counts for the opponent (on the mover's points)."""
    pts = [0] * 24
    for p, n in points.items():
        pts[p - 1] = n
    if off is None:
        mine = sum(n for n in pts if n > 0) + bar[0]
        theirs = -sum(n for n in pts if n < 0) + bar[1]
        off = (15 - mine, 15 - theirs)
    req = {"variant": variant, "points": pts, "bar": list(bar), "off": list(off), "dice": list(dice)}
    req.update(extra)
    return json.dumps(req)


def apply_text(points, bar, text, hitting=True):
    """Hand application of move text to the mover's points (for expected answers)."""
    pts = dict(points)
    bar = list(bar)
    for word in text.split():
        count = 1
        if word.endswith(")"):
            word, n = word[:-1].split("(")
            count = int(n)
        chain = [w.rstrip("*") for w in word.split("/")]
        chain = [25 if w == "bar" else 0 if w == "off" else int(w) for w in chain]
        for _ in range(count):
            for a, b in zip(chain, chain[1:]):
                if a == 25:
                    bar[0] -= 1
                else:
                    pts[a] -= 1
                if b:
                    if pts.get(b, 0) == -1 and hitting:
                        pts[b] = 0
                        bar[1] += 1
                    pts[b] = pts.get(b, 0) + 1
    return tuple(pts.get(p, 0) for p in range(1, 25)), tuple(bar)


def result_set(answer):
    return {(tuple(x["points"]), tuple(x["bar"])) for x in answer["legal"]}


START = {24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}
LONG_START = {24: 15, 12: -15}

# (name, position {mover point: count}, bar, dice, variant, first_turn, expected plays as text)
HAND = [
    ("S1 opening 5-1", START, (0, 0), (5, 1), "backgammon", False,
     ["13/8 24/23", "13/7", "13/8 6/5", "8/3 24/23", "8/3 8/7", "8/3 6/5", "24/18", "8/2"]),
    ("S2 one die only: the larger", {24: 1, 1: 14, 13: -2, 22: -13}, (0, 0), (6, 5),
     "backgammon", False, ["24/18"]),
    ("S3 the smaller when the larger cannot", {24: 1, 1: 14, 13: -2, 18: -2, 22: -11}, (0, 0),
     (6, 5), "backgammon", False, ["24/19"]),
    ("S4 bear-off opened mid-turn", {10: 1, 1: 14, 9: -2, 24: -13}, (0, 0), (6, 1),
     "backgammon", False, ["10/4 4/3", "10/4 1/off"]),
    ("S5", {10: 1, 1: 14, 9: -2, 3: -2, 24: -11}, (0, 0), (6, 1), "backgammon", False,
     ["10/4 1/off"]),
    ("S6 bear-off in the intermediate position", {5: 1, 2: 1, 24: -15}, (0, 0), (6, 4),
     "backgammon", False, ["5/off 2/off", "5/1 2/off"]),
    ("S7 no bear-off past a higher checker", {6: 1, 3: 1, 24: -15}, (0, 0), (5, 4),
     "backgammon", False, ["6/1 3/off", "6/2 3/off"]),
    ("S8", {6: 1, 1: 1, 24: -15}, (0, 0), (6, 5), "backgammon", False,
     ["6/off 1/off", "6/1 1/off"]),
    ("S9 enter then play", {13: 13, 19: -2, 20: -2, 22: -2, 23: -2, 24: -2, 1: -5}, (2, 0),
     (4, 4), "backgammon", False,
     ["bar/21(2) 13/9(2)", "bar/21(2) 13/9 21/17", "bar/21(2) 13/5", "bar/21 21/13 bar/21",
      "bar/21(2) 21/17(2)"]),
    ("S10 one enters, the 3 is lost", {13: 13, 19: -2, 21: -2, 22: -2, 23: -2, 24: -2, 1: -5},
     (2, 0), (5, 3), "backgammon", False, ["bar/20"]),
    ("S11 hit on entry", {13: 14, 19: -2, 21: -1, 1: -12}, (1, 0), (6, 4), "backgammon", False,
     ["bar/21* 21/15", "bar/21* 13/7"]),
    ("L1 first 6-6", LONG_START, (0, 0), (6, 6), "long", True, ["24/18(2)"]),
    ("L2 first 4-4", LONG_START, (0, 0), (4, 4), "long", True, ["24/16(2)"]),
    ("L3 first 3-3", LONG_START, (0, 0), (3, 3), "long", True, ["24/18(2)", "24/21 24/15"]),
    ("L4 first 5-5", LONG_START, (0, 0), (5, 5), "long", True, ["24/4"]),
    # one checker from the head, and 18/12 lands on the opposing head: one six only
    ("long, not the first turn", LONG_START, (0, 0), (6, 6), "long", False, ["24/18"]),
]


@pytest.mark.parametrize("case", HAND, ids=[c[0] for c in HAND])
def test_rules_md_cases(case):
    name, points, bar, dice, variant, first, plays = case
    (answer,) = run_lines([request(points, dice, variant, bar, first_turn=first)])
    hitting = variant != "long"
    expected = {apply_text(points, bar, t, hitting) for t in plays}
    assert result_set(answer) == expected
    assert len(answer["legal"]) == len(plays)
    for x in answer["legal"]:
        assert sum(n for n in x["points"] if n > 0) + x["bar"][0] + x["off"][0] == 15
        assert -sum(n for n in x["points"] if n < 0) + x["bar"][1] + x["off"][1] == 15


def test_move_texts_are_standard_notation():
    (answer,) = run_lines([request(START, (5, 1))])
    assert sorted(x["move"] for x in answer["legal"]) == sorted(
        ["24/23 13/8", "13/7", "13/8 6/5", "24/23 8/3", "8/7 8/3", "8/3 6/5", "24/18", "8/2"])
    (answer,) = run_lines([request({13: 14, 19: -2, 21: -1, 1: -12}, (6, 4), bar=(1, 0))])
    assert sorted(x["move"] for x in answer["legal"]) == ["bar/21* 13/7", "bar/21*/15"]


def test_no_move_is_an_empty_list():
    closed = {13: 15, 19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 24: -2, 1: -3}
    pts = dict(closed)
    pts[13] = 14
    (answer,) = run_lines([request(pts, (6, 5), bar=(1, 0))])
    assert answer == {"legal": []}


def test_long_nardy_conversion_puts_the_opposing_head_on_point_12():
    """Opponent's own point j is the mover's ((j + 11) mod 24) + 1: its head (24) is the
    mover's 12, its point 13 the mover's 1, its point 1 the mover's 13."""
    rules = get_rules("long")
    for j, mover in ((24, 12), (13, 1), (12, 24), (1, 13)):
        assert ((j + 11) % 24) + 1 == mover
        assert rules.xlat[mover] == j
    # an opposing checker on its point 13 (the mover's 1) blocks nothing of 24/18 but a
    # checker on its 7 (the mover's 19) blocks 24/19
    pts = {24: 15, 12: -14, 19: -1}
    (answer,) = run_lines([request(pts, (5, 2), "long", first_turn=False)])
    assert {x["move"] for x in answer["legal"]} == {"24/17"}


def test_matador_parts():
    start = {24: 15, 1: -15}
    (a43, a66) = run_lines([request(start, (4, 3), "matador"), request(start, (6, 6), "matador")])
    assert {x["move"] for x in a43["legal"]} == {"24/17", "24/21 24/20"}
    assert {x["move"] for x in a66["legal"]} >= {"24/18(4)", "24/12(2)", "24/18 24/6"}


# -- agreement with the core and with gnubg -------------------------------------------------

def case_request(kind, own, opp, dice, variant="backgammon"):
    pts = [own[p] if own[p] else -opp[25 - p] for p in range(1, 25)]
    return json.dumps({"variant": variant, "points": pts, "bar": [own[25], opp[25]],
                       "off": [own[0], opp[0]], "dice": list(dice)})


def test_answers_are_the_core_finals():
    """The positions the command prints are exactly the core's Turn.finals()."""
    cases = P.generate(150, seed=11)
    for variant in ("backgammon", "persian"):
        rules = get_rules(variant)
        answers = run_lines([case_request(*c, variant=variant) for c in cases])
        for (kind, own, opp, dice), answer in zip(cases, answers):
            pos = Position(P.to_board(own, opp, 0), 0)
            finals = set()
            for f in Turn(rules, pos, dice).finals():
                b = f.board
                pts = tuple(b[p] if b[p] else -b[26 + 25 - p] for p in range(1, 25))
                finals.add((pts, (b[25], b[51])))
            assert result_set(answer) == finals
            assert len(answer["legal"]) == len(finals)


def test_answers_agree_with_gnubg():
    pytest.importorskip("gnubg")
    from test_gnubg_agreement import gnubg_finals
    cases = P.generate(200, seed=12)
    expected, _ = gnubg_finals(cases)
    answers = run_lines([case_request(*c) for c in cases])
    for case, answer, exp in zip(cases, answers, expected):
        if not answer["legal"]:
            # no move: gnubg's set is the unchanged position
            assert exp == {(tuple(case[1]), tuple(case[2]))}, case
            continue
        want = set()
        for own, opp in exp:
            pts = tuple(own[p] if own[p] else -opp[25 - p] for p in range(1, 25))
            want.add((pts, (own[25], opp[25])))
        assert result_set(answer) == want, case


# -- bad lines ---------------------------------------------------------------------------------

GOOD = request(START, (5, 1))

BAD_LINES = [
    ("not json", "not a JSON object"),
    ("[1, 2]", "a request is a JSON object"),
    ('{"points": []}', "missing variant"),
    (request(START, (5, 1), "chess"), "unknown variant"),
    (request(START, (0, 3)), "dice must be two numbers 1..6"),
    (request(START, (7, 1)), "dice must be two numbers 1..6"),
    (request(START, (5,)), "dice must be [a, b]"),
    (json.dumps({"variant": "backgammon", "points": [0] * 23, "dice": [1, 2]}), "24 counts"),
    (request({**START, 24: 3}, (5, 1), off=(0, 0)),
     "mover has 16 checkers"),
    (request(START, (5, 1), off=(0, 1)), "opponent has 16 checkers"),
    (request(START, (5, 1), bar=(-1, 0)), "cannot be negative"),
    (json.dumps({"variant": "backgammon", "points": [[2, 1]] + [0] * 23, "dice": [1, 2]}),
     "point 1 holds checkers of both colours"),
    (json.dumps({"variant": "backgammon", "points": ["x"] + [0] * 23, "dice": [1, 2]}),
     "point 1 must be a whole number"),
    (request(LONG_START, (5, 1), "long", bar=(1, 0), off=(0, 0)), "bar"),
    (request(START, (5, 1), first_turn="yes"), "first_turn"),
    (request(START, (5, 1), options={"colour": "red"}), "has no option"),
]


def test_bad_lines_get_an_error_and_the_next_line_is_read():
    lines = []
    for bad, _ in BAD_LINES:
        lines += [bad, GOOD]
    answers = run_lines(lines)
    assert len(answers) == 2 * len(BAD_LINES)
    for i, (bad, why) in enumerate(BAD_LINES):
        err, good = answers[2 * i], answers[2 * i + 1]
        assert set(err) == {"error"}, bad
        assert why in err["error"], (bad, err)
        assert len(good["legal"]) == 8


# -- the command, on CPython and under MicroPython ---------------------------------------------

def _requests():
    w11 = {p: 1 for p in (24, 23, 21, 20, 18, 16, 15, 13, 11, 10, 9, 7, 6, 4, 3)}
    lines = [request(START, (a, b)) for a in range(1, 7) for b in range(a, 7)]
    lines += [request(w11, (1, 1), off=(0, 15))]                    # 2,225 plays
    lines += [request(LONG_START, (d, d), "long", first_turn=True) for d in range(1, 7)]
    lines += [request({24: 15, 1: -15}, (4, 3), "matador"), request({24: 15, 1: -15}, (2, 2), "jacquet")]
    lines += [case_request(*c, variant=v) for c in P.generate(30, seed=3)
              for v in ("backgammon", "short", "persian")]
    lines += [bad for bad, _ in BAD_LINES[:5]]
    lines += ["", "   "]
    for mine, opp, dice, first in _random_game_positions("long", 15, seed=8):
        pts = [mine[p] if mine[p] else -opp[p] for p in range(1, 25)]
        lines.append(json.dumps({"variant": "long", "points": pts, "bar": [0, 0],
                                 "off": [mine[0], opp[0]], "dice": list(dice), "first_turn": first}))
    return lines


def _command(args, stdin):
    return subprocess.run([sys.executable, "-m", "host_tools", "legal"] + args, input=stdin,
                          capture_output=True, text=True, cwd=REPO, timeout=300)


def test_command_on_cpython():
    lines = _requests()
    res = _command([], "\n".join(lines) + "\n")
    assert res.returncode == 0, res.stderr
    out = res.stdout.splitlines()
    assert len(out) == len([x for x in lines if x.strip()])
    assert [json.loads(x) for x in out] == run_lines(lines)
    w11 = json.loads(out[21])
    assert len(w11["legal"]) == 2225


@pytest.mark.micropython
def test_command_under_micropython_gives_the_same_answers():
    lines = _requests()
    stdin = "\n".join(lines) + "\n"
    mp = _command(["--micropython"], stdin)
    assert mp.returncode == 0, mp.stderr
    cp = _command([], stdin)
    assert mp.stdout == cp.stdout
    assert len(json.loads(mp.stdout.splitlines()[21])["legal"]) == 2225


def test_bad_arguments():
    res = _command(["--frobnicate"], "")
    assert res.returncode == 2


# -- long nardy and takhteh against the independent naive enumerator -------------------------

def _random_game_positions(variant, n, seed):
    """Positions reached by random legal play from the start, as (mine, opp, dice, first)
    in the mover's view (opp indexed by the mover's pips)."""
    import random
    rng = random.Random(seed)
    rules = get_rules(variant)
    out = []
    while len(out) < n:
        pos = rules.start_position(0)
        for ply in range(rng.randint(0, 40)):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            first = ply < 2
            side = pos.turn
            mine = tuple(pos.board[side * 26:side * 26 + 26])
            theirs = pos.board[(1 - side) * 26:(2 - side) * 26]
            opp = tuple([theirs[0]] + [theirs[rules.xlat[p]] for p in range(1, 25)] + [theirs[25]])
            if rng.random() < 0.15:
                out.append((mine, opp, dice, first))
            turn = Turn(rules, pos, dice, first)
            plays = turn.plays()
            if plays:
                for s in rng.choice(plays):
                    turn.push(s[0], s[2])
            pos = turn.position()
            pos.turn = 1 - side
            if pos.off(side) == 15:
                break
    return out[:n]


@pytest.mark.parametrize("variant", ["long", "persian"])
def test_answers_agree_with_the_naive_enumerator(variant):
    from reference_rules import legal_results
    cases = _random_game_positions(variant, 40, seed=4)
    lines = []
    for mine, opp, dice, first in cases:
        pts = [mine[p] if mine[p] else -opp[p] for p in range(1, 25)]
        lines.append(json.dumps({"variant": variant, "points": pts, "bar": [mine[25], opp[25]],
                                 "off": [mine[0], opp[0]], "dice": list(dice), "first_turn": first}))
    for (mine, opp, dice, first), answer in zip(cases, run_lines(lines)):
        want = set()
        for m, o in legal_results(variant, {}, mine, opp, dice, first):
            want.add((tuple(m[p] if m[p] else -o[p] for p in range(1, 25)), (m[25], o[25])))
        assert result_set(answer) == want, (mine, opp, dice, first)
        assert len(answer["legal"]) == len(want)
