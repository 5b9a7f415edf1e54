"""Tournament trust (issue 13): a locked board takes game changes only from the players' buttons and
the director's signed commands, every line says who caused it, the clock and settings survive a
reset, and a record is refused by export when it was forged, cut or edited, or claims a lock it
did not keep."""

import json

import pytest

from host_tools.records import export as ex
from host_tools.records.director import BoardClient, Director, DirectorError
from host_tools.soak.soakboard import VirtualBoard

MASTER = bytes(range(32))


def client(vb):
    """A BoardClient over a virtual board: every line the board wrote for one command."""
    def send(line):
        m = vb.mark()
        vb.cmd(line)
        return vb.lines[m:]
    return BoardClient(send)


@pytest.fixture
def director():
    return Director(MASTER)


@pytest.fixture
def keyring():
    return ex.Keyring(MASTER)


@pytest.fixture
def locked(director, tmp_path):
    """A backgammon board provisioned and locked by the director, manual dice set before the lock,
    set out and waiting for the opening."""
    vb = VirtualBoard("backgammon", flash_dir=str(tmp_path))
    c = client(vb)
    assert c.provision(director)["open"] is False
    assert vb.cmd("new backgammon")["t"] == "ok"
    assert vb.cmd("match 5")["t"] == "ok"
    assert c.lock(director)["locked"] is True
    vb.setup()
    yield vb, c
    vb.close()


def evs(vb):
    return vb.events()


def start_game(vb):
    """Throw the opening with the board's own (fair) dice until a side starts."""
    for _ in range(20):
        vb.press("p0")
        if vb.session.phase in ("move", "roll"):
            return
    raise AssertionError("twenty tied opening throws")


# -- the host link cannot change a locked game -------------------------------------------------
@pytest.mark.parametrize("line", [
    "dice manual", "roll 6 6", "clock 300 12", "clock off", "resign 3", "resign accept",
    "cube double", "cube drop", "new backgammon", "match 7", "mode referee", "condone on",
    "mix 00ff", "provision " + "11" * 32, "lock", "unlock", "choose 6",
    "sim position " + "0" * 53,
])
def test_a_locked_board_refuses_every_game_changing_host_command(locked, line):
    vb, _ = locked
    start_game(vb)
    before = (vb.status(), len(evs(vb)))
    r = vb.cmd(line)
    assert r["t"] == "err" and ("locked" in r["msg"] or "director" in r["msg"]), (line, r)
    status = vb.status()
    assert (status, len(evs(vb))) == before
    assert status["locked"] is True


def test_the_director_signs_what_the_host_may_not_and_the_record_names_it(locked, director,
                                                                          keyring):
    vb, c = locked
    start_game(vb)
    c.signed(director, "clock 600 12")
    assert vb.status()["clock"]["reserve"] == 600000
    line = [e for e in evs(vb) if e["k"] == "clock"][-1]
    assert line["by"] == "dir"
    # a forged signature, a replayed one, a signature without a challenge: refused
    challenge = c.ask("auth", "challenge")
    mac = director.sign(challenge["board"], challenge["nonce"], "clock 900 12")
    assert vb.cmd("dir %s clock 900 13" % mac)["t"] == "err"          # another command
    assert vb.cmd("dir %s clock 900 12" % mac)["t"] == "err"          # the nonce is used up
    assert vb.status()["clock"]["reserve"] == 600000
    other = Director(bytes(32))
    challenge = c.ask("auth", "challenge")
    bad = other.sign(challenge["board"], challenge["nonce"], "clock 900 12")
    r = vb.cmd("dir %s clock 900 12" % bad)
    assert r["t"] == "err" and "signature" in r["msg"]
    ident = c.identity()
    assert ident["failures"] == 2


def test_a_locked_game_records_who_did_everything_and_export_lists_the_director(locked, director,
                                                                                 keyring):
    vb, c = locked
    start_game(vb)
    c.signed(director, "clock 600 12")
    rec = vb.record()
    v = ex.verify(rec, keyring, partial=True)
    assert v.authenticated and v.locked
    assert all(e["by"] in ("p0", "p1", "menu", "board", "host", "dir") for e in v.events)
    assert [e["by"] for e in v.events if e["k"] == "open"][0] == "p0"
    assert any("the director: clock" in n for n in v.notes)
    # without the director's key, nobody can check it
    with pytest.raises(ex.ExportError, match="no key for board"):
        ex.verify(rec, ex.Keyring(), partial=True)


def _seal(line, board, serial, key):
    """A forger's line, sealed with the key the forger has."""
    from firmware.board.identity import Mac
    text = line[:-33]
    return text + "|" + Mac(key).hex("%s|%d|" % (board, serial), text)


