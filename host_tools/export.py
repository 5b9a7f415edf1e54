"""The board's game records (nardy-record/1) to GNU Backgammon's .mat and SGF, verified and replayed first.

A record (``export`` on the host link, rules.md §8.6) holds one game: the journal's events, each
with its ``seal``, turn steps as k-steps. ``load_records`` reads a file of one or more records,
``check_chain`` recomputes the seals, ``replay_record`` replays the events through the rules core
(``firmware.rules.game.Game``) into plays in the mover's own pips, and ``write_mat`` /
``write_sgf`` write them the way gnubg writes them (plain numbers, 25 bar, 0 off, one pair per
die). Anything wrong raises ``ExportError`` with the event it is about.
"""

import json

from firmware.board import fairdice
from firmware.board.journal import GENESIS, replay_dice_and_cube, seal
from firmware.rules import get_rules
from firmware.rules import game as gm
from firmware.rules.movegen import IllegalStep
from firmware.rules.notation import format_steps

FORMAT = "nardy-record/1"
NAMES = ("White", "Black")


class ExportError(ValueError):
    """A record that cannot be exported; ``event`` is the index of the event at fault, or None."""

    def __init__(self, why, event=None):
        ValueError.__init__(self, why if event is None else "event %d: %s" % (event, why))
        self.why = why
        self.event = event


