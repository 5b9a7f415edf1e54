"""Real games through the soak's hands: each game of a .mat file played on the virtual board as recorded.

Every game of a match file (host_tools.matfile) is first checked through the rules core
(host_tools.replay); a game it rejects is reported with its line and reason and not played. The
others are played on a fresh virtual board (slot level: scanner, debounce, zone reader) with
manual dice: each roll is entered as the file records it, the soak's hands (soakplayer.Player,
without noise) make the recorded play checker by checker (hits, entering from the bar and
bear-offs included; the order of a hit and whether a carried checker touches the point between
are the hands' seeded choice), and the mover presses. The cube is turned, taken and dropped as
recorded; a game won without its last checker borne off is resigned by the loser at the level the
points say, when the loser is the side to act (the board lets only that side resign).
After each turn the position the board committed is compared with the file's (a play the
board recorded otherwise is a ``differ`` and ends the game's replay); at the end the board's own
record is exported (host_tools.export) and replayed, and its plays compared with those made.

The player is file player 0 (the score line's left name) as White, player 1 as Black. Each game
is played from 0-0 in a match of the file's length, so the Crawford game of the file is an
ordinary game on the board (no cube action is recorded in it, so the plays are the same).
"""

import random

from firmware.rules import get_rules, Turn
from host_tools.records import matfile
from host_tools.records.replay import GameReplay, crawford_game, describe
from host_tools.soak.soakplayer import Counters, Player


class ReplayCounters(Counters):
    """The soak's counters plus the replay's own: ``differs`` (plays or game ends the board
    recorded otherwise than the file), ``export_differs`` (games whose exported record replays to
    other plays than were made), ``unended`` (games whose recorded end the board cannot play: a
    resignation on the winner's turn, a play the file left unknown, ``????``), ``bad_games``
    (games not played: the file unreadable, a variation the board has not, an illegal recorded
    move)."""

    FIELDS = Counters.FIELDS + ("differs", "export_differs", "unended", "bad_games")

    def failures(self):
        return Counters.failures(self) + self.differs + self.export_differs + self.bad_games


class _Stop(Exception):
    """The board cannot go on with this game as recorded: why, and whether it differs."""

    def __init__(self, why, differs=False):
        Exception.__init__(self, why)
        self.why = why
        self.differs = differs


class ReplayPlayer(Player):
    """The soak's hands, without noise, making given plays."""

    def __init__(self, vb, rng, counters, log=None):
        Player.__init__(self, vb, rng, "none", counters, log)

    def play_recorded(self, steps):
        """Make ``steps`` (single-die steps in the mover's pips) checker by checker and press;
        False when the board refused or misread it (counted by the soak's rules)."""
        vb = self.vb
        side = vb.session.game.turn.side
        self.turn_start = vb.session.game.pos.copy()
        for chain in self.chains(steps, side):
            self.carry(chain, side)
        mark = vb.mark()
        blind = self.c.sensor_blind
        ok = self.end_turn(side, steps)
        asked = any(o.get("ev") == "illegal" and o.get("what") == "ambiguous"
                    for o in vb.lines[mark:])
        if asked and self.c.sensor_blind == blind:
            self.c.sensor_blind += 1        # the board showed its reading to confirm: it was right
        return ok


def script_of(match, game, post_crawford, rules):
    """The game's actions checked through the rules core, as the board must play them:
    [("roll", player, dice, steps, board after), ("double"|"take"|"drop", player),
    ("end", winner, points), ("unknown", player)]. Raises _Stop for a game the board cannot
    play (an illegal move, a beaver)."""
    g = GameReplay(rules, match, game, post_crawford)
    out = []
    for action in game["actions"]:
        kind = action["kind"]
        was_over = g.over
        why = g.act(action)
        if why is not None:
            raise _Stop("line %d: %s: %s" % (action["line"], describe(action), why))
        p = action["player"]
        if kind == "roll":
            if action["play"] is None:
                out.append(("unknown", p))
                break
            out.append(("roll", p, tuple(action["dice"]), list(g.steps), bytes(g.pos.board)))
            if g.over:
                out.append(("end", p, None))
        elif kind in ("double", "take", "drop"):
            out.append((kind, p))
        elif kind in ("beaver", "raccoon"):
            raise _Stop("line %d: %s: the board has no %ss (money play only)"
                        % (action["line"], describe(action), kind))
        elif kind in ("win", "loss"):
            winner = p if kind == "win" else 1 - p
            if out and out[-1][0] == "end":
                # the play that bore off the last checker decided the winner; a result line
                # naming the other player is the file's quirk (gnubg goes by the play too)
                if winner == out[-1][1]:
                    out[-1] = ("end", winner, action.get("points"))
            elif not was_over or (out and out[-1][0] == "drop"):
                out.append(("end", winner, action.get("points")))
    return out


def _opening(p, dice):
    """``roll a b`` for the opening (White's die, Black's die) that gives player p these dice."""
    hi, lo = max(dice), min(dice)
    return (hi, lo) if p == 0 else (lo, hi)


