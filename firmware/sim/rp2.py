"""Stand-in for the rp2 module: PIO programs assemble to nothing and state machines swallow data."""


class PIO:
    OUT_LOW = 0
    OUT_HIGH = 1
    IN_LOW = 0
    IN_HIGH = 1
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2

    def __init__(self, n=0):
        self.n = n


def asm_pio(**kwargs):
    def wrap(prog):
        return prog
    return wrap


class StateMachine:
    def __init__(self, n, prog=None, **kwargs):
        self.n = n
        self.sent = []
        self.running = False

    def active(self, on=None):
        if on is not None:
            self.running = bool(on)
        return self.running

    def put(self, value, shift=0):
        self.sent.append(value)

    def get(self, buf=None, shift=0):
        return 0

    def tx_fifo(self):
        return 0

    def rx_fifo(self):
        return 0


class DMA:
    """Transfers complete at once; a transfer into a PIO TX FIFO is what the strip shows."""

    def __init__(self):
        from firmware.sim import machine
        self.world = machine.current_world()

    def pack_ctrl(self, **kwargs):
        return 0

    def config(self, *, read=None, write=None, count=None, ctrl=None, trigger=False):
        if trigger and self.world is not None and isinstance(write, int) \
                and 0x50200010 <= write < 0x50200020:
            self.world.led_written(bytes(read[:count]))

    def active(self, on=None):
        """Busy while the simulated output is failed (``SimWorld.fail_leds``): it never ends."""
        return bool(self.world is not None and self.world.led_stall and on is None)

    def close(self):
        pass


def bootsel_button():
    return 0
