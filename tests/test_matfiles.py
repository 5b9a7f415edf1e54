"""Real match files: every spelling parses, every match replays through the rules core,
mutated copies are rejected at the mutated move, malformed files fail with a line number."""

import functools
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from host_tools.records import matfile
from host_tools.records.replay import replay_match

REPO = Path(__file__).resolve().parent.parent
GAMES = REPO / "tests" / "data" / "games"     # real match records; sources and licences in SOURCES.md


def match_files():
    return sorted(p for p in GAMES.rglob("*") if p.suffix in (".txt", ".mat") and "LICENSES" not in p.parts)


FILES = match_files()


@functools.lru_cache(maxsize=None)
def _parsed(path):
    return matfile.parse_file(path)


def _id(p):
    return p.parent.name + "/" + p.name[:40]


# -- the real match records --------------------------------------------------------------------

def test_the_shared_games_are_there():
    assert len(FILES) >= 80
    assert any(p.suffix == ".mat" for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_every_match_replays_with_no_rejected_move(path):
    match = _parsed(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    # the parser found every game and every roll the file has (counted with plain regexps)
    assert len(match["games"]) == len(re.findall(r"^\s*Game\s+\d+\s*$", text, re.M))
    rolls = sum(1 for g in match["games"] for a in g["actions"] if a["kind"] == "roll")
    assert rolls == len(re.findall(r"(?<![\d/])[1-6][1-6]:", text))
    report = replay_match(match)
    assert report["rejected"] == []
    assert report["moves"] + report["unknown"] == rolls


def test_the_shared_files_hold_every_spelling():
    """The spellings issue 2 names all occur in the shared files and were read."""
    seen = set()
    players_with_space = False
    right_starts = 0
    for path in FILES:
        match = _parsed(path)
        for g in match["games"]:
            if any(" " in name.strip() for name in g["players"]):
                players_with_space = True
            if g["actions"][0]["player"] == 1:
                right_starts += 1
            for a in g["actions"]:
                if a["kind"] != "roll":
                    seen.add(a["kind"])
                    continue
                t = a["text"]
                if a["play"] is None:
                    seen.add("????")
                elif a["play"] == "":
                    seen.add("Cannot Move" if t else "empty")
                for pat in ("bar/", "25/", "/off", "/0", "*", "("):
                    if pat in t:
                        seen.add(pat)
    for kind in ("????", "Cannot Move", "empty", "bar/", "25/", "/off", "/0", "*", "(",
                 "double", "take", "drop", "win", "loss"):
        assert kind in seen, kind
    assert players_with_space
    assert right_starts > 100


# -- spellings, in small files written here ---------------------------------------------------

HEAD = """; [Site "Test"]
; [Crawford "On"]

 3 point match

 Game 1
 Lucky Lux : 0                      Bob B : 0
"""


def _parse(body, head=HEAD):
    return matfile.parse_text(head + body, "t.mat")


def test_spellings_of_one_play_give_the_same_result():
    # 52 from the start: 13/8 13/11, written four ways
    for play in ("13/8 13/11", "13/11 13/8", "13/8* 13/11", "13/8, 13/11"):
        m = _parse("  1) 52: %s\n" % play.replace(",", ""))
        assert m["games"][0]["actions"][0]["dice"] == (5, 2)
        assert replay_match(m)["rejected"] == []


def test_play_spellings_are_read():
    assert matfile.check_play("bar/21* 6/off 25/21 4/0 13/9(2)") == "bar/21* 6/off 25/21 4/0 13/9(2)"
    assert matfile.check_play("13/10*/7") == "13/10*/7"
    assert matfile.check_play("Cannot Move") == ""
    assert matfile.check_play("  ") == ""
    assert matfile.check_play("????") is None
    with pytest.raises(ValueError):
        matfile.check_play("13-7")


def test_entering_written_bar_or_25_both_replay():
    # W 31 makes its 5-point; B 64 runs 24/14 (a blot on White's 11); W 21 hits it 13/11*;
    # B 31 enters on its 22 (White's 3, empty) and plays 24/23
    for enter in ("bar/22 24/23", "25/22 24/23", "bar/22* 24/23"):
        body = (
            "  1) 31: 8/5 6/5                      64: 24/14\n"
            "  2) 21: 13/11* 24/23                 31: %s\n" % enter
        )
        assert replay_match(_parse(body))["rejected"] == [], enter
    # entering elsewhere than the die says is rejected
    body = (
        "  1) 31: 8/5 6/5                      64: 24/14\n"
        "  2) 21: 13/11* 24/23                 31: 24/21 6/5\n"
    )
    r = replay_match(_parse(body))["rejected"]
    assert [(x["move"], x["player"]) for x in r] == [(2, "Bob B")]
    assert "bar" in r[0]["reason"]


def test_consolidated_moves_are_expanded():
    # 13/6 with 6-1 is one checker moving twice (via 7: the 12 is Black's); 24/16(2) with 4-4
    # is two checkers moving twice each
    body = (
        "  1) 61: 13/6                         44: 24/16(2)\n"
        "  2) 44: 24/16(2)\n"
    )
    assert replay_match(_parse(body))["rejected"] == []
    # 13/7 with 6-1 leaves the 1 unplayed; 13/5 is more than the dice
    body = "  1) 61: 13/7\n"
    r = replay_match(_parse(body))["rejected"]
    assert "play as many dice as possible" in r[0]["reason"]
    body = "  1) 61: 13/5\n"
    r = replay_match(_parse(body))["rejected"]
    assert [(x["game"], x["move"], x["player"]) for x in r] == [(1, 1, "Lucky Lux")]


def test_player_one_starts_and_cube_lines():
    body = (
        "  1)                                   31: 8/5 6/5\n"
        "  2) 64: 24/14                         Doubles => 2\n"
        "  3)  Takes                            52: 13/8 13/11\n"
        "  4)  Doubles => 4                      Drops\n"
        "      Wins 2 points\n"
    )
    m = _parse(body)
    kinds = [(a["kind"], a["player"]) for a in m["games"][0]["actions"]]
    assert kinds == [("roll", 1), ("roll", 0), ("double", 1), ("take", 0), ("roll", 1),
                     ("double", 0), ("drop", 1), ("win", 0)]
    assert m["games"][0]["players"] == ["Lucky Lux", "Bob B"]
    assert replay_match(m)["rejected"] == []


def test_dances_cannot_move_and_empty():
    # White closes nothing; a dance is only legal when no die can be played, so a dance
    # written in the opening is rejected, whatever its spelling
    for dance in ("Cannot Move", ""):
        m = _parse("  1) 31: 8/5 6/5                      64: %s\n" % dance)
        rej = replay_match(m)["rejected"]
        assert len(rej) == 1 and rej[0]["move"] == 1 and rej[0]["player"] == "Bob B"
        assert "play as many dice as possible" in rej[0]["reason"]


def test_unknown_play_ends_the_game_without_a_rejection():
    body = (
        "  1) 31: 8/5 6/5                      64: ????\n"
        "                                       Wins 1 point\n"
    )
    r = replay_match(_parse(body))
    assert r["rejected"] == [] and r["unknown"] == 1


def test_crawford_game_forbids_the_cube():
    head = HEAD.replace("Bob B : 0", "Bob B : 2")
    body = "  1) 31: 8/5 6/5                       Doubles => 2\n"
    r = replay_match(_parse(body, head))
    assert [x["reason"] for x in r["rejected"]] == ["no doubling in the Crawford game"]
    # the game after the Crawford game allows it again
    text = (HEAD.replace("Bob B : 0", "Bob B : 2") + "  1) 31: 8/5 6/5\n      Wins 1 point\n\n"
            " Game 2\n Lucky Lux : 1                      Bob B : 2\n"
            "  1) 31: 8/5 6/5                       Doubles => 2\n")
    assert replay_match(matfile.parse_text(text, "t.mat"))["rejected"] == []


def test_other_variations_are_not_replayed():
    r = replay_match(_parse("  1) 31: 8/5 6/5\n", HEAD.replace('; [Crawford "On"]',
                                                                 '; [Variation "Nackgammon"]')))
    assert "Nackgammon" in r["error"] and r["rejected"] == []


def test_cube_value_must_double():
    body = "  1) 31: 8/5 6/5                       Doubles => 4\n"
    r = replay_match(_parse(body))
    assert r["rejected"][0]["reason"] == "the cube goes from 1 to 2, not 4"


def test_play_after_the_game_ended_is_rejected():
    body = (
        "  1) 31: 8/5 6/5                       Doubles => 2\n"
        "  2)  Drops                            \n"
        "  3) 52: 13/8 13/11\n"
    )
    r = replay_match(_parse(body))
    assert r["rejected"][0]["move"] == 3
    assert r["rejected"][0]["reason"] == "the game is already over"


# -- malformed files ------------------------------------------------------------------------

BAD = [
    # (text, line, words in the reason)
    ("; hello\n\n nonsense\n", 3, "point match"),
    (" 5 point match\n\n Bob : 0   Ann : 0\n", 3, "Game 1"),
    (" 5 point match\n\n Game 1\n  1) 31: 8/5 6/5\n", 4, "score line"),
    (" 5 point match\n\n Game 2\n", 3, "game 2 follows game 0"),
    (" 5 point match\n\n Game 1\n Bob : 0     Ann : 0\n  1) 31: 8/5 6/x5\n", 5, "6/x5"),
    (" 5 point match\n\n Game 1\n Bob : 0     Ann : 0\n  1) 71: 8/1\n", 5, "expected a roll"),
    (" 5 point match\n\n Game 1\n Bob : 0     Ann : 0\n  1) 31: 8/5 6/5   Doubles => 3\n", 5,
     "power of two"),
    (" 5 point match\n\n Game 1\n Bob : 0     Ann : 0\n  1) 31: 8/5 26/5\n", 5, "no point 26"),
    (" 5 point match\n\n Game 1\n Bob : 0     Ann : 0\n  1) 31: 8/5 6/5\n what is this\n", 6,
     "numbered move line"),
    (" 5 point match\n\n Game 1\n Bob : 0     Ann : 0\n      Wins lots\n", 5, "point(s)"),
    (" 5 point match\n\n Game 1\n Bob : 0     Ann : 0\n  1) 31: 8/5 6/5  Takes now\n", 5,
     "unexpected"),
    ("", 0, "point match"),
]


@pytest.mark.parametrize("text,line,why", BAD)
def test_malformed_files_say_where_and_why(text, line, why):
    with pytest.raises(matfile.MatError) as info:
        matfile.parse_text(text, "bad.mat")
    err = info.value
    assert err.line == line
    assert why in err.why
    assert str(err).startswith("bad.mat:%d: " % line)


# -- mutations ------------------------------------------------------------------------------

def _distances(play):
    """Pips each checker movement covers, or None if the play bears off (not checked here)."""
    out = []
    for word in play.split():
        count = 1
        m = re.match(r"^(.*)\((\d)\)$", word)
        if m:
            word, count = m.group(1), int(m.group(2))
        pts = [w.rstrip("*") for w in word.split("/")]
        if "off" in pts or "0" in pts:
            return None
        pts = [25 if p == "bar" else int(p) for p in pts]
        out += [pts[0] - pts[-1]] * count
    return out


def _formable(distances, dice):
    """Can disjoint groups of the dice make exactly these distances? (plain arithmetic)"""
    pool = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)

    def go(i, pool):
        if i == len(distances):
            return True
        n = len(pool)
        for mask in range(1, 1 << n):
            pick = [pool[j] for j in range(n) if mask >> j & 1]
            if sum(pick) == distances[i]:
                if go(i + 1, [pool[j] for j in range(n) if not mask >> j & 1]):
                    return True
        return False

    return go(0, pool)


def _mutations(path, rng, per_file):
    """(description, mutated text, game number, move label, player) for rolls of the file whose
    mutated play no dice can make: a die changed, or one movement's destination moved."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    match = matfile.parse_text(text, str(path))
    rolls = [(g, a) for g in match["games"] for a in g["actions"]
             if a["kind"] == "roll" and a["play"]]
    rng.shuffle(rolls)
    out = []
    for g, a in rolls:
        if len(out) >= per_file:
            break
        dist = _distances(a["play"])
        if dist is None:
            continue
        line = lines[a["line"] - 1]
        col = a["col"]
        assert line[col:col + 3] == "%d%d:" % a["dice"]
        if len(out) % 2 == 0:
            # change one die so that the written movements cannot be made any more
            for k in rng.sample((0, 1), 2):
                for v in rng.sample(range(1, 7), 6):
                    dice = list(a["dice"])
                    dice[k] = v
                    if g["actions"][0] is a and dice[0] == dice[1]:
                        continue
                    if not _formable(dist, dice):
                        new = line[:col + k] + str(v) + line[col + k + 1:]
                        break
                else:
                    continue
                break
            else:
                continue
            what = "die %d -> %d" % (a["dice"][k], v)
        else:
            # move the destination of one movement by one pip
            words = a["text"].split()
            i = rng.randrange(len(words))
            m = re.match(r"^(.*/)(\d+)(\*?(\(\d\))?)$", words[i])
            if not m or int(m.group(2)) <= 1:
                continue
            shift = rng.choice((-1, 1))
            t = int(m.group(2)) + shift
            src = int(re.match(r"^(\d+|bar)", words[i]).group(1).replace("bar", "25"))
            if not 1 <= t < src:
                continue
            words[i] = m.group(1) + str(t) + m.group(3)
            if _formable(_distances(" ".join(words)), a["dice"]):
                continue
            play_at = line.index(a["text"], col)
            new = line[:play_at] + " ".join(words) + line[play_at + len(a["text"]):]
            what = "%s -> %s" % (a["text"], " ".join(words))
        mutated = lines[:a["line"] - 1] + [new] + lines[a["line"]:]
        out.append((what, "\n".join(mutated), g["number"], a["move"], g["players"][a["player"]]))
    return out


def _check_mutations(files, per_file, seed):
    rng = random.Random(seed)
    n = 0
    for path in files:
        for what, text, game, move, player in _mutations(path, rng, per_file):
            report = replay_match(matfile.parse_text(text, path.name))
            where = "%s game %d move %d (%s): %s" % (path.name, game, move, player, what)
            assert len(report["rejected"]) == 1, where
            r = report["rejected"][0]
            assert (r["game"], r["move"], r["player"]) == (game, move, player), (where, r)
            n += 1
    return n


def test_mutated_copies_are_rejected_at_the_mutated_move():
    files = FILES[::7]          # a spread of files, both exporters
    n = _check_mutations(files, per_file=4, seed=2)
    assert n >= 40


@pytest.mark.soak
def test_mutated_copies_soak():
    n = _check_mutations(FILES, per_file=6, seed=7)
    assert n >= 400


# -- the command ------------------------------------------------------------------------------

def _run(*args):
    return subprocess.run([sys.executable, "-m", "host_tools", "replay"] + list(args),
                          cwd=str(REPO), capture_output=True, text=True, timeout=120)


def test_replay_command_json_and_exit_status(tmp_path):
    good = [str(FILES[0]), str([p for p in FILES if p.suffix == ".mat"][0])]
    res = _run("--json", *good)
    assert res.returncode == 0, res.stderr
    reports = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["file"] for r in reports] == good
    for r in reports:
        assert r["rejected"] == [] and r["games"] > 0 and r["moves"] > 0

    # a mutated copy: exit status 1, the rejected move named
    what, text, game, move, player = _mutations(FILES[0], random.Random(1), 1)[0]
    bad = tmp_path / "mutated.txt"
    bad.write_text(text)
    res = _run("--json", str(bad))
    assert res.returncode == 1
    r = json.loads(res.stdout)
    assert [(x["game"], x["move"]) for x in r["rejected"]] == [(game, move)]
    assert set(r["rejected"][0]) >= {"game", "move", "text", "reason"}

    # a malformed file: exit status 1, the line and why
    broken = tmp_path / "broken.mat"
    broken.write_text(" 5 point match\n\n Game 1\n Bob : 0   Ann : 0\n  1) 31: 8/5 6/5 zzz\n")
    res = _run(str(broken))
    assert res.returncode == 1
    assert "broken.mat:5: cannot replay:" in res.stdout and "zzz" in res.stdout
    res = _run("--json", str(broken))
    assert json.loads(res.stdout)["line"] == 5

    # the text summary
    res = _run(*good)
    assert res.returncode == 0
    assert res.stdout.count(": ok") == 2 and "total: 2 files" in res.stdout


# -- GNU Backgammon as the oracle for mutated files -----------------------------------------

GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"


def gnubg_invalid_moves(path):
    """The plays gnubg's .mat import warns about ('WARNING: Invalid move'), in file order."""
    res = subprocess.run([GNUBG, "-t", "-q"], input='import mat "%s"\n' % path,
                         capture_output=True, text=True, timeout=120)
    return [" ".join(m.group(1).split())
            for m in re.finditer(r'WARNING: Invalid move: "(.*?)" encountered', res.stdout + res.stderr)]


def _semantic_mutation(path, rng):
    """Change one number of one play (a point by 1-2, or a die) so that the dice can still make
    the written distances (no bearing off): whether it is legal is gnubg's to say. (Plays the
    dice cannot make are the arithmetic mutations above; gnubg's import is lenient with them.)"""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    match = matfile.parse_text(text, str(path))
    rolls = [(g, a) for g in match["games"] for a in g["actions"]
             if a["kind"] == "roll" and a["play"]]
    while True:
        g, a = rng.choice(rolls)
        line = lines[a["line"] - 1]
        col = a["col"]
        if rng.random() < 0.3:
            k = rng.randrange(2)
            v = rng.choice([d for d in range(1, 7) if d != a["dice"][k]])
            if g["actions"][0] is a and v == a["dice"][1 - k]:
                continue
            dice = list(a["dice"])
            dice[k] = v
            dist = _distances(a["text"])
            if dist is None or not _formable(dist, dice):
                continue
            new = line[:col + k] + str(v) + line[col + k + 1:]
        else:
            nums = [m for m in re.finditer(r"\d+", a["text"])]
            nums = [m for m in nums if not a["text"][m.end():m.end() + 1] == ")"]
            m = rng.choice(nums)
            n = int(m.group()) + rng.choice((-2, -1, 1, 2))
            if not 1 <= n <= 24:
                continue
            play = a["text"][:m.start()] + str(n) + a["text"][m.end():]
            dist = _distances(play)
            if dist is None or min(dist) <= 0 or not _formable(dist, a["dice"]):
                continue
            at = line.index(a["text"], col)
            new = line[:at] + play + line[at + len(a["text"]):]
        mutated = "\n".join(lines[:a["line"] - 1] + [new] + lines[a["line"]:])
        return mutated, a["line"]


def _board_pair(pos, side):
    b = pos.board
    me = side * 26
    op = (1 - side) * 26
    return tuple(b[me:me + 26]), tuple(b[op:op + 26])


def _gnubg_oracle(files, per_file, seed, tmp_path, use_import=False):
    """Judge the mutated play with gnubg's move generator: in the position before it (which the
    replay and gnubg's import both reached through the same accepted plays), the replay accepts
    the play exactly when the position it writes is one gnubg's legal plays reach. Also, a file
    gnubg's import refuses is never accepted whole by the replay. (The converse does not hold:
    gnubg 1.07's import lets some illegal plays pass, e.g. '52: 13/8' playing one die of two.)"""
    from test_gnubg_agreement import gnubg_finals
    rng = random.Random(seed)
    n = rejected = lenient = 0
    for path in files:
        for _ in range(per_file):
            text, line = _semantic_mutation(path, rng)
            seen = []

            def watch(action, before, after, reason):
                if action["line"] == line:
                    seen.append((action, before, after, reason))

            report = replay_match(matfile.parse_text(text, "m.mat"), watch=watch)
            if not seen:
                continue                  # the game had already been rejected or ended
            action, before, after, reason = seen[0]
            side = action["player"]
            own, opp = _board_pair(before, side)
            (finals,), _ = gnubg_finals([("mat", list(own), list(opp), action["dice"])])
            legal = after is not None and _board_pair(after, side) in finals
            assert legal == (reason is None), (path.name, action["text"], reason)
            theirs = []
            if use_import:
                copy = tmp_path / ("m%d.mat" % n)
                copy.write_text(text)
                theirs = gnubg_invalid_moves(copy)
            if theirs:
                assert report["rejected"], (path.name, theirs[:2])
            elif use_import and report["rejected"]:
                lenient += 1
            n += 1
            rejected += reason is not None
    print("gnubg oracle: %d mutated plays judged, %d illegal; %d files gnubg's import let pass"
          % (n, rejected, lenient))
    return n, rejected


def test_gnubg_sees_no_invalid_move_in_a_shared_file():
    if not Path(GNUBG).exists():
        pytest.skip("no gnubg CLI")
    for path in FILES[::20]:
        assert gnubg_invalid_moves(path) == [], path


def test_gnubg_judges_mutated_plays_as_the_replay_does(tmp_path):
    """Semantic mutations (a point or a die changed, legal or not), judged by gnubg's move
    generator (the soak run also imports every mutated file into the gnubg CLI)."""
    if not Path(GNUBG).exists():
        pytest.skip("no gnubg CLI")
    n, rejected = _gnubg_oracle(FILES[3::7], per_file=2, seed=5, tmp_path=tmp_path)
    assert n >= 20 and rejected >= 6


@pytest.mark.soak
def test_gnubg_oracle_soak(tmp_path):
    if not Path(GNUBG).exists():
        pytest.skip("no gnubg CLI")
    half = FILES[::2]                    # the CI budget: every other file
    for path in half:
        assert gnubg_invalid_moves(path) == [], path
    n, rejected = _gnubg_oracle(half, per_file=3, seed=9, tmp_path=tmp_path, use_import=True)
    assert n >= 100 and rejected >= 30


def _plays_against_gnubg(files):
    """Every play the replay accepts leads to a position gnubg's move generator reaches."""
    from test_gnubg_agreement import gnubg_finals
    cases = []
    for path in files:
        def watch(action, before, after, reason):
            assert reason is None, (path.name, action["line"], reason)
            side = action["player"]
            own, opp = _board_pair(before, side)
            cases.append(((path.name, action["line"]), ("mat", list(own), list(opp), action["dice"]),
                          _board_pair(after, side)))
        replay_match(_parsed(path), watch=watch)
    finals, _ = gnubg_finals([c[1] for c in cases])
    for (where, case, after), legal in zip(cases, finals):
        assert after in legal, where
    return len(cases)


def test_replayed_plays_are_gnubg_plays():
    assert _plays_against_gnubg(FILES[:1]) > 150


@pytest.mark.soak
def test_every_replayed_play_is_a_gnubg_play():
    assert _plays_against_gnubg(FILES[::2]) > 10000


@pytest.mark.parametrize("body, game, line, why", [
    ("  1) 31: 8/5 6/5\n", 1, 8, "the file is cut short"),
    ("  1) 31: 8/5 6/5\n\n Game 2\n Lucky Lux : 1                      Bob B : 0\n"
     "  1) 31: 8/5 6/5\n      Wins 1 point\n", 1, 8, "no result"),
    ("  1) 31: 8/5 6/5\n      Wins 1 point\n\n Game 2\n Lucky Lux : 1                      Bob B : 0\n"
     "  1) 31: 8/5 6/5\n", 2, 13, "the file is cut short"),
])
def test_a_file_cut_short_is_refused_naming_the_game_and_the_line(tmp_path, body, game, line, why):
    path = tmp_path / "cut.mat"
    path.write_text(HEAD + body)
    with pytest.raises(matfile.MatError) as err:
        matfile.parse_file(str(path))
    assert err.value.line == line and "game %d " % game in err.value.why and why in err.value.why
    done = subprocess.run([sys.executable, "-m", "host_tools", "replay", str(path)], cwd=str(REPO),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "cut.mat:%d: cannot replay: game %d" % (line, game) in done.stdout
