"""Scenario tests: the whole firmware on the simulated hardware, driven by physical actions."""

import pytest

from host_tools.soak.soakboard import VirtualBoard
from firmware.board.tracker import SETTLED, HANDS, ILLEGAL, MISMATCH
from host_tools.records import export as ex
from firmware.rules.position import Position


def zone(vb, side, pip):
    return vb.session.zmap.zone(side, pip)


def bit(z):
    return 1 << z


@pytest.fixture
def vb(manual_board):
    return manual_board("short")


@pytest.fixture
def presence_vb(manual_board):
    """The presence-only build (reed switches, the digital front end): a slot is occupied or
    not, so a zone holding more checkers than slots reads full."""
    return manual_board("short", "digital")


def start(vb, a, b):
    """Opening roll with manual dice: White's die a, Black's die b."""
    assert vb.cmd("roll %d %d" % (a, b))["t"] == "ok"
    return vb.session.game.turn


def commits(vb, mark):
    return vb.since(mark, ev="commit")


def test_setup_check_shows_differences_until_the_board_matches():
    board = VirtualBoard("short")
    try:
        board.wait(200)
        s = board.session
        assert s.phase == "setup"
        assert s.tracker.missing            # every start point is missing its checkers
        board.hands.place(1, 0)             # one White checker on k2: nothing goes there
        board.wait()
        assert s.tracker.extra & bit(1)
        board.hands.lift(1, 0)
        board.setup()
        assert s.phase == "opening"
        assert board.since(0, ev="setup_ok")
    finally:
        board.close()


def test_lift_lights_every_legal_destination_and_used_dice_dim(vb):
    start(vb, 5, 1)                         # White plays 5-1 from the start position
    s = vb.session
    vb.lift(zone(vb, 0, 13), 0)
    tr = s.tracker
    assert tr.state == HANDS
    assert tr.lit == bit(zone(vb, 0, 8)) | bit(zone(vb, 0, 7))   # 13/8, 13/8/7 (12 is Black's)
    leds = vb.world.led_frame()
    first = vb.hw.config.led_first[zone(vb, 0, 8)]
    assert any(leds[3 * first:3 * first + 3])
    far = vb.hw.config.led_first[zone(vb, 0, 3)]
    assert not any(leds[3 * far:3 * far + 3])
    vb.place(zone(vb, 0, 8))
    assert tr.state == SETTLED and s.game.turn.dice_left() == [1]


def test_a_plain_turn_commits_on_the_movers_button_and_rolls_for_the_opponent(vb):
    start(vb, 5, 1)
    m = vb.mark()
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))
    vb.move(zone(vb, 0, 24), zone(vb, 0, 23))
    vb.press("p1")                          # the wrong player's button does nothing
    assert not commits(vb, m)
    vb.press("p0")
    c = commits(vb, m)
    assert len(c) == 1 and c[0]["steps"] == [[13, 8, 5, 0], [24, 23, 1, 0]]
    assert vb.session.phase == "roll" and vb.session.side == 1


def test_one_checker_with_both_dice_never_touching_the_intermediate_point(vb):
    start(vb, 6, 2)                         # 24/16 in one go (over 18 or 22)
    vb.move(zone(vb, 0, 24), zone(vb, 0, 16))
    assert vb.settled() and len(vb.session.game.turn.steps) == 2
    m = vb.mark()
    vb.press("p0")
    assert commits(vb, m)


def test_a_checker_slid_across_points_is_one_move(vb):
    start(vb, 6, 5)
    s = vb.session
    src, dst = zone(vb, 0, 13), zone(vb, 0, 8)
    vb.slide(src, dst, via=[zone(vb, 0, 12), zone(vb, 0, 11), zone(vb, 0, 10), zone(vb, 0, 9)],
             dwell=45, side=0)
    assert vb.settled() and s.game.turn.steps == [(13, 8, 5, 0)]


