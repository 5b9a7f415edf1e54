"""Export of the board's game records to GNU Backgammon: games played on the simulated board, exported
as .mat, replayed by our replay tool and imported by Debian's gnubg; tampered and long-nardy
records refused."""

import json
import os
import re
import subprocess

import pytest

import host_tools.cmd_export as cmd_export
import host_tools.cmd_replay as cmd_replay
from host_tools.records import export as ex
from host_tools.soak.soakplayer import record_match as play_match

GNUBG = "/usr/games/gnubg"


@pytest.fixture(scope="module")
def matches(tmp_path_factory):
    """Records of whole matches: backgammon with the cube (and, in referee mode with a clumsy
    player, flagged and corrected turns and power cuts), short nardy with backgammon scoring,
    takhteh with the parity opening; and one long-nardy game."""
    out = {
        "backgammon": play_match("backgammon", 5, 11, double=0.08),
        "referee": play_match("backgammon", 3, 4, double=0.05, noise="high", mode="referee"),
        "short": play_match("short scoring=backgammon", 3, 7),
        "persian": play_match("persian opening=parity", 15, 5, games=3),
        "long": play_match("long", 1, 2),
    }
    folder = tmp_path_factory.mktemp("records")
    paths = {}
    for name, recs in out.items():
        paths[name] = str(folder / (name + ".json"))
        with open(paths[name], "w") as f:
            json.dump(recs, f)
    return out, paths, folder


def evs(rec):
    """The events of a record, in order."""
    return [json.loads(line[:-33]) for line in rec["lines"]]


def run_export(argv, capsys):
    code = cmd_export.main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def final_score(recs):
    last = [e for e in evs(recs[-1]) if e["k"] == "end"][-1]
    return last["score"]


def test_played_records_verify_line_by_line(matches):
    recs, _, _ = matches
    for name, games in recs.items():
        for rec in games:
            v = ex.verify(rec)
            assert not v.authenticated and not v.locked and v.header["variant"] == name.split()[0] \
                or name in ("referee",), name
    assert any(e["k"] == "cube" for r in recs["backgammon"] for e in evs(r))
    assert len(recs["backgammon"]) > 1 and len(recs["short"]) > 1
    referee = [e for r in recs["referee"] for e in evs(r)]
    assert any(e["k"] == "flag" for e in referee) and any(e.get("corrected") for e in referee)


@pytest.mark.parametrize("name", ["backgammon", "referee", "short", "persian"])
def test_exported_mat_replays_with_no_rejected_move(matches, name, capsys):
    recs, paths, folder = matches
    out = str(folder / (name + ".mat"))
    code, _, err = run_export([paths[name], "-o", out, "--names", "Alice,Bob"], capsys)
    assert code == 0, err
    assert ("mars" in err) == (name == "persian")
    text = open(out).read()
    assert text.startswith(" %d point match\n" % evs(recs[name][0])[0]["match_to"])
    assert " Alice : 0                      Bob : 0" in text
    assert text.count(" Game ") == len(recs[name])
    assert cmd_replay.main(["--json", out]) == 0
    report = json.loads(capsys.readouterr().out)
    turns = sum(1 for r in recs[name] for e in evs(r) if e["k"] == "turn")
    assert report["rejected"] == [] and report["games"] == len(recs[name])
    assert report["moves"] == turns


def _gnubg(commands):
    run = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(commands) + "\n", timeout=60,
                         capture_output=True, text=True)
    return run.stdout + run.stderr


def _gnubg_position(output):
    ids = re.findall(r"Position ID: (\S{14})", output)
    assert ids, output
    import gnubg
    return gnubg.position_from_id(ids[-1])


def backgammon_points(game):
    """What gnubg scores for a game that ended by bearing off: 1, 2 (the loser bore off none),
    3 (and has a checker on the bar or in the winner's home: its own pips 19..25)."""
    loser = 1 - game.winner
    b = game.pos.board
    if b[loser * 26]:
        return game.cube
    back = any(b[loser * 26 + pip] for pip in range(19, 26))
    return game.cube * (3 if back else 2)


def _ours(game):
    b = game.pos.board
    return [tuple(b[side * 26 + pip] for pip in range(1, 26)) for side in (0, 1)]


