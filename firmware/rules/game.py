"""Game flow: the opening roll, turns, the matador sequence, the cube, game end and points; the match.

``Game`` is a small state machine over a ``Position``; the dice come from outside (the board's
dice driver, manual entry, or a record being replayed), so it stays pure and deterministic.
Phases: ``opening`` (each side throws one die), ``roll`` (the side to move throws both),
``move`` (a ``Turn`` is in progress), ``doublet`` (matador: the player names a doublet),
``doubled`` (a cube offer waits for take or drop), ``over``.
"""

from firmware.rules.movegen import Turn

try:                        # type comments only: MicroPython has no typing module, and needs none
    from typing import Any  # noqa: F401
except ImportError:
    pass

OPENING = "opening"
ROLL = "roll"
MOVE = "move"
DOUBLET = "doublet"
DOUBLED = "doubled"
OVER = "over"

# what kind of roll a turn played
NORMAL = "roll"
MATADOR = "matador"        # the 4-3 that starts the matador sequence
CHOSEN = "chosen"          # the doublet the player chose after a matador


class GameError(ValueError):
    """An action that the game's current phase or rules do not allow; the game is unchanged."""


class Game:
    """One game of one variant."""

    def __init__(self, rules, cube=None, crawford=False, away=None):
        self.rules = rules
        self.pos = rules.start_position()
        self.phase = OPENING
        self.turn = None  # type: Any  # the Turn in progress (phase MOVE)
        self.kind = NORMAL
        self.dice = None
        self.played = [0, 0]           # turns committed per side (the head rule's "first turn")
        self.cube_allowed = rules.cube if cube is None else cube
        self.crawford = crawford
        self.away = away               # match play: the points each side still needs (else None)
        self.cube = 1
        self.cube_owner = -1           # -1: centred
        self.winner = -1
        self.points = 0
        self.result = ""               # "", "bearoff", "drop", "resign", "time"
        self.opening = []              # opening throws: [(white die, black die), ...]
        self.history = []              # committed turns and cube answers: dicts, see _apply
        self.keep_history = True       # False: only the last entry (a board's journal has them)

    # -- helpers --------------------------------------------------------------------------------
    @property
    def side(self):
        return self.pos.turn

    def _need(self, *phases):
        if self.phase not in phases:
            raise GameError("not now: the game is in phase %r, this needs %s" % (
                self.phase, " or ".join(phases)))

    def _start_turn(self, d1, d2, kind):
        side = self.pos.turn
        self.dice = (d1, d2)
        self.kind = kind
        self.turn = Turn(self.rules, self.pos, (d1, d2), first_turn=self.played[side] == 0)
        self.phase = MOVE
        return self.turn

    # -- the opening ---------------------------------------------------------------------------
    def opening_roll(self, white_die, black_die):
        """Each side throws one die. Returns None on a tie (throw again), else the starter."""
        self._need(OPENING)
        for d in (white_die, black_die):
            if not 1 <= d <= 6:
                raise GameError("a die shows 1..6, got %r" % d)
        self.opening.append((white_die, black_die))
        if white_die == black_die:
            return None
        starter = 0 if white_die > black_die else 1
        self.pos.turn = starter
        if self.rules.opening_plays_dice():
            hi, lo = max(white_die, black_die), min(white_die, black_die)
            kind = NORMAL
            if self.rules.is_matador(hi, lo) and self.rules.option("opening_matador") == "on":
                kind = MATADOR
            self._start_turn(hi, lo, kind)
        else:
            self.phase = ROLL
        return starter

    def opening_parity(self, caller, called_even, die):
        """Takhteh's parity opening: ``caller`` calls even or odd, one die is thrown."""
        self._need(OPENING)
        if self.rules.opening != "parity":
            raise GameError("%s does not use the parity opening" % self.rules.name)
        if not 1 <= die <= 6:
            raise GameError("a die shows 1..6, got %r" % die)
        starter = caller if (die % 2 == 0) == bool(called_even) else 1 - caller
        self.pos.turn = starter
        self.phase = ROLL
        return starter

    # -- turns ------------------------------------------------------------------------------------
    def closed_out(self):
        """True when no roll of the side to roll could be played (on the bar against a closed
        board, or every checker blocked): its turn passes without a throw (docs/rules.md 7)."""
        first = self.played[self.pos.turn] == 0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                if Turn(self.rules, self.pos, (d1, d2), first).max_steps:
                    return False
        return True

    def pass_turn(self):
        """The side to roll is closed out: its turn passes unthrown (GameError when some roll
        could be played: then it must throw)."""
        self._need(ROLL)
        side = self.pos.turn
        if not self.closed_out():
            raise GameError("side %d is not closed out: it must throw" % side)
        self.dice = None
        self.kind = NORMAL
        self._remember({"side": side, "dice": None, "kind": NORMAL, "steps": [],
                        "condoned": None})
        self.played[side] += 1
        self.pos.turn = 1 - side

    def roll(self, d1, d2):
        """The side to move threw d1-d2: start its turn (a Turn to play steps on)."""
        self._need(ROLL)
        for d in (d1, d2):
            if not 1 <= d <= 6:
                raise GameError("a die shows 1..6, got %r" % d)
        kind = MATADOR if self.rules.is_matador(d1, d2) else NORMAL
        return self._start_turn(d1, d2, kind)

    def choose_doublet(self, value):
        """Matador: the player names the doublet to play after the 4-3."""
        self._need(DOUBLET)
        if not 1 <= value <= 6:
            raise GameError("a doublet is 1-1 .. 6-6, got %r" % value)
        return self._start_turn(value, value, CHOSEN)

    def commit(self, final=None):
        """End the turn: with the Turn's own steps, or with a sensed final position.
        Returns (True, steps) or (False, reason); on False nothing changes."""
        self._need(MOVE)
        turn = self.turn
        if final is None:
            if not turn.complete():
                return False, "the play is not complete: %d of %d dice played" % (
                    len(turn.stack), turn.max_steps)
            steps = turn.steps
            final = turn.position()
        else:
            ok, steps = turn.check(final)
            if not ok:
                return False, steps
        self._apply(final, steps, turn)
        return True, steps

    def commit_condoned(self, final, reason):
        """Referee mode, condone regime: the opponent accepted an illegal play; record it."""
        self._need(MOVE)
        self._apply(final, None, self.turn, condoned=reason)
        return True, None

    def adopt(self, final, side, kind=NORMAL, cube=None):
        """Go on from ``final``, the position a record shows after a turn of ``side`` (of
        ``kind``) that cannot be replayed step by step (its lines were lost): as if that turn
        had just been played, with the cube the record shows (``cube``: (value, owner), or
        None: as it is). The turn appears in ``history`` without steps."""
        if self.phase == OVER:
            raise GameError("the game is over")
        self.pos.turn = side
        self.kind = kind
        self.dice = None
        self._apply(final, None, None)
        if cube:
            self.cube, self.cube_owner = cube[0], cube[1]

    def set_position(self, pos):
        """Go on from ``pos`` (a copy), its side to move throwing next: a position set from
        outside the game (the host's, a record's ``position`` line). No first-turn rule applies
        after it."""
        self.pos = pos.copy()
        self.turn = None
        self.phase = ROLL
        self.played = [1, 1]

    def _apply(self, final, steps, turn, condoned=None):
        side = self.pos.turn
        full = steps is not None and len(steps) == turn.max_steps == turn.ndice
        self._remember({"side": side, "dice": self.dice, "kind": self.kind, "steps": steps,
                        "condoned": condoned})
        self.pos = final.copy()
        self.pos.turn = side
        self.played[side] += 1
        self.turn = None
        if self.pos.off(side) == 15:
            self._finish(side, self.rules.score(self.pos, side) * self.cube, "bearoff")
            return
        forfeit = self.rules.matador and self.rules.option("matador_forfeit") == "on"
        if self.kind == MATADOR and (full or not forfeit):
            self.phase = DOUBLET
            return
        if self.kind == CHOSEN and (full or not forfeit):
            self.phase = ROLL               # the same player throws again
            return
        self.pos.turn = 1 - side
        self.phase = ROLL

    def _remember(self, entry):
        if self.keep_history:
            self.history.append(entry)
        else:
            self.history = [entry]

    def _finish(self, winner, points, how):
        self.winner = winner
        self.points = points
        self.result = how
        self.phase = OVER

    # -- the cube ---------------------------------------------------------------------------------
    def can_double(self, side):
        """Whether ``side`` may offer the cube now. In match play the cube is dead once it is
        worth as much as the points its owner still needs (a double gains nothing; gnubg
        refuses it, and a record holding one does not import). ``away`` is None in a single
        game (money play, or the board's 1-point default): no cap."""
        return (self.cube_allowed and not self.crawford and self.phase == ROLL
                and side == self.pos.turn and self.cube_owner in (-1, side)
                and not self.cube_dead(side))

    def cube_dead(self, side):
        """Match play: the cube already wins ``side`` the match (it needs no more points)."""
        return self.away is not None and self.cube >= self.away[side]

    def double(self, side):
        if self.cube_dead(side) and side == self.pos.turn:
            raise GameError("the cube is dead: at %d it already wins side %d the match"
                            % (self.cube, side))
        if not self.can_double(side):
            raise GameError("side %d may not double now" % side)
        self.phase = DOUBLED

    def take(self):
        self._need(DOUBLED)
        self.cube *= 2
        self.cube_owner = 1 - self.pos.turn
        self._remember({"side": 1 - self.pos.turn, "cube": "take", "value": self.cube})
        self.phase = ROLL

    def drop(self):
        self._need(DOUBLED)
        self._remember({"side": 1 - self.pos.turn, "cube": "drop", "value": self.cube})
        self._finish(self.pos.turn, self.cube, "drop")

    def resign(self, side, level=1):
        """``side`` resigns a game of ``level`` points before the cube: one of the results the
        rules score (``rules.results``: backgammon 1, 2, 3; tric-trac 1, 2, 4, 8; ...)."""
        if self.phase == OVER:
            raise GameError("the game is over")
        if level not in self.rules.results:
            raise GameError("%s scores no game %r: its results are %r" % (
                self.rules.name, level, self.rules.results))
        self.turn = None                   # a turn in progress ends unplayed
        self._finish(1 - side, level * self.cube, "resign")

    def time_out(self, side, points):
        """``side``'s reserve on the clock ran out: the opponent wins ``points`` (the board gives
        what the opponent still needs to take the match)."""
        if self.phase == OVER:
            raise GameError("the game is over")
        if points < 1:
            raise GameError("a game is won by at least 1 point")
        self.turn = None
        self._finish(1 - side, points, "time")


