"""Electronic dice from hardware random bits: von Neumann whitening, 1-6 by rejection on 3 bits."""

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

ROSC_RANDOMBIT = const(0x4006001C)   # RP2040 ring oscillator RANDOMBIT register, bit 0

# The ROSC bit is "somewhat biased, somewhat periodic": consecutive reads a few microseconds apart
# (hundreds of ROSC cycles) are taken in pairs and von Neumann's rule (01 -> 0, 10 -> 1, 00 and
# 11 dropped) removes the bias of independent bits. A die is three whitened bits, 0..7; 6 and 7
# are rejected and drawn again, so each face has probability exactly 1/6 (never a modulo).


class Dice:
    """``roll()`` -> 1..6. ``bit_source()`` returns one raw random bit (0 or 1)."""

    def __init__(self, bit_source):
        self.bit_source = bit_source
        self.raw_bits = 0
        self.rejected = 0

    def bit(self):
        """One whitened bit."""
        src = self.bit_source
        while True:
            a = src()
            b = src()
            self.raw_bits += 2
            if a != b:
                return a

    def roll(self):
        bit = self.bit
        while True:
            v = (bit() << 2) | (bit() << 1) | bit()
            if v < 6:
                return v + 1
            self.rejected += 1


def rosc_bit_source(mem32):
    """Raw bits from the RP2040's ROSC RANDOMBIT register."""
    def bit():
        return mem32[ROSC_RANDOMBIT] & 1
    return bit
