"""Digital sensor front end: chained 74HC165 shift registers read with one SPI transfer, and a
check that the chain answers (a silent or shorted data line is a fault, not an empty board)."""

# Electrical: every 74HC165 runs at 3.3 V (the RP2040 is not 5 V tolerant); CLK INH (pin 15) is
# tied low and the last chip's SER (pin 10) to GND. SH/LD low copies the parallel inputs into the
# registers; SPI mode 0 samples QH on each rising SCK edge, the edge that also shifts the chain,
# which is safe because QH holds for the chip's propagation delay (>10 ns at 3.3 V). The first bit
# out is chip #0's input H (D7), so with MSB-first bytes slot s = chip s // 8, input D(s % 8) lands
# in byte s >> 3, bit s & 7. Reed switches close to GND against 10k pull-ups: 0 = magnet present.
#
# The chain check (``check=True``) uses that wiring: clocking one byte past the chain shifts out
# the last chip's grounded SER, so it must read 0x00, and the inputs past the last slot are tied
# to 3.3 V, so they must read 1. A data line that floats or is pulled high reads 0xFF there (the
# board would otherwise look empty); one shorted low reads every slot occupied and the spare
# inputs low. A frame that fails the check is not used: ``raw`` keeps the last good frame and
# ``silent`` is True until a frame passes again (``silent_changed`` marks each change).


class ShiftRegisterScanner:
    """Latch and read the whole chain into ``raw`` (levels, active low); one call per scan."""

    def __init__(self, spi, load_pin, nbytes, n_slots=None, check=False):
        self.spi = spi
        self.load = load_pin
        self.raw = bytearray(b"\xff" * nbytes)
        self.faults = None
        self.check = check
        self.silent = False
        self.silent_changed = False
        self._next = bytearray(b"\xff" * nbytes)
        self._tail = bytearray(1)
        n = nbytes * 8 if n_slots is None else n_slots
        self._pad = (0xFF << (n & 7)) & 0xFF if n & 7 else 0   # spare inputs of the last chip

    def scan(self):
        load = self.load
        load(0)
        load(1)
        if not self.check:
            self.spi.readinto(self.raw)
            return self.raw
        nxt = self._next
        self.spi.readinto(nxt)
        self.spi.readinto(self._tail)          # one byte past the chain: the grounded SER
        pad = self._pad
        good = self._tail[0] == 0 and (nxt[len(nxt) - 1] & pad) == pad
        if good:
            self._next = self.raw
            self.raw = nxt
        if good == self.silent:
            self.silent = not good
            self.silent_changed = True
        return self.raw
