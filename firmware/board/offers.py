"""Offers one player makes and the other answers: the doubling cube, a resignation, and
letting a flagged illegal play stand.

A feature module of the ``Session`` (loaded for each such action, then dropped, so its code costs
no RAM while the board plays). The cube: MENU doubles for the side to roll (when the rules and the
Crawford rule allow), the opponent's button takes and MENU drops; ``cube double|take|drop`` does the
same from the host; journaled with the clock's reserves. A resignation: the side to move offers
with a long press of its own button (a single) or ``resign 1|2|3``; the points blink on the dice;
the opponent's button (``resign accept``) accepts and the game ends, journaled with who offered and
who accepted; MENU (``resign refuse``) refuses, the offering side's button withdraws, and the turn
goes on where it was. Condoning (referee mode, ``condone on``): the opponent's button lets a
flagged play stand, recorded as condoned with the position the board shows.
"""

from firmware.board.tracker import SETTLED
from firmware.rules import game as gm


def button(s, act, by):
    """A player's button: ``act`` is double, take, drop, or resign (a single); a refusal is said."""
    try:
        if act == "resign":
            offer_resign(s, 1, by)
        else:
            cube(s, act, by)
    except ValueError as exc:
        s.emit("ev", {"ev": "refused", "what": act, "reason": str(exc)})


def cube(s, act, by="host"):
    """double / take / drop, by the side whose move it is (double) or its opponent."""
    game = s.game
    try:
        if act == "double":
            if s.tracker.state != SETTLED:
                raise ValueError("the board must match the game first")
            game.double(s.side)
        elif act == "take":
            game.take()
        elif act == "drop":
            game.drop()
        else:
            raise ValueError("cube action is double, take or drop")
    except gm.GameError as exc:
        raise ValueError(str(exc))
    ev = {"k": "cube", "act": act}
    if s.gclock.reserve > 0:
        s.gclock.stop(s.clock())     # the doubler's or the doubled side's period ends
        ev["clock"] = list(s.gclock.left)
    s.journal_line(ev, by)
    s.emit("ev", {"ev": "cube", "act": act, "value": game.cube, "owner": game.cube_owner})
    if game.phase == gm.OVER:
        s._game_over()
    else:
        s._after_change()


def offer_resign(s, level=1, by="host"):
    """The side to move offers to resign a single (1), gammon (2) or backgammon (3) game."""
    if s.phase not in (gm.ROLL, gm.MOVE):
        raise ValueError("a resignation is offered on one's own turn (to roll or to move)")
    if level not in (1, 2, 3):
        raise ValueError("resign 1 (single), 2 (gammon) or 3 (backgammon)")
    s.resign_offer = (s.side, level, by)
    s.emit("ev", {"ev": "resign_offer", "side": s.side, "level": level,
                  "points": level * s.game.cube})
    s.emit_status()


def answer_resign(s, accept, by="host"):
    """Accept (the game ends, journaled) or refuse the resignation on offer."""
    if s.resign_offer is None:
        raise ValueError("no resignation is offered")
    side, level, offered_by = s.resign_offer
    s.resign_offer = None
    s.emit("ev", {"ev": "resign", "side": side, "level": level, "accepted": accept})
    if not accept:
        s.emit_status()
        return
    s.game.resign(side, level)
    s.verdict = None
    s.journal_line({"k": "resign", "side": side, "level": level, "offer": offered_by}, by)
    s._game_over()


def condone(s, by):
    """The opponent lets a flagged play stand (condone on), as the board shows it."""
    if not s.condone:
        s.emit("ev", {"ev": "refused", "what": "condone",
                      "reason": "illegal plays must be corrected (condone off)"})
        return
    final = s.read_board()
    if final is None:
        s.emit("ev", {"ev": "refused", "what": "condone",
                      "reason": "the board cannot be read as a position; correct it"})
        return
    s.game.commit_condoned(final, s.verdict)
    s._committed(None, final, s.verdict, by)


def run(app, words, fail, need):
    """cube double|take|drop | resign [1|2|3] | resign accept|refuse"""
    if words[0].lower() == "cube":
        need(words, 2, "cube double|take|drop")
        cube(app.session, words[1], app.by)
        return
    if len(words) > 2:
        fail("usage: resign [1|2|3] | resign accept|refuse")
    arg = words[1] if len(words) == 2 else "1"
    if arg in ("accept", "refuse"):
        answer_resign(app.session, arg == "accept", app.by)
    else:
        from firmware.board.protocol import number
        offer_resign(app.session, number(arg, 1, 3, "resignation level"), app.by)
