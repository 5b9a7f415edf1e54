"""Signed records (issue 13): a provisioned board signs each ended game it exports (Ed25519 over
all its sealed lines); anyone holding only the board's public key checks it, and every change to
a signed record is refused. On CPython and under MicroPython."""

import json

import pytest

from host_tools import cmd_director, cmd_export
from host_tools.records import export as ex
from host_tools.records.director import Director
from host_tools.soak.soakplayer import record_match

MASTER = bytes(range(32))


@pytest.fixture(scope="module")
def games():
    """Two ended games of one match on a board provisioned by MASTER."""
    return record_match("backgammon", 5, 21, double=0.2, games=2, provision=MASTER)


@pytest.fixture(scope="module")
def public(games):
    board = games[0]["board"]
    return ex.Keyring(public={board: Director(MASTER).public_key(board)})


def test_an_ended_game_is_signed_and_checks_with_the_public_key_alone(games, public):
    for rec in games:
        assert len(rec["sig"]) == 128
        v = ex.verify(rec, public)
        assert v.signed and v.authenticated
        assert any("public key" in n for n in v.notes)
    text, notes = ex.export(games, "mat", keyring=public)
    assert " Game 2" in text


def test_the_directors_keys_check_the_signature_too(games):
    v = ex.verify(games[0], ex.Keyring(MASTER))
    assert v.signed


def _lines(rec, lines):
    return dict(rec, lines=lines, lines_n=len(lines))


def _forgeries(games):
    """(name, record): every change a forger without the board's key could make to a signed
    record, each one that the public key alone must catch."""
    a, b = games
    lines = a["lines"]
    end = json.loads(lines[-1][:-33])
    out = [
        ("cut after line %d" % i, _lines(a, lines[:i + 1])) for i in range(len(lines) - 1)
    ]
    out += [
        ("reordered", _lines(a, [lines[0], lines[2], lines[1]] + lines[3:])),
        ("a line deleted", _lines(a, lines[:3] + lines[4:])),
        ("a line doubled", _lines(a, lines[:3] + [lines[3]] + lines[3:])),
        ("score edited", _lines(a, lines[:-1] + [json.dumps(dict(end, score=[5, 0]))
                                                 + lines[-1][-33:]])),
        ("a seal changed", _lines(a, lines[:-1] + [lines[-1][:-1] + "0"
                                                   if lines[-1][-1] != "0"
                                                   else lines[-1][:-1] + "1"])),
        ("the other game's signature", dict(a, sig=b["sig"])),
        ("a bit of the signature flipped", dict(a, sig="%02x" % (int(a["sig"][:2], 16) ^ 1)
                                                + a["sig"][2:])),
        ("no signature", dict(a, sig=None)),
        ("a signature that is not hex", dict(a, sig="zz" * 64)),
        ("a signature too short", dict(a, sig=a["sig"][:126])),
        ("another game's serial", dict(a, serial=a["serial"] + 1)),
        ("the count padded", dict(a, lines_n=len(lines) + 1)),
    ]
    return out


def test_every_change_to_a_signed_record_is_refused_with_the_public_key(games, public):
    for name, forged in _forgeries(games):
        with pytest.raises(ex.ExportError):
            ex.export([forged], "mat", keyring=public)
            raise AssertionError(name)


def test_a_bad_signature_is_refused_even_when_the_seals_hold(games):
    """The director's keys check the MACs; a signature that does not hold is still refused."""
    a, b = games
    with pytest.raises(ex.ExportError, match="signature"):
        ex.verify(dict(a, sig=b["sig"]), ex.Keyring(MASTER))


def test_another_boards_public_key_does_not_check_it(games):
    board = games[0]["board"]
    other = ex.Keyring(public={board: Director(bytes(32)).public_key(board)})
    with pytest.raises(ex.ExportError, match="signature"):
        ex.verify(games[0], other)