@pytest.mark.parametrize("name", ["backgammon", "referee", "short", "persian"])
def test_gnubg_imports_the_mat_file_to_the_same_end(matches, name, capsys):
    if not os.path.exists(GNUBG):
        pytest.skip("Debian's gnubg is not installed (%s): sudo scripts/system_deps.sh" % GNUBG)
    pytest.importorskip("gnubg")
    recs, paths, folder = matches
    out = str(folder / (name + "-g.mat"))
    assert run_export([paths[name], "-o", out], capsys)[0] == 0
    said = _gnubg(["import mat " + out, "show score", "show board"])
    assert "Invalid move" not in said and "WARNING" not in said.upper(), said
    score = re.findall(r"The score \(after (\d+) games?\) is: White (\d+), Black (\d+)", said)
    assert score, said
    games, white, black = (int(x) for x in score[-1])
    assert games == len(recs[name])
    replayed = [ex.replay_record(r) for r in recs[name]]
    if name == "persian":
        # a takhteh mars scores 2 on the board where gnubg counts a backgammon 3; gnubg takes
        # each game's starting score from the file's score line
        last = replayed[-1]
        want = list(last["score"])
        want[last["winner"]] += backgammon_points(last["game"])
        assert [white, black] == want
    else:
        assert [white, black] == final_score(recs[name])
    assert sorted(_gnubg_position(said)) == sorted(_ours(replayed[-1]["game"]))


def test_a_changed_event_is_refused_with_its_index(matches, capsys, tmp_path):
    recs, _, _ = matches
    rec = json.loads(json.dumps(recs["backgammon"][0]))
    events = evs(rec)
    i = next(n for n, e in enumerate(events) if e["k"] == "roll" and n > 5)
    d = events[i]["dice"]
    rec["lines"][i] = rec["lines"][i].replace("[%d, %d]" % tuple(d), "[%d, %d]" % (d[0] % 6 + 1, d[1]))
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(rec))
    code, out, err = run_export([str(path)], capsys)
    assert code == 1 and out == ""
    assert "line %d:" % i in err and "seal" in err
    rec = json.loads(json.dumps(recs["backgammon"][0]))
    del rec["lines"][i]
    with pytest.raises(ex.ExportError) as e:
        ex.verify(rec)
    assert e.value.event == i and "missing" in str(e.value)


def test_long_nardy_is_refused_with_a_clear_message(matches, capsys):
    _, paths, _ = matches
    code, out, err = run_export([paths["long"]], capsys)
    assert code == 1 and out == ""
    assert "Long nardy" in err and "cannot be written for GNU Backgammon" in err


def test_records_of_different_matches_or_the_same_game_twice_are_refused(matches, capsys):
    _, paths, _ = matches
    code, _, err = run_export([paths["backgammon"], paths["short"]], capsys)
    assert code == 1 and "not of one match" in err
    code, _, err = run_export([paths["short"], paths["short"]], capsys)
    assert code == 1 and "the same game" in err and "twice" in err


def test_sgf_has_a_node_per_roll_and_cube_action_and_loads_in_gnubg(matches, capsys, tmp_path):
    recs, paths, _ = matches
    code, out, err = run_export([paths["backgammon"], "--format", "sgf"], capsys)
    assert code == 0, err
    assert out.count("(;FF[4]GM[6]") == len(recs["backgammon"])
    acts = sum(1 for r in recs["backgammon"] for e in evs(r) if e["k"] in ("turn", "cube"))
    assert len(re.findall(r";[WB]\[", out)) == acts
    if not os.path.exists(GNUBG):
        pytest.skip("Debian's gnubg is not installed (%s): sudo scripts/system_deps.sh" % GNUBG)
    sgf, mat = str(tmp_path / "m.sgf"), str(tmp_path / "m.mat")
    assert run_export([paths["backgammon"], "--format", "sgf", "-o", sgf], capsys)[0] == 0
    assert run_export([paths["backgammon"], "-o", mat], capsys)[0] == 0
    said = [_gnubg([cmd, "show score", "show board"]) for cmd in ("load match " + sgf, "import mat " + mat)]
    for what in (r"The score \(after .*", r"Position ID: \S+"):
        found = [re.findall(what, s) for s in said]
        assert found[0] and found[0] == found[1], said
