"""The hall's folder: the director's secret, the hall's name and broker address, the boards admitted, and each one's MQTT password.

A room is a folder the director keeps (``python -m host_tools hall init DIR``):

* ``keys.json``: the director's key file, ``{"master": hex}`` (``host_tools.records.export.Keyring``
  reads it): every board's key is derived from it (``identity.derive_key``), and so is every
  MQTT password of the hall (``password``), so nothing per board needs to be kept or handed out
  beyond what follows from the secret and the board's id;
* ``hall.json``: the hall's topic root (``name``), the broker's address (``host``, ``port``) and
  the boards admitted (``boards``: ids as the boards say them); only those get a password;
* ``broker/``: what ``broker`` generates for Mosquitto; ``station.db``: the station's games.
"""

import json
import os
import re
import secrets

from firmware.board.identity import Mac, derive_key
from host_tools.records.export import Keyring

STATION = "station"          # the director's station: reads every topic, writes want and view
SPECTATOR = "spectator"      # spectators: read the views only
ROLES = (STATION, SPECTATOR)
_ID = re.compile(r"^[0-9A-Za-z_-]{1,64}$")


class RoomError(ValueError):
    """A room that cannot be made or read; the message says why."""


def check_id(board):
    """A board id fit for a topic level and a user name; RoomError otherwise."""
    if not isinstance(board, str) or not _ID.match(board) or board in ROLES:
        raise RoomError("%r is not a board id (letters, digits, - and _, up to 64; not %s)"
                        % (board, " or ".join(ROLES)))
    return board


def check_name(name):
    if not isinstance(name, str) or not _ID.match(name):
        raise RoomError("%r is not a hall name (letters, digits, - and _)" % (name,))
    return name


class Room:
    """One hall's folder; ``name``, ``host``, ``port``, ``boards``, ``master``, ``keyring``."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        try:
            with open(self.file("keys.json"), encoding="utf-8") as f:
                self.master = bytes.fromhex(json.load(f)["master"])
            with open(self.file("hall.json"), encoding="utf-8") as f:
                conf = json.load(f)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RoomError("%s is not a hall's folder (python -m host_tools hall init %s): %s"
                            % (path, path, exc))
        self.name = check_name(conf.get("name", "hall"))
        self.host = conf.get("host", "127.0.0.1")
        self.port = int(conf.get("port", 1883))
        self.ws_port = conf.get("ws_port")
        self.boards = [check_id(b) for b in conf.get("boards", [])]
        self.keyring = Keyring(self.master)

    @classmethod
    def create(cls, path, name="hall", host="127.0.0.1", port=1883, boards=()):
        """Make a room (the director's secret drawn now) or open the one there."""
        os.makedirs(path, exist_ok=True)
        keys = os.path.join(path, "keys.json")
        if not os.path.exists(keys):
            fd = os.open(keys, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({"master": secrets.token_bytes(32).hex()}, f)
                f.write("\n")
        conf = os.path.join(path, "hall.json")
        if not os.path.exists(conf):
            _write_json(conf, {"name": check_name(name), "host": host, "port": int(port),
                               "boards": []})
        room = cls(path)
        if boards:
            room.add(boards)
        return room

    def file(self, *parts):
        return os.path.join(self.path, *parts)

    def save(self):
        _write_json(self.file("hall.json"), {"name": self.name, "host": self.host,
                                             "port": self.port, "ws_port": self.ws_port,
                                             "boards": self.boards})

    def add(self, boards):
        """Admit boards (their ids); returns the ones that were new."""
        new = []
        for b in boards:
            check_id(b)
            if b not in self.boards and b not in new:
                new.append(b)
        if new:
            self.boards = self.boards + new
            self.save()
        return new

    def password(self, user):
        """The MQTT password of ``user`` (a board id, ``station`` or ``spectator``), derived from
        the director's secret."""
        return Mac(self.master).hex("nardy-hall-mqtt|", self.name, "|", user)

    def board_key(self, board):
        """The key a board of this hall is provisioned with (``provision <hex>``)."""
        return derive_key(self.master, board)


def _write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
