"""Stand-in for the machine module: Pin, SPI, ADC, PWM, WDT and mem32 wired to the simulated world.

Only what the firmware uses: every name a stand-in defines stays interned in the MicroPython
tests' heap (the real module's names are in the board's ROM)."""

_world = None


def bind(world):
    """Make new peripherals talk to ``world`` (a SimWorld); peripherals keep the world they got."""
    global _world
    _world = world


def current_world():
    return _world


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, id, mode=-1, pull=-1, *, value=None, **kwargs):
        self.id = id
        self.mode = mode
        self.world = _world
        if value is not None:
            self.value(value)

    def value(self, v=None):
        w = self.world
        bit = 1 << self.id
        if v is None:
            if w is None:
                return 1
            if self.mode == Pin.OUT:
                return 1 if w.gpio_out & bit else 0
            return 1 if w.gpio_in() & bit else 0
        if w is not None:
            if v:
                w.gpio_out |= bit
            else:
                w.gpio_out &= ~bit
                w.pin_low(self.id)

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class SPI:
    MSB = 0

    def __init__(self, id, baudrate=1000000, *, polarity=0, phase=0, bits=8,
                 sck=None, mosi=None, miso=None):
        self.world = _world

    def readinto(self, buf, write=0):
        if self.world is not None:
            self.world.spi_read(buf)

    def read(self, n, write=0):
        buf = bytearray(n)
        self.readinto(buf)
        return bytes(buf)

    def write(self, buf):
        pass


class ADC:
    def __init__(self, pin):
        self.world = _world

    def read_u16(self):
        return self.world.adc_u16() if self.world is not None else 0


class PWM:
    def __init__(self, pin, *, freq=1000, duty_u16=0):
        self.world = _world
        self._freq = freq
        self._duty = duty_u16

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d
        if self.world is not None:
            self.world.buzzer = (self._freq, d)


class WDT:
    def __init__(self, *, id=0, timeout=5000):
        self.world = _world
        if self.world is not None:
            self.world.wdt_start(timeout)

    def feed(self):
        if self.world is not None:
            self.world.wdt_feed()


class Mem32:
    """Word access to the simulated registers of one world (default: the bound one)."""

    def __init__(self, world=None):
        self.world = world

    def __getitem__(self, addr):
        w = self.world or _world
        return w.mem_read(addr) if w is not None else 0

    def __setitem__(self, addr, value):
        w = self.world or _world
        if w is not None:
            w.mem_write(addr, value)


mem32 = Mem32()


class ResetRequested(BaseException):
    """Raised by reset(): the simulated board restarts (the host catches it)."""


def reset():
    raise ResetRequested()


def soft_reset():
    raise ResetRequested()


def freq(hz=None):
    return 125000000


def unique_id():
    """The flash's unique id: the world's own (``SimWorld.unique_id``) or "NARDYSIM"."""
    world = current_world()
    uid = getattr(world, "unique_id", None) if world is not None else None
    return uid if uid else b"\x4e\x41\x52\x44\x59\x53\x49\x4d"


def idle():
    pass

