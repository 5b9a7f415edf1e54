"""Provably fair electronic dice: the commitment before the game, the dice from the seed, the
reveal at the end, and the checks a record's reader makes."""

import hashlib
import json
import random

import pytest

from firmware.board import fairdice
from host_tools.records.export import ExportError, check_dice, export
from host_tools.soak.soakboard import VirtualBoard

CHI2_5DOF_P001 = 20.52


def reference_die(seed, i):
    """The module docstring's rule, written again: the first 3-bit group below 6 of
    sha256(TAG + seed + i as 4 bytes big endian), reading each byte's bits 7..5 then 4..2."""
    digest = hashlib.sha256(b"nardy-dice/1" + seed + i.to_bytes(4, "big")).digest()
    for b in digest:
        for v in (b >> 5, (b >> 2) & 7):
            if v < 6:
                return v + 1
    raise AssertionError("unreachable")


def test_dice_follow_the_written_rule_and_are_fair():
    seed = bytes(range(50))
    values = fairdice.dice(seed, 0, 60000)
    assert values[:2000] == [reference_die(seed, i) for i in range(2000)]
    counts = [values.count(v) for v in range(1, 7)]
    e = len(values) / 6
    assert sum((c - e) ** 2 / e for c in counts) < CHI2_5DOF_P001, counts


def test_a_rejected_group_is_skipped_never_folded():
    # find dice whose first group is 6 or 7: a modulo would give 1 or 2 from it; rejection reads on
    seed = b"\x01" * 50
    seen = 0
    for i in range(400):
        first = hashlib.sha256(b"nardy-dice/1" + seed + i.to_bytes(4, "big")).digest()[0] >> 5
        if first >= 6:
            seen += 1
            assert fairdice.die(seed, i) == reference_die(seed, i)
    assert seen > 50


def test_verify_accepts_the_true_seed_and_names_what_is_wrong():
    seed = bytes(random.Random(5).randrange(256) for _ in range(50))
    commit = fairdice.commitment(seed)
    throws = [(0, fairdice.dice(seed, 0, 2)), (2, fairdice.dice(seed, 2, 2))]
    assert fairdice.verify(commit, seed.hex(), throws) is None
    assert "commitment" in fairdice.verify(commit, (b"\x00" + seed[1:]).hex(), throws)
    bad = [(0, throws[0][1]), (2, [7 - throws[1][1][0], throws[1][1][1]])]
    assert "not the seed's" in fairdice.verify(commit, seed.hex(), bad)
    assert "hex" in fairdice.verify(commit, "zz", throws)


@pytest.fixture
def vb(tmp_path):
    board = VirtualBoard("backgammon", flash_dir=str(tmp_path))
    board.setup()
    yield board
    board.close()


def events(vb):
    return vb.events()


def open_game(vb):
    """Throw the opening (again after a tie) until a side starts."""
    for _ in range(20):
        vb.press("p0")
        if vb.session.phase == "move":
            return
    raise AssertionError("twenty tied opening throws")


def play_first_legal(vb):
    """The side to move plays the rules core's first legal play with its hands and presses."""
    s = vb.session
    side = s.side
    for src, dst, die, hit in s.game.turn.plays()[0]:
        vb.move(s.zmap.zone(side, src), s.zmap.zone(side, dst))
    vb.press("p%d" % side)


def finish_by_the_cube(vb):
    s = vb.session
    assert s.phase == "roll"
    assert vb.cmd("cube double")["t"] == "ok"
    assert vb.cmd("cube drop")["t"] == "ok"
    assert s.phase in ("over", "match_over")


def test_a_game_commits_its_dice_first_and_reveals_them_at_the_end(vb):
    head = events(vb)[0]
    assert len(head["dice_commit"]) == 64
    seed = vb.session.dice.seed
    assert fairdice.commitment(seed) == head["dice_commit"]
    assert set(fairdice.SEED_FILES) <= set(vb.session.journal.storage.names())
    open_game(vb)
    opening = [e for e in events(vb) if e["k"] == "open"]
    assert opening[0]["i"] == 0 and opening[-1]["dice"] == fairdice.dice(seed, opening[-1]["i"], 2)
    play_first_legal(vb)
    finish_by_the_cube(vb)
    evs = events(vb)
    assert [e["k"] for e in evs[-2:]] == ["reveal", "end"]
    assert evs[-2]["seed"] == seed.hex() and '"seed"' not in json.dumps(evs[:-2])
    assert not set(fairdice.SEED_FILES) & set(vb.session.journal.storage.names())  # revealed: gone
    assert check_dice(evs) is None
    text, warnings = export([vb.record()], "mat")
    assert "Wins" in text and all("proves nothing" in w for w in warnings)