class GameOnBoard:
    """One game of a file played on a fresh virtual board: ``play`` makes its script's actions
    (raising _Stop where the board cannot go on as recorded), ``played`` is what the board
    committed, ``exported`` what its record says."""

    def __init__(self, script, length, counters, seed, front_end=None, log=None):
        from host_tools.soak.soakboard import PACE_MS, SCAN_MS, VirtualBoard
        self.script = script
        self.c = counters
        self.log = log
        self.rules = get_rules("backgammon")
        self.vb = VirtualBoard("backgammon", scan_ms=SCAN_MS, front_end=front_end, seed=seed)
        self.vb.pace = PACE_MS
        self.player = ReplayPlayer(self.vb, random.Random(seed), counters, log)
        self.length = max(1, min(99, length or 1))
        self.played = []          # what the board committed: (side, kind, dice, board after)
        self.turns = 0
        self.seen = 0             # protocol lines looked at for passes
        self.note = None

    def cmd(self, line):
        r = self.vb.cmd(line)
        if r is None or r.get("t") != "ok":
            raise _Stop("the board refused %r: %s" % (line, (r or {}).get("msg", r)), True)

    def play(self):
        vb = self.vb
        for line in ("dice manual", "new backgammon", "match %d" % self.length):
            self.cmd(line)
        vb.setup()
        if vb.session.phase != "opening":
            raise _Stop("the checkers set out, the board is in %s, not the opening"
                        % vb.session.phase, True)
        for item in self.script:
            getattr(self, "_" + item[0])(*item[1:])
        self.passes()

    def passes(self):
        """Add the turns the board passed (a side closed out, no throw) since the last look to
        ``played``."""
        lines = self.vb.lines
        for o in lines[self.seen:]:
            if o.get("ev") == "pass":
                self.played.append((o["side"], "pass"))
        self.seen = len(lines)

    def _pass_closed_out(self, p):
        """The file gives the roll to p while the board waits for the other side: that side
        is closed out (an empty cell in the file) and passes with its button."""
        s = self.vb.session
        if s.phase == "roll" and s.side != p and s.game.closed_out():
            self.vb.press(s.side)
        self.passes()

    def _roll(self, p, dice, steps, after):
        vb = self.vb
        s = vb.session
        self.passes()
        if s.phase == "opening":
            self.cmd("roll %d %d" % _opening(p, dice))
        elif not steps and self.played and self.played[-1] == (p, "pass"):
            return          # gnubg writes the dice of a side closed out; the board passed it
        elif not steps and s.phase == "roll" and s.side == p and s.game.closed_out():
            vb.press(p)     # closed out, free to double: its button passes, no throw
            self.passes()
            return
        else:
            self._pass_closed_out(p)
            if s.phase != "roll" or s.side != p:
                raise _Stop("the file has player %d roll, the board is in %s for side %d"
                            % (p, s.phase, s.side), True)
            self.cmd("roll %d %d" % dice)
        s = vb.session
        if s.phase != "move" or s.side != p:
            raise _Stop("after the roll %d%d the board is in %s for side %d, not player %d's move"
                        % (dice[0], dice[1], s.phase, s.side, p), True)
        if not self.player.play_recorded(steps):
            raise _Stop("turn %d (%d%d): the board did not commit the recorded play"
                        % (self.turns + 1, dice[0], dice[1]), True)
        self.turns += 1
        board = bytes(vb.session.game.pos.board)
        self.played.append((p, "roll", tuple(sorted(dice)), board))
        if board != after:
            raise _Stop("turn %d (%d%d): the board recorded another play than the file's"
                        % (self.turns, dice[0], dice[1]), True)

    def _double(self, p):
        self._pass_closed_out(p)
        self.cmd("cube double")
        self.played.append((p, "double"))

    def _take(self, p):
        self.cmd("cube take")
        self.played.append((p, "take"))

    def _drop(self, p):
        self.cmd("cube drop")
        self.played.append((p, "drop"))

    def _unknown(self, p):
        self.c.unended += 1
        self.note = "the file does not say the last play (????): the game is left unfinished"

    def _end(self, winner, points):
        s = self.vb.session
        if s.phase not in ("over", "match_over"):
            cube = s.game.cube
            level = (points or 0) // cube
            name = "White" if winner == 0 else "Black"
            if points is None or points % cube or level not in self.rules.results:
                why = "%s points is no result of a game with the cube at %d" % (points, cube)
            elif s.side == winner:
                why = "the loser resigned on the winner's turn, and the board lets only the side to act resign"
            else:
                why = None
                try:
                    self.cmd("resign %d" % level)
                    self.cmd("resign accept")
                except _Stop as stop:
                    why = stop.why
            if why is not None:
                self.c.unended += 1
                self.note = "%s wins %s points: %s (the game is left unfinished)" % (
                    name, points, why)
                return
        g = s.game
        if g.winner != winner:
            raise _Stop("the file's game is won by side %d, the board's by side %d"
                        % (winner, g.winner), True)
        if points is not None and g.points != points:
            self.note = ("the file scores the game %d points, the board %d (the rules: single, "
                         "gammon or backgammon times the cube %d)" % (points, g.points, g.cube))

    def exported(self):
        """The board's record of the game, verified and replayed: its actions in the form of
        ``played`` (ExportError when it does not verify or replay)."""
        from host_tools.records.export import replay_record
        s = self.vb.session
        ended = s.phase in ("over", "match_over")
        g = replay_record(self.vb.record(), partial=not ended)
        pos = self.rules.start_position()
        out = []
        for act in g["actions"]:
            if act[1] == "roll":
                pos.turn = act[0]
                turn = Turn(self.rules, pos, act[2])
                for st in act[3]:
                    turn.push(st[0], st[2])
                pos = turn.position()
                out.append((act[0], "roll", tuple(sorted(act[2])), bytes(pos.board)))
            else:
                out.append(act[:2])
        return out

    def close(self):
        self.vb.close()


