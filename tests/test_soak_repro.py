"""The soak is reproducible: one seed fixes every random choice, the board's fair dice included,
so two runs print the same figures, each game plays again alone from its number, and a failure
says which game and the command that replays it."""

import pytest

from host_tools import cmd_soak
from host_tools.soak.soakplayer import Counters, Player


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_seed_gives_the_same_figures(fast):
    a = cmd_soak.run("backgammon", 2, 11, fast=fast).as_dict()
    b = cmd_soak.run("backgammon", 2, 11, fast=fast).as_dict()
    assert a == b and a["games"] == 2 and a["turns"] > 20
    c = cmd_soak.run("backgammon", 2, 12, fast=fast).as_dict()
    assert c != a


def test_each_game_plays_again_alone():
    whole = cmd_soak.run("short", 3, 7, fast=True).as_dict()
    parts = Counters()
    for n in (1, 2, 3):
        parts.add(cmd_soak.run("short", 3, 7, fast=True, only=n))
    assert parts.as_dict() == whole


def test_fair_dice_follow_the_seed():
    # the board's own dice come from the simulated world's random bits, seeded per game
    from host_tools.soak.soakboard import VirtualBoard, world_seed
    rolls = []
    for _ in range(2):
        vb = VirtualBoard("backgammon", seed=world_seed("x/1/1"))
        try:
            vb.cmd("dice auto")
            vb.cmd("new backgammon")
            vb.setup()
            vb.press("p0")
            rolls.append(vb.session.game.dice)
            assert vb.session.dice.seed is not None
            rolls.append(vb.session.dice.seed)
        finally:
            vb.close()
    assert rolls[0:2] == rolls[2:4]


def test_a_failure_names_its_game_and_the_command_that_replays_it(monkeypatch, capsys):
    real = Player.play_match
    calls = []

    def flaky(self, variant, match_to=1, **kw):
        done = real(self, variant, match_to, **kw)
        calls.append(variant)
        if len(calls) == 2:                 # the second game goes wrong
            self.c.desyncs += 1
        return done

    monkeypatch.setattr(Player, "play_match", flaky)
    status = cmd_soak.main(["--variant", "short", "--games", "3", "--seed", "9", "--fast"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FAILED: short game 2 of seed 9 (desyncs 1): again alone: " \
           "python -m host_tools soak --variant short --seed 9 --game 2 --fast" in out


def test_a_zone_whose_sensor_is_distrusted_is_blind_to_the_player_too():
    # persian, seed 2026, game 73 (slot level): a sensor of the point a checker could bear off
    # from was distrusted and the tray full; the player bore off one checker of a 4-3 to end an
    # incomplete turn, the board saw the only complete play that fits (3/off 2/off) and took it.
    # The player counted that as an accepted illegal turn (and such plays as desyncs at slot
    # level, where noise makes the zone reader distrust sensors): the sensors cannot see there.
    import random
    from host_tools.soak.soakboard import VirtualBoard
    vb = VirtualBoard("backgammon", seed=1, front_end="digital")     # its full points are blind
    try:
        vb.cmd("dice manual")
        vb.setup()
        p = Player(vb, random.Random(1))
        s = vb.session
        pos = s.game.pos.copy()
        assert p.same_to_sensors(pos)
        pos.board[6] -= 1                   # one White checker from its 6 to its 5 point
        pos.board[5] += 1
        assert not p.same_to_sensors(pos)
        z6, z5 = s.zmap.zone(0, 6), s.zmap.zone(0, 5)
        s.tracker.faults = 1 << z5          # the 5 point unseen, but the 6 point shows 4 of 5
        assert not p.same_to_sensors(pos)
        s.tracker.faults |= 1 << z6         # both distrusted: nothing the sensors can tell
        assert p.same_to_sensors(pos)
    finally:
        vb.close()


def test_a_stack_knocked_on_a_distrusted_zone_is_no_desync():
    # backgammon, seed 15, game 111 (slot level): the player knocked three checkers off a point
    # whose sensor the zone reader distrusted, so the board could not see it, and the player
    # counted a desync; a distrusted zone is blind to the player's knocks too
    c = cmd_soak.run("backgammon", 1, 15, only=111)
    assert c.desyncs == 0 and c.games >= 1


def test_a_lift_the_board_cannot_know_of_is_not_an_unlit_lift():
    # backgammon seed 2026 game 88 (--fast): a play through two full points was read otherwise
    # (sensor-blind), leaving a point with one checker more than the game has, both past its
    # five slots; lifting one from there changes no reading and the game says the point is not
    # blind, so nothing can be lit. Lifts the sensors see, or that the board knows it cannot,
    # still count (backgammon seed 2026 game 137 at slot level: a zone whose sensor became
    # distrusted mid-turn was not lit ahead; tracker, left as found).
    import random
    from host_tools.soak.soakboard import VirtualBoard
    vb = VirtualBoard("backgammon", seed=1, front_end="digital")     # its full points are blind
    try:
        vb.cmd("dice manual")
        vb.setup()
        p = Player(vb, random.Random(1))
        tr = vb.session.tracker
        z6 = vb.session.zmap.zone(0, 6)
        assert tr.exp[z6] == tr.cap[z6] == 5
        assert p.board_can_know(z6)                 # 5 in 5 slots: a lift shows
        vb.hands.place(z6, 0)                       # one more than the game has: 6 read as 5
        assert not p.board_can_know(z6)
        tr.faults |= 1 << z6                        # a distrusted sensor the board knows of
        assert p.board_can_know(z6)
    finally:
        vb.close()


def test_a_sensor_distrusted_mid_turn_is_lit_ahead_too():
    # backgammon seed 2026 game 137 (slot level): the zone reader distrusted a sensor after the
    # turn's stacks had been lit ahead; a lift from that zone, which no sensor could see, lit
    # nothing. The tracker now learns the hints again when the distrusted zones change.
    from host_tools.soak.soakboard import VirtualBoard
    vb = VirtualBoard("backgammon", seed=1)
    try:
        vb.cmd("dice manual")
        vb.setup()
        vb.cmd("roll 3 1")                          # White to move
        vb.wait(500)                                # idle ticks: hints and reaches learnt
        tr = vb.session.tracker
        z13 = vb.session.zmap.zone(0, 13)
        assert not (tr.blind >> z13) & 1            # 5 in 5 slots: a lift there shows
        tr.faults |= 1 << z13                       # then its sensor is distrusted
        vb.wait(50)
        assert (tr.blind >> z13) & 1 and tr.hint     # lit ahead: 13/10 and 13/12 at least
    finally:
        vb.close()
