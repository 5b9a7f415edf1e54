"""The game on the board: setup check, opening roll, turns ended by a button, verdicts, match score.

A ``Session`` wraps the rules core's ``Match``/``Game`` with what the physical board adds: the
setup check, the tracker that follows the hands, the players' buttons, guide or referee mode,
electronic dice (committed before the game, ``fairdice``) or manual dice, resignations, the
tournament clock (``gameclock``), and the journal that makes every committed turn survive a
power cut (replayed through a fresh ``Game`` on resume, so a journal is re-checked by the rules
as it is read). Inputs: zone-count frames (``frame_in``), buttons (``press``), host commands; output:
``emit(kind, fields)``. No I/O besides the journal's storage and the dice it is given.
"""

import gc
import json
import sys
import binascii

from firmware.rules.variants import get_rules
from firmware.drivers.dice import DiceFault
from firmware.rules.position import Position
from firmware.rules import game as gm
from firmware.board.zonemap import ZoneMap, ZONES, zone_name
from firmware.board.tracker import Tracker, SETTLED, ILLEGAL, MISMATCH, STATE_NAMES
from firmware.board.journal import Journal, replay_dice_and_cube
from firmware.board.gameclock import GameClock
from firmware.board import fairdice

P0 = 0
P1 = 1
MENU = 2

_COLLECT = sys.implementation.name == "micropython"   # a host's collector is not the Pico's

SETUP = "setup"          # board phase before the opening: the start position is being set up
FLAGGED = "flagged"      # referee: an illegal turn awaits correction or condonation
RESIGN = "resign"        # a resignation is offered: the opponent accepts or refuses it
MATCH_OVER = "match_over"
SEED_FILE = "dice_seed"  # the fair dice's secret seed until the game ends (hex)