def test_records_that_claim_the_lock_and_broke_it_are_refused(locked, director, keyring):
    vb, c = locked
    start_game(vb)
    rec = vb.record()
    board, serial = rec["board"], rec["serial"]
    key = director.board_key(board)
    # a line the bare host link caused, in a locked game (even sealed with the board's key)
    lines = list(rec["lines"])
    last = json.loads(lines[-1][:-33])
    forged = dict(last, k="set", dice_mode="manual", by="host", n=len(lines))
    lines.append(_seal(json.dumps(forged) + "|" + "0" * 32, board, serial, key))
    from firmware.board.identity import Mac
    tag = Mac(key).hex("export|", board, "|", str(serial), "|", str(len(lines)), "|",
                       lines[-1][-32:])
    bent = dict(rec, lines=lines, lines_n=len(lines), tag=tag)
    with pytest.raises(ex.ExportError, match="bare host command"):
        ex.verify(bent, keyring, partial=True)
    # a new dice commitment (the seed was lost) in a locked game
    recommit = dict(last, k="commit", dice_commit="00" * 32, by="board", n=len(rec["lines"]))
    lines = list(rec["lines"]) + [_seal(json.dumps(recommit) + "|" + "0" * 32, board, serial,
                                        key)]
    tag = Mac(key).hex("export|", board, "|", str(serial), "|", str(len(lines)), "|",
                       lines[-1][-32:])
    with pytest.raises(ex.ExportError, match="committed again"):
        ex.verify(dict(rec, lines=lines, lines_n=len(lines), tag=tag), keyring, partial=True)


def test_a_lost_seed_in_a_locked_game_is_on_record_and_fails_verification(locked, keyring):
    vb, _ = locked
    start_game(vb)
    from firmware.board import fairdice
    for name in fairdice.SEED_FILES:
        vb.session.journal.storage.remove(name)
    vb.power_cut()
    assert [e["k"] for e in evs(vb)][-2:] == ["commit", "reset"]
    with pytest.raises(ex.ExportError, match="committed again"):
        ex.verify(vb.record(), keyring, partial=True)


def test_the_seed_is_never_readable_over_the_host_link(locked):
    vb, _ = locked
    start_game(vb)
    seed = vb.session.dice.seed.hex()
    m = vb.mark()
    for line in ("status", "export", "export list", "identity", "help", "auth"):
        vb.cmd(line)
    assert seed not in json.dumps(vb.lines[m:])


# -- the clock and the settings survive a reset -----------------------------------------------
def test_a_reset_charges_the_clock_and_is_on_record(tmp_path):
    vb = VirtualBoard("backgammon", flash_dir=str(tmp_path))
    try:
        vb.cmd("dice manual")
        vb.cmd("match 5")
        vb.cmd("clock 60 0")                       # 60 s reserve, no delay
        vb.setup()
        vb.cmd("roll 5 1")                         # White starts: White's reserve runs
        vb.wait(150000)                            # 150 s on one move: more than the reserve
        assert vb.session.phase == "match_over"    # run out: the match is lost on time
        vb2 = VirtualBoard("backgammon", flash_dir=str(tmp_path / "b"))
        vb2.cmd("dice manual")
        vb2.cmd("match 5")
        vb2.cmd("clock 60 0")
        vb2.setup()
        vb2.cmd("roll 5 1")
        for _ in range(30):                        # 5 s, then the power goes, 30 times
            vb2.wait(5000)
            vb2.power_cut()
        assert vb2.session.phase == "match_over", vb2.status()["clock"]
        resets = [e for e in vb2.events() if e["k"] == "reset"]
        assert resets and all(e["charged"] >= 2000 and e["side"] == 0 for e in resets)
        vb2.close()
    finally:
        vb.close()


def test_settings_sent_during_setup_survive_a_power_cut(tmp_path):
    vb = VirtualBoard("short", flash_dir=str(tmp_path))
    try:
        for line in ("mode referee", "dice manual", "condone on", "clock 300 10", "mix abcd"):
            vb.cmd(line)
        assert vb.session.phase == "setup"         # nothing set out: every setting in set-up
        vb.power_cut()
        st = vb.status()
        assert (st["mode"], st["dice_mode"], st["condone"]) == ("referee", "manual", True)
        assert st["clock"]["reserve"] == 300000 and st["clock"]["delay"] == 10000
        assert [e["by"] for e in vb.events() if e["k"] in ("set", "clock")] == ["host"] * 4
    finally:
        vb.close()


