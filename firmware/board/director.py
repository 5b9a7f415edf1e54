"""The host-link commands of trust and records: identity, the director's challenge and signed
commands, provisioning, the tournament lock, and the streaming export of a game's record (signed
when the game has ended).

A feature module: ``protocol`` loads it when one of its commands arrives (``run``) and drops it after, so
its code costs no RAM while the board plays. The director proves a command by a MAC under the
board's key over a nonce the board just gave (``auth``): ``dir <mac> <command>`` with
mac = HMAC(key, "dir|" + board id + "|" + nonce + "|" + command). A nonce serves one try and
two minutes, so a guess costs a round trip, and a recorded command cannot be replayed.
"""

import binascii
import hashlib
import json

from firmware.board.identity import equal

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_NONCE_MS = const(120000)


def signature(mac, board_id, nonce, command):
    """The MAC (an ``identity.Mac`` under the board's key) a director's ``command`` must carry
    for ``nonce``; the director's tools compute the same (host_tools/records/director.py)."""
    return mac.hex("dir|", board_id, "|", nonce, "|", command)


def signed_text(board_id, serial, count, digest):
    """What the board signs (Ed25519) for an ended game's record: its board, serial, number of
    lines and the SHA-256 (hex) of its lines, each with its seal and a newline, in order; the
    host's ``export`` checks the same (host_tools/records/export.py)."""
    return "nardy-sig/1|%s|%d|%d|%s" % (board_id, serial, count, digest)


def sign_seed(mac, board_id):
    """The board's Ed25519 secret: derived from its key (``mac``, an ``identity.Mac``), so the
    director who gave the key can publish the public key of any board it provisioned."""
    return mac.digest("nardy-sign|", board_id)


def identity_fields(session):
    ident = session.identity
    return {"board": ident.board_id, "key": ident.kid, "open": ident.open,
            "key_lost": ident.lost, "locked": session.auth.locked,
            "failures": session.auth.failures}


def run(app, words, fail, need):
    """identity | auth | dir <mac> <command> | provision <key> | lock | unlock | export [serial|list]"""
    name = words[0].lower()
    if name == "identity":
        need(words, 1, "identity")
        app.emit("identity", identity_fields(app.session))
    elif name == "auth":
        need(words, 1, "auth")
        s = app.session
        auth = s.auth
        v = 0
        for _ in range(40):               # 40 hardware dice: 103 bits
            v = v * 6 + s.roll_die() - 1
        auth.nonce = "%032x" % v
        auth.nonce_t = s.clock()
        app.emit("challenge", {"board": s.identity.board_id, "nonce": auth.nonce})
    elif name == "dir":
        if len(words) < 3:
            fail("usage: dir <mac> <command ...>")
        if words[2].lower() == "dir":
            fail("a signed command cannot hold another")
        s = app.session
        auth = s.auth
        nonce = auth.nonce
        auth.nonce = None                      # one try per challenge
        now = s.clock()
        if nonce is None:
            fail("ask for a challenge first (auth)")
        if now - auth.nonce_t > _NONCE_MS or now < auth.nonce_t:
            fail("the challenge expired; ask again (auth)")
        if s.identity.open:
            fail("the board has no key: provision it first")
        if not equal(words[1].lower(), signature(s.identity.mac, s.identity.board_id, nonce,
                                               " ".join(words[2:]))):
            auth.failures += 1
            fail("the director's signature does not match")
        from firmware.board import protocol    # loaded: it is running this command
        protocol.run(app, words[2:], "dir")
    elif name == "provision":
        need(words, 2, "provision <64 hex digits: the board key>")
        s = app.session
        w = words[1]
        if len(w) != 64:
            fail("the key is 64 hex digits")
        try:
            key = bytes(int(w[i:i + 2], 16) for i in range(0, 64, 2))
        except ValueError:
            fail("the key is hex digits")
        if s.auth.locked:
            fail("the board is locked: unlock it first")
        if not s.identity.open and app.by != "dir":
            fail("the board already has a key: only the director may change it")
        s.identity.provision(key)
        app.emit("identity", identity_fields(s))
    elif name == "lock" or name == "unlock":
        need(words, 1, words[0])
        if app.by != "dir":
            fail("only the director locks and unlocks a board (dir <mac> %s)" % words[0])
        s = app.session
        on = words[0].lower() == "lock"
        if on != s.auth.locked:
            s.auth.set_lock(on)
            s.journal_line({"k": "lock" if on else "unlock"}, app.by)
        app.emit("identity", identity_fields(s))
        s.emit_status()
    elif name == "export":
        if len(words) > 4:
            fail("usage: export [serial [from [to]]|list]")
        s = app.session
        j = s.journal
        if len(words) == 2 and words[1] == "list":
            games = []
            for serial in j.games():
                games.append({"serial": serial, "bytes": j.storage.size(j.file(serial))})
            app.emit("games", {"games": games, "current": j.serial})
            return
        serial = j.serial
        start = 0
        end = -1
        if len(words) >= 2:
            try:
                serial = int(words[1])
                if len(words) >= 3:
                    start = int(words[2])
                if len(words) == 4:
                    end = int(words[3])
            except ValueError:
                fail("export takes a game's serial number (and the lines wanted: from, to) or "
                     "'list'")
            if serial != j.serial and serial not in j.games():
                fail("no game %d on this board" % serial)
        if serial == j.serial:
            s.save()
        export_game(s, serial, start, end)