def test_two_checkers_in_the_air_at_once(vb):
    start(vb, 3, 1)
    s = vb.session
    vb.lift(zone(vb, 0, 8), 0)
    vb.lift(zone(vb, 0, 6), 0)
    assert s.tracker.state == HANDS and s.tracker.lifted == bit(zone(vb, 0, 8)) | bit(zone(vb, 0, 6))
    vb.place(zone(vb, 0, 5), 0)
    assert s.tracker.state == HANDS         # half done: no phantom step, no flash
    vb.place(zone(vb, 0, 5), 0)
    assert vb.settled() and len(s.game.turn.steps) == 2
    m = vb.mark()
    vb.press("p0")
    assert commits(vb, m)


BLOT = "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:4 16:1; white to move"   # blot on k9


def test_hit_with_the_blot_lifted_first(vb):
    vb.force_position(BLOT)
    vb.cmd("roll 4 2")
    s = vb.session
    target = zone(vb, 0, 9)
    vb.lift(target, 1)                      # the blot first, onto Black's bar
    vb.place(25, 1)
    assert not s.tracker.flash and s.tracker.state != MISMATCH
    vb.lift(zone(vb, 0, 13), 0)
    assert s.tracker.hitlit & bit(target)
    vb.place(target, 0)
    assert vb.settled() and s.game.turn.steps == [(13, 9, 4, 1)]


def test_hit_with_the_attacker_placed_first(vb):
    vb.force_position(BLOT)
    vb.cmd("roll 4 2")
    s = vb.session
    target = zone(vb, 0, 9)
    vb.lift(zone(vb, 0, 13), 0)
    vb.place(target, 0)                     # on top of the blot: a hit half made
    assert s.tracker.state == HANDS and not s.tracker.flash
    vb.lift(target, 1)
    vb.place(25, 1)
    assert vb.settled() and s.game.turn.steps == [(13, 9, 4, 1)]


def test_entering_from_the_bar(vb):
    vb.force_position("white bar:1 24:1 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move")
    vb.cmd("roll 3 5")
    s = vb.session
    vb.lift(24, 0)
    assert s.tracker.lit & bit(zone(vb, 0, 22)) and s.tracker.lit & bit(zone(vb, 0, 20))
    vb.place(zone(vb, 0, 22), 0)
    assert vb.settled() and s.game.turn.steps == [(25, 22, 3, 0)]


def test_bearing_off_into_the_tray(vb):
    vb.force_position("white 6:5 5:5 4:5; black 24:2 13:5 8:3 6:5; white to move")
    vb.cmd("roll 6 5")
    s = vb.session
    vb.lift(zone(vb, 0, 6), 0)
    assert s.tracker.lit & bit(26)
    vb.place(26, 0)
    vb.move(zone(vb, 0, 5), 26, 0)
    assert vb.settled() and [st[1] for st in s.game.turn.steps] == [0, 0]
    m = vb.mark()
    vb.press("p0")
    assert commits(vb, m)


def test_illegal_placement_flashes_until_corrected(vb):
    start(vb, 5, 1)
    s = vb.session
    m = vb.mark()
    vb.lift(zone(vb, 0, 13), 0)
    vb.place(zone(vb, 0, 10), 0)            # 13 -> 10 is no die of 5-1
    assert s.tracker.state == ILLEGAL and s.tracker.flash == bit(zone(vb, 0, 10))
    assert vb.since(m, ev="illegal")
    frames = set()
    for _ in range(4):
        vb.wait(70)
        first = vb.hw.config.led_first[zone(vb, 0, 10)]
        frames.add(bytes(vb.world.led_frame()[3 * first:3 * first + 3]))
    assert len(frames) == 2                 # flashing: lit and dark
    vb.lift(zone(vb, 0, 10), 0)
    vb.place(zone(vb, 0, 8), 0)
    assert vb.settled() and not s.tracker.flash


def test_putting_a_checker_back_undoes_the_step(vb):
    start(vb, 5, 1)
    s = vb.session
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))
    assert s.game.turn.steps == [(13, 8, 5, 0)]
    m = vb.mark()
    vb.lift(zone(vb, 0, 8), 0)
    assert s.tracker.back & bit(zone(vb, 0, 13))     # shows where it came from
    vb.place(zone(vb, 0, 13), 0)
    assert s.game.turn.steps == [] and vb.since(m, ev="undo")


