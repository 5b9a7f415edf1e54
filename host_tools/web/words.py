"""What the board says, in words a player reads: events, refusals and flags, the status line, the record, the result.

Everything here is a pure function of protocol lines (``docs/protocol.md``) and records, so the
page only shows text and the tests read the same words.
"""

from firmware.board import record as rec
from firmware.rules import Position, get_rules
from firmware.rules.notation import format_steps

SIDES = rec.SIDES
BAR, OFF = 25, 0
ROLL_KINDS = {"matador": "the matador ", "chosen": "the chosen doublet "}
PARTS = {"dice": "the electronic dice", "sensors": "the sensors", "p0": "White's button",
         "p1": "Black's button", "menu": "the Menu button", "leds": "the LEDs"}


def side_name(side):
    return SIDES[side] if side in (0, 1) else "?"


def rules_for(variant, options=None):
    """The rules of a variant by name (None when unknown)."""
    try:
        return get_rules(variant, **(options or {}))
    except (KeyError, ValueError, TypeError):
        return None


def zone_words(name):
    """A zone name of the protocol as a player says it: point 7, White's bar, Black's tray."""
    name = str(name)
    if name in ("bar0", "bar1"):
        return "%s's bar" % SIDES[int(name[3])]
    if name in ("off0", "off1"):
        return "%s's tray" % SIDES[int(name[3])]
    return "point " + name


def zones_words(names):
    names = list(names or [])
    return ", ".join(zone_words(n) for n in names) or "no zone"


# -- plays in the mover's own numbering ---------------------------------------------------------
def pip_of(rules, side, k):
    """The mover's own pip of a k-step end (1..24, "bar", "off")."""
    if k == "bar":
        return BAR
    if k == "off":
        return OFF
    return rules.pip_of(side, int(k))


def turn_steps(rules, ev):
    """A journal/record turn's steps in the mover's pips: ``s`` (journal lines) or ``steps``
    (k-steps, as the record and ``commit`` give them)."""
    if "s" in ev:
        return [tuple(st) for st in ev["s"]]
    side = ev.get("side")
    return [(pip_of(rules, side, st[0]), pip_of(rules, side, st[1]), st[2], st[3])
            for st in ev.get("steps") or []]


def play_text(rules, ev):
    """A play as gnubg writes it, in the mover's own pips: 13/7 6/5, bar/22, 6/off, 8/5*(2)."""
    return format_steps(turn_steps(rules, ev)) if rules is not None else ""


def _one_step(ev):
    def point(p):
        return "bar" if p == BAR else "off" if p == OFF else str(p)
    return "%s/%s%s" % (point(ev.get("src")), point(ev.get("dst")), "*" if ev.get("hit") else "")


# -- results ------------------------------------------------------------------------------------------
def level_names(rules):
    """The names of a won game's levels (points before the cube) under these rules."""
    if rules is None:
        return {}
    scoring = rules.OPTIONS.get("scoring") and rules.option("scoring")
    name = rules.name
    if name == "backgammon":
        return {1: "single game", 2: "gammon", 3: "backgammon"}
    if name == "long":
        names = {1: "oin (single game)", 2: "mars"}
        if scoring == "seed":
            names[4] = "quadruple mars (not all home)"
        elif scoring == "koks":
            names[3] = "koks"
        return names
    if name == "persian":
        return {1: "single game", 2: "mars"}
    if scoring == "backgammon":                  # short nardy, jacquet, matador
        return {1: "single game", 2: "mars (gammon)", 3: "koks (backgammon)"}
    return {1: "single game", 2: "double (mars)", 4: "quadruple (not all home)",
            8: "octuple (a checker on the bar)"}


LEVEL_REASONS = {"mars": "bore off no checker", "gammon": "bore off no checker",
                 "koks": "bore off no checker and still had one in the first quarter",
                 "backgammon": "bore off no checker and still had one on the bar or in the winner's home",
                 "quadruple": "bore off no checker and had not brought all home",
                 "double": "bore off no checker", "octuple": "bore off no checker and had one on the bar"}