class Match:
    """A match to ``length`` points (0: unlimited series), with the Crawford rule when the cube
    is in use."""

    def __init__(self, rules, length=0):
        if length < 0:
            raise GameError("match length must be >= 0")
        self.rules = rules
        self.length = length
        self.score = [0, 0]
        self.games = 0
        self._crawford_done = False
        self.crawford_next = False

    def new_game(self, keep_history=True):
        """The match's next game; ``keep_history`` False: it keeps only its last history entry
        (a board's journal has them all)."""
        away = None
        if self.length > 1:            # (a 1-point game is a single game: its cube stays live)
            away = (self.length - self.score[0], self.length - self.score[1])
        game = Game(self.rules, crawford=self.crawford_next, away=away)
        game.keep_history = keep_history
        if self.crawford_next:
            self._crawford_done = True
        self.crawford_next = False
        return game

    def record(self, game):
        """Add a finished game's points; decides whether the next game is the Crawford game."""
        if game.phase != OVER:
            raise GameError("the game is not over")
        self.score[game.winner] += game.points
        self.games += 1
        if (self.length and self.rules.cube and not self._crawford_done and not self.over()
                and self.length - 1 in self.score):
            self.crawford_next = True

    def over(self):
        return bool(self.length) and max(self.score) >= self.length

    def state(self):
        """What a journal needs to restore the match between games (plain data)."""
        return {"score": list(self.score), "games": self.games,
                "crawford_done": self._crawford_done, "crawford_next": self.crawford_next}

    def restore(self, state):
        """Undo ``state()``: the score, games played and where the Crawford rule stands."""
        self.score = list(state["score"])
        self.games = state.get("games", 0)
        self._crawford_done = bool(state.get("crawford_done", False))
        self.crawford_next = bool(state.get("crawford_next", False))

    def winner(self):
        if not self.over():
            return -1
        return 0 if self.score[0] >= self.length else 1