def test_a_full_point_hides_a_lift_but_not_the_placement(presence_vb):
    vb = presence_vb
    vb.force_position("white 24:2 13:6 8:3 6:4; black 24:2 13:5 8:3 6:5; white to move")
    vb.cmd("roll 6 5")
    s = vb.session
    full = zone(vb, 0, 13)                  # 6 checkers on 5 slots: more than the sensors see
    vb.lift(full, 0)
    assert s.tracker.state == SETTLED       # nothing the sensors can see yet
    vb.place(zone(vb, 0, 8), 0)             # 13/8 with the 5
    assert vb.settled() and s.game.turn.steps == [(13, 8, 5, 0)]


def bear_off_the_sensors_cannot_see(vb):
    """On the presence-only build: White bears off 3/off 2/off into a full tray (5 off, 5
    slots) while the 1-point holds 5 checkers on its 5 slots: 3/1 2/off leaves the same sensor
    readings. Presses the button once; returns the mark from before the press."""
    vb.force_position("white 3:1 2:4 1:5 off:5; black 1:5 off:10; white to move")
    vb.cmd("roll 3 2")
    vb.move(zone(vb, 0, 3), zone(vb, 0, 0))
    vb.move(zone(vb, 0, 2), zone(vb, 0, 0))
    m = vb.mark()
    vb.press("p0")
    return m


@pytest.mark.parametrize("mode", ["guide", "referee"])
def test_plays_the_sensors_cannot_tell_apart_are_shown_and_confirmed_never_guessed(presence_vb, mode):
    vb = presence_vb
    assert vb.cmd("mode " + mode)["t"] == "ok"
    m = bear_off_the_sensors_cannot_see(vb)
    s = vb.session
    tr = s.tracker
    tray = zone(vb, 0, 0)
    assert not commits(vb, m)
    ill = vb.since(m, ev="illegal")
    assert ill and ill[-1]["what"] == "ambiguous" and "2 plays" in ill[-1]["reason"]
    assert "await" not in ill[-1] and s.verdict is None       # a referee flags no illegal play
    # the LEDs blink the board's reading: from the 3- and 2-points, into the tray
    assert tr.ambiguous == 2
    assert tr.read_from == bit(zone(vb, 0, 3)) | bit(zone(vb, 0, 2)) and tr.read_to == bit(tray)
    frames = set()
    for _ in range(4):
        vb.wait(200)
        frames.add(vb.world.led_frame())
    lit = [z for z in (zone(vb, 0, 3), zone(vb, 0, 2), tray)
           if any(any(f[3 * vb.hw.config.led_first[z]:3 * vb.hw.config.led_first[z] + 3])
                  for f in frames)]
    assert len(lit) == 3 and len(frames) > 1                  # shown, and blinking
    vb.press("p0")                                           # the player takes the reading
    c = commits(vb, m)
    assert len(c) == 1
    assert str(s.game.pos).startswith("white 2:3 1:5 off:7")


def test_a_shown_reading_is_void_once_the_checkers_move(presence_vb):
    vb = presence_vb
    m = bear_off_the_sensors_cannot_see(vb)
    s = vb.session
    assert s.tracker.ambiguous
    vb.move(zone(vb, 0, 1), zone(vb, 0, 1))      # a checker lifted and put back: the board moved
    assert not s.tracker.ambiguous and not s.tracker.read_from
    vb.press("p0")                               # asks again rather than taking the old reading
    assert not commits(vb, m)
    assert [e["what"] for e in vb.since(m, ev="illegal")] == ["ambiguous", "ambiguous"]


def test_pressing_early_is_refused_and_says_why(vb):
    start(vb, 5, 1)
    m = vb.mark()
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))
    vb.press("p0")
    assert not commits(vb, m)
    ill = vb.since(m, ev="illegal")
    assert ill and ill[-1]["what"] == "incomplete" and ill[-1]["dice_left"] == [1]


def test_knocked_stack_is_a_mismatch_and_the_game_resumes_losing_nothing(vb):
    start(vb, 5, 1)
    s = vb.session
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))
    m = vb.mark()
    six = zone(vb, 0, 6)
    for _ in range(4):
        vb.lift(six, 0, settle=False)
    vb.wait(100)
    assert s.tracker.state == MISMATCH
    ev = vb.since(m, ev="mismatch")
    assert ev and "6" in ev[0]["missing"]
    for _ in range(4):
        vb.place(six, 0, settle=False)
    vb.wait(100)
    assert vb.settled() and vb.since(m, ev="resync")
    assert s.game.turn.steps == [(13, 8, 5, 0)]


