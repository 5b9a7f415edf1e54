"""The game on the board: setup check, opening roll, turns ended by a button, verdicts, match score.

A ``Session`` wraps the rules core's ``Match``/``Game`` with what the physical board adds: the
setup check, the players' buttons, guide or referee mode, the verdict at the button, and the
journal that makes every input survive a reset. Each part has its own home: the hands and the
board's reading (``tracker``), electronic dice (``fairdice.FairDice``: committed before the
game), the tournament clock and its checkpoint (``gameclock``), who may change the game
(``identity``: the lock and the director's signed commands), the lines on flash (``journal``,
read back by ``restore.walk`` through ``gamereplay``, so a journal is re-checked by the rules as
it is read), and the rare work in feature modules loaded for it (``lifecycle``: a match's and a
game's start and end; ``offers``: the cube, resignations, condoning, the time-out; ``settings``,
``director``, ``gamereplay``: the resume after a reset). Every line it journals says who caused it (``by``: a player's button,
the board, the host link or the director). Inputs: zone-count frames (``frame_in``), buttons
(``press``), host commands; output: ``emit(kind, fields)``. No I/O besides the storage.
"""

import gc
import sys

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

from firmware.rules.variants import get_rules
from firmware.drivers.buttons import NAMES
from firmware.rules import game as gm
from firmware.board.zonemap import ZoneMap, ZONES, zone_name, k_of, k_steps
from firmware.board.tracker import Tracker, SETTLED, ILLEGAL, MISMATCH, STATE_NAMES
from firmware.board.journal import Journal
from firmware.board.gameclock import GameClock
from firmware.board.fairdice import FairDice
from firmware.board.identity import Identity
import firmware as features

P0 = 0
P1 = 1
MENU = 2

_COLLECT = sys.implementation.name == "micropython"   # a host's collector is not the Pico's

SETUP = "setup"          # board phase before the opening: the start position is being set up
_FLAGGED = const("flagged")      # referee: an illegal turn awaits correction or condonation
RESIGN = "resign"        # a resignation is offered: the opponent accepts or refuses it
_MATCH_OVER = const("match_over")
_UNCLEAR = const("the sensors cannot count the flashing stack (a checker of the other colour on "
                 "it, or one between two slots): take its top checker off, then put it on a "
                 "slot of its own where it may go")
_NOTICE_MS = const(2000)     # how long the lights show a refusal, a pass or an opening throw


