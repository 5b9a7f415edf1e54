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

TAG = b"nardy-dice/1"
SEED_BYTES = 50          # 50 hardware dice as the seed: log2(6) x 50 = 129 bits


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
