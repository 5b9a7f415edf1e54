"""A record's events replayed onto the rules core: the one place where record lines become a game.

A ``restore.Visitor`` is what a reader of records calls for every event in order (``restore.walk``
on the board, the host's ``export``), as python-chess's PGN visitors are called in the order of
the game.
``GameReplay`` is the visitor that plays a game: from the header it builds the rules, the ``Match`` (score,
Crawford state) and the ``Game``; every throw, turn, cube action, resignation, time-out and end
is played through the rules core, so a record is re-checked by the rules as it is read. The
board's resume after a reset and the host's ``export`` both subclass it, adding what each needs
(the board: its settings, clock and dice; the exporter: the plays for gnubg's formats).

A line the rules refuse, or lines lost on flash, leave the replay in a gap: events that depend
on the exact state are skipped until the next ``turn`` line, whose ``pos`` (the position after
it) lets the game go on from there. ``refused`` says what happened.

``resume`` is the board's game back after a reset: the last game on flash replayed through
``SessionReplay`` with its settings, clock and dice; it reports, once on the record, what was
lost or damaged, records the reset itself (the clock charged for the time the reset hid) and
replaces a lost dice seed on record. A feature module: loaded at boot for ``resume`` (and never
by the board's ``export``, which needs only ``restore``) and dropped after.
"""

import binascii
import json

from firmware.rules.variants import get_rules
from firmware.rules.position import Position
from firmware.rules import game as gm
from firmware.board.restore import Visitor, walk
from firmware.board.gameclock import GameClock


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
        _sane(ev)
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


class SessionReplay(GameReplay):
    """A game's events onto a ``Session``: the rules state, and the board's settings, clock,
    dice, and what earlier boots already reported lost (``reported``)."""

    def __init__(self, session):
        GameReplay.__init__(self)
        self.s = session
        self.reported = [[], [], 0]     # lost ranges, refused n's, damaged pieces on record
        self.setup_done = False

    def make_rules(self, ev):
        s = self.s
        s.variant = ev["variant"]
        s.options = ev.get("options") or {}
        s.match_to = int(ev["match_to"])
        s._configure_rules()
        return s.rules

    def begin(self, ev):
        GameReplay.begin(self, ev)
        s = self.s
        s.match = self.match
        s.game = self.game
        s.mode = ev.get("mode", "guide")
        s.dice_mode = ev.get("dice_mode", "auto")
        s.condone = bool(ev.get("condone", False))
        c = ev.get("clock") or {}
        s.gclock = GameClock(c.get("reserve", 0), c.get("delay", 12000), c.get("left"))
        s.match_id = ev.get("match", 0)
        s.game_no = ev.get("game", 1)
        s.turns = 0
        s.settings = 0
        s.setup_done = False
        s.verdict = None
        s.dice.expected = ev.get("dice_commit")

    def event(self, ev):
        GameReplay.event(self, ev)
        s = self.s
        if self.header is None:
            return
        if "i" in ev and isinstance(ev["i"], int):          # dice of the committed seed
            d = ev.get("dice")
            n = ev["i"] + (len(d) if isinstance(d, list) else 1)
            if n > s.dice.next:
                s.dice.next = n
        c = ev.get("clock")
        if isinstance(c, list) and len(c) == 2:       # reserves left after a turn, cube, time
            s.gclock.left = [c[0], c[1]]
        k = ev.get("k")
        if k in ("open", "parity", "roll", "turn", "position"):
            self.setup_done = True
        s.turns = self.turns

    def other(self, ev):
        s = self.s
        k = ev.get("k")
        if k == "set":
            s.settings += 1
            for key in ("mode", "dice_mode", "condone"):
                if key in ev:
                    setattr(s, key, ev[key])
        elif k == "clock":
            s.settings += 1
            s.gclock = GameClock(ev["reserve"], ev["delay"])
        elif k == "commit":                 # a new seed: its dice from die 0
            d = s.dice
            d.expected = ev["dice_commit"]
            d.next = 0
            d.mix = b""
        elif k == "mix":
            s.dice.mix = binascii.unhexlify(ev["mix"])
        elif k == "reveal":
            s.dice.expected = None
        elif k == "recover":
            r = self.reported
            r[0] += ev.get("lost") or []
            r[1] += [x[0] for x in ev.get("refused") or []]
            r[2] = ev.get("damaged", 0)


def _int(v, lo, hi):
    return type(v) is int and lo <= v <= hi


