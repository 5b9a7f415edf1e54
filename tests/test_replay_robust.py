"""replay on files from elsewhere: the quirks GNU Backgammon imports (a blank player name, the
result on the last move's line, a double in a 1-point match) are accepted as gnubg reads them;
hostile files are refused with a reason in work linear in their size."""

import os
import re
import subprocess

import pytest

from host_tools.records import matfile, replay
from host_tools.fuzz.fuzz_files import replay_case

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUIRKS = os.path.join(ROOT, "tests", "data", "quirks")
GNUBG = "/usr/games/gnubg"

# (file, players as read, the game's winner, what gnubg's 'show score' says after importing it)
QUIRK_FILES = [
    ("blank-name.mat", ["Alice", ""], 1, "Alice 0, : 0 1"),
    ("result-on-move-line-left.mat", ["Alice", "Bob"], 0, "Alice 1, Bob 0"),
    ("result-on-move-line-right.mat", ["Alice", "Bob"], 1, None),   # gnubg drops that last move
    ("one-point-double.mat", ["Alice", "Bob"], 0, "Alice 2, Bob 0"),
]


def winners(match):
    out = []
    post = False
    for game in match["games"]:
        g = replay.GameReplay(replay.get_rules("backgammon"), match, game, post)
        post = post or g.crawford
        for action in game["actions"]:
            assert g.act(action) is None, action
        out.append(g.winner)
    return out


@pytest.mark.parametrize("name,players,winner,gnubg_score", QUIRK_FILES)
def test_quirks_gnubg_imports_replay_too(name, players, winner, gnubg_score):
    match = matfile.parse_file(os.path.join(QUIRKS, name))
    report = replay.replay_match(match)
    assert report["rejected"] == [] and report["moves"] > 70
    assert match["games"][0]["players"] == players
    assert winners(match) == [winner]


@pytest.mark.parametrize("name,players,winner,gnubg_score", QUIRK_FILES)
def test_quirks_as_gnubg_reads_them(name, players, winner, gnubg_score):
    if not os.path.exists(GNUBG):
        pytest.skip("Debian's gnubg is not installed (%s): sudo scripts/system_deps.sh" % GNUBG)
    path = os.path.join(QUIRKS, name)
    run = subprocess.run([GNUBG, "-t", "-q"], input="import mat %s\nshow score\n" % path,
                         capture_output=True, text=True, timeout=120)
    said = run.stdout + run.stderr
    score = re.search(r"The score \(after (\d+) games?\) is: (.*) \(match to", said)
    assert score, said[-1000:]
    if gnubg_score is None:        # gnubg warns and drops the last move and its result
        assert "Unrecognised move" in said and score.group(1) == "0"
    else:
        assert score.group(1) == "1" and score.group(2) == gnubg_score


def test_the_result_on_the_right_columns_move_line_is_the_right_players():
    text = (" 3 point match\n\n Game 1\n Alice : 0                       Bob : 0\n"
            "  1) 31: 8/5 6/5                 64: 24/14\n"
            "  2) 52: 13/8 13/11              43: 24/20 13/10  Wins 1 point\n")
    acts = matfile.parse_text(text)["games"][0]["actions"]
    assert [(a["kind"], a["player"]) for a in acts][-3:] == [("roll", 0), ("roll", 1), ("win", 1)]
    with pytest.raises(matfile.MatError):          # anything else stays more than two actions
        matfile.parse_text(text.replace("Wins 1 point", "Doubles => 2"))


# (match length, score at the game's start, the previous games had a Crawford game, Crawford?)
CRAWFORD = [
    (1, [0, 0], False, False),     # a 1-point match: both 1 away, gnubg plays no Crawford game
    (3, [2, 0], False, True),
    (3, [0, 2], False, True),
    (3, [2, 1], True, False),      # post-Crawford
    (3, [2, 2], True, False),
    (5, [3, 3], False, False),
    (0, [0, 0], False, False),     # money play
]


@pytest.mark.parametrize("length,score,post,want", CRAWFORD)
def test_crawford_game_as_gnubg_decides_it(length, score, post, want):
    match = {"length": length, "headers": {}}
    assert replay.crawford_game(match, {"scores": score}, post) is want
    assert replay.crawford_game({"length": length, "headers": {"Crawford": "Off"}},
                                {"scores": score}, post) is False


def test_a_double_in_the_crawford_game_is_still_refused():
    text = (" 3 point match\n\n Game 1\n Alice : 0                       Bob : 0\n"
            "  1) 31: 8/5 6/5                 64: 24/14\n"
            "  2)  Doubles => 2                Drops\n"
            "      Wins 1 point\n\n"
            " Game 2\n Alice : 1                       Bob : 0\n"
            "  1) 31: 8/5 6/5                 64: 24/14\n"
            "  2)  Doubles => 2                Drops\n"
            "      Wins 1 point\n\n"
            " Game 3\n Alice : 2                       Bob : 0\n"
            "  1) 31: 8/5 6/5                 64: 24/14\n"
            "  2)  Doubles => 2                Drops\n")
    report = replay.replay_match(matfile.parse_text(text))
    assert [(r["game"], r["reason"]) for r in report["rejected"]] == [
        (3, "no doubling in the Crawford game")]


def _play_file(movements):
    return (" 1 point match\n\n Game 1\n A : 0     B : 0\n  1) 31: " + movements + "\n").encode()


@pytest.mark.parametrize("n", [3, 5, 10, 1000])
def test_a_play_of_many_movements_is_refused_in_work_linear_in_its_length(n):
    # 10 movements used to take 156 s (every order tried), 1,000 a RecursionError
    data = _play_file(" ".join("%d/%d" % (24 - i % 18, 23 - i % 18) for i in range(n)))
    kind, rolls, calls = replay_case(data)
    assert kind == "report" and rolls == 1
    assert calls <= 1000
    report = replay.replay_match(matfile.parse_text(data.decode()))
    why = report["rejected"][0]["reason"]
    if n > replay.MAX_MOVEMENTS:
        assert calls <= 1 and "%d checker movements" % n in why
        assert len(report["rejected"][0]["text"]) < 200


def test_hostile_lines_are_refused_with_the_line_number():
    long_line = " 1 point match\n\n Game 1\n" + " " * 50000 + "A : 0   B : 0\n"
    with pytest.raises(matfile.MatError) as info:
        matfile.parse_text(long_line, "x.mat")
    assert info.value.line == 4 and "characters" in info.value.why
    spaces = " 1 point match\n\n Game 1\n A " + " " * 9000 + ": 0 " + " " * 900 + "\n"
    with pytest.raises(matfile.MatError):
        matfile.parse_text(spaces, "x.mat")      # read in linear time (it was quadratic)


def test_a_file_too_large_is_refused_unread(tmp_path):
    path = tmp_path / "huge.mat"
    with open(path, "wb") as f:
        f.seek(matfile.MAX_BYTES + 10)
        f.write(b"\n")
    with pytest.raises(matfile.MatError) as info:
        matfile.parse_file(path)
    assert "larger than" in info.value.why


# (header line, (key, value) or None)
HEADERS = [('; [Site "Galaxy"]', ("Site", "Galaxy")), (';[Player 1 "A B"]', ("Player 1", "A B")),
           ('; [Site"x"]', None), ("; just a comment", None), ('; [Site "x"', None),
           ('; [Event "a "quoted" b"]', ("Event", 'a "quoted" b'))]


@pytest.mark.parametrize("line,want", HEADERS)
def test_header_lines(line, want):
    assert matfile._header(line) == want