class Session:
    """One match on one board."""

    def __init__(self, storage, roll_die, capacity, emit, clock):
        self.roll_die = roll_die
        self.capacity = bytearray(capacity)
        self.emit = emit
        self.clock = clock
        self.journal = Journal(storage)
        self.variant = "short"
        self.options = {}
        self.match_to = 1
        self.mode = "guide"
        self.dice_mode = "auto"
        self.condone = False
        self.frame = bytearray(ZONES)
        self.have_frame = False
        self.setup_done = False
        self.verdict = None
        self.choice = 6
        self.t_turn = 0
        self._ambiguous_at = None
        self._flagged = False
        self.turns = 0            # turns committed in this game
        self.gclock = GameClock()  # the tournament clock (off until ``set_clock``)
        self.fair_seed = None     # electronic dice: this game's committed seed (fairdice)
        self.fair_next = 0        # ... and the index of its next die
        self.fair_mix = b""       # ... and the host's bytes mixed into it (``mix_dice``)
        self._fair_i = None       # index of the dice just drawn, for their journal line
        self.resign_offer = None  # (side, level) while a resignation awaits its answer
        self._configure_rules()
        self.match = gm.Match(self.rules, self.match_to)
        self.game = self.match.new_game()
        self.tracker.follow(None, self.game.pos)

    # -- rules and games --------------------------------------------------------------------------
    def _configure_rules(self):
        self.tracker = self.zmap = None    # the old ones go before the new ones are built
        if _COLLECT:
            gc.collect()
        self.rules = get_rules(self.variant, **self.options)
        self.zmap = ZoneMap(self.rules)
        self.tracker = Tracker(self.zmap, self.capacity)

    def new_match(self, variant=None, options=None, match_to=None):
        """Start a new match and its first game; ValueError (nothing changed) on a bad variant."""
        if variant is not None:
            get_rules(variant, **(options or {}))
            self.variant = variant
            self.options = options or {}
        if match_to is not None:
            self.match_to = match_to
        self._configure_rules()
        self.match = gm.Match(self.rules, self.match_to)
        self.gclock = GameClock(self.gclock.reserve, self.gclock.delay)   # full reserves
        self._new_game()

    def _new_game(self):
        self.game = self.match.new_game()
        self.turns = 0
        self.setup_done = False
        self.verdict = None
        self.resign_offer = None      # an offer belongs to its game (fuzz: it outlived a 'new')
        self.journal.clear()
        head = self._header()
        self.fair_seed = None
        if self.dice_mode == "auto":
            try:
                head["dice_commit"] = self._commit_dice()
            except DiceFault:    # the hardware dice failed (hw_fault): the game starts without a
                pass             # seed; its first throw commits one, or is refused while it lasts
        self.journal.append(head)
        self._save()
        self.tracker.follow(None, self.game.pos)
        self.emit("ev", {"ev": "new_game", "variant": self.variant, "game": self.match.games + 1})
        self._check_frame()
        self.emit_status()

    def _header(self):
        return {"k": "game", "variant": self.variant, "options": self.options,
                "rules": self.rules.describe(), "match_to": self.match_to,
                "score": list(self.match.score), "games": self.match.games,
                "crawford": self.game.crawford, "crawford_done": self.match.state()["crawford_done"],
                "mode": self.mode, "dice_mode": self.dice_mode, "condone": self.condone,
                "clock": self.gclock.state()}

    def _save(self):
        if _COLLECT:
            gc.collect()      # at a commit, never while a checker is in the air
        self.journal.save()

    def configure(self, key, value):
        """Change a board setting (mode, dice_mode, condone) mid-game; journaled."""
        setattr(self, key, value)
        self.journal.append({"k": "set", key: value})
        if self.tracker.state == SETTLED:
            self._save()      # otherwise written with the next commit: no flash write mid-hand
        self.emit_status()

    # -- fair electronic dice ------------------------------------------------------------------------
    def _commit_dice(self):
        """Draw a new secret seed from the hardware dice, keep it on flash (outside the record)
        and return its commitment for the journal."""
        seed = bytes([self.roll_die() for _ in range(fairdice.SEED_BYTES)])
        self.journal.storage.write_atomic(SEED_FILE, binascii.hexlify(seed))
        self.fair_seed = seed
        self.fair_next = 0
        self.fair_mix = b""
        return fairdice.commitment(seed)

    def _auto_dice(self, n):
        """``n`` electronic dice: the committed seed's next ones (their index goes into the
        journal line of the throw), or the hardware dice when no seed is committed."""
        seed = self.fair_seed
        if seed is None:
            # switched to electronic dice mid-game: commit a seed now, in the throw's own save
            # (never while a checker is in the air)
            self.journal.append({"k": "commit", "dice_commit": self._commit_dice()})
            seed = self.fair_seed
        i = self.fair_next
        self.fair_next = i + n
        self._fair_i = i
        return fairdice.dice(seed, i, n, self.fair_mix)

    def mix_dice(self, data):
        """The host's bytes mixed into the committed seed before its first die (fairdice);
        journaled. ValueError when there is no committed seed or its dice are being thrown."""
        if self.fair_seed is None:
            raise ValueError("no committed dice seed (electronic dice only)")
        if self.fair_next or self.fair_mix:
            raise ValueError("this seed's dice are already fixed (mix before the first throw)")
        if not 1 <= len(data) <= 32:
            raise ValueError("mix 1 to 32 bytes")
        self.fair_mix = bytes(data)
        self.journal.append({"k": "mix", "mix": binascii.hexlify(self.fair_mix).decode()})
        if self.tracker.state == SETTLED:
            self._save()
        self.emit_status()

    def _throw(self, rec):
        """Journal a throw, with the index of its dice in the seed when they are the seed's."""
        if self._fair_i is not None:
            rec["i"] = self._fair_i
            self._fair_i = None
        self.journal.append(rec)

    def _reveal_dice(self):
        """Journal the seed in the clear (the game is over); True when there was one."""
        if self.fair_seed is None:
            return False
        self.journal.append({"k": "reveal", "seed": binascii.hexlify(self.fair_seed).decode()})
        self.fair_seed = None
        return True

    def _load_seed(self, commit):
        """After a power cut: the committed seed back from flash (None if lost or altered)."""
        data = self.journal.storage.read(SEED_FILE)
        try:
            seed = binascii.unhexlify(bytes(data)) if data else None
        except ValueError:
            seed = None
        if seed is not None and fairdice.commitment(seed) == commit:
            return seed
        return None

    # -- the clock --------------------------------------------------------------------------------
    def set_clock(self, reserve_ms, delay_ms):
        """The tournament clock: each side's reserve for the rest of the match (0: no clock) and
        the simple delay per period; both reserves start full. Journaled."""
        if reserve_ms < 0 or delay_ms < 0:
            raise ValueError("clock times are >= 0")
        self.gclock = GameClock(reserve_ms, delay_ms)
        self.journal.append({"k": "clock", "reserve": reserve_ms, "delay": delay_ms})
        if self.tracker.state == SETTLED:
            self._save()      # otherwise written with the next commit: no flash write mid-hand
        self.emit_status()

    def actor(self):
        """The side that must act now, whose clock runs (-1: nobody's)."""
        ph = self.phase
        if ph == gm.ROLL or ph == gm.MOVE or ph == FLAGGED or ph == gm.DOUBLET:
            return self.side
        if ph == gm.DOUBLED or ph == RESIGN:
            return 1 - self.side
        return -1

    def tick(self, now):
        """Time passes: run the clock of the side that must act; its reserve running out loses
        the match (what the opponent still needs to win it)."""
        gc_ = self.gclock
        if gc_.reserve <= 0:
            return
        was = gc_.side
        gc_.run(self.actor(), now)
        if gc_.side != was:
            self.emit_status()        # whose clock runs changed: the host can show it
        side = gc_.fallen(now)
        if side >= 0:
            self._time_out(side, now)

    def _time_out(self, side, now):
        game = self.game
        self.gclock.stop(now)
        opp = 1 - side
        need = self.match_to - self.match.score[opp]
        points = need if need > 0 else game.cube
        self.verdict = None
        self._flagged = False
        game.time_out(side, points)
        self.journal.append({"k": "time", "side": side, "points": points,
                             "clock": list(self.gclock.left)})
        self.emit("ev", {"ev": "time_out", "side": side})
        self._game_over()

    def _clock_fields(self, now):
        gc_ = self.gclock
        return {"left": [gc_.remaining(0, now), gc_.remaining(1, now)], "running": gc_.side,
                "delay_left": gc_.delay_left(now), "delay": gc_.delay, "reserve": gc_.reserve}

    @property
    def phase(self):
        if self.match.over():
            return MATCH_OVER
        if not self.setup_done:
            return SETUP
        if self.verdict is not None:
            return FLAGGED
        if self.resign_offer is not None:
            return RESIGN
        return self.game.phase

    @property
    def side(self):
        return self.game.pos.turn

    # -- frames -------------------------------------------------------------------------------------
    def frame_in(self, counts, faults=0, colour=None):
        """A new debounced frame of zone counts; ``faults``: zones whose sensors are not believed;
        ``colour``: per zone 0 unknown, 1 White, 2 Black, 3 mixed, where the sensors tell."""
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
        if pip == 25:
            return "bar"
        if pip == 0:
            return "off"
        return self.rules.k_of(side, pip)

    def _k_steps(self, side, steps):
        """Steps in the board's absolute numbering (k 1..24, "bar", "off") for records."""
        return [[self._k(side, st[0]), self._k(side, st[1]), st[2], st[3]] for st in steps]

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
        if long and who == self.side and (ph == gm.ROLL or ph == gm.MOVE):
            self._resign_button()          # a long press of one's own button: resign a single
        elif ph == RESIGN:
            if who == MENU or who == self.resign_offer[0]:
                self.answer_resign(False)  # withdrawn by its side, or refused (MENU)
            else:
                self.answer_resign(True)   # the opponent's button accepts
        elif ph == gm.OPENING:
            if who != MENU and self.dice_mode == "auto":
                if self.rules.opening == "parity":
                    self._opening(self._auto_dice(1)[0], 0)
                else:
                    d = self._auto_dice(2)
                    self._opening(d[0], d[1])
        elif ph == gm.ROLL:
            if who == self.side and self.dice_mode == "auto":
                d = self._auto_dice(2)
                self._roll(d[0], d[1])
            elif who == MENU and game.can_double(self.side):
                self._cube_button("double")
        elif ph == gm.DOUBLED:
            if who == 1 - self.side:
                self._cube_button("take")
            elif who == MENU:
                self._cube_button("drop")
        elif ph == gm.MOVE or ph == FLAGGED:
            if who == self.side:
                self._end_turn()
            elif who == 1 - self.side and ph == FLAGGED:
                self._condone()
        elif ph == gm.DOUBLET:
            if who == MENU:
                self.choice = self.choice % 6 + 1
                self.emit("ev", {"ev": "choice", "value": self.choice})
            elif who == self.side:
                self.choose(self.choice)
        elif ph == gm.OVER:
            if who != MENU:
                self._new_game()
        elif ph == MATCH_OVER:
            if who == MENU and long:
                self.new_match()

    def _resign_button(self):
        try:
            self.offer_resign(1)
        except ValueError as exc:
            self.emit("ev", {"ev": "refused", "what": "resign", "reason": str(exc)})

    def offer_resign(self, level=1):
        """The side to move offers to resign a single (1), gammon (2) or backgammon (3) game;
        its opponent accepts (its button, ``resign accept``) or refuses (MENU)."""
        if self.phase not in (gm.ROLL, gm.MOVE):
            raise ValueError("a resignation is offered on one's own turn (to roll or to move)")
        if level not in (1, 2, 3):
            raise ValueError("resign 1 (single), 2 (gammon) or 3 (backgammon)")
        self.resign_offer = (self.side, level)
        self.emit("ev", {"ev": "resign_offer", "side": self.side, "level": level,
                         "points": level * self.game.cube})
        self.emit_status()

    def answer_resign(self, accept):
        """Accept (the game ends, journaled) or refuse the resignation on offer."""
        if self.resign_offer is None:
            raise ValueError("no resignation is offered")
        side, level = self.resign_offer
        self.resign_offer = None
        self.emit("ev", {"ev": "resign", "side": side, "level": level, "accepted": accept})
        if not accept:
            self.emit_status()
            return
        self.game.resign(side, level)
        self.verdict = None
        self.journal.append({"k": "resign", "side": side, "level": level})
        self._game_over()

    def _cube_button(self, act):
        try:
            self.cube(act)
        except ValueError as exc:
            self.emit("ev", {"ev": "refused", "what": act, "reason": str(exc)})

    def manual_roll(self, a, b):
        """Dice entered by hand: the opening dice (White's, Black's) or the roll of the side to
        move. ValueError (nothing changed) when no roll is expected."""
        if self.dice_mode != "manual":
            raise ValueError("dice are electronic (send 'dice manual' first)")
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError("dice are 1..6")
        ph = self.phase
        if ph == gm.OPENING:
            self._opening(a, b)
        elif ph == gm.ROLL:
            self._roll(a, b)
        else:
            raise ValueError("no roll expected now (phase %s)" % ph)

    def choose(self, v):
        """Matador: the doublet chosen after a 4-3."""
        if self.phase != gm.DOUBLET:
            raise ValueError("no doublet to choose now")
        if not 1 <= v <= 6:
            raise ValueError("a doublet is 1..6")
        self.journal.append({"k": "choose", "value": v})
        self.game.choose_doublet(v)
        self._turn_started()

    def cube(self, act):
        """double / take / drop, by the side whose move it is (double) or its opponent."""
        game = self.game
        try:
            if act == "double":
                if self.tracker.state != SETTLED:
                    raise ValueError("the board must match the game first")
                game.double(self.side)
            elif act == "take":
                game.take()
            elif act == "drop":
                game.drop()
            else:
                raise ValueError("cube action is double, take or drop")
        except gm.GameError as exc:
            raise ValueError(str(exc))
        rec = {"k": "cube", "act": act}
        if self.gclock.reserve > 0:
            self.gclock.stop(self.clock())  # the doubler's or the doubled side's period ends
            rec["clock"] = list(self.gclock.left)
        self.journal.append(rec)
        self.emit("ev", {"ev": "cube", "act": act, "value": game.cube, "owner": game.cube_owner})
        if game.phase == gm.OVER:
            self._game_over()
        else:
            self._save()
            self._after_change()

    # -- the opening and the rolls ----------------------------------------------------------------------
    def _opening(self, a, b):
        game = self.game
        if self.rules.opening == "parity":
            starter = game.opening_parity(0, True, a)
            self._throw({"k": "parity", "die": a})
            self.emit("ev", {"ev": "opening", "dice": [a], "starter": starter})
        else:
            starter = game.opening_roll(a, b)
            self._throw({"k": "open", "dice": [a, b]})
            self.emit("ev", {"ev": "opening", "dice": [a, b],
                             "starter": -1 if starter is None else starter})
        if game.phase == gm.MOVE:
            self._turn_started()
        else:
            self._save()
            self._after_change()

    def _roll(self, a, b):
        self._throw({"k": "roll", "dice": [a, b]})
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

    def _after_change(self):
        """After a commit or an opening throw: roll on when nothing waits for a person."""
        game = self.game
        ph = self.phase
        self.tracker.follow(game.turn, None if game.turn is not None else game.pos)
        if ph == gm.ROLL:
            if self.dice_mode == "auto" and not game.can_double(self.side):
                d = self._auto_dice(2)
                self._roll(d[0], d[1])
                return
            self.emit("ev", {"ev": "await_roll", "side": self.side, "can_double": game.can_double(self.side)})
        elif ph == gm.OPENING:
            self.emit("ev", {"ev": "await_opening", "dice_mode": self.dice_mode})
        elif ph == gm.DOUBLET:
            self.choice = 6
            self.emit("ev", {"ev": "choose", "side": self.side, "value": self.choice})
        elif ph == gm.DOUBLED:
            self.emit("ev", {"ev": "await_cube", "side": 1 - self.side})
        self.emit_status()

    # -- the end of a turn ----------------------------------------------------------------------------------
    def _end_turn(self):
        """The mover pressed: commit a legal play, or say what is wrong."""
        tr = self.tracker
        game = self.game
        turn = game.turn
        # the same board as at the last press, which the sensors could not read alone (a
        # frame change since voids the reading: the tracker clears ``ambiguous``)
        again = tr.ambiguous and self._ambiguous_at == bytes(self.frame)
        self._ambiguous_at = None
        state = tr.update(self.frame, True)
        if tr.ambiguous and again:
            state = tr.adopt_guess()      # pressed twice on the same board: take the best reading
        for kind, step in tr.drain():
            self.emit("ev", self._step_fields(kind, step))
        if state == SETTLED:
            final = turn.position()
            ok, why = game.commit() if turn.complete() else game.commit(final)
            if ok:
                return self._committed(why, final, None)
            what = "incomplete"
        elif tr.ambiguous:
            what = "ambiguous"
            self._ambiguous_at = bytes(self.frame)
            why = ("the sensors cannot tell which of %d plays was made (points fuller than their "
                   "sensors); the LEDs blink the board's reading (grey: from, green: to): press "
                   "again to take it, or move the checkers so the board can tell" % tr.ambiguous)
        else:
            what = STATE_NAMES[state]
            final = self.read_board()
            why = "the board does not show a position the checkers can reach"
            if final is not None:
                ok, why2 = game.commit(final)
                if ok:
                    return self._committed(why2, final, None)
                why = why2
        fields = {"ev": "illegal", "what": what, "reason": why, "side": self.side,
                  "dice_left": turn.dice_left()}
        if self.mode == "referee" and what != "ambiguous":     # unseen is not illegal
            self.verdict = why
            fields["await"] = "correct or condone" if self.condone else "correct"
            # on record (written with the commit that follows: no flash write mid-hand)
            self.journal.append({"k": "flag", "side": self.side, "reason": why})
            self._flagged = True
        self.emit("ev", fields)

    def _condone(self):
        if not self.condone:
            self.emit("ev", {"ev": "refused", "what": "condone",
                             "reason": "illegal plays must be corrected (condone off)"})
            return
        final = self.read_board()
        if final is None:
            self.emit("ev", {"ev": "refused", "what": "condone",
                             "reason": "the board cannot be read as a position; correct it"})
            return
        self.game.commit_condoned(final, self.verdict)
        self._committed(None, final, self.verdict)

    def read_board(self):
        """The position the physical board shows, colours from the tracked game: the mover's
        checkers missing from some zones are moved to the zones showing more. None when the
        difference cannot be read that way (then only a correction helps)."""
        turn = self.game.turn
        pos = turn.position()
        b = pos.board
        side = self.side
        zmap = self.zmap
        exp = bytearray(ZONES)
        zmap.expected(b, exp)
        cap = self.capacity
        f = self.frame
        short = []
        more = []
        for z in range(ZONES):
            e = exp[z] if exp[z] < cap[z] else cap[z]
            for _ in range(e - f[z]):
                short.append(z)
            for _ in range(f[z] - e):
                more.append(z)
        if len(short) != len(more):
            return None
        opp = (1 - side) * 26
        for i in range(len(short)):
            ps = zmap.pip(side, short[i])
            pd = zmap.pip(side, more[i])
            if ps < 1 or pd < 0 or pd == 25 or not b[side * 26 + ps]:
                return None
            po = zmap.pip(1 - side, more[i])
            if po > 0 and b[opp + po]:
                return None
            b[side * 26 + ps] -= 1
            b[side * 26 + pd] += 1
        return pos

    def _committed(self, steps, final, condoned):
        game = self.game
        hist = game.history[-1]
        del game.history[:-1]     # the journal on flash is the history; RAM keeps the last turn
        self.turns += 1
        side = hist["side"]
        now = self.clock()
        rec = {"k": "turn", "side": side, "dice": list(hist["dice"]), "kind": hist["kind"],
               "s": [list(st) for st in (steps or [])], "ms": now - self.t_turn}
        if self.gclock.reserve > 0:
            self.gclock.stop(now)       # the mover's period ends with the press
            rec["clock"] = list(self.gclock.left)
        if condoned is not None:
            rec["condoned"] = condoned
            rec["pos"] = final.encode()
        elif self._flagged:
            rec["corrected"] = True
        self._flagged = False
        self.verdict = None
        seal = self.journal.append(rec)
        if game.phase != gm.OVER:
            self._save()          # the turn is on flash before anything is said or rolled
        self.emit("ev", {"ev": "commit", "side": side, "n": self.turns,
                         "steps": self._k_steps(side, rec["s"]),
                         "seal": seal, "condoned": condoned})
        if game.phase == gm.OVER:
            return self._game_over()
        self._after_change()          # rolls (and journals) the next dice before any write

    def _game_over(self):
        game = self.game
        self.match.record(game)
        self.journal.append({"k": "end", "winner": game.winner, "points": game.points,
                             "how": game.result, "score": list(self.match.score)})
        revealed = self._reveal_dice()
        self._save()
        if revealed:          # only once the reveal is on flash: a cut before keeps the seed
            self.journal.storage.remove(SEED_FILE)
        self.tracker.follow(None, game.pos)
        self.emit("ev", {"ev": "game_over", "winner": game.winner, "points": game.points,
                         "how": game.result, "score": list(self.match.score),
                         "match_over": self.match.over()})
        self.emit_status()

    # -- power restore ----------------------------------------------------------------------------------------
    def resume(self):
        """Rebuild the match from the journal after a reset, replaying it through the rules;
        False when there is no journal."""
        self._restored = False
        dropped = self.journal.load(self._restore_event)
        if not self._restored:
            self.journal.clear()
            return False
        game = self.game
        self._resume_dice()
        self.setup_done = bool(game.opening) or self.turns > 0 or game.phase != gm.OPENING
        self.tracker.follow(game.turn, None if game.turn is not None else game.pos)
        self.t_turn = self.clock()
        self.emit("ev", {"ev": "power_restore", "turns": self.turns, "dropped": dropped,
                         "phase": self.phase, "seal": self.journal.head})
        if game.turn is not None:
            self._turn_started(restoring=True)
        else:
            self._check_frame()
            if self.setup_done and self.phase in (gm.ROLL, gm.OPENING, gm.DOUBLET, gm.DOUBLED):
                self._after_change()
            else:
                self.emit_status()
        return True

    def _resume_dice(self):
        """The committed seed back from flash; if it is lost (or altered), the dice from here on
        come from a new seed, committed now (the record shows it)."""
        commit = self._commit_want
        self.fair_seed = None
        if commit is None or self.game.phase == gm.OVER:
            return
        self.fair_seed = self._load_seed(commit)
        if self.fair_seed is None and self.dice_mode == "auto":
            self.journal.append({"k": "commit", "dice_commit": self._commit_dice(),
                                 "why": "the committed seed was lost"})
            self._save()

    _commit_want = None

    def _restore_event(self, ev):
        """One journal event on the way back (streamed: a long game needs no list of events);
        False stops the replay there (the rules refuse it)."""
        if not self._restored:
            if ev.get("k") != "game":
                return False
            self.variant = ev["variant"]
            self.options = ev.get("options") or {}
            self.match_to = ev["match_to"]
            self.mode = ev.get("mode", "guide")
            self.dice_mode = ev.get("dice_mode", "auto")
            self.condone = ev.get("condone", False)
            c = ev.get("clock") or {}
            self.gclock = GameClock(c.get("reserve", 0), c.get("delay", 12000), c.get("left"))
            self._configure_rules()
            match = gm.Match(self.rules, self.match_to)
            match.restore({"score": ev["score"], "games": ev.get("games", 0),
                           "crawford_done": ev.get("crawford_done", False),
                           "crawford_next": ev.get("crawford", False)})
            self.match = match
            self.game = match.new_game()
            self.turns = 0
            self.setup_done = False
            self.verdict = None
            self._commit_want = ev.get("dice_commit")
            self.fair_next = 0
            self.fair_mix = b""
            self._restored = True
            return True
        try:
            self._replay(ev)
        except (gm.GameError, ValueError, KeyError):
            return False
        if ev.get("k") == "turn":
            self.turns += 1
        if isinstance(ev.get("clock"), list):       # the reserves left after a turn, cube, time
            self.gclock.left = list(ev["clock"])
        k = ev.get("k")
        if "i" in ev:                                # dice of the committed seed
            n = ev["i"] + (len(ev["dice"]) if "dice" in ev else 1)
            if n > self.fair_next:
                self.fair_next = n
        elif k == "commit":
            self._commit_want = ev["dice_commit"]
            self.fair_next = 0
            self.fair_mix = b""
        elif k == "mix":
            self.fair_mix = binascii.unhexlify(ev["mix"])
        elif k == "reveal":
            self._commit_want = None
        del self.game.history[:-1]
        return True

    def _replay(self, ev):
        game = self.game
        k = ev.get("k")
        if replay_dice_and_cube(game, ev):
            return
        if k == "turn":
            if "condoned" in ev:
                game.commit_condoned(Position.decode(ev["pos"]), ev["condoned"])
            else:
                turn = game.turn
                for st in ev["s"]:
                    if turn.push(st[0], st[2]) != st[3]:
                        raise ValueError("journal step %r does not replay" % (st,))
                ok, why = game.commit()
                if not ok:
                    raise ValueError(why)
        elif k == "position":
            game.pos = Position.decode(ev["pos"])
            game.turn = None
            game.phase = gm.ROLL
            game.played = [1, 1]
        elif k == "set":
            for key in ("mode", "dice_mode", "condone"):
                if key in ev:
                    setattr(self, key, ev[key])
        elif k == "end":
            self.match.record(game)
        elif k == "clock":
            self.gclock = GameClock(ev["reserve"], ev["delay"])
        elif k == "resign":
            game.resign(ev["side"], ev["level"])
        elif k == "time":
            game.time_out(ev["side"], ev["points"])

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
                "cube": game.cube, "board": STATE_NAMES[self.tracker.state],
                "seal": self.journal.head, "clock": self._clock_fields(self.clock())}

    def force_position(self, pos):
        """Simulation and tests only: go on from ``pos`` (its side to roll next), not journaled
        as play; the journal gets a marked position line so a restore lands here too."""
        game = self.game
        game.pos = pos.copy()
        game.turn = None
        game.phase = gm.ROLL
        game.played = [1, 1]
        self.setup_done = True
        self.verdict = None
        self.journal.append({"k": "position", "pos": pos.encode()})
        self._save()
        self.tracker.follow(None, game.pos)
        self._check_frame()
        self.emit_status()

    def tracked_board(self):
        """The 52 counts of the position the board should show now."""
        turn = self.game.turn
        return (turn.position() if turn is not None else self.game.pos).board

    def emit_status(self):
        self.emit("status", self.status())

    def record(self):
        """The game record (rules.md §8.6): every sealed journal event, and the head seal."""
        events = []
        for text, s in self.journal.rows():
            obj = json.loads(text)
            obj["seal"] = s
            # the sealed text itself: MicroPython's dicts do not keep key order, so a verifier
            # cannot rebuild the exact line from the fields
            obj["line"] = text
            if obj.get("k") == "turn":
                obj["steps"] = self._k_steps(obj["side"], obj.pop("s"))
            events.append(obj)
        return {"format": "nardy-record/1", "variant": self.variant, "rules": self.rules.describe(),
                "match_to": self.match_to, "events": events, "head": self.journal.head}