def result_words(rules, winner, points, how, cube=1):
    """The result line: who won, how many points and why (single, mars, koks, gammon, resign, time)."""
    loser = side_name(1 - winner)
    pts = "%d point%s" % (points, "" if points == 1 else "s")
    head = "%s wins %s" % (side_name(winner), pts)
    cube = cube if cube and cube > 0 else 1
    level = points // cube if points % cube == 0 else points
    name = level_names(rules).get(level)
    times = " × cube %d" % cube if cube > 1 else ""
    if how == "drop":
        return "%s: %s dropped the cube at %d" % (head, loser, points * 2)
    if how == "time":
        return "%s: %s's time ran out (the points still needed for the match)" % (head, loser)
    if how == "resign":
        return "%s: %s resigned %s%s" % (head, loser, _a(name or "%d-point game" % level), times)
    if name is None:
        return head
    first = name.split()[0]
    why = LEVEL_REASONS.get(first)
    return "%s: %s%s%s" % (head, _a(name), times, " (%s %s)" % (loser, why) if why else "")


def _a(name):
    return ("an " if name[0] in "aeiou" else "a ") + name


def resign_words(rules, level, cube=1):
    """A resignation's level as offered: 'a gammon (2 points)'."""
    name = level_names(rules).get(level)
    pts = level * cube
    return "%s (%d point%s)" % (_a(name or "%d-point game" % level), pts, "" if pts == 1 else "s")


# -- events -------------------------------------------------------------------------------------------
def event_words(msg, rules=None, cube=1):
    """One protocol line from the board (a dict) in words; None for lines a player need not read."""
    t = msg.get("t")
    if t == "err":
        return "refused: %s: %s" % (msg.get("cmd", ""), msg.get("msg", ""))
    if t == "text":
        return msg.get("text", "")
    if t == "hello":
        return "the board started (firmware %s, %s)" % (msg.get("fw", "?"), msg.get("hw", "?"))
    if t != "ev":
        return None
    ev = msg.get("ev")
    who = side_name(msg.get("side"))
    if ev == "step":
        return "%s %s" % (who, _one_step(msg))
    if ev == "undo":
        return "%s takes back %s" % (who, _one_step(msg))
    if ev == "commit":
        text = "%s %s" % (who, play_text(rules, msg) or "(no move)")
        return text + (" (an illegal play, condoned: %s)" % msg["condoned"] if msg.get("condoned") else "")
    if ev == "roll":
        d = msg.get("dice") or []
        return "%s rolls %s%s" % (who, ROLL_KINDS.get(msg.get("kind"), ""), "-".join(map(str, d)))
    if ev == "opening":
        d = msg.get("dice") or []
        starter = msg.get("starter", -1)
        if len(d) == 1:
            call = ""
            if msg.get("side") in (0, 1):
                call = " (%s called %s)" % (side_name(msg["side"]), "even" if msg.get("even") else "odd")
            return "opening die %d%s: %s starts" % (d[0], call, side_name(starter))
        if starter not in (0, 1):
            return "opening throw %s: a tie, throw again" % "-".join(map(str, d))
        return "opening throw: White %s, Black %s: %s starts" % (d[0], d[1], side_name(starter))
    if ev == "no_move":
        return "%s cannot move: press to pass" % who
    if ev == "await_roll":
        if msg.get("pass"):
            return "%s is closed out: your button passes (no throw)%s" % (
                who, ", or double: Menu" if msg.get("can_double") else "")
        return "%s to roll%s" % (who, " (or double: Menu)" if msg.get("can_double") else "")
    if ev == "pass":
        return "%s is closed out: no roll could play, the turn passes without a throw" % who
    if ev == "await_opening":
        if msg.get("side") in (0, 1):
            return ("%s calls %s (Menu turns the call; a player's button makes it his%s)" % (
                who, "even" if msg.get("even") else "odd",
                "" if msg.get("dice_mode") == "manual" else " and throws"))
        return ("enter the opening throw" if msg.get("dice_mode") == "manual"
                else "press a player's button for the opening throw")
    if ev == "choose":
        return "%s: choose the doublet (now %s; Menu changes it, your button confirms)" % (who, msg.get("value"))
    if ev == "choice":
        if msg.get("value") in ("even", "odd"):
            return "%s calls %s" % (who, msg["value"])
        return "doublet %s" % msg.get("value")
    if ev == "await_cube":
        return "%s: take the cube (your button) or drop it (Menu)" % who
    if ev == "cube":
        act, value, owner = msg.get("act"), msg.get("value"), msg.get("owner")
        if act == "double":
            return "a double is offered: the cube goes to %d if taken" % (2 * (value or 1))
        if act == "take":
            return "%s takes: the cube is %d, %s owns it" % (side_name(owner), value, side_name(owner))
        return "the double is dropped"
    if ev == "lift":
        return "a checker lifted from %s" % zone_words(msg.get("zone"))
    if ev == "place":
        return "a checker put down on %s" % zone_words(msg.get("zone"))
    if ev in ("illegal", "refused", "mismatch", "sensor_fault", "time_out"):
        return notice_words(msg)
    if ev == "hw_fault":
        if msg.get("fault"):
            return notice_words(msg)
        return "%s: working again" % PARTS.get(msg.get("part"), str(msg.get("part")))
    if ev == "resync":
        return "the board matches the game again"
    if ev == "resign_offer":
        return "%s offers to resign %s" % (who, resign_words(rules, msg.get("level", 1), cube))
    if ev == "resign":
        return "%s %s %s's resignation" % (side_name(1 - msg.get("side", -1)) if msg.get("side") in (0, 1) else "?",
                                          "accepts" if msg.get("accepted") else "refuses", who)
    if ev == "game_over":
        text = result_words(rules, msg.get("winner"), msg.get("points", 0), msg.get("how"), cube)
        return text + (" — and the match" if msg.get("match_over") else "")
    if ev == "new_game":
        return "new game %s of %s: set out the checkers" % (msg.get("game", ""), _title(msg.get("variant")))
    if ev == "setup_ok":
        return "the checkers stand as the game starts"
    if ev == "power_restore":
        dropped = msg.get("dropped")
        return "power back: the game resumed after %s turn(s)%s" % (
            msg.get("turns"), "; %d journal line(s) rejected" % dropped if dropped else "")
    return "%s %s" % (ev, " ".join("%s=%s" % (k, v) for k, v in msg.items() if k not in ("t", "ev")))


