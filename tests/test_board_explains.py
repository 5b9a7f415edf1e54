"""The board explains itself (issue 9, the board's side): a light pattern for every refusal,
flag, choice and result (the README's light table), the closed-out pass, resignations at the
variant's own results, takhteh's parity call, and a cube with no cap. Whole firmware on the
simulated hardware; the scenario functions (``scenario_*``) also replay under MicroPython
(tests/test_board_micropython.py)."""

import pytest

from firmware.board.ledview import LedView
from firmware.drivers.leds import _PIP_RUNS
from firmware.rules import get_rules
from firmware.rules.game import Game, GameError
from firmware.rules.position import Position
from host_tools.records import export as ex
from host_tools.soak.soakboard import VirtualBoard
from test_board_scenarios import play_text, zone

# -- reading the lights -----------------------------------------------------------------------------
_VALUE = {}
for _v in range(1, 7):
    _VALUE[frozenset(p + i for p, n in _PIP_RUNS[_v] for i in range(n))] = _v


def hue(rgb):
    """A lit LED's colour, by name (gamma and the brightness cap change levels, not order)."""
    r, g, b = rgb
    if not (r or g or b):
        return "off"
    if r == g == b:
        return "white" if r > 40 else "dim"
    if r and not g and not b:
        return "red"
    if not r and not g:
        return "blue"
    if r and g and not b:
        return "gold" if g / r > 0.35 else "orange"
    if not r and g and b:
        return "cyan" if b > g else "green"
    if r and not g and b > r:
        return "purple"
    return "rgb%r" % (rgb,)


def _led(vb, i):
    f = vb.world.led_frame()
    return tuple(f[3 * i:3 * i + 3])


def die(vb, i):
    """(value, colour) shown on die i, (0, 'off') when dark."""
    first = vb.hw.config.dice_first[i]
    lit = [j for j in range(7) if any(_led(vb, first + j))]
    if not lit:
        return 0, "off"
    return _VALUE.get(frozenset(lit), -1), hue(_led(vb, first + lit[0]))


def turn_light(vb, side):
    return hue(_led(vb, vb.hw.config.turn_led[side]))


