"""A record's events replayed onto the rules core: the one place where record lines become a game.

A ``Visitor`` is what a reader of records calls for every event in order (``restore.walk`` on the
board, the host's ``export``), as python-chess's PGN visitors are called in the order of the game.
``GameReplay`` is the visitor that plays a game: from the header it builds the rules, the ``Match`` (score,
Crawford state) and the ``Game``; every throw, turn, cube action, resignation, time-out and end
is played through the rules core, so a record is re-checked by the rules as it is read. The
board's resume after a reset and the host's ``export`` both subclass it, adding what each needs
(the board: its settings, clock and dice; the exporter: the plays for gnubg's formats).

A line the rules refuse, or lines lost on flash, leave the replay in a gap: events that depend
on the exact state are skipped until the next ``turn`` line, whose ``pos`` (the position after
it) lets the game go on from there. ``refused`` says what happened.
"""

from firmware.rules.variants import get_rules
from firmware.rules.position import Position
from firmware.rules import game as gm

class Visitor:
    """Called by ``walk`` in the order of the game: ``raw(text, seal)`` and then ``event(ev)`` for
    each line that holds, ``lost(first, last, why)`` for lines ``first..last`` that are missing or
    damaged (``last`` is -1 when unknown: a torn end)."""

    def event(self, ev):
        pass

    def raw(self, text, seal):
        """The sealed line of the event ``event`` is called with next (exporters keep it)."""

    def lost(self, first, last, why):
        pass


class GameReplay(Visitor):
    """Events onto ``match`` and ``game``. ``header``: the game line; ``turns``: turns replayed
    or adopted; ``ended``: the END line was read; ``gap``: waiting for a turn's position after
    lost or refused lines; ``refused``: [n, why] of sealed lines the rules refused. Subclasses
    extend ``begin`` (the header), ``turn``, ``apply`` (every event) and ``other`` (events that
    are not the game's: settings, dice seeds, the lock...)."""

    def __init__(self):
        self.rules = None
        self.match = None
        self.game = None
        self.header = None
        self.turns = 0
        self.ended = False
        self.gap = False
        self.refused = []

    def event(self, ev):
        if self.header is None and ev.get("k") != "game":
            self.refuse(ev, "the record does not start with a game header")
            return
        try:
            self.apply(ev)
        except (gm.GameError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            self.refuse(ev, str(exc) or repr(exc))

    def refuse(self, ev, why):
        """A sealed line that cannot be replayed: say so; when it is the game's (a throw, a play,
        the cube...), wait for a position."""
        self.refused.append([ev.get("n"), why])
        if ev.get("k") in ("game", "open", "parity", "roll", "choose", "cube", "turn", "resign",
                           "time", "end", "position", "pass"):
            self.gap = True

    def lost(self, first, last, why):
        if self.header is not None:
            self.gap = True

    def make_rules(self, ev):
        """The rules of a header (a hook: the board also rebuilds its tracker here)."""
        return get_rules(ev["variant"], **(ev.get("options") or {}))

    def begin(self, ev):
        """The game header: the rules, the match as it stood, a new game."""
        if self.header is not None:
            raise ValueError("a second game header inside one game")
        rules = self.make_rules(ev)
        match = gm.Match(rules, int(ev["match_to"]))
        match.restore({"score": ev["score"], "games": ev.get("games", 0),
                       "crawford_done": ev.get("crawford_done", False),
                       "crawford_next": ev.get("crawford", False)})
        self.rules = rules
        self.match = match
        self.game = match.new_game(False)
        self.header = ev

    def apply(self, ev):
        """One event onto the game. In a gap, throws and cube actions wait for a turn's position."""
        k = ev.get("k")
        game = self.game
        if k == "game":
            self.begin(ev)
        elif k == "turn":
            self.turn(ev)
        elif k == "resign":
            game.resign(ev["side"], ev["level"])
        elif k == "time":
            game.time_out(ev["side"], ev["points"])
        elif k == "end":
            if game.phase != gm.OVER:
                raise ValueError("the record ends the game, the rules do not")
            if (ev.get("winner"), ev.get("points")) != (game.winner, game.points):
                raise ValueError("the record says side %s won %s point(s), the replay says side "
                                 "%d won %d" % (ev.get("winner"), ev.get("points"), game.winner,
                                                game.points))
            self.match.record(game)
            self.ended = True
        elif k == "position":
            game.set_position(Position.decode(ev["pos"]))
            self.gap = False
        elif k not in ("open", "parity", "roll", "choose", "cube", "pass"):
            self.other(ev)
        elif self.gap:
            pass
        elif k == "open":
            game.opening_roll(ev["dice"][0], ev["dice"][1])
        elif k == "parity":
            game.opening_parity(ev.get("caller", 0), ev.get("even", True), ev["die"])
        elif k == "roll":
            game.roll(ev["dice"][0], ev["dice"][1])
        elif k == "choose":
            game.choose_doublet(ev["value"])
        elif k == "pass":
            if ev["side"] != game.pos.turn:
                raise ValueError("side %r passes, but it is side %d's turn" % (
                    ev["side"], game.pos.turn))
            game.pass_turn()
        elif ev["act"] == "double":
            game.double(game.pos.turn)
        elif ev["act"] == "take":
            game.take()
        elif ev["act"] == "drop":
            game.drop()
        else:
            raise ValueError("unknown cube action %r" % ev["act"])

    def other(self, ev):
        """An event that does not change the game's state (a hook)."""

    def turn(self, ev):
        """A committed play: its steps replayed and checked, or, in a gap, its position taken."""
        game = self.game
        after = Position.decode(ev["pos"])
        side = ev["side"]
        if self.gap:
            if game.phase != gm.OVER:
                game.adopt(after, side, ev.get("kind", gm.NORMAL), ev.get("cube"))
                self.gap = False
                self.turns += 1
            return
        if game.phase == gm.ROLL and "dice" in ev:    # (a roll line may be missing)
            game.roll(ev["dice"][0], ev["dice"][1])
        if side != game.pos.turn:
            raise ValueError("side %r moves, but it is side %d's turn" % (side, game.pos.turn))
        if "condoned" in ev:
            game.commit_condoned(after, ev["condoned"])
        else:
            turn = game.turn
            if turn is None:
                raise ValueError("a turn without dice (phase %s)" % game.phase)
            for st in ev["s"]:
                src, dst, die, hit = st[0], st[1], st[2], st[3]
                if dst != (src - die if src - die > 0 else 0):
                    raise ValueError("step %r: die %d does not lead from %d to %d" % (
                        st, die, src, dst))
                if turn.push(src, die) != hit:
                    raise ValueError("step %r: the hit flag disagrees with the position" % (st,))
            ok, why = game.commit()
            if not ok:
                raise ValueError(why)
            if bytes(game.pos.board) != bytes(after.board):
                raise ValueError("the position after the turn is not the one its steps give")
        self.turns += 1