def test_the_same_setting_again_writes_nothing(tmp_path):
    vb = VirtualBoard("short", flash_dir=str(tmp_path))
    try:
        vb.cmd("mode referee")
        n = len(vb.events())
        for _ in range(5):
            assert vb.cmd("mode referee")["t"] == "ok"
        assert len(vb.events()) == n
    finally:
        vb.close()


# -- forged records --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def match_records():
    """Three finished games of one match on a provisioned (unlocked) board."""
    from test_export import play_match
    return play_match("backgammon", 9, 5, games=3, provision=MASTER)


def test_the_played_match_verifies_with_the_directors_key(match_records, keyring):
    text, notes = ex.export(match_records, "mat", keyring=keyring)
    assert " Game 2" in text and not any("proves nothing" in n for n in notes)


def _mutations(rec):
    """(name, record) for every forgery class on one record."""
    lines = rec["lines"]
    out = []
    for i in range(len(lines) - 1):             # truncation at every line
        out.append(("cut after %d" % i, dict(rec, lines=lines[:i + 1])))
    out.append(("reordered", dict(rec, lines=[lines[1], lines[0]] + lines[2:])))
    out.append(("a line deleted", dict(rec, lines=lines[:3] + lines[4:])))
    out.append(("a line doubled", dict(rec, lines=lines[:3] + [lines[3]] + lines[3:])))
    end = json.loads(lines[-1][:-33])
    edited = dict(end, points=end["points"] + 1, score=[end["score"][0] + 1, end["score"][1]])
    out.append(("score edited", dict(rec, lines=lines[:-1] + [json.dumps(edited) + lines[-1][-33:]])))
    i = next(n for n, line in enumerate(lines) if '"roll"' in line and '"dice"' in line)
    roll = json.loads(lines[i][:-33])
    roll["dice"] = [7 - roll["dice"][0], roll["dice"][1]]
    out.append(("dice edited", dict(rec, lines=lines[:i] + [json.dumps(roll) + lines[i][-33:]]
                                    + lines[i + 1:])))
    # resealed with the public open key (as anyone could), with the tag made to match
    from firmware.board.identity import OPEN_KEY, Mac, key_id
    mac = Mac(OPEN_KEY)
    prefix = "%s|%d|" % (rec["board"], rec["serial"])
    resealed = [text + "|" + mac.hex(prefix, text)
                for text in [line[:-33] for line in lines[:-1]] + [json.dumps(edited)]]
    tag = mac.hex("export|", rec["board"], "|", str(rec["serial"]), "|", str(len(resealed)), "|",
                  resealed[-1][-32:])
    out.append(("resealed with the open key", dict(rec, lines=resealed, key=key_id(OPEN_KEY),
                                                   lines_n=len(resealed), tag=tag)))
    out.append(("claimed by another board", dict(rec, board="another-board")))
    out.append(("another game's serial", dict(rec, serial=rec["serial"] + 7)))
    return out


def test_every_forgery_of_a_record_is_refused(match_records, keyring):
    rec = match_records[0]
    for name, forged in _mutations(rec):
        with pytest.raises(ex.ExportError):
            ex.export([forged], "mat", keyring=keyring)
            raise AssertionError(name)


def test_a_game_that_never_happened_is_refused(match_records, keyring):
    """A whole game made up by a forger with their own key (and dice that verify against the
    forger's own seed) does not carry the board's key."""
    from test_export import play_match
    forged = play_match("backgammon", 3, 99, games=1, provision=bytes(32))[0]
    forged = dict(forged, board=match_records[0]["board"])
    with pytest.raises(ex.ExportError):
        ex.export([forged], "mat", keyring=keyring)


def test_a_deleted_or_duplicated_game_of_a_match_is_refused(match_records, keyring):
    g1, g2, g3 = match_records[:3]
    with pytest.raises(ex.ExportError, match="twice"):
        ex.export([g1, g1, g2], "mat", keyring=keyring)
    with pytest.raises(ex.ExportError, match="game 2 of the match is missing"):
        ex.export([g1, g3], "mat", keyring=keyring)
    ex.export([g2, g3], "mat", keyring=keyring)      # a match's later games alone are fine


def test_directors_client_refuses_a_board_provisioned_by_another(tmp_path):
    vb = VirtualBoard("short", flash_dir=str(tmp_path))
    try:
        c = client(vb)
        c.provision(Director(bytes(range(32, 64))))
        with pytest.raises(DirectorError, match="not this director"):
            c.provision(Director(MASTER))
    finally:
        vb.close()