def test_no_move_turn_passes_on_the_button(vb):
    # on the bar against five closed points: 6-6 cannot enter, other rolls could (not closed out)
    vb.force_position("white bar:1 13:14; black 6:2 5:2 4:2 3:2 2:2 19:5; white to move")
    m = vb.mark()
    vb.cmd("roll 6 6")
    assert vb.since(m, ev="no_move")
    vb.press("p0")
    assert commits(vb, m) and vb.session.side == 1


def test_referee_mode_gives_no_hints_flags_and_records_a_correction(vb):
    assert vb.cmd("mode referee")["t"] == "ok"
    start(vb, 5, 1)
    s = vb.session
    vb.lift(zone(vb, 0, 13), 0)
    assert s.tracker.lit                    # computed, but not shown
    first = vb.hw.config.led_first[zone(vb, 0, 8)]
    assert not any(vb.world.led_frame()[3 * first:3 * first + 3])
    vb.place(zone(vb, 0, 10), 0)            # illegal
    m = vb.mark()
    vb.move(zone(vb, 0, 24), zone(vb, 0, 23))
    vb.press("p0")
    ill = vb.since(m, ev="illegal")
    assert ill and ill[-1]["await"] == "correct" and s.phase == "flagged"
    vb.press("p1")                          # condone is off: refused
    assert vb.since(m, ev="refused") and s.phase == "flagged"
    vb.move(zone(vb, 0, 10), zone(vb, 0, 8))
    vb.press("p0")
    assert commits(vb, m) and s.phase == "roll"
    events = vb.events()
    assert events[-2]["k"] == "flag" and events[-1]["k"] == "turn" and events[-1]["corrected"]
    assert events[-1]["by"] == "p0" and events[-2]["by"] == "board"


def test_referee_mode_condone_records_the_illegal_play(vb):
    vb.cmd("mode referee")
    vb.cmd("condone on")
    start(vb, 5, 1)
    s = vb.session
    vb.move(zone(vb, 0, 13), zone(vb, 0, 10))
    vb.move(zone(vb, 0, 24), zone(vb, 0, 23))
    m = vb.mark()
    vb.press("p0")
    assert s.phase == "flagged"
    vb.press("p1")                          # the opponent lets it stand
    c = commits(vb, m)
    assert c and c[0]["condoned"]
    turns = [e for e in vb.events() if e["k"] == "turn"]
    assert turns[-1]["condoned"] and s.game.pos.board[0 * 26 + 10] == 1


def test_power_cut_mid_turn_resumes_game_dice_and_hands(vb):
    start(vb, 5, 1)
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))
    vb.move(zone(vb, 0, 24), zone(vb, 0, 23))
    vb.press("p0")
    assert vb.cmd("roll 6 2")["t"] == "ok"
    vb.lift(zone(vb, 1, 13), 1)             # a checker in the air when the power goes
    before = vb.status()
    vb.power_cut(off_ms=3000)
    after = vb.status()
    for key in ("variant", "turn", "dice", "score", "match_to"):
        assert after[key] == before[key]
    assert vb.since(0, ev="power_restore")
    vb.place(zone(vb, 1, 7), 1)             # 13/7 with the 6
    vb.move(zone(vb, 1, 13), zone(vb, 1, 11))
    m = vb.mark()
    vb.press("p1")
    assert commits(vb, m) and vb.session.turns == 2, vb.lines[m:]


def test_power_cut_while_the_journal_is_written_loses_nothing(vb):
    start(vb, 5, 1)
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))
    vb.move(zone(vb, 0, 24), zone(vb, 0, 23))
    vb.power_cut(after_bytes=40)            # dies in the middle of the commit's write
    vb.guarded(vb.press, "p0")
    s = vb.session
    assert s.game.turn is not None and s.game.dice == (5, 1)     # the old journal, whole
    assert vb.settled() and len(s.game.turn.steps) == 2          # and the hands are read again
    m = vb.mark()
    vb.press("p0")
    assert commits(vb, m)


