"""Digital sensor front end: chained 74HC165 shift registers read with one SPI transfer."""

# Electrical: every 74HC165 runs at 3.3 V (the RP2040 is not 5 V tolerant); CLK INH (pin 15) is
# tied low and the last chip's SER (pin 10) to GND. SH/LD low copies the parallel inputs into the
# registers; SPI mode 0 samples QH on each rising SCK edge, the edge that also shifts the chain,
# which is safe because QH holds for the chip's propagation delay (>10 ns at 3.3 V). The first bit
# out is chip #0's input H (D7), so with MSB-first bytes slot s = chip s // 8, input D(s % 8) lands
# in byte s >> 3, bit s & 7. Reed switches close to GND against 10k pull-ups: 0 = magnet present.


class ShiftRegisterScanner:
    """Latch and read the whole chain into ``raw`` (levels, active low); one call per scan."""

    def __init__(self, spi, load_pin, nbytes):
        self.spi = spi
        self.load = load_pin
        self.raw = bytearray(b"\xff" * nbytes)
        self.faults = None

    def scan(self):
        load = self.load
        load(0)
        load(1)
        self.spi.readinto(self.raw)
        return self.raw
