"""WS2812 output through PIO + DMA: the frame streams to the strip with no CPU time and no masked IRQs."""

import time

from firmware.drivers.ticks import TICKS_MASK, ticks_add, ticks_diff

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_PIO0_TXF0 = const(0x50200010)    # PIO0 TX FIFO of state machine 0 (+4 per state machine)
_DREQ_PIO0_TX0 = const(0)         # DMA pacing: PIO0 SM0 TX FIFO not full (+1 per state machine)
_US_PER_LED = const(30)           # 24 bits at 800 kHz
_LATCH_US = const(80)             # WS2812 latches a frame after > 50 us low
_STALL_US = const(5000)           # a frame not out this long after its time: the DMA is stuck

# Electrical/timing: 8 MHz state machine, 10 cycles per bit (1.25 us): a 1 is high for 7 cycles
# (875 ns), a 0 for 2 (250 ns), within WS2812B's 0H/1H windows. The DMA writes one byte per
# transfer; the RP2040 replicates a narrow write across the 32-bit FIFO word, and the program
# shifts the top 8 bits out MSB first (autopull every 8 bits), so the bytes go out in buffer order
# (GRB per LED) with no packing by the CPU. Not yet run on a board here: "neopixel" is the default.

_ticks_us = getattr(time, "ticks_us", None)
if _ticks_us is None:                 # CPython with the simulated parts
    def _ticks_us():
        return int(time.monotonic() * 1000000) & TICKS_MASK


def _program(rp2):
    @rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT,
                 autopull=True, pull_thresh=8)
    def ws2812():
        wrap_target()                                # noqa: F821 (PIO assembler names)
        label("bit")                                 # noqa: F821
        out(x, 1).side(0)[2]                         # noqa: F821  low 3 cycles
        jmp(not_x, "zero").side(1)[1]                # noqa: F821  high 2 cycles
        jmp("bit").side(1)[4]                        # noqa: F821  a 1: high 5 more
        label("zero")                                # noqa: F821
        nop().side(0)[4]                             # noqa: F821  a 0: low 5 more
        wrap()                                       # noqa: F821
    return ws2812


class PioStrip:
    """Same shape as neopixel.NeoPixel for the Leds driver: ``buf`` (wire order) and ``write()``."""

    def __init__(self, rp2, pin, n, sm_id=0):
        self.n = n
        self.buf = bytearray(3 * n)
        self.sm = rp2.StateMachine(sm_id, _program(rp2), freq=8000000, sideset_base=pin)
        self.sm.active(1)
        self.dma = rp2.DMA()
        self.ctrl = self.dma.pack_ctrl(size=0, inc_write=False, treq_sel=_DREQ_PIO0_TX0 + sm_id)
        self.fifo = _PIO0_TXF0 + 4 * sm_id
        self._done_at = None
        self.stalled = False

    def write(self):
        """Start streaming ``buf``; waits only if the previous frame is still going out, and
        never longer than its time plus _STALL_US: a DMA that does not finish (a stalled state
        machine) is stopped and OSError raised, so the caller reports a fault instead of hanging."""
        done = self._done_at
        if done is not None:
            while True:
                late = ticks_diff(_ticks_us(), done)
                busy = self.dma.active()         # after the time: still busy then is a stall,
                if not busy:                     # however late this loop got to look
                    if late >= 0:
                        break                    # out, and latched
                elif late > _STALL_US:
                    self.dma.active(0)
                    self._done_at = None
                    self.stalled = True
                    raise OSError("the LED strip's DMA did not finish")
            self.stalled = False             # the last frame went out
        self.dma.config(read=self.buf, write=self.fifo, count=len(self.buf), ctrl=self.ctrl,
                        trigger=True)
        self._done_at = ticks_add(_ticks_us(), self.n * _US_PER_LED + _LATCH_US)
        if self.stalled:                     # sent, but not believed until a frame is seen out
            raise OSError("the LED strip's DMA did not finish")