def watch(vb, ms, step=50):
    """What the dice and turn lights show every ``step`` ms for ``ms``: a list of
    (die 0, die 1, White's light, Black's light)."""
    out = []
    for _ in range(ms // step):
        vb.wait(step)
        out.append((die(vb, 0), die(vb, 1), turn_light(vb, 0), turn_light(vb, 1)))
    return out


def shows(frames):
    """The distinct frames in the order they first appear."""
    seen = []
    for f in frames:
        if f not in seen:
            seen.append(f)
    return seen


def read_digits(frames, colour):
    """The digits the dice showed one after another (``LedView.number``), as a person reads
    them: 1-6 on die 0, 7-9 as 6 and the rest, 0 as the two centre pips."""
    out = []
    last = None
    for f in frames:
        d = f[:2]
        if d != last and d != ((0, "off"), (0, "off")):
            assert d[0][1] == colour and d[1][1] in (colour, "off"), d
            out.append(0 if d == ((1, colour), (1, colour)) else d[0][0] + d[1][0])
        last = d
    return out


def in_cycle(seen, digits):
    """``seen`` is whole turns of the repeating ``digits`` (from any digit on)."""
    ring = digits * (len(seen) // len(digits) + 2)
    return len(seen) >= len(digits) and any(ring[i:i + len(seen)] == seen
                                            for i in range(len(digits)))


@pytest.fixture
def board():
    boards = []

    def make(variant, *lines):
        vb = VirtualBoard(variant)
        boards.append(vb)
        for line in ("dice manual",) + lines:
            assert vb.cmd(line)["t"] == "ok", line
        vb.setup()
        return vb
    yield make
    for vb in boards:
        vb.close()


# -- points of any size: the digits on the dice ------------------------------------------------------
class FakeLeds:
    def __init__(self):
        self.dice = [0, 0]

    def die(self, i, value, rgb):
        self.dice[i] = value


def digits_shown(p):
    """The sequence ``LedView.number`` shows for ``p``, one cycle, read as a person reads it."""
    view = LedView(FakeLeds())
    out = []
    last = None
    for now in range(0, 20000, 50):
        view.leds.dice = [0, 0]
        view.number(p, 0xFFD000, now)
        d = tuple(view.leds.dice)
        if d != last and d != (0, 0):
            out.append(0 if d == (1, 1) else d[0] + d[1])
        last = d
    return out


@pytest.mark.parametrize("points,once", [(13, [1, 3]), (16, [1, 6]), (64, [6, 4]), (100, [1, 0, 0]),
                                         (4096, [4, 0, 9, 6]), (16384, [1, 6, 3, 8, 4]),
                                         (98304, [9, 8, 3, 0, 4])])
def test_points_over_12_show_digit_by_digit(points, once):
    seq = digits_shown(points)
    assert len(seq) > len(once) and seq == (once * 40)[:len(seq)]


@pytest.mark.parametrize("points,dice", [(1, [1, 0]), (6, [6, 0]), (8, [6, 2]), (12, [6, 6])])
def test_points_up_to_12_show_at_once(points, dice):
    view = LedView(FakeLeds())
    for now in (0, 777, 1500):
        view.number(points, 0, now)
        assert view.leds.dice == dice


# -- the opening on the dice -----------------------------------------------------------------------
def scenario_opening_tie_then_throw(vb):
    """Backgammon, manual dice: a tie blinks on the dice; the next throw shows White's and
    Black's dice in their colours for two seconds, then the turn's dice."""
    assert vb.cmd("roll 3 3")["t"] == "ok"
    assert vb.cmd("roll 2 5")["t"] == "ok"
    vb.wait(100)


def test_an_opening_tie_blinks_and_the_throw_shows_each_sides_die(board):
    vb = board("backgammon")
    assert vb.cmd("roll 3 3")["t"] == "ok"
    seen = shows(f[:2] for f in watch(vb, 1000))
    assert ((3, "orange"), (3, "orange")) in seen and ((0, "off"), (0, "off")) in seen
    assert vb.session.phase == "opening"
    assert vb.cmd("roll 2 5")["t"] == "ok"          # White 2, Black 5: Black starts
    first = watch(vb, 1500)
    assert {f[:2] for f in first} == {((2, "white"), (5, "purple"))}
    later = watch(vb, 1000)[-1]
    assert later[:2] == ((5, "white"), (2, "white")) and later[3] == "purple"   # Black's turn


def test_a_rethrow_opening_shows_before_the_first_roll(board):
    vb = board("long")
    assert vb.cmd("roll 6 1")["t"] == "ok"          # White starts, then throws again
    assert vb.session.phase == "roll"
    assert watch(vb, 200)[-1][:3] == ((6, "white"), (1, "purple"), "white")
    assert watch(vb, 2000)[-1][:2] == ((0, "off"), (0, "off"))


# -- the matador doublet while it is chosen --------------------------------------------------------
def scenario_matador_doublet_choice(vb):
    s = vb.session
    assert vb.cmd("roll 4 3")["t"] == "ok"          # White's opening matador
    for src, dst, die_, hit in s.game.turn.plays()[0]:
        vb.move(zone(vb, 0, src), zone(vb, 0, dst))
    vb.press("p0")
    assert s.phase == "doublet"
    vb.press("menu")                                 # 6 -> 1
    vb.press("menu")                                 # 1 -> 2


def test_the_matador_doublet_shows_on_the_dice_while_it_is_chosen(board):
    vb = board("matador")
    s = vb.session
    assert vb.cmd("roll 4 3")["t"] == "ok"
    for src, dst, die_, hit in s.game.turn.plays()[0]:
        vb.move(zone(vb, 0, src), zone(vb, 0, dst))
    vb.press("p0")
    vb.wait(2100)                                    # (the opening throw's moment is over)
    assert s.phase == "doublet" and die(vb, 0) == die(vb, 1) == (6, "cyan")
    vb.press("menu")
    assert die(vb, 0) == die(vb, 1) == (1, "cyan")
    vb.press("menu")
    assert die(vb, 0) == die(vb, 1) == (2, "cyan")
    vb.press("p0")
    assert s.game.dice == (2, 2) and die(vb, 0) == (2, "white")


# -- refusals and flags -----------------------------------------------------------------------------
def test_a_refused_press_flashes_the_pressers_light_red(board):
    vb = board("backgammon", "mode referee")        # condone off: a flag must be corrected
    assert vb.cmd("roll 5 2")["t"] == "ok"           # White 5, Black 2: White plays 5-2
    vb.wait(2100)
    vb.move(zone(vb, 0, 13), zone(vb, 0, 7))         # 6 pips: no die says 6
    vb.press("p0")
    assert vb.session.phase == "flagged"
    flagged = watch(vb, 500)
    assert ((5, "red"), (2, "red")) in {f[:2] for f in flagged}        # the flag: dice flash red
    m = vb.mark()
    vb.press("p1")                                   # Black would let it stand: refused
    assert vb.since(m, ev="refused")[0]["what"] == "condone"
    seen = watch(vb, 1500)
    assert {f[3] for f in seen} >= {"red", "off"} and {f[2] for f in seen} == {"white"}
    vb.wait(600)
    assert {f[3] for f in watch(vb, 400)} == {"off"}                     # the moment is over


def test_a_turn_end_refused_in_guide_mode_flashes_the_dice_left(board):
    vb = board("backgammon")
    assert vb.cmd("roll 5 2")["t"] == "ok"
    vb.wait(2100)
    vb.move(zone(vb, 0, 13), zone(vb, 0, 8))         # the 5 played, the 2 not
    vb.press("p0")
    assert vb.since(0, ev="illegal")[-1]["what"] == "incomplete"
    seen = {f[:2] for f in watch(vb, 1000)}
    assert ((5, "dim"), (2, "red")) in seen and ((5, "dim"), (2, "white")) in seen
    assert {f[:2] for f in watch(vb, 1500)[-5:]} == {((5, "dim"), (2, "white"))}


def test_a_menu_refusal_of_a_resignation_flashes_both_lights(board):
    vb = board("backgammon")
    assert vb.cmd("roll 5 2")["t"] == "ok"
    vb.press("p0", 1500)                             # a long press: White offers a single
    assert vb.session.phase == "resign"
    assert {f[0] for f in watch(vb, 800)} == {(1, "gold"), (0, "off")}   # the point blinks
    vb.press("menu")
    seen = watch(vb, 600)
    assert ("red", "red") in {f[2:] for f in seen}


# -- the closed-out pass ------------------------------------------------------------------------------
CLOSED = "white bar:1 13:14; black 6:2 5:2 4:2 3:2 2:2 1:2 19:3; white to move"
# a backgammon game (dice and plays, seeded search) in which Black ends closed out: Black
# starts (opening 4-5), White's last play 1-1 closes its board with Black on the bar
CLOSING_GAME = [((5, 4), "13/4"), ((1, 6), "13/7 8/7"), ((6, 4), "13/7 8/4"), ((3, 1), "8/5 6/5"),
                ((1, 5), "13/7"), ((3, 6), "13/7 8/5"), ((6, 5), "8/2 7/2"), ((5, 3), "7/2 5/2"),
                ((4, 3), "7/3 6/3"), ((2, 6), "13/5"), ((1, 4), "8/3"), ((4, 2), "7/3 5/3"),
                ((2, 4), "6/4 6/2"), ((6, 1), "13/7 6/5"), ((3, 1), "13/12*/9"), ((5, 4), "bar/16*"),
                ((6, 4), "bar/21 13/7"), ((2, 1), "6/4* 5/4"), ((2, 1), "bar/24 7/5"),
                ((1, 3), "7/6 7/4"), ((1, 2), "5/4 4/2"), ((2, 4), "16/14 6/2"), ((3, 1), "6/3 4/3"),
                ((6, 3), "14/5"), ((6, 6), "24/18 24/6"), ((1, 1), "4/1* 2/1")]


def play_closing_game(vb, last=""):
    """Play CLOSING_GAME with manual dice, each turn by hand and committed; ``last``: a command
    sent before the last turn's press."""
    assert vb.cmd("roll 4 5")["t"] == "ok"
    for n, (dice, text) in enumerate(CLOSING_GAME):
        side = 1 - n % 2
        if n:
            assert vb.cmd("roll %d %d" % dice)["t"] == "ok", n
        play_text(vb, side, text)
        if last and n == len(CLOSING_GAME) - 1:
            assert vb.cmd(last)["t"] == "ok"
        m = vb.mark()
        vb.press(side)
        assert vb.since(m, ev="commit"), (n, text)


def scenario_closed_out_passes_unthrown(vb):
    """Short nardy (no cube), manual dice: Black, closed out by White's 1-1, passes at once."""
    play_closing_game(vb)
    vb.wait(200)
    assert vb.cmd("roll 2 1")["t"] == "ok"          # White's next roll: 6/4 6/5
    play_text(vb, 0, "6/4 6/5")
    vb.press("p0")


def test_closed_out_side_passes_without_a_throw_even_with_manual_dice(board):
    vb = board("short")
    s = vb.session
    play_closing_game(vb)
    passes = vb.since(0, ev="pass")
    assert [p["side"] for p in passes] == [1] and s.phase == "roll" and s.side == 0
    assert [(e["k"], e["side"], e["by"]) for e in vb.events() if e["k"] == "pass"] == [
        ("pass", 1, "board")]
    seen = watch(vb, 600)
    assert {f[3] for f in seen} == {"purple", "off"}            # Black's light flickers
    assert {f[3] for f in watch(vb, 2000)[-4:]} == {"off"}       # then White's turn, steady
    vb.power_cut()                                               # the pass is on flash
    assert vb.session.phase == "roll" and vb.session.side == 0 and vb.session.turns == 26


def test_closed_out_with_electronic_dice_passes_and_the_opponent_throws_on(board):
    vb = board("short")
    play_closing_game(vb, "dice auto")               # electronic dice from White's last press
    s = vb.session
    ev = [(o["ev"], o.get("side")) for o in vb.lines if o.get("ev") in ("commit", "pass", "roll")]
    assert ev[-3:] == [("commit", 0), ("pass", 1), ("roll", 0)]     # no throw for Black
    assert s.phase == "move" and s.side == 0
    kinds = [e["k"] for e in vb.events()]
    assert kinds[-4:] == ["turn", "pass", "commit", "roll"] or kinds[-3:] == ["turn", "pass", "roll"]


def test_a_forced_closed_out_position_refuses_a_throw_and_the_button_passes(board):
    vb = board("backgammon")
    vb.force_position(CLOSED)
    r = vb.cmd("roll 3 4")
    assert r["t"] == "err" and "closed out" in r["msg"]
    m = vb.mark()
    vb.press("p1")                                   # not White's button: nothing
    assert not vb.since(m, ev="pass")
    vb.press("p0")
    assert vb.since(m, ev="pass")[0]["side"] == 0
    assert vb.session.side == 1 and vb.session.phase == "roll"
    assert [e["by"] for e in vb.events() if e["k"] == "pass"] == ["p0"]


def test_a_closed_out_side_that_may_double_is_asked_first(board):
    vb = board("backgammon")
    play_closing_game(vb)
    s = vb.session
    aw = vb.since(0, ev="await_roll")[-1]
    assert aw["side"] == 1 and aw["can_double"] and aw["pass"] and s.side == 1
    r = vb.cmd("roll 6 6")
    assert r["t"] == "err" and "closed out" in r["msg"]
    vb.press("p1")
    assert vb.since(0, ev="pass")[-1]["side"] == 1 and s.side == 0


def test_the_closed_out_game_exports_replays_and_gnubg_reads_the_pass(board, tmp_path):
    import shutil
    import subprocess
    from host_tools import cmd_replay
    vb = board("backgammon")
    play_closing_game(vb)
    vb.press("p1")                                   # Black passes (it could double)
    assert vb.cmd("roll 2 1")["t"] == "ok"
    play_text(vb, 0, "6/4 6/5")
    vb.press("p0")
    assert vb.cmd("resign 1")["t"] == "ok" and vb.cmd("resign accept")["t"] == "ok"
    rec = vb.record()
    game = ex.replay_record(rec)
    assert (game["winner"], game["points"]) == (0, 1)
    assert (1, "pass") in game["actions"]
    mat, _ = ex.export([rec], "mat")
    assert " 14) 11: 4/3 3/2 2/1* 2/1\n 15) 21: 6/4 6/5\n" in mat       # Black's cell is empty
    path = tmp_path / "closed.mat"
    path.write_text(mat)
    assert cmd_replay.main([str(path)]) == 0
    gnubg = "/usr/games/gnubg"
    if shutil.which(gnubg) is None:
        pytest.skip("Debian's gnubg is not installed")
    out = subprocess.run([gnubg, "-t", "-q"], input="import mat %s\nshow score\n" % path,
                         capture_output=True, text=True, timeout=60).stdout
    assert "White 1, Black 0" in out, out[-500:]


def test_closed_out_is_no_roll_at_all(board):
    rules = get_rules("backgammon")
    g = Game(rules)
    g.opening_roll(3, 1)
    g.pos = Position.parse("white bar:1 13:14; black 6:2 5:2 4:2 3:2 2:2 19:5; white to move")
    g.turn = None
    g.phase = "roll"
    assert not g.closed_out()                        # the 1-point is open
    with pytest.raises(GameError):
        g.pass_turn()
    g.pos = Position.parse(CLOSED)
    assert g.closed_out()
    g.pass_turn()
    assert g.side == 1 and g.phase == "roll" and g.played == [1, 0]


# -- resignations at the variant's own results -----------------------------------------------------
RESULTS = [("backgammon", (1, 2, 3)), ("short", (1, 2, 4, 8)), ("short scoring=backgammon", (1, 2, 3)),
           ("long", (1, 2, 4)), ("long scoring=fnr", (1, 2)), ("long scoring=koks", (1, 2, 3)),
           ("persian", (1, 2)), ("jacquet", (1, 2, 4, 8)), ("matador scoring=backgammon", (1, 2, 3))]


@pytest.mark.parametrize("setup,results", RESULTS)
def test_resignation_levels_are_the_variants_results(board, setup, results):
    variant = setup.split()[0]
    vb = board(variant, "new " + setup, "match 15")
    vb.setup()
    assert vb.status()["results"] == list(results)
    assert vb.cmd("roll 5 2")["t"] == "ok"
    for level in range(1, 9):
        r = vb.cmd("resign %d" % level)
        if level in results:
            assert r["t"] == "ok" and vb.since(0, ev="resign_offer")[-1]["points"] == level
            assert vb.cmd("resign refuse")["t"] == "ok"
        else:
            assert r["t"] == "err" and ", ".join(map(str, results)) in r["msg"]
    # a long press offers a single; each long press again the next result, round again
    offered = []
    for _ in range(len(results) + 1):
        vb.press("p0" if vb.session.side == 0 else "p1", 1500)
        offered.append(vb.session.resign_offer[1])
    assert offered == list(results) + [1]
    top = results[-1]
    assert vb.cmd("resign %d" % top)["t"] == "ok" and vb.cmd("resign accept")["t"] == "ok"
    over = vb.since(0, ev="game_over")[-1]
    assert (over["points"], over["how"]) == (top, "resign")
    game = ex.replay_record(vb.record())             # the record replays to the same end
    assert (game["winner"], game["points"], game["how"]) == (over["winner"], top, "resign")


def test_a_resignation_the_rules_do_not_score_is_refused_by_the_rules_core():
    g = Game(get_rules("persian"))
    with pytest.raises(GameError):
        g.resign(0, 4)
    g.resign(0, 2)
    assert (g.winner, g.points) == (1, 2)


# -- takhteh's parity call ----------------------------------------------------------------------------
def scenario_parity_call(vb):
    """Persian with opening=parity: MENU turns the call to odd; Black calls it with the host."""
    vb.press("menu")                                 # White's call: odd
    assert vb.cmd("choose even 1")["t"] == "ok"      # Black calls even
    assert vb.cmd("roll 3 1")["t"] == "ok"           # 3 is odd: White starts


def test_the_parity_call_is_chosen_shown_and_recorded(board):
    vb = board("persian", "new persian opening=parity")
    vb.setup()
    s = vb.session
    aw = vb.since(0, ev="await_opening")[-1]
    assert (aw["side"], aw["even"]) == (0, True)
    assert die(vb, 0) == (2, "cyan") and die(vb, 1)[0] == 0          # even: two pips
    m = vb.mark()
    vb.press("menu")
    assert vb.since(m, ev="choice")[0] == {"t": "ev", "ev": "choice", "side": 0, "value": "odd"}
    assert die(vb, 0) == (1, "cyan")                                   # odd: one pip
    vb.press("p1")                  # manual dice: Black's button makes the call Black's
    assert s.call == (1, False) and turn_light(vb, 1) == "purple"
    assert vb.cmd("roll 4 1")["t"] == "ok"          # 4 is even: Black called odd, White starts
    op = vb.since(m, ev="opening")[0]
    assert (op["dice"], op["starter"], op["side"], op["even"]) == ([4], 0, 1, False)
    assert [(e["die"], e["caller"], e["even"]) for e in vb.events() if e["k"] == "parity"] == [
        (4, 1, False)]
    vb.wait(50)
    assert die(vb, 0) == (4, "white")                                  # the die, a moment
    vb.power_cut()
    assert vb.session.phase == "roll" and vb.session.side == 0


def test_the_parity_call_from_the_buttons_throws_with_electronic_dice(board):
    vb = board("persian", "new persian opening=parity", "dice auto")
    vb.setup()
    vb.press("menu")                                 # odd
    m = vb.mark()
    vb.press("p1")                                   # Black calls odd and throws
    op = vb.since(m, ev="opening")[0]
    d = op["dice"][0]
    assert op["side"] == 1 and op["even"] is False and op["starter"] == (1 if d % 2 else 0)
    ev = [e for e in vb.events() if e["k"] == "parity"][0]
    assert (ev["caller"], ev["even"], ev["by"]) == (1, False, "p1") and "i" in ev


@pytest.mark.parametrize("line,msg", [("choose even", "parity"), ("choose odd 2", "caller"),
                                      ("choose odd x", "caller"), ("choose even 1 2", "usage")])
def test_bad_calls_change_nothing(board, line, msg):
    vb = board("backgammon") if msg == "parity" else board("persian", "new persian opening=parity")
    if msg != "parity":
        vb.setup()
    before = vb.status()
    r = vb.cmd(line)
    assert r["t"] == "err" and msg in r["msg"]
    assert vb.status()["phase"] == before["phase"] and vb.session.call == (0, True)


# -- the cube has no cap ----------------------------------------------------------------------------
def double_up(vb, times):
    """Double and take ``times`` times, a turn played between (White opens with 3-1)."""
    import random
    from host_tools.soak.soakplayer import Player
    rng = random.Random(3)
    player = Player(vb, random.Random(4), noise="none")
    assert vb.cmd("roll 3 1")["t"] == "ok"
    assert player.play_turn()
    n = 0
    while n < times:
        s = vb.session
        if s.game.can_double(s.side):
            assert vb.cmd("cube double")["t"] == "ok" and vb.cmd("cube take")["t"] == "ok"
            n += 1
        a, b = rng.sample(range(1, 7), 2)
        assert vb.cmd("roll %d %d" % (a, b))["t"] == "ok"
        assert player.play_turn()


def test_the_cube_goes_past_4096_and_gnubgs_limit_is_said_at_export(board):
    vb = board("backgammon")
    double_up(vb, 13)
    s = vb.session
    st = vb.status()
    assert st["cube"] == 8192 and st["cube_owner"] == s.side and not st["crawford"]
    assert s.game.can_double(s.side)                 # no cap: it may go on
    assert vb.cmd("cube double")["t"] == "ok"
    assert in_cycle(read_digits(watch(vb, 5000), "green"), [1, 6, 3, 8, 4])   # 16384 offered
    assert vb.cmd("cube take")["t"] == "ok"
    assert vb.cmd("resign 2")["t"] == "ok" and vb.cmd("resign accept")["t"] == "ok"
    over = vb.since(0, ev="game_over")[-1]
    assert over["points"] == 32768
    rec = vb.record()
    game = ex.replay_record(rec)                     # the record replays: no cap there either
    assert game["points"] == 32768 and game["game"].cube == 16384
    with pytest.raises(ex.ExportError, match="stops at 4096"):
        ex.export([rec], "mat")
    assert in_cycle(read_digits(watch(vb, 6000), "gold"), [3, 2, 7, 6, 8])     # 32768 won


# -- status ---------------------------------------------------------------------------------------------
def test_status_carries_every_rule_option_the_cube_owner_and_crawford(board):
    vb = board("long", "new long scoring=koks")
    st = vb.status()
    assert st["options"] == {"opening": "rethrow", "head_exception": "principle", "scoring": "koks",
                             "block_check": "final", "cube": "off"}
    assert (st["cube"], st["cube_owner"], st["crawford"], st["results"]) == (1, -1, False, [1, 2, 3])


# -- scenarios for the MicroPython replay (tests/test_board_micropython.py) -------------------------
def scenario_resign_levels(vb):
    """Short nardy (tric-trac): 8 offered and refused, 3 refused by the rules, the long presses
    cycle 1, 2, 4, 8, 1, and a quadruple game accepted."""
    assert vb.cmd("roll 5 2")["t"] == "ok"
    vb.cmd("resign 8")
    vb.cmd("resign refuse")
    vb.cmd("resign 3")
    for _ in range(5):
        vb.press("p0", 1500)
    vb.press("p0", 1500)                             # 1 -> 2
    vb.press("p0", 1500)                             # 2 -> 4
    vb.cmd("resign accept")


def scenario_cube_past_4096(vb):
    """Backgammon: the cube doubled and taken 13 times (each side's roll set by a position),
    then a gammon resigned: 16384 points, no cap."""
    start = "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; %s to move"
    side = "white"
    vb.force_position(start % side)
    for _ in range(13):
        vb.cmd("cube double")
        vb.cmd("cube take")
        side = "black" if side == "white" else "white"
        vb.force_position(start % side)
    vb.cmd("status")
    vb.cmd("resign 2")
    vb.cmd("resign accept")


def test_the_cube_past_4096_from_positions(board):
    vb = board("backgammon")
    scenario_cube_past_4096(vb)
    over = vb.since(0, ev="game_over")[-1]
    assert (over["points"], vb.session.game.cube) == (16384, 8192)
    cubes = [o["value"] for o in vb.since(0, ev="cube") if o["act"] == "take"]
    assert cubes == [2 ** n for n in range(1, 14)]


def test_resign_levels_scenario(board):
    vb = board("short")
    scenario_resign_levels(vb)
    offers = [o["level"] for o in vb.since(0, ev="resign_offer")]
    assert offers == [8, 1, 2, 4, 8, 1, 2, 4]
    assert vb.since(0, ev="game_over")[-1]["points"] == 4


MICROPYTHON_SCENARIOS = [("backgammon", scenario_opening_tie_then_throw),
                         ("matador", scenario_matador_doublet_choice),
                         ("short", scenario_closed_out_passes_unthrown),
                         ("persian opening=parity", scenario_parity_call),
                         ("short", scenario_resign_levels),
                         ("backgammon", scenario_cube_past_4096)]
