"""The legal-move service's requests (firmware/rules/legal_cli.py): every refusal word for word,
how points, bar and off land on the board, the rules cache, and how ``serve`` closes an answer that
failed half-way."""

import io
import json

import pytest

import firmware.rules.legal_cli as cli
from firmware.rules import Position, get_rules
from firmware.rules.legal_cli import RequestError, read_request, serve

# backgammon's start seen from the mover: its checkers positive, the opponent's negative
START = [0] * 24
for _p, _n in {24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}.items():
    START[_p - 1] = _n


def req(**change):
    r = {"variant": "backgammon", "points": list(START), "dice": [5, 1]}
    r.update(change)
    return r


def _with(i, v):
    pts = list(START)
    pts[i - 1] = v
    return pts


BAD = [
    ([], "a request is a JSON object"),
    ({"points": START, "dice": [5, 1]}, "missing variant"),
    (req(variant=3), "missing variant"),
    (req(options="x"), "options must be an object"),
    (req(options=1), "options must be an object"),
    (req(variant="chess"), "unknown variant 'chess' (variants: backgammon, jacquet, long, matador, persian, short)"),
    (req(variant="short", options={"colour": "red"}), "short has no option 'colour' (options: cube, scoring)"),
    (req(points="x"), "points must be a list of 24 counts"),
    (req(points=START[:23]), "points must be a list of 24 counts"),
    (req(bar="x"), "bar must be [mover, opponent] counts"),
    (req(bar=[1]), "bar must be [mover, opponent] counts"),
    (req(bar=[1, "a"]), "bar must be [mover, opponent] counts"),
    (req(bar=["a", 1]), "bar must be [mover, opponent] counts"),
    (req(off=[1.0, 0]), "off must be [mover, opponent] counts"),
    (req(bar=[-1, 0]), "bar counts cannot be negative"),
    (req(off=[0, -1]), "off counts cannot be negative"),
    (req(dice="x"), "dice must be [a, b]"),
    (req(dice=[1]), "dice must be [a, b]"),
    (req(dice=[0, 1]), "dice must be two numbers 1..6, got [0, 1]"),
    (req(dice=[1, 7]), "dice must be two numbers 1..6, got [1, 7]"),
    (req(dice=[2.0, 1]), "dice must be two numbers 1..6, got [2.0, 1]"),
    (req(dice=[True, 1]), "dice must be two numbers 1..6, got [true, 1]"),
    (req(first_turn="yes"), "first_turn must be true or false"),
    (req(first_turn=1), "first_turn must be true or false"),
    (req(points=_with(24, [1, 1])), "point 24 holds checkers of both colours"),
    (req(points=_with(24, [2])), "point 24 must be a count"),
    (req(points=_with(24, [-1, 0])), "point 24 must be a count"),
    (req(points=_with(24, [0, -1])), "point 24 must be a count"),
    (req(points=_with(24, ["a", 0])), "point 24 must be a count"),
    (req(points=_with(24, [0, "a"])), "point 24 must be a count"),
    (req(points=_with(24, 1.5)), "point 24 must be a whole number, got 1.5"),
    (req(points=_with(24, "2")), 'point 24 must be a whole number, got "2"'),
    (req(points=_with(24, 1)), "the mover has 14 checkers (points + bar + off), not 15"),
    (req(points=_with(1, -3)), "the opponent has 16 checkers (points + bar + off), not 15"),
    (req(points=_with(24, 1), off=[1, 0]), None),
    (req(variant="long", points=_with(1, 0), bar=[0, 2]), "black has checkers on the bar, but long has no hitting"),
    (req(points=[0] * 24, off=[15, 0], bar=[0, 0]), "the opponent has 0 checkers (points + bar + off), not 15"),
    (req(points=[0] * 12 + [-15] + [0] * 11, off=[15, 0]), "the mover has borne off every checker: the game is over"),
]


@pytest.mark.parametrize("request_,why", BAD)
def test_each_bad_request_is_refused_with_its_reason(request_, why):
    if why is None:
        read_request(request_, {})                   # the control: a valid request
        return
    with pytest.raises(RequestError) as err:
        read_request(request_, {})
    assert str(err.value) == why


