"""Reads Jellyfish / GNU Backgammon text match files (.mat, Backgammon Studio, Galaxy) into plain data.

A match is a dict::

    {"file": path, "length": 7, "headers": {"Site": "...", ...}, "games": [game, ...]}

and each game::

    {"number": 1, "line": 17, "players": ["Alice", "Bob"], "scores": [0, 0],
     "actions": [action, ...]}

Player 0 is the left column (the first name of the score line), player 1 the right column.
Each action is a dict with "line" (line number in the file), "col" (its column, from 0), "move"
(the ``N)`` label of its line), "player" (0 or 1), "kind" and kind-specific fields:

* ``roll``: "dice" (a, b), "text" (the play as written), "play": the play text normalised
  ("" for a dance: empty, ``Cannot Move``), or None for an unknown play (``????``)
* ``double``: "value" (the new cube value); ``beaver`` / ``raccoon``: "value" or None
* ``take``, ``drop``
* ``win``: "points", "match" (True for "... and the match"); ``loss``: "points"
  (Galaxy's ``Losses N point``: that player gives the game up)

Spellings accepted in plays: ``13/8``, ``bar/21*``, ``25/21``, ``6/off``, ``4/0``,
``13/9(2)``, ``13/10*/7``, consolidated moves (``13/7`` with 6-1), ``Cannot Move``, an empty
play, ``????``. Malformed input raises MatError with the file, the line number and why.
"""

import re

_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.I)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.I)
_SCORE_MID = re.compile(r"\s*(\d+)(\s+)(.*)$")     # "<score>   <right name>" between the colons
MAX_LINE = 10000          # characters of one line (gnubg reads 128): a longer one is no match file
_MOVE_LINE = re.compile(r"^\s*(\d+)\)(.*)$")
_ROLL = re.compile(r"^([1-6])([1-6]):(.*)$")
_STEP_TOKEN = re.compile(r"^(bar|off|\d{1,2})(\*?)((/(bar|off|\d{1,2})\*?)+)(\((\d)\))?$", re.I)

_RESULTS = ("wins", "losses")
_KEYWORDS = {
    "doubles": "double",
    "beavers": "beaver",
    "raccoons": "raccoon",
    "takes": "take",
    "drops": "drop",
    "passes": "drop",
    "wins": "win",
    "losses": "loss",
}


class MatError(ValueError):
    """A match file that cannot be read: carries the file, the line number and why."""

    def __init__(self, file, line, why):
        ValueError.__init__(self, "%s:%s: %s" % (file, line, why))
        self.file = file
        self.line = line
        self.why = why


def check_play(text):
    """Return the play text normalised ('' for a dance, None for '????'); ValueError if unreadable."""
    words = text.split()
    if not words:
        return ""
    if [w.lower() for w in words] == ["cannot", "move"]:
        return ""
    if words == ["????"]:
        return None
    for word in words:
        if not _STEP_TOKEN.match(word):
            raise ValueError("cannot read %r in the play %r" % (word, text))
        for point in re.split(r"[/*()]+", word):
            if point.isdigit() and int(point) > 25:
                raise ValueError("no point %s (the bar is 25, off is 0) in %r" % (point, text))
    return " ".join(words)


def _tokens(text, offset):
    return [(m.start() + offset, m.group()) for m in re.finditer(r"\S+", text)]


def _split_actions(tokens):
    """Group the tokens of a move line into actions: [(column, [words])]."""
    groups = []
    for col, word in tokens:
        starts = _ROLL.match(word) or word.lower() in _KEYWORDS
        if starts or not groups:
            groups.append((col, [word]))
        else:
            groups[-1][1].append(word)
    return groups


def _action(words, why):
    """Build one action dict (without line/move/player) from its words."""
    head = words[0]
    roll = _ROLL.match(head)
    if roll:
        rest = ([roll.group(3)] if roll.group(3) else []) + words[1:]
        text = " ".join(rest)
        try:
            play = check_play(text)
        except ValueError as exc:
            raise why(str(exc))
        return {"kind": "roll", "dice": (int(roll.group(1)), int(roll.group(2))),
                "text": text, "play": play}
    kind = _KEYWORDS.get(head.lower())
    if kind is None:
        raise why("expected a roll like '52:' or a cube action, found %r" % head)
    args = words[1:]
    if kind in ("double", "beaver", "raccoon"):
        if kind == "double" or args:
            if len(args) != 2 or args[0] != "=>" or not args[1].isdigit():
                raise why("expected '%s => <cube value>', found %r" % (head, " ".join(words)))
            value = int(args[1])
            if value < 2 or value & (value - 1):
                raise why("cube value %d is not a power of two" % value)
            return {"kind": kind, "value": value}
        return {"kind": kind, "value": None}
    if kind in ("take", "drop"):
        if args:
            raise why("unexpected %r after %r" % (" ".join(args), head))
        return {"kind": kind}
    # win / loss: "Wins 2 points [and the match]"
    if len(args) < 2 or not args[0].isdigit() or args[1].lower() not in ("point", "points"):
        raise why("expected '%s <n> point(s)', found %r" % (head, " ".join(words)))
    tail = [a.lower() for a in args[2:]]
    if tail not in ([], ["and", "the", "match"]):
        raise why("unexpected %r after %r" % (" ".join(args[2:]), " ".join(words[:3])))
    return {"kind": kind, "points": int(args[0]), "match": bool(tail)}


