"""Provably fair electronic dice: commit to a secret seed before the game, reveal it after.

Before a game's first throw the board draws a secret seed from its hardware dice and journals
only its commitment, ``sha256(TAG + seed)``. Every electronic die of the game is then die number
``i`` of that seed: the first 3-bit group below 6 of ``sha256(TAG + seed + i)`` (4 bytes, big
endian), plus 1: rejection, never a modulo. When the game ends the seed is journaled in the clear,
so anyone holding the record can check that every die was fixed before the first throw and that
the board could not have chosen them as the game went (``verify``). The seed waits on the board's
flash meanwhile, outside the record, so a power cut keeps the game's dice.

A board that could try seeds before committing might still pick one that favours a side. Against
that, whoever holds the host link (a tournament's software) may send its own bytes, the ``mix``,
after the commitment and before the first throw: then die ``i`` is drawn from
``sha256(TAG + seed + mix + i)``, which neither side could foresee alone.

Pure: no I/O; ``hashlib`` and ``binascii`` exist on every MicroPython port the board runs on.
"""

import hashlib
import binascii

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

TAG = b"nardy-dice/1"
_SEED_BYTES = const(50)          # 50 hardware dice as the seed: log2(6) x 50 = 129 bits


def commitment(seed):
    """The hex commitment to ``seed`` (bytes) that the record carries before the game."""
    return binascii.hexlify(hashlib.sha256(TAG + seed).digest()).decode()


def die(seed, i, mix=b""):
    """Die number ``i`` (0, 1, ...) of ``seed`` (and the host's ``mix``): 1..6."""
    h = hashlib.sha256(TAG + seed + mix)
    h.update(bytes(((i >> 24) & 255, (i >> 16) & 255, (i >> 8) & 255, i & 255)))
    for b in h.digest():
        v = b >> 5                   # bits 7..5, then bits 4..2: two 3-bit groups a byte
        if v < 6:
            return v + 1
        v = (b >> 2) & 7
        if v < 6:
            return v + 1
    raise ValueError("no die in 64 groups")      # probability 4 ** -64


def dice(seed, i, n, mix=b""):
    """Dice ``i`` .. ``i + n - 1`` of ``seed`` (and ``mix``) as a list."""
    return [die(seed, i + k, mix) for k in range(n)]


def verify(commit, seed_hex, throws, mix=b""):
    """Check a revealed seed against its commitment and the throws ``[(i, [dice...]), ...]``
    (drawn with ``mix``); returns None when all hold, or a sentence saying what does not."""
    try:
        seed = binascii.unhexlify(seed_hex)
    except (ValueError, TypeError):
        return "the revealed seed is not hex"
    if commitment(seed) != commit:
        return "the revealed seed does not match the commitment made before the game"
    for i, values in throws:
        want = dice(seed, i, len(values), mix)
        if list(values) != want:
            return "dice %r at %d are not the seed's (%r)" % (list(values), i, want)
    return None


SEED_FILES = ("dice_seed", "dice_seed.b")   # the secret seed until the game ends, two copies


class FairDice:
    """The electronic dice of the game in progress: the committed seed (``seed``, kept on flash
    in two copies with a CRC until it is revealed), the index of its next die (``next``), the
    host's ``mix``, and ``last_i``, the index of the dice drawn last (for their journal line).
    ``expected`` is the commitment a resumed game's seed must match."""

    def __init__(self, storage, roll_die):
        self.storage = storage
        self.roll_die = roll_die
        self.seed = None
        self.next = 0
        self.mix = b""
        self.last_i = None
        self.expected = None

    def new_seed(self):
        """Draw a new secret seed from the hardware dice, keep it on flash, return its
        commitment for the journal."""
        from firmware.drivers.storage import write_copies
        seed = bytes([self.roll_die() for _ in range(_SEED_BYTES)])
        try:
            write_copies(self.storage, SEED_FILES, binascii.hexlify(seed))
        except OSError:            # a full flash: the reserve makes room, or the seed lives in
            self.storage.remove("reserve")   # RAM (lost in a power cut: a new one, on record)
            try:
                write_copies(self.storage, SEED_FILES, binascii.hexlify(seed))
            except OSError:
                pass
        self.seed = seed
        self.next = 0
        self.mix = b""
        self.expected = commitment(seed)
        return self.expected

    def draw(self, n):
        """The seed's next ``n`` dice; ``last_i`` is set to the first one's index."""
        i = self.next
        self.next = i + n
        self.last_i = i
        return dice(self.seed, i, n, self.mix)

    def set_mix(self, data):
        """The host's bytes, before the seed's first die; ValueError when too late or bad."""
        if self.seed is None:
            raise ValueError("no committed dice seed (electronic dice only)")
        if self.next or self.mix:
            raise ValueError("this seed's dice are already fixed (mix before the first throw)")
        if not 1 <= len(data) <= 32:
            raise ValueError("mix 1 to 32 bytes")
        self.mix = bytes(data)

    def reveal(self):
        """The seed in hex for the game's last lines (None when there is none); it stays on
        flash until ``forget`` (call that once the reveal is on flash)."""
        if self.seed is None:
            return None
        out = binascii.hexlify(self.seed).decode()
        self.seed = None
        self.expected = None
        return out

    def forget(self):
        for name in SEED_FILES:
            self.storage.remove(name)

    def load(self):
        """After a reset: the committed seed back from flash when it matches ``expected``;
        False when it is lost or altered (the board must commit a new one, on record)."""
        from firmware.drivers.storage import unseal
        self.seed = None
        if self.expected is None:
            return True
        for name in SEED_FILES:
            data = unseal(self.storage.read(name))
            try:
                seed = binascii.unhexlify(bytes(data)) if data is not None else None
            except ValueError:
                seed = None
            if seed is not None and commitment(seed) == self.expected:
                self.seed = seed
                return True
        return False
