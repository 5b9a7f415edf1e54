"""The tournament director's side of trust: the director's secret, each board's key, signed commands.

A director keeps one secret (a key file made by ``Director.create``); every board's key is derived
from it and the board's id (``identity.derive_key``), so the director provisions any number of
boards and checks any board's records without keeping a list of keys. A command the director sends
to a locked board is signed: the director asks the board for a challenge (``auth``) and sends
``dir <mac> <command>`` with the MAC of the board's key over the board's id, the nonce and the
command (``firmware.board.director.signature``). A provisioned board also signs each ended game's
record with an Ed25519 key derived from its key: the director publishes the public keys
(``public_key``), and anyone checks those records with them. ``BoardClient`` does that over any link that
sends one protocol line and returns the board's answers (a serial port, or a virtual board).
"""

import json
import os
import secrets

from host_tools import bounded
from firmware.board.director import signature
from firmware.board.identity import Mac, derive_key, key_id


class DirectorError(RuntimeError):
    """What the director asked for did not happen; the message says why."""


class Director:
    """The director's secret (``master``, 32 bytes) and what follows from it."""

    def __init__(self, master):
        if len(master) < 16:
            raise DirectorError("a director's secret has at least 16 bytes")
        self.master = master

    @classmethod
    def create(cls, path):
        """A new secret in a new key file (readable by its owner only); refuses to overwrite."""
        master = secrets.token_bytes(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"master": master.hex()}, f)
            f.write("\n")
        return cls(master)

    @classmethod
    def load(cls, path):
        try:
            with open(path, encoding="utf-8") as f:
                return cls(bytes.fromhex(bounded.obj(f.read(bounded.MAX_BYTES + 1))["master"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DirectorError("cannot read the director's key file %s: %s" % (path, exc))

    def board_key(self, board_id):
        return derive_key(self.master, board_id)

    def key_id(self, board_id):
        return key_id(self.board_key(board_id))

    def public_key(self, board_id):
        """The Ed25519 public key board ``board_id`` signs its ended games with (32 bytes):
        anyone checks those records with it and no secret (``director public``)."""
        from host_tools.records.export import public_key
        return public_key(board_id, self.board_key(board_id))

    def sign(self, board_id, nonce, command):
        return signature(Mac(self.board_key(board_id)), board_id, nonce, command)


class BoardClient:
    """A board seen through ``send(line) -> [answer objects, the last one ok or err]``."""

    def __init__(self, send):
        self.send = send

    def ask(self, line, want=None):
        """Send ``line``; the object of kind ``want`` it answered (or the ok); DirectorError on err."""
        got = self.send(line)
        end = got[-1] if got else {}
        if end.get("t") != "ok":
            raise DirectorError("%s: %s" % (line.split()[0], end.get("msg", "no answer")))
        if want is None:
            return end
        for obj in got:
            if obj.get("t") == want:
                return obj
        raise DirectorError("%s: no %s line in the answer" % (line.split()[0], want))

    def identity(self):
        return self.ask("identity", "identity")

    def signed(self, director, command):
        """Run ``command`` as the director: a fresh challenge, then the signed command."""
        challenge = self.ask("auth", "challenge")
        mac = director.sign(challenge["board"], challenge["nonce"], command)
        return self.ask("dir %s %s" % (mac, command))

    def provision(self, director):
        """Give the board its key from the director's secret: plainly when it has none yet (the
        open key), signed with the key it has otherwise. Returns the identity after."""
        ident = self.identity()
        key = director.board_key(ident["board"]).hex()
        if ident["open"]:
            self.ask("provision " + key)
        elif ident["key"] != director.key_id(ident["board"]):
            raise DirectorError("board %s holds a key that is not this director's (key %s): it "
                                "must be wiped (BOOTSEL) to be provisioned again"
                                % (ident["board"], ident["key"]))
        return self.identity()

    def lock(self, director, on=True):
        self.signed(director, "lock" if on else "unlock")
        return self.identity()