def test_malformed_lines_get_err_and_change_nothing(vb):
    before = vb.status()
    for line in ("frobnicate", "roll 7 1", "roll 1", "mode fast", "new nosuchgame", "match x",
                 "sim lift 99", "sim place", "sim frame 00", "x" * 300, "choose 3", "cube double"):
        r = vb.cmd(line)
        assert r["t"] == "err", line
    after = vb.status()
    assert after == before


def test_export_record_has_a_hash_chain_that_shows_tampering(vb):
    start(vb, 5, 1)
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))
    vb.move(zone(vb, 0, 24), zone(vb, 0, 23))
    vb.press("p0")
    rec = vb.record()
    v = ex.verify(rec, partial=True)
    assert [e["n"] for e in v.events] == list(range(len(rec["lines"])))
    assert rec["head"] == rec["lines"][-1][-32:]
    forged = dict(rec, lines=list(rec["lines"]))
    at = [i for i, line in enumerate(rec["lines"]) if '"open"' in line][0]
    forged["lines"][at] = forged["lines"][at].replace("5, 1", "6, 1")
    with pytest.raises(ex.ExportError) as e:
        ex.verify(forged, partial=True)
    assert e.value.event == at
    turn = [e for e in v.events if e["k"] == "turn"][0]
    assert turn["dice"] == [5, 1] and turn["s"] == [[13, 8, 5, 0], [24, 23, 1, 0]] and "ms" in turn
    assert turn["by"] == "p0"


def test_matador_sequence_plays_the_chosen_doublet_then_rolls_again():
    board = VirtualBoard("matador")
    try:
        board.cmd("dice manual")
        board.setup()
        s = board.session
        board.cmd("roll 4 3")               # White 4, Black 3: White's opening matador
        t = s.game.turn
        play = t.plays()[0]
        for src, dst, die, hit in play:
            board.move(zone(board, 0, src), zone(board, 0, dst))
        board.press("p0")
        assert s.phase == "doublet"
        board.press("menu")                 # 6 -> 1
        board.press("menu")                 # 1 -> 2
        board.press("p0")
        assert s.game.dice == (2, 2) and s.game.kind == "chosen"
        for src, dst, die, hit in s.game.turn.plays()[0]:
            board.move(zone(board, 0, src), zone(board, 0, dst))
        board.press("p0")
        assert s.phase == "roll" and s.side == 0      # the same player throws again
    finally:
        board.close()


def test_whole_games_end_with_points_and_the_match_score():
    import random
    from host_tools.soak.soakplayer import Player, Counters
    board = VirtualBoard("backgammon", fast=True)
    try:
        c = Counters()
        p = Player(board, random.Random(7), "none", c)
        assert p.play_match("short", match_to=3)
        ends = board.since(0, ev="game_over")
        assert ends and ends[-1]["match_over"] and max(ends[-1]["score"]) >= 3
        assert c.failures() == 0
    finally:
        board.close()


SAMPLE = [  # rules.md §9.2, seed 001 plies 1-19: (dice, play)
    ((5, 1), "13/8 24/23"), ((4, 3), "13/6"), ((4, 4), "13/9(2) 8/4(2)"), ((3, 2), "13/8"),
    ((6, 1), "13/7 8/7"), ((6, 4), "8/2* 6/2"), ((1, 6), "bar/24 13/7"), ((6, 5), "13/2"),
    ((6, 4), "9/3 7/3"), ((4, 3), "24/17*"), ((6, 3), "bar/16"), ((4, 1), "13/9* 17/16*"),
    ((3, 3), "bar/22(2) 4/1*(2)"), ((3, 6), ""), ((6, 6), "22/16*(2) 24/18(2)"),
    ((4, 6), "bar/21"), ((4, 4), "16/12*(2) 18/14(2)"), ((2, 4), "bar/23 bar/21"),
    ((6, 5), "14/8 14/9*"),
]


def play_text(board, side, text):
    """Play move text with hands: hit blots go to the bar first, each checker lifted and put down."""
    from firmware.rules.notation import parse_move
    opp = 1 - side
    for src, dst, _ in parse_move(text):
        zs = board.session.zmap.zone(side, src)
        zd = board.session.zmap.zone(side, dst)
        if dst and opp in board.hands.stacks[zd]:
            board.move(zd, 24 + opp, opp)
        board.move(zs, zd, side)


