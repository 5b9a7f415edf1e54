"""The variants: one Rules class with declared hooks, one small subclass per game, and their options.

Every variant shares the move generator (``movegen.Turn``); what differs is declared here:
geometry (do the two sides run opposite ways or the same way round), how many opposing
checkers close a point (2: hitting games, 1: long nardy), the head rule, the six-block rule,
the takhteh "no hit-and-lift" rule, the opening procedure, the matador 4-3, the cube and the
scoring. Options are the named choices of ``rules.md`` (Project decisions and §11), given as
keyword arguments: ``get_rules("long", head_exception="fixed_doubles")``.
"""

from firmware.rules.position import Position, SIDE, CHECKERS, BAR, WHITE, BLACK

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_OPPOSITE = const(0)   # short nardy, backgammon, takhteh, jacquet: White's pip k is Black's pip 25 - k
_SAME = const(1)       # long nardy: both sides go the same way round, heads diagonally opposite

_BACKGAMMON_START = const(((24, 2), (13, 5), (8, 3), (6, 5)))
_HEAD_START = const(((24, 15),))


class Rules:
    """Backgammon-family rules; subclasses override the declared attributes and hooks."""

    name = "backgammon"
    title = "International backgammon"
    geometry = _OPPOSITE
    block = 2                 # opposing checkers that close a point (2: a blot can be hit)
    head_rule = False         # long nardy: one checker off the head (pip 24) per turn
    six_block = False         # long nardy: no six-point block with every opponent behind it
    hit_lift = False          # takhteh: no leaving a home point where this turn hit
    matador = False           # jacquet matador: a 4-3 is followed by a chosen doublet
    start = _BACKGAMMON_START  # type: tuple
    opening = "high_die"      # high_die: starter plays the two opening dice; rethrow; parity
    cube = True
    results = (1, 2, 3)  # type: tuple  # what a game is won for before the cube (resignation levels)
    gnubg_compatible = True   # records can be exported in gnubg's formats
    # option name -> (allowed values, default)
    OPTIONS = {}  # type: dict

    def __init__(self, **options):
        self.options = {}
        for name in self.OPTIONS:
            self.options[name] = self.OPTIONS[name][1]
        for name in options:
            if name not in self.OPTIONS:
                known = ", ".join(sorted(self.OPTIONS)) or "none"
                raise ValueError("%s has no option %r (options: %s)" % (self.name, name, known))
            allowed = self.OPTIONS[name][0]
            value = options[name]
            if value not in allowed:
                raise ValueError("%s option %s must be one of %s, got %r"
                                 % (self.name, name, "|".join(allowed), value))
            self.options[name] = value
        self.configure()
        self.xlat = _xlat(self.geometry)

    def configure(self):
        """Apply options to the declared attributes (subclasses)."""

    def option(self, name):
        return self.options[name]

    def describe(self):
        opts = " ".join("%s=%s" % (k, self.options[k]) for k in sorted(self.options))
        return (self.name + " " + opts).strip()

    # -- geometry -------------------------------------------------------------------------
    def pip_of(self, side, k):
        """Own pip of ``side`` on physical triangle k (1..24, rules.md §1.2)."""
        if self.geometry == _OPPOSITE:
            return k if side == WHITE else 25 - k
        if side == WHITE:
            return 25 - k
        return 13 - k if k <= 12 else 37 - k

    def k_of(self, side, pip):
        """Physical triangle k of ``side``'s own pip (1..24)."""
        if self.geometry == _OPPOSITE:
            return pip if side == WHITE else 25 - pip
        if side == WHITE:
            return 25 - pip
        return 13 - pip if pip <= 12 else 37 - pip

    # -- positions --------------------------------------------------------------------------
    def start_position(self, turn=WHITE):
        pos = Position(None, turn)
        for side in (WHITE, BLACK):
            for pip, n in self.start:
                pos.board[side * SIDE + pip] = n
        return pos

    def validate(self, pos):
        """Raise ValueError naming the first problem: checker counts, both colours on a point,
        checkers on a bar in a variant without hitting."""
        b = pos.board
        for side in (WHITE, BLACK):
            total = 0
            for pip in range(SIDE):
                total += b[side * SIDE + pip]
            if total != CHECKERS:
                raise ValueError("%s has %d checkers, not 15" % (("white", "black")[side], total))
            if self.block == 1 and b[side * SIDE + BAR]:
                raise ValueError("%s has checkers on the bar, but %s has no hitting"
                                 % (("white", "black")[side], self.name))
        x = self.xlat
        for pip in range(1, 25):
            if b[pip] and b[SIDE + x[pip]]:
                raise ValueError("white's point %d holds checkers of both colours" % pip)

    # -- rule hooks used by the move generator ----------------------------------------------------
    def head_limit(self, first_turn, d1, d2):
        """How many checkers may leave the head this turn (0: no head rule).
        Returns (limit, limit_if_blocked): the second is used when the first cannot play the
        whole roll (the first-turn exception)."""
        return 0, 0

    def hit_lift_lock_first(self):
        return False

    def block_check_each_step(self):
        """Long nardy: judge the six-block rule after every step, not only on the final position."""
        return False

    # -- opening and scoring ----------------------------------------------------------------
    def opening_plays_dice(self):
        """True when the winner of the opening roll plays the two opening dice."""
        return self.opening == "high_die"

    def is_matador(self, d1, d2):
        return self.matador and ((d1 == 4 and d2 == 3) or (d1 == 3 and d2 == 4))

    def score(self, pos, winner):
        """Points of a finished game before the cube (backgammon: 1, 2 gammon, 3 backgammon)."""
        return _backgammon_score(pos, 1 - winner)