def replay_file(path, counters, seed=1, front_end=None, log=None, only=None):
    """Play every game of one match file (or only game ``only``); returns its report:
    {"file", "games": [{"game", "line", "turns", "error"?, "note"?}], "error"?}."""
    try:
        match = matfile.parse_file(path)
    except OSError as exc:
        counters.bad_games += 1
        return {"file": str(path), "games": [], "error": "cannot read: %s" % exc.strerror}
    except matfile.MatError as exc:
        counters.bad_games += 1
        where = "line %s: " % exc.line if exc.line else ""
        return {"file": str(path), "games": [], "error": where + exc.why}
    report = {"file": str(path), "games": []}
    variation = match["headers"].get("Variation", "Backgammon")
    if variation.strip().lower() != "backgammon":
        counters.bad_games += len(match["games"]) or 1
        report["error"] = "the Variation header says %r; the board plays Backgammon" % variation
        return report
    rules = get_rules("backgammon")
    post = False
    for n, game in enumerate(match["games"], 1):
        before = post            # a Crawford game was played before this one
        post = post or crawford_game(match, game, post)
        if only is not None and game["number"] != only:
            continue
        report["games"].append(_replay_game(match, game, n, before, rules, counters, seed,
                                            front_end, log))
    return report


def _replay_game(match, game, n, post, rules, counters, seed, front_end, log):
    out = {"game": game["number"], "line": game["line"], "turns": 0}
    try:
        script = script_of(match, game, post, rules)
    except _Stop as stop:
        counters.bad_games += 1
        out["error"] = stop.why
        return out
    key = "%s/%d/%d" % (match["file"], seed, n)
    from host_tools.soak.soakboard import world_seed
    board = GameOnBoard(script, match["length"], counters, world_seed(key), front_end, log)
    try:
        try:
            board.play()
        except _Stop as stop:
            out["error"] = stop.why
            if stop.differs:
                counters.differs += 1
        board.passes()
        out["turns"] = board.turns
        counters.games += 1
        if board.note:
            out["note"] = board.note
        from host_tools.records.export import ExportError
        try:
            exported = board.exported()
        except ExportError as exc:
            counters.bad_records += 1
            out["export"] = "the board's record does not export: %s" % exc
        else:
            if exported != board.played:
                counters.export_differs += 1
                out["export"] = _first_difference(exported, board.played)
    finally:
        board.close()
    return out


def _first_difference(exported, played):
    for i, (a, b) in enumerate(zip(exported, played)):
        if a != b:
            return "the exported record's action %d is %r, the board played %r" % (
                i + 1, a[:3], b[:3])
    return "the exported record has %d actions, the board played %d" % (len(exported),
                                                                        len(played))


def run(paths, seed=1, front_end=None, log=None):
    """Replay every game of the files: (ReplayCounters, [file report, ...])."""
    counters = ReplayCounters()
    reports = [replay_file(path, counters, seed, front_end, log) for path in paths]
    return counters, reports


def text_report(counters, reports, out):
    """The reports as the soak prints them: a line per file, one per game that did not go as
    recorded, and the totals."""
    for r in reports:
        if "error" in r:
            out.write("%s: cannot replay: %s\n" % (r["file"], r["error"]))
            continue
        bad = [g for g in r["games"] if "error" in g or "export" in g or "note" in g]
        out.write("%s: %d games, %d turns%s\n" % (r["file"], len(r["games"]),
                                                sum(g["turns"] for g in r["games"]),
                                                "" if bad else ": as recorded"))
        for g in bad:
            for key in ("error", "export", "note"):
                if key in g:
                    out.write("  game %d (line %d): %s%s\n" % (
                        g["game"], g["line"], "" if key == "error" else key + ": ", g[key]))
    d = counters.as_dict()
    out.write("total: files %d games %d turns %d desyncs %d rejected legal moves %d accepted "
              "illegal moves %d lost turns %d bad records %d unlit lifts %d (of %d) "
              "sensor-blind plays %d differs %d export differs %d unended %d bad games %d\n" % (
                  len(reports), d["games"], d["turns"], d["desyncs"], d["rejected_legal"],
                  d["accepted_illegal"], d["lost_turns"], d["bad_records"], d["unlit_lifts"],
                  d["lifts"], d["sensor_blind"], d["differs"], d["export_differs"],
                  d["unended"], d["bad_games"]))
