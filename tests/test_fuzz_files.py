"""Seeded fuzzing of the host tools' readers (host_tools.fuzz.fuzz_files): mutated match files through
replay, hostile request lines through legal (and legal --micropython), mutated board.json through
the firmware's loader, mutated and resealed game records through export. Every case ends in an
answer or a refusal with a reason, in counted work."""

import pytest

from host_tools.fuzz import fuzz_files


@pytest.mark.parametrize("kind,count", [("replay", 120), ("legal", 150), ("board", 120),
                                        ("export", 150)])
def test_fuzz_cases(kind, count):
    s = fuzz_files.run(kind, count, seed=20)
    assert s["failures"] == [], s["failures"][:3]
    assert s["cases"] == count
    if kind == "replay":
        assert s["outcomes"].get("report", 0) > 10 and s["outcomes"].get("error", 0) > 10
        assert s["max_calls_per_roll"] < fuzz_files.CALLS_PER_ROLL
    if kind == "board":
        assert s["outcomes"].get("built", 0) > 5 and s["outcomes"].get("refused", 0) > 20
    if kind == "export":
        assert s["outcomes"].get("written", 0) > 5 and s["outcomes"].get("refused", 0) > 50


@pytest.mark.parametrize("field,value", [("dice", [6, 6]), ("cube", [2, 0]), ("ms", -5),
                                         ("kind", "matador"), ("pos", None)])
def test_a_resealed_turn_that_says_other_than_its_replay_is_refused(field, value):
    """An insider with the board's key reseals a turn line whose fields disagree with its own
    steps: export refuses it, naming the line."""
    import json

    from host_tools.records import export as ex
    rec = fuzz_files._base_records()[1]
    texts = [line.rsplit("|", 1)[0] for line in rec["lines"]]
    i = next(n for n, t in enumerate(texts) if '"k": "turn"' in t)
    ev = json.loads(texts[i])
    if value is None:                 # the position after the turn, another side to move
        ev["pos"] = ev["pos"][:-1] + ("1" if ev["pos"][-1] == "0" else "0")
    else:
        ev[field] = value
    texts[i] = json.dumps(ev)
    with pytest.raises(ex.ExportError, match="line %d" % i):
        ex.export([fuzz_files._reseal(rec, texts)], "mat",
                  keyring=ex.Keyring(fuzz_files.EXPORT_MASTER))
    ex.export([fuzz_files._reseal(rec, [t.rsplit("|", 1)[0] for t in rec["lines"]])], "mat",
              keyring=ex.Keyring(fuzz_files.EXPORT_MASTER))    # resealed unchanged: fine


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
@pytest.mark.parametrize("kind,count", [("replay", 3000), ("legal", 3000), ("board", 1000),
                                        ("export", 3000)])
def test_fuzz_cases_soak(kind, count):
    s = fuzz_files.run(kind, count, seed=2026, micropython=kind == "legal")
    assert s["failures"] == [], s["failures"][:3]