class Backgammon(Rules):
    pass


def _furthest(pos, side):
    """The highest pip still holding a checker of ``side`` (25: the bar; 0: all borne off)."""
    b = pos.board
    base = side * SIDE
    for pip in range(BAR, 0, -1):
        if b[base + pip]:
            return pip
    return 0


def _backgammon_score(pos, loser):
    """1; 2 (gammon) none borne off; 3 (backgammon) and a checker on the bar or in the
    winner's home (the loser's pips 19..24)."""
    if pos.off(loser):
        return 1
    return 3 if _furthest(pos, loser) >= 19 else 2


def _tric_trac(pos, loser):
    """Seed 000/001 scoring: 1; 2 none borne off; 4 and not all home; 8 and one on the bar."""
    if pos.off(loser):
        return 1
    far = _furthest(pos, loser)
    return 8 if far == BAR else 4 if far >= 7 else 2


class Short(Rules):
    name = "short"
    title = "Short nardy (tric-trac)"
    cube = False
    OPTIONS = {"scoring": (("tric-trac", "backgammon"), "tric-trac"),
               "cube": (("off", "on"), "off")}

    def configure(self):
        self.cube = self.options["cube"] == "on"
        self.gnubg_compatible = self.options["scoring"] == "backgammon"
        self.results = (1, 2, 3) if self.gnubg_compatible else (1, 2, 4, 8)

    def score(self, pos, winner):
        if self.options["scoring"] == "backgammon":
            return _backgammon_score(pos, 1 - winner)
        return _tric_trac(pos, 1 - winner)


class Long(Rules):
    name = "long"
    title = "Long nardy"
    geometry = _SAME
    block = 1
    head_rule = True
    six_block = True
    start = _HEAD_START
    opening = "rethrow"
    cube = False
    gnubg_compatible = False
    OPTIONS = {"opening": (("rethrow", "use_opening_dice"), "rethrow"),
               "head_exception": (("principle", "fixed_doubles", "doubles_principle"), "principle"),
               "scoring": (("seed", "fnr", "koks"), "seed"),
               "block_check": (("final", "every_step"), "final"),
               "cube": (("off", "on"), "off")}

    def configure(self):
        self.opening = "high_die" if self.options["opening"] == "use_opening_dice" else "rethrow"
        self.cube = self.options["cube"] == "on"
        self.results = {"seed": (1, 2, 4), "fnr": (1, 2), "koks": (1, 2, 3)}[self.options["scoring"]]

    def block_check_each_step(self):
        return self.options["block_check"] == "every_step"

    def head_limit(self, first_turn, d1, d2):
        if not first_turn:
            return 1, 1
        rule = self.options["head_exception"]
        if rule == "fixed_doubles":
            if d1 == d2 and d1 in (3, 4, 6):
                return 2, 2
            return 1, 1
        if rule == "doubles_principle" and d1 != d2:
            return 1, 1
        return 1, 2

    def score(self, pos, winner):
        """fnr: 1, 2 (mars: none borne off); seed: and 4 when not all home; koks: and 3 when a
        checker is still in the loser's first quarter (pips 19..24)."""
        loser = 1 - winner
        if pos.off(loser):
            return 1
        far = _furthest(pos, loser)
        scoring = self.options["scoring"]
        if scoring == "seed" and far >= 7:
            return 4
        if scoring == "koks" and far >= 19:
            return 3
        return 2


class Persian(Rules):
    name = "persian"
    title = "Takhteh nard"
    hit_lift = True
    cube = False
    results = (1, 2)
    OPTIONS = {"opening": (("high_die", "parity"), "high_die"),
               "hit_lift_priority": (("max_first", "lock_first"), "max_first"),
               "cube": (("off", "on"), "off")}

    def configure(self):
        self.opening = self.options["opening"]
        self.cube = self.options["cube"] == "on"

    def hit_lift_lock_first(self):
        return self.options["hit_lift_priority"] == "lock_first"

    def score(self, pos, winner):
        return 1 if pos.off(1 - winner) else 2


class Jacquet(Short):
    """Short nardy's rules and scoring with every checker starting on its own 24-point (D8)."""
    name = "jacquet"
    title = "Jacquet (seed 001)"
    start = _HEAD_START
    OPTIONS = {"scoring": (("tric-trac", "backgammon"), "tric-trac")}

    def configure(self):
        self.cube = False
        self.gnubg_compatible = False
        self.results = (1, 2, 3) if self.options["scoring"] == "backgammon" else (1, 2, 4, 8)


class Matador(Jacquet):
    name = "matador"
    title = "Jacquet with the matador 4-3"
    matador = True
    OPTIONS = {"scoring": (("tric-trac", "backgammon"), "tric-trac"),
               "matador_forfeit": (("off", "on"), "off"),
               "opening_matador": (("on", "off"), "on")}


VARIANTS = {}
for _cls in (Short, Long, Persian, Jacquet, Matador, Backgammon):
    VARIANTS[_cls.name] = _cls


def get_rules(name, **options):
    """The rules of variant ``name`` with ``options``; ValueError for an unknown name or option."""
    cls = VARIANTS.get(name)
    if cls is None:
        raise ValueError("unknown variant %r (variants: %s)" % (name, ", ".join(sorted(VARIANTS))))
    return cls(**options)


def _xlat(geometry):
    """Opponent's pip standing on each of the mover's pips 1..24 (0 and 25 map to themselves)."""
    x = bytearray(26)
    x[25] = 25
    for q in range(1, 25):
        x[q] = 25 - q if geometry == _OPPOSITE else ((q + 11) % 24) + 1
    return bytes(x)
