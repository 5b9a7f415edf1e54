"""Hostile serial input: the reader on any bytes (hypothesis), and seeded fuzzed streams through the
real firmware under MicroPython in a Pico-sized heap: no crash, every command line answered once."""

import os

import pytest
from hypothesis import given, settings, strategies as st

from firmware.board.hostlink import LINE_CAP, LineReader
from host_tools.fuzz import fuzz_serial

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000), st.integers(1, 64))
def test_reader_takes_any_bytes_in_any_chunks(data, size):
    r = LineReader()
    got = []
    for i in range(0, len(data), size):
        got += r.feed(data[i:i + size])
    assert len(got) == data.count(b"\n")
    for line in got:
        assert len(line) <= LINE_CAP
        assert all(c == "\t" or c == "\r" or " " <= c <= "~" for c in line)
    assert r.n <= LINE_CAP
    assert got == LineReader().feed(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_expected_agrees_with_the_reader_on_which_lines_are_commands(data):
    # the fuzzer's oracle works from the raw bytes on its own; on ordinary lines it must agree
    # with what the reader hands the protocol (blank or not, first word)
    lines = LineReader().feed(data + b"\n")
    commands = [ln.split()[0] for ln in lines if ln.strip()]
    want = fuzz_serial.expected(data + b"\n")
    assert len(want) == len(commands)
    for w, c in zip(want, commands):
        assert w == "" or w == c


def test_the_checker_finds_a_missing_and_a_misplaced_answer():
    want = ["status", "roll", ""]
    good = [{"t": "ok", "cmd": "status"}, {"t": "err", "cmd": "roll 9 9"},
            {"t": "err", "cmd": "xxxx"}]
    assert fuzz_serial.check_answers(want, good) == []
    assert fuzz_serial.check_answers(want, good[:2])
    assert fuzz_serial.check_answers(want, [good[1], good[0], good[2]])
    assert fuzz_serial.check_answers(want, good[:2] + [{"t": "err", "cmd": "x",
                                                        "msg": "internal error: boom"}])
    # a command refused for want of heap is answered (counted apart, not a bug)
    oom = {"t": "err", "cmd": "export", "msg": "out of memory: send it again"}
    assert fuzz_serial.out_of_memory(oom) and not fuzz_serial.is_bug(oom)
    assert fuzz_serial.check_answers(["status", "roll", "export"], good[:2] + [oom]) == []


def test_a_stream_is_fixed_by_its_seed_and_has_every_kind_of_line():
    a = fuzz_serial.Fuzzer(7).stream(3000)
    assert a == fuzz_serial.Fuzzer(7).stream(3000)
    assert a != fuzz_serial.Fuzzer(8).stream(3000)
    assert a.count(b"\n") == 3000
    lines = a.split(b"\n")
    assert any(len(ln) > 1000 for ln in lines)                        # overlong
    assert any(b"\xff" in ln or b"\xc3(" in ln for ln in lines)        # invalid UTF-8
    assert any(b"9" * 30 in ln for ln in lines)                        # huge numbers
    words = {ln.split()[0] for ln in lines if ln.split()}
    assert set(fuzz_serial.COMMANDS) <= {w.decode("latin-1") for w in words}


def test_fuzzed_lines_on_cpython():
    s = fuzz_serial.fuzz(1500, seed=11, batch=1500, micropython=False)
    assert s["failures"] == [], s["failures"]
    assert s["crashes"] == s["unanswered"] == s["internal_errors"] == s["not_json"] == 0
    assert s["answers"] == s["command_lines"] > 1000


@pytest.mark.micropython
def test_fuzzed_lines_under_micropython_230k():
    s = fuzz_serial.fuzz(3000, seed=12, batch=3000, micropython=True)
    assert s["failures"] == [], s["failures"]
    assert s["crashes"] == s["unanswered"] == s["internal_errors"] == s["not_json"] == 0
    assert s["answers"] == s["command_lines"] > 2500
    assert s["overlong"] > 50


@pytest.mark.micropython
def test_the_reader_rows_under_micropython_230k():
    from mphelp import run
    out = run(os.path.join(ROOT, "tests", "test_hostlink.py"), heap="230K")
    assert out.strip().splitlines()[-1].startswith("ok ")


@pytest.mark.soak
def test_fuzzed_lines_under_micropython_soak():
    s = fuzz_serial.fuzz(12000, seed=2026, batch=6000, micropython=True)
    assert s["failures"] == [], s["failures"]
    assert s["crashes"] == s["unanswered"] == s["internal_errors"] == s["not_json"] == 0
    assert s["answers"] == s["command_lines"]
    assert len(s["phases"]) == len(fuzz_serial.PHASES)      # every phase was met
