"""Never crash, never lose (issue 14): a 100-turn game's journal damaged every way a worn flash or a
power cut can (single-byte flips, truncations, of the game's file and its header's copy) always
boots to a running board that keeps every line the damage did not touch and says what it lost;
a full flash never stops play; a long game exports within a Pico-sized heap."""

import json
import os

import pytest

from host_tools.fuzz import fuzz_journal


def _check(summary):
    assert summary["problems"] == [], summary["problems"][:10]
    assert summary["boots"] > 50 and summary["reported"] > 10 and summary["repaired"] > 10
    assert summary["lines"] > 200


def test_damaged_journals_boot_keep_every_good_line_and_say_what_they_lost():
    _check(fuzz_journal.run(turns=100, every=401, seed=1))


@pytest.mark.micropython
def test_damaged_journals_under_micropython_230k():
    _check(fuzz_journal.run_micropython(turns=100, every=997, seed=2))


@pytest.mark.soak
def test_damaged_journals_many_more():
    _check(fuzz_journal.run(turns=100, every=53, seed=3))
    _check(fuzz_journal.run_micropython(turns=100, every=101, seed=4))


def test_a_full_flash_never_stops_play_and_loses_nothing_committed(tmp_path):
    """The flash fills up with old games and with other files: old games go (exported ones
    first), the game in progress keeps every committed line, play goes on."""
    from host_tools.soak.soakboard import VirtualBoard
    vb = VirtualBoard("backgammon", flash_dir=str(tmp_path), fast=True)
    try:
        vb.cmd("dice manual")
        for _ in range(4):                         # old games on flash
            vb.cmd("new backgammon")
            vb.setup()
            vb.cmd("roll 5 1")
        fs = vb.world.fs
        fs.capacity = fs.used()                    # the flash full: old games, the reserve...
        with open(os.path.join(str(tmp_path), "data", "other.bin"), "wb") as f:
            f.write(b"x" * 3000)                   # ...and something else, past the brim
        from host_tools.soak.soakplayer import Player
        import random
        player = Player(vb, random.Random(5))
        vb.cmd("new backgammon")
        vb.setup()
        turns = 0
        for _ in range(200):
            ph = vb.session.phase
            if ph in ("over", "match_over") or turns == 60:     # a game's worth of turns
                break
            if ph in ("opening", "roll"):
                vb.cmd("roll %d %d" % player.roll())
            elif ph == "move":
                assert player.play_turn()
                turns += 1
        assert turns > 30 and not vb.session.journal.full      # the reserve held them all
        assert player.c.lost_turns == 0 and player.c.rejected_legal == 0
        committed = vb.session.journal.count
        vb.power_cut()                             # what was committed is on flash
        events = vb.events()
        assert len([e for e in events if e["k"] == "turn"]) == turns
        assert events[-1]["k"] in ("reset", "end", "recover")
        assert vb.session.journal.count >= committed
    finally:
        vb.close()


def test_a_full_flash_keeps_lines_in_ram_says_so_and_writes_them_when_there_is_room():
    from firmware.board.identity import Identity
    from firmware.board.journal import Journal
    from firmware.sim.memstore import MemStorage
    st = MemStorage(capacity=3000)
    j = Journal(st, Identity(st, "b1"))
    j.start(1)
    for i in range(60):
        j.append({"k": "turn", "i": i})
        ok = j.save()
    assert not ok and j.full and j.pending
    st.capacity = None
    assert j.save() and not j.full and not j.pending


@pytest.mark.micropython
def test_a_300_turn_game_exports_within_the_heap(tmp_path):
    """A 300-turn game on the simulated board's flash, exported by the firmware under MicroPython
    with a 230K heap: every line streamed, and the record verifies on the host."""
    import subprocess
    from host_tools.records import export as ex
    from host_tools.device import mpytree
    files, serial = fuzz_journal.make_game(turns=300)
    flash = tmp_path / "flash"
    fuzz_journal.write_files(files, str(flash / "data"))
    os.remove(str(flash / "data" / "index.json"))
    tree = mpytree.build()
    out = subprocess.run(mpytree.firmware_command(args=["--virtual-time", "--seed", "1",
                                                        "--flash", str(flash)]),
                         input="sim leds off\nexport\n", capture_output=True, text=True,
                         cwd=tree, env=dict(os.environ, MICROPYPATH=".frozen"), timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    objs = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert objs[-1] == {"t": "ok", "cmd": "export"}, (objs[-3:], out.stderr[-1000:])
    rec = ex.assemble(objs)[0]
    assert rec["serial"] == serial and rec["lines_n"] == len(rec["lines"]) > 600
    v = ex.verify(rec, ex.Keyring(keys={fuzz_journal.BOARD: fuzz_journal.KEY}), partial=True)
    assert len([e for e in v.events if e["k"] == "turn"]) == 300