def test_seed_001_sample_game_plies_1_to_19_on_the_virtual_board():
    board = VirtualBoard("short")
    try:
        board.cmd("dice manual")
        board.setup()
        s = board.session
        for n, (dice, text) in enumerate(SAMPLE):
            side = n % 2
            if n == 0:
                board.cmd("roll %d %d" % dice)        # White threw 5, Black 1: White plays 5-1
            else:
                assert board.cmd("roll %d %d" % dice)["t"] == "ok"
            assert s.side == side
            m = board.mark()
            play_text(board, side, text)
            board.press(side)
            assert commits(board, m), "ply %d (%s) not committed: %s" % (n + 1, text, board.lines[-3:])
        want = Position.parse("white 12:2 9:1 8:1 7:2 6:5 3:2 1:2; "
                              "black bar:1 23:1 21:2 8:3 6:5 2:3; black to move")
        assert s.game.pos.board == want.board
        assert board.session.tracker.state == SETTLED
    finally:
        board.close()


ILLEGAL_CLASSES = [
    # (variant, position, dice, from pip, to pip, the rule it breaks)
    ("backgammon", "white bar:1 24:1 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move",
     (3, 5), 13, 10, "a checker on the bar enters first"),
    ("short", "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move",
     (5, 2), 6, 1, "a point held by two opposing checkers is closed"),
    ("short", "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; white to move",
     (6, 5), 13, 9, "a step is exactly one die"),
    ("long", "white 24:14 20:1; black 24:15; white to move",
     (3, 2), 24, 21, "one checker off the head per turn (after 24/22 was played)"),
    ("short", "white 6:1 3:1 2:13; black 24:2 13:5 8:3 6:5; white to move",
     (5, 4), 3, 0, "no bearing off with a larger die while a higher point is held"),
]


def illegal_class(board, variant, pos, dice, src, dst, rule):
    """On a board with manual dice and the start position set out: make one illegal placement,
    see it flagged, and see the turn refused at the button."""
    board.force_position(pos)
    assert board.cmd("roll %d %d" % dice)["t"] == "ok"
    s = board.session
    if variant == "long":                 # first the one head checker the turn allows
        board.move(zone(board, 0, 24), zone(board, 0, 22), 0)
        assert board.settled()
    m = board.mark()
    board.lift(zone(board, 0, src), 0)
    assert not s.tracker.lit & bit(zone(board, 0, dst)), rule
    board.place(zone(board, 0, dst), 0)
    assert s.tracker.state == ILLEGAL and s.tracker.flash == bit(zone(board, 0, dst)), rule
    assert board.since(m, ev="illegal")
    board.press("p0")
    assert not commits(board, m), rule


@pytest.mark.parametrize("variant,pos,dice,src,dst,rule", ILLEGAL_CLASSES)
def test_each_illegal_action_class_is_flagged(variant, pos, dice, src, dst, rule):
    board = VirtualBoard(variant)
    try:
        board.cmd("dice manual")
        board.setup()
        illegal_class(board, variant, pos, dice, src, dst, rule)
    finally:
        board.close()


def test_hit_and_lift_in_the_home_board_is_flagged_in_takhteh():
    board = VirtualBoard("persian")
    try:
        board.cmd("dice manual")
        board.setup()
        # rules.md T2: W 6:1 13:14, Black blot on White's 4 point; 3-2: 6/4*/1 is not allowed
        board.force_position("white 6:1 13:14; black 21:1 1:14; white to move")
        board.cmd("roll 3 2")
        s = board.session
        target = zone(board, 0, 4)
        board.move(target, 25, 1)             # the blot to Black's bar
        board.move(zone(board, 0, 6), target, 0)
        assert board.settled() and s.game.turn.steps == [(6, 4, 2, 1)]
        board.lift(target, 0)                 # and on with the same checker: hit and lift
        assert not s.tracker.lit & bit(zone(board, 0, 1))
        board.place(zone(board, 0, 1), 0)
        assert s.tracker.state == ILLEGAL
    finally:
        board.close()