# -- the same cheats under the real MicroPython, in a Pico-sized heap ------------------------------
class MicroBoard:
    """The firmware on the simulated board under the MicroPython unix port (230K), driven one
    line at a time through pipes."""

    def __init__(self, flash, heap=None):
        import os
        import subprocess
        from host_tools.device import mpytree
        tree = mpytree.build()
        env = dict(os.environ, MICROPYPATH=".frozen")
        self.proc = subprocess.Popen(
            mpytree.firmware_command(heap or mpytree.HEAP,
                                     ["--virtual-time", "--seed", "3", "--flash", flash]),
            cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.said = []
        self.send("sim leds off")

    def send(self, line):
        """Every object the board wrote for ``line``, up to its ok or err."""
        self.proc.stdin.write(line.encode("latin-1") + b"\n")
        self.proc.stdin.flush()
        out = []
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise AssertionError("the firmware stopped: %s" % self.proc.stderr.read()[-2000:])
            obj = json.loads(raw)
            self.said.append(obj)
            out.append(obj)
            if obj.get("t") in ("ok", "err"):
                return out

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.mark.micropython
def test_the_cheats_are_refused_under_micropython(tmp_path, director, keyring):
    board = MicroBoard(str(tmp_path))
    try:
        c = BoardClient(board.send)
        assert c.provision(director)["open"] is False
        for line in ("dice auto", "new backgammon", "match 5"):
            assert board.send(line)[-1]["t"] == "ok"
        assert c.lock(director)["locked"] is True
        board.send("sim setup")
        board.send("sim wait 300")
        board.send("sim press p0")                  # the opening, thrown by White's button
        board.send("sim wait 300")
        for line in ("dice manual", "roll 6 6", "clock 300 12", "resign 3", "resign accept",
                     "cube double", "new backgammon", "match 7", "mode referee", "mix 00ff",
                     "provision " + "22" * 32, "unlock"):
            r = board.send(line)[-1]
            assert r["t"] == "err" and "locked" in r["msg"] or "director" in r["msg"], (line, r)
        # Ctrl-C, Ctrl-A (raw REPL), Ctrl-D: bytes the host link drops; the firmware answers on
        r = board.send("\x03\x03\x01\x04status")[-1]
        assert r == {"t": "ok", "cmd": "status"}
        c.signed(director, "clock 600 12")
        status = [o for o in board.send("status") if o.get("t") == "status"][0]
        assert status["locked"] and status["clock"]["reserve"] == 600000
        assert status["dice_mode"] == "auto"
        got = board.send("export")
        rec = ex.assemble(got)[0]
        v = ex.verify(rec, keyring, partial=True)
        assert v.locked and v.authenticated and any("the director: clock" in n for n in v.notes)
        assert [e["by"] for e in v.events if e["k"] == "open"] == ["p0"] * len(
            [e for e in v.events if e["k"] == "open"])
    finally:
        board.close()


@pytest.mark.micropython
def test_a_locked_board_never_opens_its_repl_and_deploying_needs_the_director(fake_board, director):
    """The firmware deployed on a board (the real unix port on a pty: host_tools/device/fakeboard.py):
    locked, Ctrl-C, raw-REPL entry and Ctrl-D reach no prompt and deploy refuses; unlocked by the
    director, deploy works again."""
    import io
    import os
    import time
    import serial
    from host_tools.cmd_deploy import DeployError, deploy
    from host_tools.device.serial_link import exchange
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    deploy(fake_board.port, root=repo, out=io.StringIO())        # and reset: the firmware runs
    with serial.Serial(fake_board.port, timeout=0.2) as ser:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not exchange(ser, "status", timeout=1):
            pass
        c = BoardClient(lambda line: exchange(ser, line))
        c.provision(director)
        assert c.lock(director)["locked"] is True
        ser.write(b"\r\x03\x03")                                   # what mpremote sends first
        time.sleep(0.5)
        ser.write(b"\r\x01")                                       # raw REPL, please
        time.sleep(0.5)
        ser.write(b"\x04")                                         # soft reset, please
        time.sleep(0.5)
        said = ser.read(65536)
        assert b">>>" not in said and b"raw REPL" not in said, said[-500:]
        answer = []                                                 # the firmware goes on
        deadline = time.monotonic() + 30          # (a loaded machine may take a while to answer)
        while time.monotonic() < deadline and not answer:
            answer = exchange(ser, "status", timeout=2)
        assert answer and answer[-1]["t"] == "ok", said[-500:]
    with pytest.raises(DeployError, match="locked for tournament play"):
        deploy(fake_board.port, root=repo, out=io.StringIO())
    with serial.Serial(fake_board.port, timeout=0.2) as ser:
        c = BoardClient(lambda line: exchange(ser, line))
        assert c.lock(director, False)["locked"] is False
    deploy(fake_board.port, root=repo, out=io.StringIO())        # unlocked: the REPL is back