def test_a_known_board_sealing_with_the_open_key_is_refused(games):
    """A forger without the key reseals a made-up game with the public open key and claims a
    provisioned board: with that board's key (or public key) at hand, it is not the board's."""
    from firmware.board.identity import OPEN_KEY, Mac, key_id
    a = games[0]
    mac = Mac(OPEN_KEY)
    prefix = "%s|%d|" % (a["board"], a["serial"])
    lines = [line[:-33] + "|" + mac.hex(prefix, line[:-33]) for line in a["lines"]]
    tag = mac.hex("export|", a["board"], "|", str(a["serial"]), "|", str(len(lines)), "|",
                  lines[-1][-32:])
    forged = dict(a, lines=lines, key=key_id(OPEN_KEY), tag=tag, sig=None)
    for keyring in (ex.Keyring(MASTER),
                    ex.Keyring(public={a["board"]: Director(MASTER).public_key(a["board"])})):
        with pytest.raises(ex.ExportError, match="open key"):
            ex.verify(forged, keyring)
    assert not ex.verify(forged, ex.Keyring()).authenticated     # without keys: proves nothing


def test_a_game_in_progress_needs_the_directors_keys(games, public):
    a = games[0]
    head = _lines(dict(a, sig=None), a["lines"][:5])
    with pytest.raises(ex.ExportError, match="not signed"):
        ex.verify(head, public, partial=True)


def test_director_public_and_export_from_the_command_line(games, tmp_path, capsys):
    keys = tmp_path / "director.key"
    keys.write_text(json.dumps({"master": MASTER.hex()}))
    pub = tmp_path / "public.json"
    board = games[0]["board"]
    assert cmd_director.main(["public", "--keys", str(keys), board, "-o", str(pub)]) == 0
    data = json.loads(pub.read_text())
    assert "master" not in data and len(data["public"][board]) == 64
    recs = tmp_path / "games.json"
    recs.write_text(json.dumps(games))
    assert cmd_export.main([str(recs), "--keys", str(pub), "-o", str(tmp_path / "m.mat")]) == 0
    assert cmd_director.main(["verify", "--keys", str(pub), str(recs)]) == 0
    assert "signed" in capsys.readouterr().out
    recs.write_text(json.dumps([dict(games[0], sig=games[1]["sig"])]))
    assert cmd_export.main([str(recs), "--keys", str(pub)]) == 1
    assert "signature" in capsys.readouterr().err


@pytest.mark.micropython
@pytest.mark.parametrize("heap", ["230K", "256K"])
def test_the_firmware_signs_under_micropython(tmp_path, heap):
    """A game ended on the firmware under the MicroPython unix port exports signed, and the
    signature holds under the public key (checked by the `cryptography` package). In the
    project's 230K stand-in heap (64-bit objects, and the simulator's world beside the firmware)
    the signer finds no room after a game: the export goes on unsigned and says why."""
    from host_tools.records.director import BoardClient
    from test_trust import MicroBoard
    board = MicroBoard(str(tmp_path), heap)
    try:
        c = BoardClient(board.send)
        assert c.provision(Director(MASTER))["open"] is False
        for line in ("dice manual", "new backgammon", "sim setup", "sim wait 300", "roll 3 1",
                     "resign 1", "resign accept"):
            assert board.send(line)[-1]["t"] == "ok", line
        got = board.send("export")
    finally:
        board.close()
    assert got[-1]["t"] == "ok"
    rec = ex.assemble(got)[0]
    assert rec["ended"]
    public = ex.Keyring(public={rec["board"]: Director(MASTER).public_key(rec["board"])})
    if heap == "230K" and rec.get("sig") is None:
        assert "no room" in rec["unsigned"]
        with pytest.raises(ex.ExportError, match="no room"):
            ex.verify(rec, public)
        assert ex.verify(rec, ex.Keyring(MASTER)).authenticated     # the MACs still hold
        return
    assert len(rec["sig"]) == 128
    assert ex.verify(rec, public).signed