def _sane(ev):
    """A header's numbers before anything is built from them: a header sealed with the board's
    key can still hold nonsense (a firmware's bug, a key that leaked): refused, reported."""
    sc = ev["score"]
    c = ev.get("clock") or {}
    left = c.get("left") if type(c) is dict else 0
    if not (_int(ev["match_to"], 1, 99) and type(sc) is list and len(sc) == 2
            and _int(sc[0], 0, 999) and _int(sc[1], 0, 999) and _int(ev.get("games", 0), 0, 9999)
            and type(c) is dict and _int(c.get("reserve", 0), 0, 999999999)
            and _int(c.get("delay", 12000), 0, 999999999)
            and (left is None or type(left) is list and len(left) == 2
                 and _int(left[0], -999999999, 999999999) and _int(left[1], -999999999, 999999999))
            and type(ev.get("options") or {}) is dict and type(ev["variant"]) is str):
        raise ValueError("a game header out of range")


def resume(session):
    """The board's game back after a reset: the last game on flash replayed into ``session``,
    what was lost or damaged reported (on the host link always, on the record once), the reset
    itself on record with the clock charged for the time it hid, a lost dice seed replaced on
    record. False when that game has no readable header (reported: a new match starts and the
    game stays on flash)."""
    s = session
    journal = s.journal
    serial = journal.games()[-1]
    replay = SessionReplay(s)
    w = walk(journal.chunks(serial), lambda text: journal.seal(text, serial), replay, json.loads)
    if replay.header is None:
        s.emit("ev", {"ev": "journal_lost", "serial": serial,
                      "why": "no readable game header: the game stays on flash, a new match "
                             "starts"})
        s.notice = ("journal", s.clock() + 10000)
        journal.serial = serial
        return False
    noted = journal.noted(serial)
    if noted is not None and noted[0] > w.count:   # the file ends before its last save did
        gap = [w.count, noted[0] - 1, "cut off the end of the journal"]
        w.lost.append(gap)
        replay.lost(gap[0], gap[1], gap[2])
        w.count, w.head = noted
    journal.start(serial, w.count, w.head)
    if w.torn:                       # end the torn line, so what is appended starts clean
        journal.storage.append(journal.file(serial), b"\n")
    game = s.game
    now = s.clock()
    s.t_turn = now
    s.setup_done = bool(game.opening) or s.turns > 0 or game.phase != "opening" \
        or replay.setup_done
    s.tracker.follow(game.turn, None if game.turn is not None else game.pos)
    over = game.phase == "over" or s.match.over()
    # the clock: the period that was running goes on, charged with what it had used (its last
    # checkpoint, when no line came after it) plus the longest a checkpoint may have missed
    side = -1 if over else s.actor()
    gc_ = s.gclock
    charged = gc_.resume(side, now, journal.storage, serial, w.count)
    if gc_.side < 0:
        side = -1
    # what was lost: on record once (a later boot finds the same damage and its report)
    # only what no earlier line reported, at most 6 of each (a line stays far below what the
    # reader takes, restore._REST_MAX: the rest goes on the next boot's line)
    rep = replay.reported
    lost = [g for g in w.lost if [g[0], g[1], g[2]] not in rep[0]][:6]
    refused = [[x[0], x[1][:48]] for x in replay.refused if x[0] not in rep[1]][:6]
    # (an ended game takes no line after its end: its export says what the walk found)
    if (w.torn or w.damaged > rep[2] or lost or refused) and not replay.ended:
        s.journal_line({"k": "recover", "lost": lost, "refused": refused,
                        "damaged": w.damaged, "torn": w.torn}, "board")
        s.notice = ("journal", now + 10000)
    if game.phase == "over" and not replay.ended:
        # the game's last turn reached flash, its end did not (a cut in the same write): end it
        # now, as the board did before the cut (the match's score, the seed revealed, the end)
        s.dice.load()
        s._game_over()
    if not over:
        if not s.dice.load() and s.dice_mode == "auto":
            s.journal_line({"k": "commit", "dice_commit": s.dice.new_seed(),
                            "why": "the committed seed was lost"}, "board")
        s.journal_line({"k": "reset", "side": side, "charged": charged,
                        "clock": list(gc_.left)}, "board")
    dropped = w.damaged
    for gap in w.lost:
        dropped += gap[1] - gap[0] + 1
    s.emit("ev", {"ev": "power_restore", "turns": s.turns, "phase": s.phase,
                  "seal": journal.head, "serial": serial, "dropped": dropped, "lost": w.lost,
                  "refused": replay.refused, "damaged": w.damaged})
    if game.turn is not None:            # go on: follow the turn, or roll on when nothing waits
        s._turn_started(restoring=True)
        return True
    s._check_frame()
    if s.setup_done and s.phase in ("roll", "opening", "doublet", "doubled"):
        s._after_change()
    else:
        s.emit_status()
    return True