class Session:
    """One match on one board. Its attributes, each with what callers may do with it ("read":
    look only; "set by": who else may change it, always through the journal's lines), are
    declared in ``__init__``; ``phase`` and ``side`` are properties. The feature modules
    (``lifecycle``, ``offers``, ``settings``, ``director``, ``gamereplay``) act on a Session as its
    own methods do."""

    def __init__(self, storage, roll_die, capacity, emit, clock, board_id="sim"):
        # what the board gives it
        self.roll_die = roll_die          # read: the hardware die, () -> 1..6 (the director's draws)
        self.capacity = bytearray(capacity)   # read: checkers each zone's sensors can count
        self.emit = emit                  # read: emit(kind, fields), the host link's output
        self.clock = clock                # read: () -> ms, the board's clock
        # the board's trust, records and dice (callers use their methods)
        self.identity = Identity(storage, board_id)   # the board's id, key and tournament lock
        self.auth = self.identity         # who may change the game: the lock and the director
        self.journal = Journal(storage, self.identity)   # the games' sealed lines on flash
        self.dice = FairDice(storage, roll_die)   # electronic dice: committed, drawn, revealed
        self.gclock = GameClock()         # the clock, off until set (set by: settings, gamereplay)
        # the settings (set by: settings, lifecycle, gamereplay)
        self.variant = "short"            # the variant's id (rules.get_rules)
        self.options = {}                 # its named options
        self.match_to = 1                 # the match's length in points
        self.mode = "guide"               # "guide" (the LEDs show the legal moves) or "referee"
        self.dice_mode = "auto"           # "auto" (the board throws) or "manual" (entered)
        self.condone = False              # referee: the opponent may let an illegal play stand
        # the match and its game (read; set by: lifecycle, gamereplay)
        self.match_id = 0                 # the serial of the match's first game
        self.game_no = 1                  # this game's number in the match
        self.turns = 0                    # turns committed in this game
        self.settings = 0                 # setting lines journaled in this game (settings caps)
        # what the board shows and the players do (read; set by the modules named)
        self.frame = bytearray(ZONES)     # the last zone counts read (frame_in)
        self.have_frame = False           # a frame has come since the start
        self.setup_done = False           # the start position was set out (set by: gamereplay, sim)
        self.verdict = None               # the referee's reason while a play is flagged
        self.choice = 6                   # matador: the doublet MENU shows (ledview reads it)
        self.call = (0, True)             # takhteh: (caller, even), the parity call (offers)
        self.resign_offer = None          # (side, level, by) while a resignation awaits (offers)
        self.notice = None                # (kind, until ms[, who]) the lights tell for a while:
        # refused (a press refused: who pressed), illegal (a turn end refused), pass (a
        # closed-out side passed), opening (the opening throw), journal (lines lost on flash)
        self.t_turn = 0                   # when the turn's dice were shown (its time on record)
        self._ambiguous_at = None         # the frame of a press the sensors could not read
        self._flagged = False             # the turn was flagged: its commit says "corrected"
        self._configure_rules()           # rules, zmap, tracker (read; the hands' tracker)
        self.match = gm.Match(self.rules, self.match_to)   # read: the rules core's match
        self.game = self.match.new_game(False)             # read: the rules core's game
        self.tracker.follow(None, self.game.pos)

    # -- rules and games --------------------------------------------------------------------------
    def _configure_rules(self, rules=None):
        self.tracker = self.zmap = None    # the old ones go before the new ones are built
        if _COLLECT:
            gc.collect()
        self.rules = rules or get_rules(self.variant, **self.options)
        self.zmap = ZoneMap(self.rules)
        self.tracker = Tracker(self.zmap, self.capacity)

    def new_match(self, variant=None, options=None, match_to=None, by="host"):
        """Start a new match and its first game; ValueError (nothing changed) on a bad variant,
        options or length. A game in progress is left on flash, marked abandoned."""
        self._feature("new_match", variant, options, match_to, by, module="firmware.board.lifecycle")

    def _new_game(self, by="board"):
        self._feature("new_game", by, module="firmware.board.lifecycle")

    def _save(self):
        if _COLLECT:
            gc.collect()      # at a commit, never while a checker is in the air
        j = self.journal
        data = j.pending
        if not j.save():
            self.emit("ev", {"ev": "storage_full", "waiting": len(j.pending)})
            return
        # each line now on flash goes out on the link as it is (the hall's relay publishes it;
        # a line lost on the way is asked for again with ``export <serial> <n>``)
        for line in bytes(data).split(b"\n"):
            if line:
                self.emit("rl", {"s": j.serial, "l": line.decode()})

    def _journal(self, obj, by):
        obj["by"] = by
        return self.journal.append(obj)

    # -- fair electronic dice ------------------------------------------------------------------------
    def _auto_dice(self, n):
        """``n`` electronic dice: the committed seed's next ones (their index goes into the
        journal line of the throw); a seed is committed first when there is none."""
        if self.dice.seed is None:
            # switched to electronic dice mid-game (or the seed was lost): commit one now, in
            # the throw's own save (never while a checker is in the air)
            self._journal({"k": "commit", "dice_commit": self.dice.new_seed()}, "board")
        return self.dice.draw(n)

    def _throw(self, ev, by):
        """Journal a throw, with the index of its dice in the seed when they are the seed's."""
        if self.dice.last_i is not None:
            ev["i"] = self.dice.last_i
            self.dice.last_i = None
        self._journal(ev, by)

    # -- the clock --------------------------------------------------------------------------------
    def actor(self):
        """The side that must act now, whose clock runs (-1: nobody's)."""
        ph = self.phase
        if ph == gm.ROLL or ph == gm.MOVE or ph == _FLAGGED or ph == gm.DOUBLET:
            return self.side
        if ph == gm.DOUBLED or ph == RESIGN:
            return 1 - self.side
        return -1

    def tick(self, now):
        """Time passes: run the clock of the side that must act; its reserve running out loses
        the match (what the opponent still needs to win it). The running period is kept on
        flash now and then (``GameClock.checkpoint``), so a reset never refunds it."""
        gc_ = self.gclock
        if gc_.reserve <= 0:
            return
        was = gc_.side
        gc_.run(self.actor(), now)
        changed = gc_.side != was
        if changed:
            self.emit_status()        # whose clock runs changed: the host can show it
        side = gc_.fallen(now)
        if side >= 0:
            self._feature("time_out", side, now)
            return
        gc_.checkpoint(self.journal, now, changed, self.tracker.state != SETTLED)

    def _clock_fields(self, now):
        gc_ = self.gclock
        return {"left": [gc_.remaining(0, now), gc_.remaining(1, now)], "running": gc_.side,
                "delay_left": gc_.delay_left(now), "delay": gc_.delay, "reserve": gc_.reserve}

    @property
    def phase(self):
        if self.match.over():
            return _MATCH_OVER
        if not self.setup_done:
            return SETUP
        if self.verdict is not None:
            return _FLAGGED
        if self.resign_offer is not None:
            return RESIGN
        return self.game.phase

    @property
    def side(self):
        return self.game.pos.turn

    # -- frames -------------------------------------------------------------------------------------
    def frame_in(self, counts, faults=0, colour=None, unclear=0):
        """A new debounced frame of zone counts; ``faults``: zones whose sensors are not believed;
        ``colour``: per zone 0 unknown, 1 White, 2 Black, 3 mixed, where the sensors tell;
        ``unclear``: zones with a stack the sensors cannot count (flashed until put right)."""
        f = self.frame
        for z in range(ZONES):
            f[z] = counts[z]
        seen = None
        if colour is not None:
            for z in range(ZONES):
                if colour[z]:
                    seen = colour
                    break
        self.tracker.colour = seen
        self.have_frame = True
        if faults != self.tracker.faults:
            self.tracker.faults = faults
            self.emit("ev", {"ev": "sensor_fault", "zones": self._zones(faults)})
        if unclear != self.tracker.unclear:
            self.tracker.unclear = unclear
            self.emit("ev", {"ev": "unclear", "zones": self._zones(unclear), "why": _UNCLEAR})
        self._check_frame()

    def _check_frame(self):
        if not self.have_frame:
            return
        tr = self.tracker
        before = tr.state
        state = tr.update(self.frame)
        for kind, step in tr.drain():
            self.emit("ev", self._step_fields(kind, step))
        if state != before:
            if state == MISMATCH:
                self.emit("ev", {"ev": "mismatch", "missing": self._zones(tr.missing),
                                 "extra": self._zones(tr.extra)})
            elif before == MISMATCH:
                self.emit("ev", {"ev": "resync"})
            if state == ILLEGAL and self.mode == "guide":
                self.emit("ev", {"ev": "illegal", "what": "placement", "zones": self._zones(tr.flash)})
        if not self.setup_done and state == SETTLED:
            self.setup_done = True
            self.emit("ev", {"ev": "setup_ok"})
            self._after_change()

    def _zones(self, bits):
        out = []
        for z in range(ZONES):
            if (bits >> z) & 1:
                out.append(zone_name(z))
        return out

    def _k(self, side, pip):
        return k_of(self.rules, side, pip)

    def _step_fields(self, kind, step):
        src, dst, die, hit = step
        turn = self.game.turn
        return {"ev": kind, "side": self.side, "src": src, "dst": dst, "die": die, "hit": hit,
                "from": self._k(self.side, src), "to": self._k(self.side, dst),
                "dice_left": turn.dice_left() if turn is not None else []}

    # -- buttons and commands ---------------------------------------------------------------------
    def press(self, who, long=False):
        """A button: P0/P1 (the players) or MENU; ``long`` for a long press."""
        ph = self.phase
        game = self.game
        by = NAMES[who]
        if long and who == self.side and (ph == gm.ROLL or ph == gm.MOVE or ph == RESIGN):
            self._feature("button", "resign", by)  # a long press of one's own button: resign
        elif ph == RESIGN:                          # (again: the next level of the offer)
            # withdrawn by its side, or refused (MENU); the opponent's button accepts
            accept = not (who == MENU or who == self.resign_offer[0])
            self._feature("answer_resign", accept, by)
        elif ph == gm.OPENING:
            if self.rules.opening == "parity":
                self._feature("set_call", who, None, by)   # the call, and the throw
            elif who != MENU and self.dice_mode == "auto":
                d = self._auto_dice(2)
                self._opening(d[0], d[1], by)
        elif ph == gm.ROLL:
            if who == self.side and game.closed_out():
                self._feature("pass_turn", by)    # closed out: the button passes, unthrown
            elif who == self.side and self.dice_mode == "auto":
                d = self._auto_dice(2)
                self._roll(d[0], d[1], by)
            elif who == MENU and game.can_double(self.side):
                self._feature("button", "double", by)
        elif ph == gm.DOUBLED:
            if who == 1 - self.side:
                self._feature("button", "take", by)
            elif who == MENU:
                self._feature("button", "drop", by)
        elif ph == gm.MOVE or ph == _FLAGGED:
            if who == self.side:
                self._end_turn(by)
            elif who == 1 - self.side and ph == _FLAGGED:
                self._feature("condone", by)
        elif ph == gm.DOUBLET:
            if who == MENU:
                self.choice = self.choice % 6 + 1
                self.emit("ev", {"ev": "choice", "value": self.choice})
            elif who == self.side:
                self.choose(self.choice, by)
        elif ph == gm.OVER:
            if who != MENU:
                self.game_no += 1
                self._new_game(by)
        elif ph == _MATCH_OVER:
            if who == MENU and long:
                self.new_match(by=by)

    def manual_roll(self, a, b, by="host"):
        """Dice entered by hand: the opening dice (White's, Black's) or the roll of the side to
        move. ValueError (nothing changed) when no roll is expected."""
        if self.dice_mode != "manual":
            raise ValueError("dice are electronic (send 'dice manual' first)")
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError("dice are 1..6")
        ph = self.phase
        if ph == gm.OPENING:
            self._opening(a, b, by)
        elif ph == gm.ROLL:
            if self.game.closed_out():
                raise ValueError("%s is closed out: no throw; the player's button passes"
                                 % ("White", "Black")[self.side])
            self._roll(a, b, by)
        else:
            raise ValueError("no roll expected now (phase %s)" % ph)

    def choose(self, v, by="host"):
        """Matador: the doublet chosen after a 4-3."""
        if self.phase != gm.DOUBLET:
            raise ValueError("no doublet to choose now")
        if not 1 <= v <= 6:
            raise ValueError("a doublet is 1..6")
        self._journal({"k": "choose", "value": v}, by)
        self.game.choose_doublet(v)
        self._turn_started()

    # -- the opening and the rolls ----------------------------------------------------------------------
    def _opening(self, a, b, by):
        game = self.game
        if self.rules.opening == "parity":
            caller, even = self.call
            starter = game.opening_parity(caller, even, a)
            self._throw({"k": "parity", "die": a, "caller": caller, "even": even}, by)
            self.notice = ("opening", self.clock() + _NOTICE_MS, a)
            self.emit("ev", {"ev": "opening", "dice": [a], "starter": starter, "side": caller,
                             "even": even})
        else:
            starter = game.opening_roll(a, b)
            self._throw({"k": "open", "dice": [a, b]}, by)
            self.notice = ("opening", self.clock() + _NOTICE_MS)
            self.emit("ev", {"ev": "opening", "dice": [a, b],
                             "starter": -1 if starter is None else starter})
        if game.phase == gm.MOVE:
            self._turn_started()
        else:
            self._save()
            self._after_change()

    def _roll(self, a, b, by):
        self._throw({"k": "roll", "dice": [a, b]}, by)
        self.game.roll(a, b)
        self._turn_started()

    def _turn_started(self, restoring=False):
        """A Turn is on: journal the dice before showing them, then follow the hands."""
        game = self.game
        self.verdict = None
        self.t_turn = self.clock()
        if not restoring:
            self._save()
        self.tracker.follow(game.turn, None, restoring)
        turn = game.turn
        self.emit("ev", {"ev": "roll", "side": self.side, "dice": list(game.dice),
                         "kind": game.kind, "max_steps": turn.max_steps})
        if turn.max_steps == 0:
            self.emit("ev", {"ev": "no_move", "side": self.side})
        self._check_frame()
        if not restoring:
            self.emit_status()      # a new turn: the host's (and the hall's) status is this one

    def _after_change(self, closed=True):
        """After a commit or an opening throw: roll on when nothing waits for a person; a side
        closed out passes unthrown (``closed``: look for that; once per change, so two sides
        closed out, which only an edited position can make, roll and pass by hand)."""
        game = self.game
        ph = self.phase
        self.tracker.follow(game.turn, None if game.turn is not None else game.pos)
        if ph == gm.ROLL:
            can = game.can_double(self.side)
            shut = closed and game.closed_out()
            if shut and not can:
                self._feature("pass_turn", "board")
                return
            if self.dice_mode == "auto" and not can:
                d = self._auto_dice(2)
                self._roll(d[0], d[1], "board")
                return
            fields = {"ev": "await_roll", "side": self.side, "can_double": can}
            if shut:
                fields["pass"] = True      # the button passes (no throw), MENU doubles
            self.emit("ev", fields)
        elif ph == gm.OPENING:
            fields = {"ev": "await_opening", "dice_mode": self.dice_mode}
            if self.rules.opening == "parity":
                fields["side"], fields["even"] = self.call
            self.emit("ev", fields)
        elif ph == gm.DOUBLET:
            self.choice = 6
            self.emit("ev", {"ev": "choose", "side": self.side, "value": self.choice})
        elif ph == gm.DOUBLED:
            self.emit("ev", {"ev": "await_cube", "side": 1 - self.side})
        self.emit_status()

    # -- the end of a turn ----------------------------------------------------------------------------------
    def _end_turn(self, by):
        """The mover pressed: commit a legal play, or say what is wrong."""
        tr = self.tracker
        game = self.game
        turn = game.turn
        # the same board as at the last press, which the sensors could not read alone (a
        # frame change since voids the reading: the tracker clears ``ambiguous``)
        again = tr.ambiguous and self._ambiguous_at == bytes(self.frame)
        self._ambiguous_at = None
        state = tr.update(self.frame, True)
        if tr.unclear:
            state = ILLEGAL
        elif tr.ambiguous and again:
            state = tr.adopt_guess()      # pressed twice on the same board: take the best reading
        for kind, step in tr.drain():
            self.emit("ev", self._step_fields(kind, step))
        if state == SETTLED:
            final = turn.position()
            ok, why = game.commit() if turn.complete() else game.commit(final)
            if ok:
                return self._committed(why, final, None, by)
            what = "incomplete"
        elif tr.ambiguous and not tr.unclear:
            what = "ambiguous"
            self._ambiguous_at = bytes(self.frame)
            why = ("the sensors cannot tell which of %d plays was made (points fuller than their "
                   "sensors); the LEDs blink the board's reading (grey: from, green: to): press "
                   "again to take it, or move the checkers so the board can tell" % tr.ambiguous)
        elif tr.unclear:
            what = "unclear"
            why = _UNCLEAR
        else:
            what = STATE_NAMES[state]
            final = tr.read_board(self.frame)
            why = "the board does not show a position the checkers can reach"
            if final is not None:
                ok, why2 = game.commit(final)
                if ok:
                    return self._committed(why2, final, None, by)
                why = why2
        fields = {"ev": "illegal", "what": what, "reason": why, "side": self.side,
                  "dice_left": turn.dice_left()}
        self.notice = ("illegal", self.clock() + _NOTICE_MS, self.side)
        if self.mode == "referee" and what != "ambiguous" and what != "unclear":     # unseen is not illegal
            self.verdict = why
            fields["await"] = "correct or condone" if self.condone else "correct"
            # on record (written with the commit that follows: no flash write mid-hand)
            self._journal({"k": "flag", "side": self.side, "reason": why}, "board")
            self._flagged = True
        self.emit("ev", fields)

    def _committed(self, steps, final, condoned, by):
        game = self.game
        hist = game.history[-1]
        self.turns += 1
        side = hist["side"]
        now = self.clock()
        ev = {"k": "turn", "side": side, "dice": list(hist["dice"]), "kind": hist["kind"],
              "s": [list(st) for st in (steps or [])], "ms": now - self.t_turn,
              "pos": final.encode()}
        if game.cube > 1:
            ev["cube"] = [game.cube, game.cube_owner]
        if self.gclock.reserve > 0:
            self.gclock.stop(now)       # the mover's period ends with the press
            ev["clock"] = list(self.gclock.left)
        if condoned is not None:
            ev["condoned"] = condoned
        elif self._flagged:
            ev["corrected"] = True
        self._flagged = False
        self.verdict = None
        seal = self._journal(ev, by)
        if game.phase != gm.OVER:
            self._save()          # the turn is on flash before anything is said or rolled
        self.emit("ev", {"ev": "commit", "side": side, "n": self.turns,
                         "steps": k_steps(self.rules, side, ev["s"]),
                         "seal": seal, "condoned": condoned})
        if game.phase == gm.OVER:
            return self._game_over()
        self._after_change()          # rolls (and journals) the next dice before any write

    def _game_over(self):
        self._feature("game_over", module="firmware.board.lifecycle")

    def _feature(self, fn, *args, module="firmware.board.offers"):
        """Call ``fn`` of a feature module (``offers``: the cube, resigning, condoning, the
        clock's time-out; ``lifecycle``: a match's and a game's start and end), loaded for the
        call."""
        try:
            return getattr(features.load(module), fn)(self, *args)
        finally:
            features.drop(module)

    def journal_line(self, obj, by):
        """Journal one line caused by ``by`` and put it on flash at once (a setting, the lock)."""
        self._journal(obj, by)
        self._save()

    def save(self):
        """Whatever waits for flash goes there now."""
        self._save()

    # -- power restore ----------------------------------------------------------------------------------------
    def resume(self):
        """Rebuild the match from the journal after a reset, replaying it through the rules
        (``gamereplay``). False when there is no game on flash. Lines lost or damaged on flash are
        reported (on the host link and, once, on the record) and never stop the board."""
        if not self.journal.games():
            return False
        try:
            return features.load("firmware.board.gamereplay").resume(self)
        finally:
            features.drop("firmware.board.restore", "firmware.board.gamereplay",
                          "firmware.board.repair")

    # -- reports -------------------------------------------------------------------------------------------------
    def status(self):
        game = self.game
        turn = game.turn
        pos = turn.position() if turn is not None else game.pos
        return {"variant": self.variant, "phase": self.phase, "turn": self.side,
                "dice": list(game.dice) if turn is not None else [],
                "dice_left": turn.dice_left() if turn is not None else [],
                "position": str(pos), "score": list(self.match.score), "match_to": self.match_to,
                "mode": self.mode, "dice_mode": self.dice_mode, "condone": self.condone,
                "game": self.match.games + (0 if game.phase == gm.OVER else 1),
                "cube": game.cube, "cube_owner": game.cube_owner, "crawford": game.crawford,
                "options": self.rules.options, "results": list(self.rules.results),
                "board": STATE_NAMES[self.tracker.state],
                "seal": self.journal.head, "serial": self.journal.serial,
                "locked": self.auth.locked, "storage_full": self.journal.full,
                "clock": self._clock_fields(self.clock())}

    def refresh(self):
        """Read the board again against the game and say the status (after the host set it)."""
        self._check_frame()
        self.emit_status()

    def tracked_board(self):
        """The 52 counts of the position the board should show now."""
        turn = self.game.turn
        return (turn.position() if turn is not None else self.game.pos).board

    def emit_status(self):
        self.emit("status", self.status())
