"""Replays parsed match files (host_tools.records.matfile) through the rules core, move by move.

Every roll's play is read as gnubg reads a .mat play (rules.md §8.4): the text gives checker
movements in the mover's pips (``bar``/25, ``off``/0, ``*`` ignored, ``(n)`` counts, chains
``13/10*/7``); a movement longer than one die (``13/7`` with 6-1, ``8/off`` with 5-3,
``13/5(2)`` with 4-4) is expanded into single-die steps, preferring an order that does not hit
on an intermediate point (gnubg's ``ExpandMatMove``). The steps are played on a ``Turn``,
which only offers steps that keep a legal play reachable, so a text that completes is a legal
play by construction (``strict=True`` also passes its result through ``Turn.check``); a text
no legal play matches is rejected, with ``Turn.check``'s reason for the position it writes.
The cube actions are checked too (value, owner, answer, Crawford game), and a game must not go
on after it ended.

A rejected move stops the checking of its game (the position after it is unknown); the other
games of the file are still checked. ``????`` (a play its software did not record, typically a
game lost on time) ends the checking of that game without a rejection.
"""

from firmware.rules import get_rules, Turn
from firmware.rules.game import Game
from firmware.rules.notation import parse_move, apply_move_text, NotationError


def _expansions(turn, moves, explicit, out, limit=64):
    """Append realisations of ``moves`` ([[cur, dst], ...]) to out as (intermediate_hits, steps);
    a hit counts as intermediate when it lands on a point the text does not name."""
    if len(out) >= limit:
        return
    if not moves:
        if turn.complete():
            steps = turn.steps
            hits = 0
            for step in steps:
                if step[3] and step[1] not in explicit:
                    hits += 1
            out.append((hits, steps))
        return
    tried = set()
    for i in range(len(moves)):
        cur, dst = moves[i]
        if (cur, dst) in tried:
            continue
        tried.add((cur, dst))
        for t, die in turn.targets(cur):
            if t < dst:
                continue
            turn.push(cur, die)
            rest = moves[:i] + moves[i + 1:]
            if t != dst:
                rest.append([t, dst])
            _expansions(turn, rest, explicit, out, limit)
            turn.pop()
            if out and out[0][0] == 0:
                return


def realise(turn, text):
    """Play ``text`` on ``turn`` as single-die steps and return them, or None when no legal
    play matches the text (the turn is left with no steps then). Raises NotationError."""
    return realise_moves(turn, parse_move(text))


TEXT_SHOWN = 100          # characters of a play's text a report repeats
MAX_MOVEMENTS = 4         # a roll plays at most four single-die steps, each moving a checker


def too_many(movements, dice):
    """The reason a text of ``movements`` cannot be a play of ``dice``, when it moves checkers
    more times than a roll has steps (judged before any search, so a long text costs only its
    reading), else None."""
    n = len(movements)
    if n > MAX_MOVEMENTS:
        return ("%d checker movements: a roll of %d-%d plays at most %d steps" %
                (n, dice[0], dice[1], 4 if dice[0] == dice[1] else 2))
    return None


def realise_moves(turn, movements):
    """The same for movements already read: [(src, dst, ...), ...] in the mover's pips."""
    if too_many(movements, (turn.hi, turn.lo)):
        return None
    moves = []
    explicit = set()
    for m in movements:
        moves.append([m[0], m[1]])
        explicit.add(m[1])
    if not moves:
        return [] if turn.max_steps == 0 else None
    found = []
    _expansions(turn, moves, explicit, found)
    if not found:
        return None
    found.sort(key=lambda f: f[0])
    for step in found[0][1]:
        turn.push(step[0], step[2])
    return found[0][1]


def _name(p):
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def _orders(items):
    """The items in their own order first, then every other order (at most 4! = 24)."""
    yield items
    if len(items) > 1:
        for i in range(len(items)):
            for rest in _orders(items[:i] + items[i + 1:]):
                yield [items[i]] + rest


