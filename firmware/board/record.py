"""The game record: its event kinds, who may cause them, and the visitor its readers call.

A game's record is its journal (``journal``): one sealed JSON line per event, numbered by ``n``.
This module is the one place that knows the kinds of events and who may cause them, and the
visitors that read them: ``gamereplay.Visitor`` is called for every event in order, as python-chess's
PGN visitors are called in the order of the game (``restore.walk`` reads the stored lines). The board's resume after a reset, the board's streaming ``export``, the host's ``export``
and the tournament station all read records this way.

Steps in ``turn`` events are in the mover's own pips (24..1, 25 the bar, 0 off), as the rules core
and gnubg's formats count them; ``zonemap.k_steps`` gives the board's triangle numbers for display.

The firmware writes these kinds and sources as the strings they are (a module of names would cost
the board's RAM a name per kind); this module is their table and documentation, and a test checks
that the firmware writes no kind or source that is not here.
"""

from firmware.drivers.buttons import NAMES as BUTTONS    # "p0", "p1", "menu"

FORMAT = "nardy-record/2"

# the sides as the record's readers and the pages write them: side 0, side 1 (the rules core's
# WHITE and BLACK; no firmware module imports this table, so the board pays nothing for it)
SIDES = ("White", "Black")

# event kinds (the "k" of a line)
GAME = "game"          # the header: board, serial, match, variant, options, score, settings
OPEN = "open"          # the opening throw: one die each (White's, Black's)
PARITY = "parity"      # takhteh's parity opening: the caller, the call and the die
ROLL = "roll"          # the side to move threw two dice
CHOOSE = "choose"      # matador: the doublet named after a 4-3
PASS = "pass"          # the side to roll was closed out (no roll could play): passed unthrown
TURN = "turn"          # a committed play: side, dice, steps, the position after it
CUBE = "cube"          # double / take / drop
FLAG = "flag"          # referee: an illegal play was flagged at the button
SET = "set"            # a board setting changed: mode, dice_mode, condone
CLOCK = "clock"        # the clock was set: reserve and delay
MIX = "mix"            # the host's bytes mixed into the committed dice seed
COMMIT = "commit"      # a new dice seed was committed (the one before was lost)
REVEAL = "reveal"      # the dice seed revealed at the game's end
RESIGN = "resign"      # a resignation offered and accepted
TIME = "time"          # a reserve on the clock ran out
POSITION = "position"  # play went on from a position set by the host (simulation, tests)
RESET = "reset"        # the board restarted mid-game (power cut, crash); the clock was charged
LOCK = "lock"          # the director locked the board for tournament play
UNLOCK = "unlock"      # the director lifted the lock
RECOVER = "recover"    # the board found lines lost or damaged on flash and says which
ABANDON = "abandon"    # the game was left unfinished for a new one
END = "end"            # the game is over: winner, points, how, match score (always the last line)

KINDS = (GAME, OPEN, PARITY, ROLL, CHOOSE, PASS, TURN, CUBE, FLAG, SET, CLOCK, MIX, COMMIT, REVEAL,
         RESIGN, TIME, POSITION, RESET, LOCK, UNLOCK, RECOVER, ABANDON, END)

# what a "set" line may set (exactly one of them) and the values each takes
SETTINGS = {"mode": ("guide", "referee"), "dice_mode": ("auto", "manual"),
            "condone": (True, False)}

# who caused an event (its "by"): the players' and the menu button, the board itself (sensors,
# automatic throws, the clock), the host link, and the director (a command the director signed)
P0, P1, MENU = BUTTONS
BOARD = "board"
HOST = "host"
DIRECTOR = "dir"
SOURCES = (P0, P1, MENU, BOARD, HOST, DIRECTOR)

# events that change the game (a locked game's record may show them only from the players'
# buttons, the board itself or the director, never the bare host link)
CHANGES = (OPEN, PARITY, ROLL, CHOOSE, PASS, TURN, CUBE, SET, CLOCK, MIX, RESIGN, POSITION, ABANDON,
           LOCK, UNLOCK)