def _title(variant):
    rules = rules_for(variant)
    return rules.title if rules is not None else str(variant)


# -- refusals and flags: the notice next to the board --------------------------------------------------
def notice_words(msg):
    """A refusal, a flag or a warning in plain words (an ``ev`` line); None for other lines."""
    ev = msg.get("ev")
    who = side_name(msg.get("side"))
    if ev == "illegal":
        what = msg.get("what")
        if what == "placement":
            return ("illegal: a checker was put on %s, where no lifted checker may go: take it "
                    "back (the point flashes)" % zones_words(msg.get("zones")))
        if what == "ambiguous":
            return ("not taken yet: %s. Press again to take what the LEDs show" % msg.get("reason", ""))
        text = "illegal: %s" % msg.get("reason", "")
        wait = msg.get("await")
        if wait == "correct or condone":
            text += ". %s corrects the play, or %s condones it with his button" % (who, side_name(1 - msg.get("side", 0)))
        elif wait == "correct":
            text += ". %s must correct the play" % who
        else:
            text += ". Finish the play, then press again"
        return text
    if ev == "refused":
        what = {"condone": "condoning the play", "double": "a double", "take": "taking the cube",
                "drop": "dropping the cube", "resign": "a resignation"}.get(msg.get("what"), msg.get("what"))
        return "refused, %s: %s" % (what, msg.get("reason", ""))
    if ev == "mismatch":
        return ("the board does not match the game: checkers missing on %s, extra on %s. Put them "
                "back as the LEDs show" % (zones_words(msg.get("missing")), zones_words(msg.get("extra"))))
    if ev == "sensor_fault":
        return ("sensors not trusted on %s: their counts come from the game until they read "
                "sensibly again" % zones_words(msg.get("zones")))
    if ev == "time_out":
        return "%s's time ran out: %s loses the match" % (who, who)
    if ev == "hw_fault" and msg.get("fault"):
        return ("hardware fault, %s: %s. The first die's LEDs show its code"
                % (PARTS.get(msg.get("part"), str(msg.get("part"))), msg.get("why", "")))
    if ev == "no_move":
        return "%s cannot move: press to pass" % who
    return None


