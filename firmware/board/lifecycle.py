"""A match's and a game's start and end on the board: the new match, the new game's journal and
header (with the dice seed committed), and the game's end (the score, the seed revealed, the end
line).

A feature module of the ``Session`` (loaded for each start or end, then dropped, so its code
costs no RAM while a game is played). ``Session.new_match``, ``_new_game`` and ``_game_over``
call it; a game in progress left for a new match stays on flash, marked abandoned.
"""

from firmware.rules import game as gm
from firmware.rules.variants import get_rules
from firmware.drivers.dice import DiceFault
from firmware.board.gameclock import GameClock


def new_match(s, variant, options, match_to, by):
    """Start a new match and its first game; ValueError (nothing changed) on a bad variant,
    options or length."""
    if variant is not None:
        rules = get_rules(variant, **(options or {}))
    else:
        rules = get_rules(s.variant, **s.options)
    if match_to is not None and not 1 <= match_to <= 99:
        raise ValueError("match length must be 1..99")
    if s.journal.count and s.game.phase != gm.OVER and not s.match.over():
        s._journal({"k": "abandon"}, by)   # the game in progress stays, marked as left
        s._save()
    if variant is not None:
        s.variant = variant
        s.options = options or {}
    if match_to is not None:
        s.match_to = match_to
    s._configure_rules(rules)
    s.match = gm.Match(s.rules, s.match_to)
    s.gclock = GameClock(s.gclock.reserve, s.gclock.delay)   # full reserves
    s.match_id = 0
    s.game_no = 1
    new_game(s, by)


def new_game(s, by):
    """The match's next game: a new journal file (the oldest exported games make room), its
    header line and the header's copy, a dice seed committed (electronic dice)."""
    journal = s.journal
    prev = journal.head if s.game.phase == gm.OVER else ""
    games = journal.games()
    serial = max(games[-1] if games else 0, journal.serial) + 1
    if not s.match_id:
        s.match_id = serial
    s.game = s.match.new_game(False)
    s.turns = 0
    s.settings = 0
    s.setup_done = False
    s.verdict = None
    s.resign_offer = None      # an offer belongs to its game (fuzz: it outlived a 'new')
    s._flagged = False
    s.call = (0, True)
    journal.start(serial)
    journal.prune()
    if not journal.lay_reserve():
        s.emit("ev", {"ev": "storage_low", "why": "the flash has no room kept for this "
                                                  "game: export and clear old files"})
    head = header(s, prev, by)
    s.dice.seed = None
    s.dice.expected = None
    if s.dice_mode == "auto":
        try:
            head["dice_commit"] = s.dice.new_seed()
        except DiceFault:    # the hardware dice failed (hw_fault): the game starts without a
            pass             # seed; its first throw commits one, or is refused while it lasts
    journal.append(head)
    # a copy of the header beside the segments: a damaged header never loses the game
    journal.put(journal.file(serial, "h"), bytes(journal.pending))
    s._save()
    s.tracker.follow(None, s.game.pos)
    s.emit("ev", {"ev": "new_game", "variant": s.variant, "game": s.match.games + 1,
                  "serial": serial})
    s._check_frame()
    s.emit_status()


def header(s, prev, by):
    """The game's first line: the board, the game's place in the match, the rules, the settings
    and the clock (nardy-record/2, ``record.GAME``)."""
    return {"k": "game", "v": 2, "board": s.identity.board_id,
            "serial": s.journal.serial, "key": s.identity.kid,
            "match": s.match_id, "game": s.game_no, "prev": prev,
            "variant": s.variant, "options": s.options, "rules": s.rules.describe(),
            "match_to": s.match_to, "score": list(s.match.score),
            "games": s.match.games, "crawford": s.game.crawford,
            "crawford_done": s.match.state()["crawford_done"],
            "mode": s.mode, "dice_mode": s.dice_mode, "condone": s.condone,
            "clock": s.gclock.state(), "locked": s.auth.locked, "by": by}


def game_over(s):
    """The game ended (the last checker off, a drop, a resignation, a time-out): the match's
    score, the dice seed revealed, the end line, all on flash before it is said."""
    game = s.game
    s.match.record(game)
    seed = s.dice.reveal()
    if seed is not None:
        s._journal({"k": "reveal", "seed": seed}, "board")
    s._journal({"k": "end", "winner": game.winner, "points": game.points,
                "how": game.result, "score": list(s.match.score)}, "board")
    s._save()
    if seed is not None and not s.journal.full:
        s.dice.forget()    # only once the reveal is on flash: a cut before keeps the seed
    s.tracker.follow(None, game.pos)
    s.emit("ev", {"ev": "game_over", "winner": game.winner, "points": game.points,
                  "how": game.result, "score": list(s.match.score),
                  "match_over": s.match.over()})
    s.emit_status()