# -- reading --------------------------------------------------------------------------------------
def load_records(path):
    """The records in a file: one JSON record, a JSON list of them, or JSON lines (other protocol
    lines, e.g. a monitor's log, are skipped). Sorted by game number."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
    except ValueError:
        items = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    items.append(json.loads(line))
                except ValueError:
                    raise ExportError("%s line %d is not JSON" % (path, n))
    records = [r for r in items if isinstance(r, dict) and r.get("format") == FORMAT]
    if not records:
        raise ExportError("%s holds no game record (%s)" % (path, FORMAT))
    return records


def rules_of(record):
    """The rules of a record, from its (first) game header."""
    events = record.get("events") or []
    if not events or events[0].get("k") != "game":
        raise ExportError("the record does not start with a game header", 0)
    h = events[0]
    try:
        return get_rules(h["variant"], **(h.get("options") or {}))
    except (KeyError, ValueError) as exc:
        raise ExportError("bad game header: %s" % exc, 0)


# -- the seal chain -----------------------------------------------------------------------------------
def _pip(rules, side, k):
    if k == "bar":
        return 25
    if k == "off":
        return 0
    return rules.pip_of(side, k)


def journal_texts(ev, rules):
    """The journal line an exported event came from (candidates): without its ``seal``, and a
    turn's k-steps back in pips as ``s``, at the place the record's key order left it."""
    pairs = [(key, v) for key, v in ev.items() if key != "seal"]
    if ev.get("k") != "turn" or "steps" not in ev:
        yield json.dumps(dict(pairs))
        return
    side = ev.get("side")
    try:
        s = [[_pip(rules, side, st[0]), _pip(rules, side, st[1]), st[2], st[3]] for st in ev["steps"]]
    except (TypeError, IndexError, ValueError):
        yield json.dumps(dict(pairs))
        return
    rest = [(key, v) for key, v in pairs if key != "steps"]
    for i in range(len(rest), -1, -1):
        yield json.dumps(dict(rest[:i] + [("s", s)] + rest[i:]))


def _line_matches(ev, rules):
    """Does the event say what its sealed journal line says (no field changed beside it)?"""
    try:
        sealed = json.loads(ev["line"])
    except ValueError:
        return False
    fields = dict((k, v) for k, v in ev.items() if k not in ("seal", "line", "steps"))
    if ev.get("k") == "turn" and "steps" in ev:
        try:
            fields["s"] = [[_pip(rules, ev.get("side"), st[0]), _pip(rules, ev.get("side"), st[1]),
                            st[2], st[3]] for st in ev["steps"]]
        except (TypeError, IndexError, ValueError):
            return False
    return json.loads(json.dumps(fields)) == sealed


def check_chain(record):
    """Index of the first event whose seal does not follow from the events before it (changed,
    dropped or reordered), len(events) when ``head`` is not the last seal, or -1."""
    events = record.get("events") or []
    rules = rules_of(record)
    prev = GENESIS
    for i, ev in enumerate(events):
        want = ev.get("seal") if isinstance(ev, dict) else None
        if want is None:
            return i
        if "line" in ev:
            if seal(prev, ev["line"]) != want or not _line_matches(ev, rules):
                return i
        elif not any(seal(prev, t) == want for t in journal_texts(ev, rules)):
            return i
        prev = want
    if record.get("head") != prev:
        return len(events)
    return -1


def check_dice(record):
    """The fair dice (firmware/board/fairdice.py): ExportError when the revealed seed does not
    match the commitment made before the game or an electronic throw is not the seed's; else a
    note on what cannot be checked (None when everything was)."""
    events = record.get("events") or []
    commit = events[0].get("dice_commit") if events else None
    throws = []
    unchecked = 0
    reveal = None
    mix = b""
    for n, ev in enumerate(events):
        k = ev.get("k")
        if k == "commit":                   # a new seed (the board lost the one before)
            unchecked += len(throws)
            commit = ev.get("dice_commit")
            throws = []
            mix = b""
        elif k == "mix":                    # the host's bytes, mixed in before the first throw
            if throws:
                raise ExportError("bytes mixed into the dice after they were thrown", n)
            try:
                mix = bytes.fromhex(ev.get("mix", ""))
            except ValueError:
                raise ExportError("the dice mix is not hex", n)
        elif k == "reveal":
            reveal = (ev.get("seed"), n)
        elif "i" in ev:
            throws.append((ev["i"], ev["dice"] if "dice" in ev else [ev["die"]]))
    if commit is None:
        return None
    if reveal is None:
        return "the dice can be checked once the game is over (the seed is revealed then)"
    why = fairdice.verify(commit, reveal[0], throws, mix)
    if why:
        raise ExportError("the dice fail their commitment: " + why, reveal[1])
    if unchecked:
        return "%d throw(s) came from a seed the board lost: not checkable" % unchecked
    return None


# -- replay ---------------------------------------------------------------------------------------
def replay_record(record):
    """Replay one record's game through the rules core. Returns a dict: ``number`` (game in the
    match, from 1), ``score`` (before it), ``match_to``, ``crawford``, ``rules``, ``actions``
    (in order: ``(side, "roll", (d1, d2), steps in pips)``, ``(side, "double", value)``,
    ``(side, "take")``, ``(side, "drop")``), ``winner`` (-1 while unfinished), ``points``,
    ``how``, ``game`` (the finished ``Game``)."""
    rules = rules_of(record)
    events = record["events"]
    h = events[0]
    game = gm.Game(rules, crawford=bool(h.get("crawford")))
    out = {"number": int(h.get("games", 0)) + 1, "score": list(h.get("score") or [0, 0]),
           "match_to": int(h.get("match_to", record.get("match_to", 0)) or 0),
           "crawford": bool(h.get("crawford")), "rules": rules, "actions": [], "winner": -1,
           "points": 0, "how": "", "game": game, "ended": False}
    acts = out["actions"]
    for i in range(1, len(events)):
        ev = events[i]
        k = ev.get("k")
        try:
            side = game.pos.turn
            if replay_dice_and_cube(game, ev):
                if k == "cube":
                    act = ev["act"]
                    acts.append((side, "double", game.cube * 2) if act == "double"
                                else (1 - side, act))
            elif k == "turn":
                acts.append(_turn(rules, game, ev))
            elif k == "position":
                raise ExportError("the game went on from an edited position, which gnubg's "
                                  "match formats cannot express", i)
            elif k == "end":
                if game.phase != gm.OVER:
                    raise ExportError("the record ends the game, the rules do not", i)
                if (ev.get("winner"), ev.get("points")) != (game.winner, game.points):
                    raise ExportError("the record says side %s won %s point(s), the replay says "
                                      "side %d won %d" % (ev.get("winner"), ev.get("points"),
                                                          game.winner, game.points), i)
                out["ended"] = True
            elif k == "time":
                game.time_out(ev["side"], ev["points"])     # the reserve on the clock ran out
            elif k == "resign":
                game.resign(ev["side"], ev["level"])
            elif k in ("game", "set", "flag", "clock", "commit", "reveal", "mix"):
                if k == "game":
                    raise ExportError("a second game header inside one record", i)
            else:
                raise ExportError("unknown event kind %r" % k, i)
        except ExportError as exc:
            if exc.event is None:
                raise ExportError(exc.why, i)
            raise
        except (gm.GameError, IllegalStep, KeyError, IndexError, TypeError, ValueError) as exc:
            raise ExportError("does not replay: %s" % exc, i)
    if game.phase == gm.OVER:
        out["winner"], out["points"], out["how"] = game.winner, game.points, game.result
    return out


def _turn(rules, game, ev):
    if game.phase != gm.MOVE:
        raise ExportError("a turn without dice (phase %s)" % game.phase)
    if "condoned" in ev:
        raise ExportError("an illegal play the opponent condoned (%s) cannot be written in "
                          "gnubg's match formats" % ev["condoned"])
    side = game.pos.turn
    if ev.get("side") != side:
        raise ExportError("side %r moves, but it is side %d's turn" % (ev.get("side"), side))
    turn = game.turn
    steps = []
    for st in ev["steps"]:
        src, dst = _pip(rules, side, st[0]), _pip(rules, side, st[1])
        hit = turn.push(src, st[2])
        if dst != max(src - st[2], 0):
            raise ExportError("step %r: die %d does not lead from %s to %s" % (st, st[2], st[0], st[1]))
        if hit != st[3]:
            raise ExportError("step %r: the hit flag disagrees with the position" % (st,))
        steps.append((src, dst, st[2], hit))
    dice = game.dice
    ok, why = game.commit()
    if not ok:
        raise ExportError("%s (%s)" % (why, format_steps(steps) or "no move"))
    return (side, "roll", dice, steps)


# -- .mat ---------------------------------------------------------------------------------------------
def _plain(steps):
    """A play as gnubg's .mat export writes it: one from/to pair per die, 25 bar, 0 off, * hits."""
    return " ".join("%d/%d%s" % (s, t, "*" if hit else "") for s, t, die, hit in steps)


