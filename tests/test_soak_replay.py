"""soak --replay: real games of .mat files played on the virtual board as recorded, and bad input."""

import json
import pathlib
import subprocess
import sys

import pytest

from host_tools.soak import soakreplay
from host_tools.soak.soakreplay import ReplayCounters, replay_file

ROOT = pathlib.Path(__file__).resolve().parent.parent
GAMES = ROOT / "tests" / "data" / "games"
QUIRKS = ROOT / "tests" / "data" / "quirks"
# a short real game with a hit, an entry from the bar, bear-offs, a double taken, a redouble dropped
SHORT = GAMES / "studio-llabba" / "Llabba - FARHANG 13pt Backgammon Studio 2023_02_17 14_56_01.txt"
SHORT_GAME = 5
SELFPLAY = GAMES / "gnubg-selfplay" / "charlot1-charlot2_7p_2025-11-08-2305.mat"


def match_files():
    return sorted(p for p in list(GAMES.rglob("*")) + list(QUIRKS.glob("*.mat"))
                  if p.suffix in (".txt", ".mat") and "LICENSES" not in p.parts)


def _clean(c):
    d = c.as_dict()
    return {k: d[k] for k in ("desyncs", "rejected_legal", "accepted_illegal", "lost_turns",
                              "bad_records", "unlit_lifts", "differs", "export_differs",
                              "bad_games")}


def test_a_short_real_game_plays_as_recorded_and_its_export_replays_the_same():
    c = ReplayCounters()
    report = replay_file(SHORT, c, only=SHORT_GAME)
    (game,) = report["games"]
    assert game["game"] == SHORT_GAME and "error" not in game and "export" not in game, game
    assert set(_clean(c).values()) == {0}, c.as_dict()
    assert c.games == 1 and game["turns"] == c.turns >= 25
    assert c.lifts > 0 and c.unended == 0


def _edit(src, dst, old, new):
    text = src.read_text()
    assert text.count(old) == 1, old
    dst.write_text(text.replace(old, new))
    return dst


def test_an_illegal_recorded_move_is_reported_for_its_game_and_the_others_play(tmp_path):
    # game 2's second roll 3-2 played 24/21 13/11, made 24/20 13/11: no die moves 4
    path = _edit(SELFPLAY, tmp_path / "bad.mat", "  2) 32: 24/21 13/11", "  2) 32: 24/20 13/11")
    proc = subprocess.run([sys.executable, "-m", "host_tools", "soak", "--replay", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    bad = [line for line in proc.stdout.splitlines() if line.startswith("  game 2 ")]
    assert len(bad) == 1 and "32: 24/20 13/11" in bad[0] and "line" in bad[0], proc.stdout
    assert "bad games 1" in proc.stdout and "differs 0" in proc.stdout, proc.stdout
    assert "games 3 " in proc.stdout.splitlines()[-2], proc.stdout     # games 1, 3, 4 played


@pytest.mark.parametrize("name,content,why", [
    ("missing.mat", None, "cannot read"),
    ("binary.mat", b"\x00\xff\x00garbage\n" * 20, "point match"),
    ("empty.mat", b"", "point match"),
    ("nack.mat", b"; [Variation \"Nackgammon\"]\n\n 1 point match\n\n Game 1\n A : 0   B : 0\n"
                 b"  1) 31: 8/5 6/5\n      Wins 1 point\n", "Variation"),
    ("beaver.mat", b" 1 point match\n\n Game 1\n A : 0                 B : 0\n"
                   b"  1) 31: 8/5 6/5                 Doubles => 2\n"
                   b"  2)  Beavers => 4\n      Wins 1 point\n", "beaver"),
    ("cut.mat", b" 1 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5\n", "cut short"),
])
def test_bad_files_get_a_clear_error_not_a_traceback(tmp_path, name, content, why):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    c = ReplayCounters()
    report = replay_file(path, c)
    errors = [report.get("error")] + [g.get("error") for g in report["games"]]
    assert any(e and why in e for e in errors), report
    assert c.bad_games >= 1 and c.failures() >= 1


def test_the_command_prints_the_soaks_counters_and_differs_as_json():
    proc = subprocess.run([sys.executable, "-m", "host_tools", "soak", "--replay",
                           str(QUIRKS / "one-point-double.mat"), "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    for key in ReplayCounters.FIELDS:
        assert key in out
    assert out["games"] == 1 and out["turns"] > 50 and out["differs"] == 0
    assert out["files"][0]["games"][0]["turns"] == out["turns"]


CHUNKS = 4       # the files in four parts; CI's soak pass plays one of them (every fourth file,
                 # to keep the pass short), the README's command plays them all


@pytest.mark.soak
@pytest.mark.parametrize("chunk", range(0, CHUNKS, CHUNKS))
def test_repository_match_files_play_as_recorded_on_the_stack_counting_build(chunk):
    files = match_files()
    c, reports = soakreplay.run([str(p) for p in files[chunk::CHUNKS]], front_end="analog")
    bad = [(r["file"], g) for r in reports for g in r["games"] if "error" in g or "export" in g]
    d = c.as_dict()
    assert d["games"] >= 100 and d["turns"] > 3000 and d["lifts"] > 5000, d
    assert set(_clean(c).values()) == {0}, (d, bad)
    assert d["sensor_blind"] == 0 and not bad, (d, bad)      # every play identified exactly
