"""Electronic dice from hardware random bits: von Neumann whitening, 1-6 by rejection on 3 bits,
and a bounded health check that turns a dead random source into a DiceFault, never a hang."""

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_ROSC_RANDOMBIT = const(0x4006001C)   # RP2040 ring oscillator RANDOMBIT register, bit 0

# The ROSC bit is "somewhat biased, somewhat periodic": consecutive reads a few microseconds apart
# (hundreds of ROSC cycles) are taken in pairs and von Neumann's rule (01 -> 0, 10 -> 1, 00 and
# 11 dropped) removes the bias of independent bits. A die is three whitened bits, 0..7; 6 and 7
# are rejected and drawn again, so each face has probability exactly 1/6 (never a modulo).
#
# Health (each bound is far beyond chance, so only a broken source reaches it):
# * MAX_EQUAL_PAIRS raw pairs in a row that agree: the register reads constant (even at 90%
#   agreement per pair, chance gives 256 in a row with probability 2e-12);
# * REPEAT_CUTOFF whitened bits in a row that agree: a source stuck in a short cycle such as
#   0101... (each pair whitens to 0), the repetition count test of NIST SP 800-90B 4.4.1
#   (chance: 2^-63 at each bit);
# * MAX_REJECTS draws of 6 or 7 in a row: a cycle that always whitens to 11x (chance: 2^-128).
MAX_EQUAL_PAIRS = const(256)
REPEAT_CUTOFF = const(64)
MAX_REJECTS = const(64)


class DiceFault(ValueError):
    """The hardware random source failed its health check: no fair die can be drawn."""


class Dice:
    """``roll()`` -> 1..6, or DiceFault (after a bounded number of reads) when the random
    source is dead; ``fault`` holds the reason until a roll succeeds again. ``bit_source()``
    returns one raw random bit (0 or 1)."""

    def __init__(self, bit_source):
        self.bit_source = bit_source
        self.raw_bits = 0
        self.rejected = 0
        self.fault = None
        self._last = -1          # the last whitened bit, and how many in a row
        self._run = 0

    def _fail(self, reason):
        self.fault = reason
        raise DiceFault("hardware dice fault: " + reason)

    def bit(self):
        """One whitened bit."""
        src = self.bit_source
        for _ in range(MAX_EQUAL_PAIRS):
            a = src()
            b = src()
            self.raw_bits += 2
            if a != b:
                if a == self._last:
                    self._run += 1
                    if self._run >= REPEAT_CUTOFF:
                        self._fail("the random bits repeat %d in a row" % REPEAT_CUTOFF)
                else:
                    self._last = a
                    self._run = 1
                return a
        self._fail("the random bit reads %d constantly" % a)

    def _recheck(self):
        """After a fault: whitened bits until both values have come (a source still stuck
        fails the repetition count again within REPEAT_CUTOFF bits)."""
        self._last = -1
        self._run = 0
        first = self.bit()
        while self.bit() == first:
            pass

    def roll(self):
        bit = self.bit
        if self.fault is not None:
            self._recheck()
        for _ in range(MAX_REJECTS):
            v = (bit() << 2) | (bit() << 1) | bit()
            if v < 6:
                self.fault = None
                return v + 1
            self.rejected += 1
        self._fail("%d draws in a row were 6 or 7" % MAX_REJECTS)


def rosc_bit_source(mem32):
    """Raw bits from the RP2040's ROSC RANDOMBIT register."""
    def bit():
        return mem32[_ROSC_RANDOMBIT] & 1
    return bit
