"""Seeded fuzzing of the host tools' readers (host_tools.fuzz_files): mutated match files through
replay, hostile request lines through legal (and legal --micropython), mutated board.json through
the firmware's loader. Every case ends in an answer or a refusal with a reason, in counted work."""

import pytest

from host_tools import fuzz_files


@pytest.mark.parametrize("kind,count", [("replay", 120), ("legal", 150), ("board", 120)])
def test_fuzz_cases(kind, count):
    s = fuzz_files.run(kind, count, seed=20)
    assert s["failures"] == [], s["failures"][:3]
    assert s["cases"] == count
    if kind == "replay":
        assert s["outcomes"].get("report", 0) > 10 and s["outcomes"].get("error", 0) > 10
        assert s["max_calls_per_roll"] < fuzz_files.CALLS_PER_ROLL
    if kind == "board":
        assert s["outcomes"].get("built", 0) > 5 and s["outcomes"].get("refused", 0) > 20


@pytest.mark.micropython
def test_legal_fuzz_under_micropython():
    s = fuzz_files.run("legal", 80, seed=21, micropython=True)
    assert s["failures"] == [], s["failures"][:3]
    assert s["micropython_answers"] > 80


def test_the_harness_catches_unbounded_work(monkeypatch):
    # a replay that asks the rules core too often is a failure, not a pass
    monkeypatch.setattr(fuzz_files, "CALLS_PER_ROLL", 0)
    data = (" 1 point match\n\n Game 1\n A : 0     B : 0\n  1) 31: 8/5 6/5\n").encode()
    with pytest.raises(fuzz_files.Failure):
        fuzz_files.replay_case(data)


@pytest.mark.soak
@pytest.mark.parametrize("kind,count", [("replay", 3000), ("legal", 3000), ("board", 3000)])
def test_fuzz_cases_soak(kind, count):
    s = fuzz_files.run(kind, count, seed=2026, micropython=kind == "legal")
    assert s["failures"] == [], s["failures"][:3]