def written_result(rules, pos, text):
    """The position the text's movements lead to, taken in the written order or, when a checker
    is not there yet, in the first order that works (``8/7 7/6`` written ``7/6 8/7``).
    Raises NotationError (with the written order's complaint) when no order works."""
    moves = [(a, b) for a, b, _ in parse_move(text)]
    first_error = None
    for order in _orders(moves):
        try:
            return apply_move_text(rules, pos, " ".join("%s/%s" % (_name(a), _name(b)) for a, b in order))
        except NotationError as exc:
            if first_error is None:
                first_error = NotationError(str(exc).replace(
                    repr(" ".join("%s/%s" % (_name(a), _name(b)) for a, b in order)), repr(text)))
    raise first_error


def crawford_game(match, game, post_crawford):
    """Is ``game`` the Crawford game, as gnubg decides it: the first game in which exactly one
    player is one point from the match (so a 1-point match, both players at 0, has none: its
    cube may be turned, as on the board). ``post_crawford``: a Crawford game was played."""
    length = match["length"] or 0
    if not length or post_crawford:
        return False
    if match["headers"].get("Crawford", "On").lower() == "off":
        return False
    scores = game["scores"]
    return (scores[0] == length - 1) != (scores[1] == length - 1)


class GameReplay:
    """The state of one game while its actions are checked."""

    def __init__(self, rules, match, game, post_crawford, strict=False, watch=None):
        self.rules = rules
        self.strict = strict
        self.watch = watch
        self.pos = rules.start_position()
        self.game = game
        self.to_act = None
        self.cube = 1
        self.owner = None
        self.pending = None     # (doubler, value)
        self.over = False
        self.winner = None
        self.rolls = 0
        self.steps = None       # the last accepted play as single-die steps (src, dst, die, hit)
        self.crawford = crawford_game(match, game, post_crawford)

    def act(self, action):
        """Check one action; returns None, or the reason it is rejected."""
        kind = action["kind"]
        p = action["player"]
        if self.over:
            if kind in ("win", "loss"):
                return None
            return "the game is already over"
        if kind == "roll":
            return self._roll(action, p)
        if kind in ("double", "beaver", "raccoon"):
            return self._double(action, p)
        if kind == "take":
            if self.pending is None or self.pending[0] == p:
                return "a take without a double to answer"
            self.cube = self.pending[1]
            self.owner = p
            self.pending = None
            return None
        if kind == "drop":
            if self.pending is None or self.pending[0] == p:
                return "a drop without a double to answer"
            self.over = True
            self.winner = self.pending[0]
            return None
        if kind == "win":
            self.over = True
            self.winner = p
            return None
        if kind == "loss":
            self.over = True
            self.winner = 1 - p
            return None
        return "unknown action %r" % kind

    def _double(self, action, p):
        kind = action["kind"]
        if kind == "double":
            if self.pending is not None:
                return "a double while another is waiting for an answer"
            if self.crawford:
                return "no doubling in the Crawford game"
            if self.to_act is not None and p != self.to_act:
                return "only the player about to roll may double"
            if self.owner is not None and self.owner != p:
                return "the cube is owned by the other player"
            value = action["value"]
            if value != 2 * self.cube:
                return "the cube goes from %d to %d, not %d" % (self.cube, 2 * self.cube, value)
            self.pending = (p, value)
            return None
        # beaver / raccoon: the player who was doubled redoubles at once and keeps the cube
        if self.pending is None or self.pending[0] == p:
            return "a %s without a double to answer" % kind
        value = action["value"] or 2 * self.pending[1]
        if value != 2 * self.pending[1]:
            return "a %s takes the cube to %d, not %d" % (kind, 2 * self.pending[1], value)
        self.pending = (p, value)
        return None

    def _roll(self, action, p):
        if self.pending is not None:
            return "the double must be answered before the next roll"
        if self.to_act is not None and p != self.to_act:
            if not self._closed_out(self.to_act):
                return "it is not this player's turn to roll"
            self.to_act = p     # the other was closed out: a pass without a throw (an empty cell)
        dice = action["dice"]
        if self.to_act is None and dice[0] == dice[1]:
            return "the opening roll cannot be a double (ties are thrown again)"
        if action["play"] is None:      # '????': the rest of this game is unknown
            self.over = True
            return None
        self.rolls += 1
        pos = self.pos
        pos.turn = p
        final, written, why = self._judge(pos, dice, action["play"])
        if self.watch is not None:
            self.watch(action, pos.copy(), final if why is None else written, why)
        if why is not None:
            return why
        self.pos = final
        self.to_act = 1 - p
        if final.off(p) == 15:
            self.over = True
            self.winner = p
        return None

    def _closed_out(self, side):
        """No roll of ``side`` could be played here: its turn passes unthrown, as gnubg reads
        an empty cell (the board records such a pass as ``pass``, rules.md S12)."""
        pos = self.pos.copy()
        pos.turn = side
        game = Game(self.rules)
        game.set_position(pos)        # mid-game: no first-turn rule applies
        return game.closed_out()

    def _judge(self, pos, dice, play):
        """(final, written, reason): the position after a legal play and None, or None, the
        position the text writes (None if it cannot be applied) and why it is rejected."""
        turn = Turn(self.rules, pos, dice)
        try:
            movements = parse_move(play)
        except NotationError as exc:
            return None, None, str(exc)
        why = too_many(movements, dice)
        if why is not None:
            return None, None, why
        steps = realise_moves(turn, movements)
        if steps is not None:
            self.steps = steps
            # every step was offered by the Turn and the play is complete: legal by construction
            final = turn.position()
            if self.strict:
                ok, why = turn.check(final)
                if not ok:
                    return None, final, "rules core disagrees with itself: %s" % why
            return final, final, None
        # no legal play matches the text: let Turn.check judge the written result and say why
        try:
            written = written_result(self.rules, pos, play)
        except NotationError as exc:
            return None, None, str(exc)
        ok, why = turn.check(written)
        if not ok:
            return None, written, why
        return None, written, ("the movements written are not single-die steps of %d-%d (the "
                               "position they lead to is reached by another play)" % dice)