def test_a_record_whose_dice_are_not_the_seeds_is_refused(vb):
    open_game(vb)
    play_first_legal(vb)
    finish_by_the_cube(vb)
    evs = events(vb)
    roll = [e for e in evs if e["k"] in ("open", "roll")][-1]
    roll["dice"] = [7 - roll["dice"][0], roll["dice"][1]]
    with pytest.raises(ExportError, match="not the seed's"):
        check_dice(evs)
    evs = events(vb)
    evs[-2]["seed"] = "00" * 50
    with pytest.raises(ExportError, match="commitment"):
        check_dice(evs)


def test_the_seed_survives_a_power_cut_and_the_dice_go_on(vb):
    open_game(vb)
    seed = vb.session.dice.seed
    vb.power_cut()
    assert vb.session.dice.seed == seed
    play_first_legal(vb)
    vb.power_cut()
    assert vb.session.dice.seed == seed
    finish_by_the_cube(vb)
    evs = events(vb)
    idx = [e["i"] for e in evs if "i" in e]
    assert idx == sorted(idx) and len(set(idx)) == len(idx)        # no die used twice
    assert check_dice(evs) is None


def test_a_lost_seed_is_replaced_by_a_new_commitment_on_record(vb):
    open_game(vb)
    for name in fairdice.SEED_FILES:
        vb.session.journal.storage.remove(name)
    vb.power_cut()
    evs = events(vb)
    assert [e["k"] for e in evs[-2:]] == ["commit", "reset"] and "lost" in evs[-2]["why"]
    assert evs[-2]["by"] == "board"
    play_first_legal(vb)
    finish_by_the_cube(vb)
    note = check_dice(events(vb))
    assert note and "not checkable" in note


def test_manual_dice_commit_nothing_and_switching_to_electronic_commits_then(tmp_path):
    board = VirtualBoard("backgammon", flash_dir=str(tmp_path))
    try:
        assert board.cmd("dice manual")["t"] == "ok"
        assert board.cmd("new backgammon")["t"] == "ok"
        board.setup()
        assert "dice_commit" not in events(board)[0] and board.session.dice.seed is None
        board.cmd("roll 5 2")
        board.cmd("dice auto")
        assert board.session.dice.seed is None          # nothing written while hands may be busy
        play_first_legal(board)                          # White's turn
        assert board.session.phase == "roll"             # Black may double first
        board.press("p1")                                # Black throws: electronic dice
        evs = events(board)
        assert [e["k"] for e in evs[-2:]] == ["commit", "roll"] and evs[-1]["i"] == 0
        seed = board.session.dice.seed
        assert evs[-1]["dice"] == fairdice.dice(seed, 0, 2)
        assert fairdice.commitment(seed) == evs[-2]["dice_commit"]
    finally:
        board.close()


def test_the_hosts_mix_changes_the_dice_and_the_record_proves_them(vb):
    seed = vb.session.dice.seed
    assert vb.cmd("mix 00ff13")["t"] == "ok"
    open_game(vb)
    opening = [e for e in events(vb) if e["k"] == "open"][0]
    assert opening["dice"] == fairdice.dice(seed, 0, 2, b"\x00\xff\x13")
    r = vb.cmd("mix 01")
    assert r["t"] == "err" and "already fixed" in r["msg"]        # not once dice are thrown
    play_first_legal(vb)
    finish_by_the_cube(vb)
    evs = events(vb)
    assert check_dice(evs) is None
    mixed = [e for e in evs if e["k"] == "mix"][0]
    mixed["mix"] = "00ff14"                                       # another host's bytes
    with pytest.raises(ExportError, match="not the seed's"):
        check_dice(evs)


def test_the_mix_survives_a_power_cut(vb):
    vb.cmd("mix abcd")
    vb.power_cut()
    assert vb.session.dice.mix == b"\xab\xcd"
    open_game(vb)
    play_first_legal(vb)
    finish_by_the_cube(vb)
    assert check_dice(events(vb)) is None


@pytest.mark.parametrize("line,msg", [("mix", "usage"), ("mix abc", "even"), ("mix zz", "hex"),
                                      ("mix " + "a" * 66, "2 to 64")])
def test_bad_mix_lines_change_nothing(vb, line, msg):
    r = vb.cmd(line)
    assert r["t"] == "err" and msg in r["msg"] and vb.session.dice.mix == b""
