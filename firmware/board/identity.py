"""The board's identity, key and tournament lock: who made a record, the MAC that proves it
(HMAC-SHA256), and who may change a game.

Every board has an id (the RP2040 flash's unique id, hex) and a 32-byte key. A board nobody has
provisioned uses ``OPEN_KEY``, which is public: its records are sealed the same way but prove
nothing about who wrote them (``export`` says so). A tournament director provisions each board
with a key derived from the director's own secret (``derive_key``), so the director's station
can check every line a board writes without the players ever holding a key, and the board can
check that a command comes from the director (``authority``).

The key is kept on flash in two copies, each with a CRC, so one worn or flipped byte never loses
it. An RP2040 has no secure key storage: anyone who can read its flash (physical access, the
REPL) can read the key; docs/security.md says what that allows.

Unlocked, the host link may do anything a player at home wants. A director locks a board for
tournament play (``locked``): from then on the host link may only read (status, export) and
every command that changes a game must come from the director, proved by a MAC under the board's
key over a nonce the board just gave (``director``). The lock lives on flash in two copies too;
a copy that cannot be read counts as locked (fail closed), so a worn byte never unlocks a board.

Pure apart from the storage it is given; ``hashlib`` and ``binascii`` exist on every port.
"""

import hashlib
import binascii
import json

from firmware.drivers.storage import read_copies, write_copies

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

OPEN_KEY = b"nardy-board/open-key/not-secret"
_FILES = const(("identity", "identity.b"))
_LOCK_FILES = const(("lock", "lock.b"))
MAC_HEX = 32            # the seal of a line: 128 bits of HMAC-SHA256, in hex


class Mac:
    """HMAC-SHA256 (RFC 2104) under one key, its pads prepared once."""

    def __init__(self, key):
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key + bytes(64 - len(key))
        self.ipad = bytes([b ^ 0x36 for b in key])
        self.opad = bytes([b ^ 0x5C for b in key])

    def digest(self, *parts):
        """The HMAC of the concatenated ``parts`` (bytes or str)."""
        h = hashlib.sha256(self.ipad)
        for p in parts:
            h.update(p.encode() if isinstance(p, str) else p)
        outer = hashlib.sha256(self.opad)
        outer.update(h.digest())
        return outer.digest()

    def hex(self, *parts):
        """The first ``MAC_HEX`` hex digits of the HMAC."""
        return binascii.hexlify(self.digest(*parts)).decode()[:MAC_HEX]


def key_id(key):
    """A short public name of a key (8 hex digits): which key sealed a record, never the key."""
    return binascii.hexlify(hashlib.sha256(b"nardy-key-id|" + key).digest()).decode()[:8]


def derive_key(master, board_id):
    """The key a director's ``master`` secret gives the board ``board_id`` (the station derives
    it again to check that board's records)."""
    return Mac(master).digest("nardy-board-key|", board_id)


def equal(a, b):
    """Compare two MACs (str) without stopping at the first difference."""
    a = a.encode()          # bytes: indexing a str would intern each character as a name
    b = b.encode()
    if len(a) != len(b):
        return False
    d = 0
    for i in range(len(a)):
        d |= a[i] ^ b[i]
    return d == 0


def _key_of(data):
    """The 32-byte key in a stored identity, or None."""
    try:
        key = binascii.unhexlify(json.loads(bytes(data).decode())["key"])
    except (ValueError, UnicodeError, KeyError, TypeError):
        return None
    return key if len(key) == 32 else None


class Identity:
    """The board's id and key (``open`` while nobody provisioned it) and its tournament lock
    (``locked``). ``lost`` says a stored key could not be read back (both copies damaged): the
    board then runs on the open key and says so."""

    def __init__(self, storage, board_id):
        self.storage = storage
        self.board_id = board_id
        self.key = OPEN_KEY
        self.lost = False
        self.nonce = None          # the director's challenge on offer (``director``) ...
        self.nonce_t = 0           # ... since when
        self.failures = 0          # wrong director signatures since boot
        data, damaged = read_copies(storage, _LOCK_FILES)
        locked = damaged and any(storage.read(name) is not None for name in _LOCK_FILES)
        if data is not None:
            try:
                locked = locked or bool(json.loads(bytes(data).decode())["locked"])
            except (ValueError, UnicodeError, KeyError, TypeError):
                locked = True      # damaged: fail closed
        self.locked = locked
        data, damaged = read_copies(storage, _FILES, _key_of)
        if data is not None:
            self.key = _key_of(data)
            if damaged:
                self._write(self.key)       # repair the damaged or missing copy from the good one
        else:
            self.lost = any(storage.read(name) is not None for name in _FILES)
        self.mac = Mac(self.key)

    @property
    def open(self):
        return self.key == OPEN_KEY

    @property
    def kid(self):
        """``key_id`` of the board's key."""
        return key_id(self.key)

    def provision(self, key):
        """Keep ``key`` (32 bytes) as the board's key, in both copies."""
        if len(key) != 32:
            raise ValueError("a board key is 32 bytes (64 hex digits)")
        self._write(key)
        self.key = key
        self.lost = False
        self.mac = Mac(key)

    def set_lock(self, on):
        """Lock (or unlock) the board for tournament play; kept on flash at once."""
        if on and self.open:
            raise ValueError("provision the board's key before locking it (with the open key "
                             "anyone could sign as the director)")
        write_copies(self.storage, _LOCK_FILES, json.dumps({"locked": bool(on)}).encode())
        self.locked = bool(on)

    def _write(self, key):
        write_copies(self.storage, _FILES, json.dumps({"id": self.board_id, "key": binascii.hexlify(key).decode()}).encode())