# events after which the notice no longer applies (the game moved on)
NOTICE_ENDS = ("step", "undo", "commit", "roll", "opening", "cube", "choose", "new_game",
               "setup_ok", "resync", "resign_offer", "resign", "game_over", "power_restore")


# -- the status line ---------------------------------------------------------------------------------------
def status_line(status, offer=None, rules=None, cube=1, stuck=False):
    """What is going on and who must do what next, from a ``status`` line (and the resignation on
    offer, if any: ``(side, level)``; ``stuck``: the side to move cannot play its dice)."""
    s = status
    phase = s.get("phase")
    turn = s.get("turn")
    who, other = side_name(turn), side_name(1 - turn if turn in (0, 1) else -1)
    title = _title(s.get("variant"))
    dice = "-".join(map(str, s.get("dice") or []))
    if phase == "move" and stuck:
        text = "%s cannot play %s: press your button to pass" % (who, dice)
    elif phase == "move":
        left = " ".join(map(str, s.get("dice_left") or [])) or "none"
        text = "%s to play %s (dice left: %s)" % (who, dice, left)
    elif phase == "roll":
        text = "%s to roll" % who
    elif phase == "setup":
        text = "set out the checkers as the LEDs show"
    elif phase == "opening":
        text = ("enter the opening throw" if s.get("dice_mode") == "manual"
                else "press a player's button for the opening throw")
    elif phase == "doublet":
        text = "%s: choose the doublet (Menu changes it, your button confirms)" % who
    elif phase == "doubled":
        text = "%s doubles: %s takes (his button) or drops (Menu)" % (who, other)
    elif phase == "flagged":
        text = "%s's play %s is illegal: %s" % (who, dice, "correct it, or %s condones it" % other
                                                if s.get("condone") else "correct it")
    elif phase == "resign":
        if offer is not None:
            text = "%s offers to resign %s: %s accepts (his button) or refuses (Menu)" % (
                side_name(offer[0]), resign_words(rules, offer[1], cube), side_name(1 - offer[0]))
        else:
            text = "%s offers to resign: %s accepts (his button) or refuses (Menu)" % (who, other)
    elif phase == "over":
        text = "game over: press a player's button for the next game"
    elif phase == "match_over":
        text = "the match is over (New game starts another)"
    else:
        text = str(phase)
    board = s.get("board")
    if board == "mismatch":
        text += " · the board does not match the game"
    faults = s.get("hw_faults")
    if faults:
        text += " · out of order: " + ", ".join(PARTS.get(p, str(p)) for p in faults)
    return "%s · %s" % (title, text)


# -- the game panel: cube, pips, score, Crawford -----------------------------------------------------------
def pip_counts(position_text):
    """[White, Black] pips still to travel, from a Position text (None when unreadable)."""
    try:
        pos = Position.parse(position_text)
    except (ValueError, TypeError, AttributeError, IndexError):
        return None
    return [pos.pip_count(0), pos.pip_count(1)]


def cube_words(value, owner, in_use):
    if not in_use:
        return "no cube in this game"
    if owner in (0, 1):
        return "cube %d, %s owns it" % (value, side_name(owner))
    return "cube %d, in the middle (either side may double)" % (value or 1)


def score_words(status, crawford):
    """Score, match length and the Crawford state."""
    score = status.get("score") or [0, 0]
    to = status.get("match_to") or 0
    text = "score White %d – Black %d" % (score[0], score[1])
    text += " · match to %d" % to if to > 0 else " · a series of games (no match length)"
    if crawford == "crawford":
        text += " · Crawford game (no doubling)"
    elif crawford == "post":
        text += " · after the Crawford game"
    text += " · game %s · %s, dice %s" % (status.get("game", "?"), status.get("mode", "?"),
                                          "electronic" if status.get("dice_mode") == "auto" else "manual")
    return text