def replay_match(match, variant="backgammon", strict=False, watch=None):
    """Check every game of a parsed match; returns
    {"file", "games", "moves", "rejected": [{"game", "move", "player", "line", "text", "reason"}],
     "unknown": games cut short by '????'}. ``strict`` also passes every accepted play's
    result through ``Turn.check`` (slower; the steps are already legal by construction).
    ``watch(action, before, after, reason)`` is called for every play judged: ``after`` is the
    resulting position (as written, or None if the text cannot be applied), ``reason`` None
    when the play is legal."""
    rules = get_rules(variant)
    report = {"file": match["file"], "games": len(match["games"]), "moves": 0,
              "rejected": [], "unknown": 0}
    variation = match["headers"].get("Variation", "Backgammon")
    if variation.strip().lower() != "backgammon":
        # Nackgammon and Hypergammon start elsewhere: not a position our variants know
        report["error"] = "the Variation header says %r; only Backgammon is replayed" % variation
        report["line"] = None
        return report
    post = False
    for game in match["games"]:
        g = GameReplay(rules, match, game, post, strict, watch)
        post = post or g.crawford
        for action in game["actions"]:
            if action["kind"] == "roll" and action["play"] is None:
                report["unknown"] += 1
            why = g.act(action)
            if why is not None:
                report["rejected"].append({
                    "game": game["number"],
                    "move": action["move"],
                    "player": game["players"][action["player"]],
                    "line": action["line"],
                    "text": describe(action),
                    "reason": why,
                })
                break
        report["moves"] += g.rolls
    return report


def describe(action):
    """The action as written in the file, e.g. '52: 13/8 13/11' or 'Doubles => 2'."""
    kind = action["kind"]
    if kind == "roll":
        text = action["text"]
        if len(text) > TEXT_SHOWN:
            text = text[:TEXT_SHOWN] + "... (%d characters)" % len(text)
        return ("%d%d: %s" % (action["dice"][0], action["dice"][1], text)).rstrip()
    if kind in ("double", "beaver", "raccoon"):
        name = {"double": "Doubles", "beaver": "Beavers", "raccoon": "Raccoons"}[kind]
        return "%s => %s" % (name, action["value"]) if action["value"] else name
    if kind in ("win", "loss"):
        return "%s %d point%s" % ("Wins" if kind == "win" else "Losses", action["points"],
                                  "" if action["points"] == 1 else "s")
    return {"take": "Takes", "drop": "Drops"}[kind]