def test_backgammon_cube_with_the_buttons():
    board = VirtualBoard("backgammon")
    try:
        board.cmd("dice manual")
        board.setup()
        s = board.session
        board.cmd("roll 5 1")
        board.move(zone(board, 0, 13), zone(board, 0, 8), 0)
        board.move(zone(board, 0, 24), zone(board, 0, 23), 0)
        board.press("p0")
        assert s.phase == "roll" and s.game.can_double(1)
        m = board.mark()
        board.press("menu")                  # Black doubles
        assert s.phase == "doubled"
        board.press("p0")                    # White takes
        assert s.game.cube == 2 and s.game.cube_owner == 0 and s.phase == "roll"
        assert [e["act"] for e in board.since(m, ev="cube")] == ["double", "take"]
        assert board.cmd("roll 3 1")["t"] == "ok"
        board.power_cut()
        assert board.session.game.cube == 2 and board.session.game.dice == (3, 1)
    finally:
        board.close()


TWO_BLOTS = "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:3 16:1 14:1; white to move"  # k9, k11


@pytest.mark.parametrize("front_end,expect", [("analog", (13, 11, 2, 1)), ("digital", (13, 11, 2, 1))])
def test_the_right_blot_is_read_as_hit_across_a_power_cut(front_end, expect):
    """Digital: the blot's point differs from the journal when the board comes back; analog:
    the colours say it too."""
    board = VirtualBoard("short", front_end=front_end)
    try:
        board.cmd("dice manual")
        board.setup()
        board.force_position(TWO_BLOTS)
        board.cmd("roll 4 2")
        k11 = zone(board, 0, 11)
        board.move(k11, 25, 1)                # the blot on k11 to the bar ...
        board.power_cut()                     # ... then the power goes: every zone may have changed
        board.move(zone(board, 0, 13), k11, 0)
        assert board.session.game.turn.steps == [expect]
    finally:
        board.close()


LAST_CHECKER = "white 1:1; black 13:5 8:5 6:5; white to move"


def _bear_off_the_last_checker(vb):
    vb.force_position(LAST_CHECKER)
    assert vb.cmd("roll 2 1")["t"] == "ok"
    vb.move(zone(vb, 0, 1), 26, 0)
    assert vb.settled()


@pytest.mark.parametrize("short_by", [1, 20, 60, 120])
def test_a_cut_while_the_winning_turn_and_its_end_are_written_loses_no_game(manual_board, short_by):
    # the winning turn, the seed's reveal and the end line go to flash in one write; the power
    # goes ``short_by`` bytes before that write is done (1: only its last newline is missing).
    # The stack-counting build, whose tray sees the 15th checker come in
    probe = manual_board("short", "analog")
    _bear_off_the_last_checker(probe)
    fs = probe.world.fs
    storage = probe.session.journal.storage
    append = storage.append
    at = []

    def watched(name, data):                  # where in the press's writes the lines go
        at.append((fs.bytes_written, len(data)))
        return append(name, data)

    storage.append = watched
    before = fs.bytes_written
    probe.press("p0")
    storage.append = append
    assert len(at) == 1 and at[0][1] > 200   # the turn and the end: one append
    size = at[0][0] - before + at[0][1]       # the bytes written when the append is done
    assert probe.session.phase == "match_over"
    score, points = list(probe.session.match.score), probe.session.game.points
    vb = manual_board("short", "analog")
    _bear_off_the_last_checker(vb)
    vb.power_cut(after_bytes=size - short_by)
    vb.guarded(vb.press, "p0")
    s = vb.session
    if s.phase != "match_over":              # the turn itself did not reach flash: play it again
        assert s.game.turn is not None and vb.settled()
        vb.press("p0")
    assert s.phase == "match_over" and list(s.match.score) == score
    events = vb.events()
    kinds = [e["k"] for e in events]
    assert kinds.count("end") == 1 and kinds.index("end") > kinds.index("turn"), kinds
    ex.verify(vb.record())                   # every line sealed, in order, none missing
    end = events[kinds.index("end")]
    assert (end["winner"], end["points"]) == (0, points)
    vb.cmd("new short")                       # what comes next starts on a line of its own
    vb.setup()
    assert vb.cmd("roll 3 1")["t"] == "ok"
    vb.power_cut()
    assert not vb.since(0, ev="power_restore")[-1]["lost"]