# -- the record ---------------------------------------------------------------------------------------------
def record_lines(record):
    """The game record in words: each play in its mover's own numbering, as gnubg writes it
    (``52: 13/8 13/11``), the dice, the cube, resignations, the clock, the result; what the
    director's signed commands did says so."""
    events = (record or {}).get("events") or []
    if not events:
        return []
    h = events[0] if events[0].get("k") == rec.GAME else {}
    rules = rules_for(h.get("variant") or record.get("variant"), h.get("options"))
    lines = []
    cube = [1]
    for ev in events:
        try:
            text = _record_event(rules, ev, cube)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            text = "%s (unreadable: %s)" % (ev.get("k"), str(ev)[:60])
        if text and ev.get("by") == "dir":      # the director's signed command (issue 13)
            text += " (the director)"
        if text:
            lines.append(text)
    return lines


def _record_event(rules, ev, cube):
    """One record event in words (``cube``: a one-item list, the cube's value so far)."""
    k = ev.get("k")
    text = None
    if k == rec.GAME:
        text = "game %d of %s%s" % (int(ev.get("games", 0)) + 1, rules.title if rules else ev.get("variant"),
                                    ", match to %d" % ev["match_to"] if ev.get("match_to", 0) > 1 else "")
        if ev.get("crawford"):
            text += " (Crawford game)"
        if ev.get("dice_commit"):
            text += "; dice committed: %s…" % ev["dice_commit"][:16]
    elif k == rec.TURN:
        d = ev.get("dice") or []
        play = play_text(rules, ev)
        text = "%s %s: %s" % (side_name(ev.get("side")), "".join(map(str, d)), play or "(no move)")
        if ev.get("condoned"):
            text += " (illegal, condoned: %s)" % ev["condoned"]
        elif ev.get("corrected"):
            text += " (corrected after a flag)"
    elif k == rec.OPEN:
        text = "opening throw: White %d, Black %d" % tuple(ev["dice"][:2])
    elif k == rec.PARITY:
        text = "opening die %d" % ev.get("die")
    elif k == rec.ROLL and ev.get("kind") in ("matador", "chosen"):
        text = "%s%s" % (ROLL_KINDS[ev["kind"]], "-".join(map(str, ev.get("dice") or [])))
    elif k == rec.CHOOSE:
        text = "doublet chosen: %s" % ev.get("value")
    elif k == rec.CUBE:
        act = ev.get("act")
        if act == "double":
            text = "doubles => %d" % (cube[0] * 2)
        elif act == "take":
            cube[0] *= 2
            text = "takes (cube %d)" % cube[0]
        else:
            text = "drops"
    elif k == rec.FLAG:
        text = "%s's play flagged: %s" % (side_name(ev.get("side")), ev.get("reason"))
    elif k == rec.RESIGN:
        text = "%s resigns %s" % (side_name(ev.get("side")), resign_words(rules, ev.get("level", 1), cube[0]))
    elif k == rec.TIME:
        text = "%s's time ran out" % side_name(ev.get("side"))
    elif k == rec.END:
        text = result_words(rules, ev.get("winner"), ev.get("points", 0), ev.get("how"), cube[0])
        text += "; score %s" % "–".join(map(str, ev.get("score") or []))
    elif k == rec.CLOCK:
        text = ("clock: %g min each, %g s delay" % (ev["reserve"] / 60000, ev.get("delay", 0) / 1000)
                if ev.get("reserve") else "clock off")
    elif k == rec.COMMIT:
        text = "new dice seed committed: %s…%s" % (ev.get("dice_commit", "")[:16],
                                                   " (%s)" % ev["why"] if ev.get("why") else "")
    elif k == rec.MIX:
        text = "the host's bytes mixed into the dice: %s" % ev.get("mix", "")[:16]
    elif k == rec.REVEAL:
        text = "dice seed revealed: %s… (export checks every throw)" % ev.get("seed", "")[:16]
    elif k == rec.POSITION:
        text = "the game went on from a set position"
    return text