def test_points_bar_and_off_land_on_the_board():
    pts = [0] * 24
    pts[23] = [13, 0]                               # the pair form, one side 0
    pts[0] = [0, 2]
    pts[11] = -11
    cache = {}
    rules, pos, dice, first = read_request({"variant": "long", "points": pts, "off": [2, 2],
                                            "dice": [3, 4], "first_turn": True}, cache)
    assert (dice, first, pos.turn) == ((3, 4), True, 0)
    assert pos.count(0, 24) == 13 and pos.off(0) == 2 and pos.off(1) == 2
    # long nardy: the mover's 1 is the opponent's 13, the mover's 12 the opponent's 24
    assert pos.count(1, 13) == 2 and pos.count(1, 24) == 11
    assert cache == {"long{}": rules} and read_request(
        {"variant": "long", "points": pts, "off": [2, 2], "dice": [3, 4]}, cache)[0] is rules
    pts = _with(24, 1)
    pts[0] = -1
    rules, pos, _d, first = read_request(req(points=pts, bar=[1, 1], off=[0, 0]), {})
    assert first is False and pos.bar(0) == 1 and pos.bar(1) == 1 and pos.off(1) == 0
    assert pos.count(1, 24) == 1 and pos.count(1, 6) == 5      # the mover's 1 and 19
    assert rules is not get_rules("backgammon") and rules.name == "backgammon"
    assert Position.decode(pos.encode()) == pos


def _serve(text, out=None):
    out = out or io.StringIO()
    errors = serve(io.StringIO(text), out)
    return errors, [json.loads(x) for x in out.getvalue().splitlines()]


def test_serve_skips_blank_lines_and_counts_errors():
    good = json.dumps(req())
    errors, answers = _serve("\n   \n" + good + "\n" + "x" * 100 + "\n" + good)
    assert errors == 1 and len(answers) == 3
    assert answers[1] == {"error": "not a JSON object: " + "x" * 60}
    assert len(answers[0]["legal"]) == len(answers[2]["legal"]) == 8


def test_serve_closes_an_answer_that_failed_half_way(monkeypatch):
    calls = []

    def broken(steps):
        calls.append(steps)
        if len(calls) == 2:
            raise MemoryError("out of heap")
        return "24/23 13/8"

    monkeypatch.setattr(cli, "format_steps", broken)
    good = json.dumps(req())
    errors, answers = _serve(good + "\n" + json.dumps([1]) + "\n")
    assert errors == 2
    first, second = answers
    assert first["error"] == "MemoryError: out of heap" and len(first["legal"]) == 1
    assert second == {"error": "a request is a JSON object"}


def test_serve_flushes_after_every_line():
    class Out(io.StringIO):
        flushes = 0

        def flush(self):
            Out.flushes += 1

    out = Out()
    serve(io.StringIO(json.dumps(req()) + "\n\n" + json.dumps(req()) + "\n"), out)
    assert Out.flushes == 2 and len(out.getvalue().splitlines()) == 2


def test_serve_reads_bytes_and_answers_an_overlong_or_undecodable_line():
    good = json.dumps(req()).encode()
    exact = b" " * (cli.MAX_LINE - len(good) - 1) + good + b"\n"       # MAX_LINE bytes in all
    last = b" " * (cli.MAX_LINE - len(good)) + good                   # MAX_LINE, no newline
    full = b" " * (cli.MAX_LINE - len(good)) + good + b"\n"         # MAX_LINE and its newline
    over = b" " + full                                                  # one byte more: refused
    lines = [good + b"\n", b"[" * (cli.MAX_LINE + 1) + b"x" * 5000 + b"\n", exact,
             b"\xff\xfe\n", full, over, last]
    out = io.StringIO()
    assert serve(io.BytesIO(b"".join(lines)), out) == 3
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(answers) == 7
    assert len(answers[4]["legal"]) == 8
    assert answers[5] == {"error": "a request line is at most %d bytes" % cli.MAX_LINE}
    assert answers[1] == {"error": "a request line is at most %d bytes" % cli.MAX_LINE}
    assert answers[3] == {"error": "a request line must be UTF-8 text"}
    assert len(answers[0]["legal"]) == len(answers[2]["legal"]) == len(answers[6]["legal"]) == 8
    text = io.StringIO(full.decode() + over.decode())                 # a text stream alike
    out = io.StringIO()
    assert serve(text, out) == 1
    assert [len(json.loads(x)) for x in out.getvalue().splitlines()] == [1, 1]


def test_serve_writes_to_an_output_without_flush():
    class Bare:
        def __init__(self):
            self.parts = []

        def write(self, text):
            self.parts.append(text)

    out = Bare()
    assert serve(io.StringIO(json.dumps(req()) + "\n"), out) == 0
    assert len(json.loads("".join(out.parts))["legal"]) == 8