def _header(line):
    """(key, value) of a header line ``; [Key "value"]``, or None. Read by hand, not by a
    backtracking pattern, so a long line costs its length."""
    t = line.strip()
    if not t.startswith(";"):
        return None
    t = t[1:].strip()
    if not (t.startswith("[") and t.endswith("]")):
        return None
    t = t[1:-1].strip()
    q = t.find('"')
    if q <= 0 or len(t) < q + 2 or not t.endswith('"'):
        return None
    key = t[:q]
    if key.rstrip() == key or "]" in key:          # the key ends in blanks before its value
        return None
    return key.strip(), t[q + 1:-1]


def _score(line):
    """(left name, left score, right name, right score, column of the right name) of a score
    line ``name : score   name : score`` (either name may be blank), or None; linear in the line."""
    parts = line.split(":")
    if len(parts) != 3 or not parts[2].strip().isdigit():
        return None
    m = _SCORE_MID.match(parts[1])
    if not m:
        return None
    col = len(parts[0]) + 1 + m.start(3)
    return parts[0].strip(), int(m.group(1)), m.group(3).strip(), int(parts[2]), col


def parse_text(text, file="<text>"):
    """Parse the text of a match file; returns the match dict (see the module docstring)."""
    match = {"file": file, "length": None, "headers": {}, "games": []}
    game = None
    want_score = False
    right_col = None
    lineno = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")

        def why(msg, _n=lineno):
            return MatError(file, _n, msg)

        if len(line) > MAX_LINE:
            raise why("a line of %d characters (a match file's are short)" % len(line))
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            h = _header(line)
            if h:
                match["headers"][h[0]] = h[1]
            continue
        if match["length"] is None:
            m = _LENGTH.match(line)
            if not m:
                raise why("expected the match length line '<n> point match', found %r" % line.strip())
            match["length"] = int(m.group(1))
            continue
        m = _GAME.match(line)
        if m:
            if want_score:
                raise why("expected the score line of game %d before a new game" % game["number"])
            number = int(m.group(1))
            if number != len(match["games"]) + 1:
                raise why("game %d follows game %d" % (number, len(match["games"])))
            game = {"number": number, "line": lineno, "players": None, "scores": None, "actions": []}
            match["games"].append(game)
            want_score = True
            continue
        if game is None:
            raise why("expected ' Game 1', found %r" % line.strip())
        if want_score:
            sc = _score(line)
            if not sc:
                raise why("expected the score line 'name : score   name : score', found %r" % line.strip())
            game["players"] = [sc[0], sc[2]]
            game["scores"] = [sc[1], sc[3]]
            right_col = sc[4]
            want_score = False
            continue
        m = _MOVE_LINE.match(line)
        if m:
            number = int(m.group(1))
            groups = _split_actions(_tokens(m.group(2), m.start(2)))
        else:
            # gnubg writes the closing "Wins N points" without a move number
            groups = _split_actions(_tokens(line, 0))
            if not groups or groups[0][1][0].lower() not in _KEYWORDS:
                raise why("expected a numbered move line like '  3) 52: 13/8 13/11', found %r"
                          % line.strip())
            number = game["actions"][-1]["move"] if game["actions"] else 0
        if len(groups) == 3 and groups[2][1][0].lower() in _RESULTS:
            # the right column's last move and the result on one line ("53: 6/1 5/off  Wins 1
            # point"): the result is the right player's, as its column says
            pass
        elif len(groups) > 2:
            raise why("more than two actions on one move line")
        for i, (col, words) in enumerate(groups):
            action = _action(words, why)
            if i < 2 and len(groups) >= 2:
                player = i
            else:
                # a lone action, or a result after the right column's move: its column says
                # whose it is (the left column may be empty)
                player = 1 if col >= right_col - 4 else 0
            action.update(line=lineno, col=col, move=number, player=player)
            game["actions"].append(action)
    if match["length"] is None:
        raise MatError(file, lineno, "no '<n> point match' line")
    if want_score:
        raise MatError(file, lineno, "game %d has no score line" % game["number"])
    if not match["games"]:
        raise MatError(file, lineno, "no games")
    return match


def check_whole(match):
    """MatError unless every game of a parsed file ends with its result ('Wins <n> points'): a
    file cut short (or a game left without its end) names the game and the line where it stops."""
    games = match["games"]
    for game in games:
        if not any(a["kind"] in ("win", "loss") for a in game["actions"]):
            last = game is games[-1]
            end = game["actions"][-1]["line"] if game["actions"] else game["line"] + 1
            raise MatError(match["file"], end, "game %d (from line %d) has no result "
                           "('Wins <n> points')%s" % (game["number"], game["line"],
                                                      ": the file is cut short" if last else ""))


MAX_BYTES = 16 * 1024 * 1024     # the longest real match files are a few hundred KB


def parse_file(path):
    """Read and parse one match file (UTF-8, or Latin-1 when it is not UTF-8); a file over
    MAX_BYTES is refused unread past that, and one with a game without its result (cut short)
    is refused (MatError)."""
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise MatError(str(path), None, "larger than %d MB: not a match file" % (MAX_BYTES >> 20))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    match = parse_text(text, str(path))
    check_whole(match)
    return match