def export_game(session, serial, start=0, end=-1):
    """Stream game ``serial``'s record: its header, every sealed line from line ``start`` on
    (before line ``end``, when it is not -1: the hall's station asks again for the lines it
    lacks), and the board's tag over all of its lines. A whole ended game from a provisioned
    board is also signed (``sig``: Ed25519 over ``signed_text``), so anyone with the board's
    public key can check it; signing costs about a second on the RP2040, once per export."""
    journal = session.journal
    ident = session.identity
    from firmware.board.restore import Visitor, walk
    session.emit("record", {"format": "nardy-record/2", "board": ident.board_id, "serial": serial,
                            "key": ident.kid, "open": ident.open, "start": start})
    out = Visitor()                        # sends each sealed line as the walk reads it
    last = [""]
    ended = []
    whole = start == 0 and end < 0 and not ident.open
    h = hashlib.sha256() if whole else None    # the lines' digest, for the signature

    def raw(text, seal):
        last[0] = text + "|" + seal
        if h is not None:
            h.update(last[0].encode())
            h.update(b"\n")

    def event(ev):
        if ev.get("k") == "end":
            ended.append(1)
        n = ev.get("n", 0)
        if n >= start and (end < 0 or n < end):
            session.emit("rl", {"s": serial, "l": last[0]})

    out.raw = raw
    out.event = event
    w = walk(journal.chunks(serial), lambda text: journal.seal(text, serial), out, json.loads)
    tag = ident.mac.hex("export|", ident.board_id, "|", str(serial), "|", str(w.count), "|",
                        w.head)
    fields = {"serial": serial, "lines": w.count, "head": w.head, "tag": tag, "lost": w.lost,
              "damaged": w.damaged, "ended": bool(ended)}
    if ended and h is not None:            # an ended game, whole, from a provisioned board
        out = last = raw = event = Visitor = walk = None
        from firmware import drop, load
        drop("firmware.board.restore", "firmware.board.repair")    # the reader's room, to sign
        try:
            ed = load("firmware.board.ed25519")
            fields["sig"] = binascii.hexlify(ed.sign(
                sign_seed(ident.mac, ident.board_id),
                signed_text(ident.board_id, serial, w.count,
                            binascii.hexlify(h.digest()).decode()).encode())).decode()
        except MemoryError:
            fields["unsigned"] = "no room in RAM to sign: export it again after a restart"
        ed = None
        drop("firmware.board.ed25519")
    session.emit("record_end", fields)
    if ended:
        journal.mark_exported(serial)