def _action_text(act):
    if act[1] == "roll":
        d = act[2]
        return ("%d%d: %s" % (d[0], d[1], _plain(act[3]))).rstrip()
    if act[1] == "double":
        return " Doubles => %d" % act[2]
    return " Takes" if act[1] == "take" else " Drops"


def check_compatible(rules):
    """Warnings for exporting this variant to gnubg; ExportError when it cannot be."""
    if not getattr(rules, "gnubg_compatible", False):
        raise ExportError("%s (%s) cannot be written for GNU Backgammon: its rules are not "
                          "backgammon's (gnubg reads backgammon, short nardy with "
                          "scoring=backgammon, and takhteh)" % (rules.title, rules.describe()))
    warn = []
    if rules.name == "persian":
        warn.append("takhteh scores a mars 2 where gnubg scores a backgammon 3: gnubg's match "
                    "score may differ from the board's")
        if rules.option("hit_lift_priority") == "lock_first":
            warn.append("hit_lift_priority=lock_first may play fewer dice than backgammon "
                        "requires: gnubg may reject such a play")
    return warn


def write_mat(games, names=NAMES):
    """Jellyfish/gnubg .mat text of replayed games (``replay_record`` results, in order)."""
    lines = [" %d point match" % games[0]["match_to"], ""]
    for g in games:
        lines.append(" Game %d" % g["number"])
        left = "%s : %d" % (names[0], g["score"][0])
        lines.append(" %-31s%s : %d" % (left, names[1], g["score"][1]))
        acts = g["actions"]
        cells = []
        if acts and acts[0][0] == 1:
            cells.append("")
        for a in acts:
            if a[0] != len(cells) % 2:
                raise ExportError("game %d: side %d acts twice in a row, which .mat cannot "
                                  "write" % (g["number"], a[0]))
            cells.append(_action_text(a))
        for n in range(0, len(cells), 2):
            row = "%3d) %-28s" % (n // 2 + 1, cells[n])
            if n + 1 < len(cells):
                row += " " + cells[n + 1]
            lines.append(row.rstrip())
        if g["winner"] >= 0:
            pts = g["points"]
            total = g["score"][g["winner"]] + pts
            tail = " and the match" if g["match_to"] and total >= g["match_to"] else ""
            pad = " " * 6 if g["winner"] == 0 else " " * 34
            lines.append("%sWins %d point%s%s" % (pad, pts, "" if pts == 1 else "s", tail))
        lines.append("")
    return "\n".join(lines) + "\n"


# -- SGF ----------------------------------------------------------------------------------------------
def _letter(side, pip):
    """SGF point letter (rules.md §8.5): White's pip p is ``a`` + p - 1, Black's the mirror; y bar, z off."""
    if pip == 25:
        return "y"
    if pip == 0:
        return "z"
    return chr(ord("x") - pip + 1) if side else chr(ord("a") + pip - 1)


def _sgf_escape(text):
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(games, names=NAMES):
    """SGF (GM[6]) text of replayed games: one game tree per game, as gnubg writes them."""
    out = []
    for g in games:
        props = ["FF[4]GM[6]CA[UTF-8]AP[nardy-board:1]",
                 "MI[length:%d][game:%d][ws:%d][bs:%d]" % (g["match_to"], g["number"] - 1,
                                                          g["score"][0], g["score"][1]),
                 "PW[%s]PB[%s]" % (_sgf_escape(names[0]), _sgf_escape(names[1]))]
        if g["match_to"]:
            props.append("RU[Crawford%s]" % (":CrawfordGame" if g["crawford"] else ""))
        if g["winner"] >= 0:
            props.append("RE[%s+%d%s]" % ("WB"[g["winner"]], g["points"],
                                          "R" if g["how"] == "resign" else ""))
        nodes = []
        for a in g["actions"]:
            who = "WB"[a[0]]
            if a[1] == "roll":
                pairs = "".join(_letter(a[0], s) + _letter(a[0], t)
                                for s, t, die, hit in a[3])
                nodes.append(";%s[%d%d%s]" % (who, a[2][0], a[2][1], pairs))
            else:
                nodes.append(";%s[%s]" % (who, a[1]))
        out.append("(;%s\n%s)\n" % ("".join(props), "\n".join(nodes)))
    return "".join(out)


# -- the whole job ----------------------------------------------------------------------------------
def export(records, fmt="mat", names=NAMES, verify=True):
    """Text of the records in ``fmt`` (mat or sgf) and the warnings; ExportError on a tampered,
    unreplayable or non-gnubg record."""
    warnings = []
    games = []
    for n, rec in enumerate(records):
        where = "record %d: " % (n + 1) if len(records) > 1 else ""
        try:
            rules = rules_of(rec)
            warnings += check_compatible(rules)
            if verify:
                bad = check_chain(rec)
                if bad >= 0:
                    what = ("the head seal is not the last event's" if bad == len(rec["events"])
                            else "its seal does not follow from the events before it")
                    raise ExportError("the record was changed: %s" % what, bad)
                note = check_dice(rec)
                if note:
                    warnings.append(where + note)
            games.append(replay_record(rec))
        except ExportError as exc:
            raise ExportError(where + exc.why, exc.event)
    games.sort(key=lambda g: g["number"])
    for a, b in zip(games, games[1:]):
        if a["rules"].describe() != b["rules"].describe() or a["match_to"] != b["match_to"]:
            raise ExportError("the records are not of one match (rules or match length differ)")
        if a["number"] == b["number"]:
            raise ExportError("two records of game %d" % a["number"])
    seen = []
    for w in warnings:
        if w not in seen:
            seen.append(w)
    text = write_sgf(games, names) if fmt == "sgf" else write_mat(games, names)
    return text, seen
