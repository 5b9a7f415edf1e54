"""Offers one player makes and the other answers: the doubling cube, a resignation, and
letting a flagged illegal play stand; and the other end of a game by a decision, the clock's.

A feature module of the ``Session`` (loaded for each such action, then dropped, so its code costs
no RAM while the board plays). The cube: MENU doubles for the side to roll (when the rules and the
Crawford rule allow), the opponent's button takes and MENU drops; ``cube double|take|drop`` does the
same from the host; journaled with the clock's reserves; the cube has no cap. A resignation: the
side to move offers with a long press of its own button (a single game; each further long press
offers the variant's next result: ``rules.results``, e.g. tric-trac 1, 2, 4, 8) or ``resign
<level>``; the points blink on the dice; the opponent's button (``resign accept``) accepts and the
game ends, journaled with who offered and who accepted; MENU (``resign refuse``) refuses, the
offering side's button withdraws, and the turn goes on where it was. Condoning (referee mode, ``condone on``): the opponent's button lets a
flagged play stand, recorded as condoned with the position the board shows. A reserve run out
(``time_out``) loses the game, scored as what the opponent needs to take the match.
"""

from firmware.board.tracker import SETTLED
from firmware.drivers.buttons import NAMES
from firmware.rules import game as gm


def button(s, act, by):
    """A player's button: ``act`` is double, take, drop, or resign (a single game, or the next
    result when an offer of one's own is on); a refusal is said and shown."""
    try:
        if act == "resign":
            offer_resign(s, None, by)
        else:
            cube(s, act, by)
    except ValueError as exc:
        refused(s, act, str(exc), by)


def refused(s, what, why, by):
    """Say a button's refusal on the link, and on the lights: the presser's turn light blinks
    red (both for MENU)."""
    if by in NAMES:
        s.notice = ("refused", s.clock() + 2000, NAMES.index(by))
    if what:
        s.emit("ev", {"ev": "refused", "what": what, "reason": why})


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


def offer_resign(s, level=None, by="host"):
    """The side to move offers to resign a game of ``level`` points before the cube: one of the
    rules' results (``rules.results``). None: a single game, or, while its own offer is on, the
    next result (after the largest, the single again)."""
    offer = s.resign_offer
    mine = offer is not None and offer[0] == s.side
    if s.phase not in (gm.ROLL, gm.MOVE) and not mine:
        raise ValueError("a resignation is offered on one's own turn (to roll or to move)")
    results = s.rules.results
    if level is None:
        level = results[(results.index(offer[1]) + 1) % len(results)] if mine else 1
    if level not in results:
        raise ValueError("%s games are won for %s points: resign one of those" % (
            s.rules.name, ", ".join(str(r) for r in results)))
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
        if by == "menu":
            refused(s, None, None, by)     # refused: the lights say so (a withdrawal is quiet)
        s.emit_status()
        return
    s.game.resign(side, level)
    s.verdict = None
    s.journal_line({"k": "resign", "side": side, "level": level, "offer": offered_by}, by)
    s._game_over()


def pass_turn(s, by):
    """The side to roll is closed out: its turn passes without a throw, on record; its turn
    light flickers a moment."""
    side = s.side
    s.game.pass_turn()
    s.journal_line({"k": "pass", "side": side}, by)
    s.notice = ("pass", s.clock() + 2000, side)
    s.emit("ev", {"ev": "pass", "side": side})
    s._after_change(False)


def set_call(s, who, even=None, by="host"):
    """Takhteh's parity opening: side ``who`` calls even (True) or odd, said on the host link
    and shown on the dice until the die is thrown. From the buttons (``even`` None): MENU turns
    the call; a player's button makes the call that player's and, with electronic dice,
    throws the die."""
    if s.phase != gm.OPENING or s.rules.opening != "parity":
        raise ValueError("a call of even or odd opens a game with opening=parity")
    caller, call = s.call
    if even is None and who == 2:
        who, even = caller, not call
    elif even is None:
        even = call
    s.call = (who, even)
    s.emit("ev", {"ev": "choice", "side": who, "value": "even" if even else "odd"})
    if by in ("p0", "p1") and s.dice_mode == "auto":
        s._opening(s._auto_dice(1)[0], 0, by)


def time_out(s, side, now):
    """``side``'s reserve ran out (``Session.tick``): it loses what the opponent still needs to
    take the match (the cube's value when the match has no length left to win), on record."""
    game = s.game
    s.gclock.stop(now)
    need = s.match_to - s.match.score[1 - side]
    points = need if need > 0 else game.cube
    s.verdict = None
    s._flagged = False
    s.resign_offer = None
    game.time_out(side, points)
    s._journal({"k": "time", "side": side, "points": points, "clock": list(s.gclock.left)},
               "board")
    s.emit("ev", {"ev": "time_out", "side": side})
    s._game_over()


def condone(s, by):
    """The opponent lets a flagged play stand (condone on), as the board shows it."""
    if not s.condone:
        refused(s, "condone", "illegal plays must be corrected (condone off)", by)
        return
    final = s.tracker.read_board(s.frame)
    if final is None:
        refused(s, "condone", "the board cannot be read as a position; correct it", by)
        return
    s.game.commit_condoned(final, s.verdict)
    s._committed(None, final, s.verdict, by)


def run(app, words, fail, need):
    """cube double|take|drop | resign [level] | resign accept|refuse"""
    if words[0].lower() == "cube":
        need(words, 2, "cube double|take|drop")
        cube(app.session, words[1], app.by)
        return
    if len(words) > 2:
        fail("usage: resign [level: 1, 2, 3, 4, 8 as the variant scores] | resign accept|refuse")
    arg = words[1] if len(words) == 2 else "1"
    if arg in ("accept", "refuse"):
        answer_resign(app.session, arg == "accept", app.by)
    else:
        from firmware.board.protocol import number
        offer_resign(app.session, number(arg, 1, 8, "resignation level"), app.by)
