"""The simulated board: sensor magnets (stacks of checkers on slots), buttons, clock, LED strip,
random bits and flash, at the raw level."""

import os

from firmware import call
from firmware.drivers.ticks import TICKS_MASK
from firmware.sim import machine as sim_machine
from firmware.sim import neopixel as sim_neopixel
from firmware.sim.flash import PowerCut, SimFlash

try:
    from micropython import const
except ImportError:  # CPython without the sim stand-ins
    def const(x):
        return x

_SIO_GPIO_IN = const(0xD0000004)
_SIO_GPIO_OUT = const(0xD0000010)
_SIO_GPIO_OUT_SET = const(0xD0000014)
_SIO_GPIO_OUT_CLR = const(0xD0000018)
_SIO_GPIO_OUT_XOR = const(0xD000001C)
_ROSC_RANDOMBIT = const(0x4006001C)


class _MachineView:
    """The machine stand-in as one world sees it (its own mem32)."""

    def __init__(self, world):
        self.Pin = sim_machine.Pin
        self.SPI = sim_machine.SPI
        self.ADC = sim_machine.ADC
        self.PWM = sim_machine.PWM
        self.WDT = sim_machine.WDT
        self.mem32 = sim_machine.Mem32(world)
        self.unique_id = lambda: getattr(world, "unique_id", None) or sim_machine.unique_id()


class SimWorld:
    """What the sensors, buttons and strip of a simulated board see and show.

    Controls: set_zone, set_slot, set_frame, stick, drift, press, advance, power_cut, reboot,
    led_frame. Sensors are simulated as raw 74HC165 bits or raw ADC codes, so the firmware's
    own scanner, debouncer and zone reader run unchanged on top.
    """

    # ADC codes one magnet moves a linear Hall sensor from its zero in the idealised model (flat
    # sensors, equal magnets); None: the physical model of board.json's analog.stack (hallfield)
    signal_codes = None
    noise = None             # ADC noise (codes); None: the physical model's
    rosc_p1 = 154            # raw ROSC bit is 1 with probability rosc_p1/256 (biased on purpose)

    def __init__(self, cfg, storage_root=None, realtime=False, seed=None):
        self.now = 0
        self.realtime = realtime
        self._t0 = None
        self.gpio_out = 0
        self.buzzer = (0, 0)
        self.frame = None
        self.frames = 0
        self.on_led_frame = None
        self.wdt_timeout = None
        self.wdt_fed = 0
        self.wdt_fired = False
        self._lcg = 12345
        self._rbits = bytearray(256)      # the noise behind the raw bits, refilled in place
        self._rpos = 256
        self._rstuck = None
        self._rstuck_i = 0
        self.front_end_fault = None
        self.led_stall = False            # the LED output fails (see fail_leds)
        self._seed = None if seed is None else (seed * 2654435761 + 1) & 0xFFFFFFFF or 1
        self._phys_seed = 1 if seed is None else seed     # magnets' and sensors' tolerances
        self.fs = SimFlash(storage_root or call("firmware.sim.tempdir", "new", self))
        try:
            self.fs.mkdir("/")
        except OSError:
            pass
        self.cfg = None
        self.attach(cfg)

    def attach(self, cfg):
        """(Re)connect the parts described by cfg; sensor and flash state survive a reboot."""
        if self.cfg is None or cfg.n_slots != self.cfg.n_slots:
            n = cfg.n_slots
            self.lev = bytearray(n)      # checkers stacked on each slot
            self.col = bytearray(n)      # colour of the bottom one: 1 White, 2 Black
            self.stuck = {}
            self.drift_codes = 0
            self.release_at = [None, None, None]
            self.field = None
            self._factory = None
            stack = cfg.analog.get("stack")
            if stack and cfg.front_end == "analog":      # only Hall sensors read the field
                from firmware.sim.hallfield import HallField
                self.field = HallField(cfg, self._phys_seed)
            self.stack_max = stack["levels"] if stack else 1
        self.cfg = cfg
        self.load_pin = cfg.pins.get("sr_load")
        self.shift_pos = 0
        self.sel_base = cfg.pins["mux_s0"]
        self.btn_base = cfg.pins["btn_p0"]
        self.machine = _MachineView(self)
        self.neopixel = sim_neopixel
        self.rp2 = None          # the rp2 stand-in only for a PIO strip: its names cost qstrs
        if cfg.led_driver == "pio":
            from firmware.sim import rp2
            self.rp2 = rp2
        sim_machine.bind(self)

    # clock -----------------------------------------------------------------
    def clock(self):
        """Milliseconds since the world began (advance() adds to it; realtime adds the wall clock)."""
        if self.realtime:
            import time
            t = int(time.monotonic() * 1000) if hasattr(time, "monotonic") else time.ticks_ms()
            if self._t0 is None:
                self._t0 = t
            return t - self._t0 + self.now
        return self.now

    def ticks_ms(self):
        return self.clock() & TICKS_MASK

    def advance(self, ms, step=None, each=None):
        """Move the clock by ms; with ``each``, call each(ticks) every ``step`` ms on the way."""
        if each is None:
            self.now += ms
        else:
            end = self.now + ms
            step = step or 5
            while self.now < end:
                self.now = min(end, self.now + step)
                each(self.ticks_ms())
        if self.wdt_timeout is not None and self.clock() - self.wdt_fed > self.wdt_timeout:
            self.wdt_fired = True

    # sensors ---------------------------------------------------------------
    @staticmethod
    def offset(s):
        """The idealised sensors' zero offsets (codes)."""
        return ((s * 37) % 121) - 60

    def set_slot(self, s, on, colour=1):
        """One checker (``colour`` 1 White, 2 Black) on slot s, or none."""
        self.set_stack(s, (colour,) if on else ())

    def set_stack(self, s, sides, ids=None):
        """Slot s holds a stack of checkers: ``sides`` (1 White, 2 Black) bottom first, with
        their magnets ``ids`` (checkers 0..29; None: loose magnets)."""
        n = len(sides)
        self.lev[s] = n
        self.col[s] = sides[0] if n else 0
        if self.field is not None:
            self.field.put(s, sides, ids)

    def set_zone(self, z, count, colour=0):
        """Put ``count`` checkers on zone z as people do: a row from the base, then stacked on
        it (checker i on slot i % slots, level i // slots); more than fit are left off; colour
        1 White, 2 Black (0: White, for the digital front end it does not matter)."""
        first = self.cfg.zone_first[z]
        cap = self.cfg.zone_cap[z]
        c = colour or 1
        for j in range(cap):
            k = (count - j + cap - 1) // cap if count > j else 0
            if k > self.stack_max:
                k = self.stack_max
            self.set_stack(first + j, (c,) * k)

    def set_frame(self, bits):
        """A whole occupancy frame: slot s = byte s >> 3, bit s & 7 (colour kept or White)."""
        for s in range(self.cfg.n_slots):
            on = (bits[s >> 3] >> (s & 7)) & 1 if (s >> 3) < len(bits) else 0
            self.set_slot(s, on, self.col[s] or 1)

    def stick(self, s, value):
        """Force slot s: 1 reads occupied, 0 reads empty, "open" reads the ADC rail, None frees it."""
        if value is None:
            self.stuck.pop(s, None)
        else:
            self.stuck[s] = value

    def drift(self, codes):
        """Shift every linear Hall sensor's zero by ``codes`` (temperature, stray field)."""
        self.drift_codes = codes

    def occupied(self, s):
        v = self.stuck.get(s)
        if v is None:
            return 1 if self.lev[s] else 0
        return 1 if v == 1 else 0

    def shift_bytes(self, buf, start=0):
        """What the 74HC165 chain shifts out from its byte ``start`` on: slot bits, 0 where a
        magnet closes the reed, 1 for the spare inputs (tied to 3.3 V), then 0x00 past the last
        chip (its SER is grounded); a failed data line (``fail_front_end``) reads its level."""
        fail = self.front_end_fault
        if fail is not None:
            for b in range(len(buf)):
                buf[b] = 0xFF if fail == "high" else 0
            return
        n = self.cfg.n_slots
        chips = self.cfg.digital.get("chips", (n + 7) >> 3)
        for b in range(len(buf)):
            if start + b >= chips:
                buf[b] = 0
                continue
            v = 0xFF
            for bit in range(8):
                s = ((start + b) << 3) + bit
                if s < n and self.occupied(s):
                    v &= ~(1 << bit)
            buf[b] = v

    def spi_read(self, buf):
        """An SPI read clocks the chain on from where the last one stopped (the load pin, driven
        low, starts it again from the first chip)."""
        self.shift_bytes(buf, self.shift_pos)
        self.shift_pos += len(buf)

    def pin_low(self, pin):
        if pin == self.load_pin:
            self.shift_pos = 0

    def fail_leds(self, on=True):
        """The LED output fails: the PIO driver's DMA never finishes, the neopixel stand-in
        raises; False mends it. (A strip that is merely absent cannot be told from a working
        one: WS2812s send nothing back.)"""
        self.led_stall = on

    def fail_front_end(self, level=None):
        """The sensors' data line dead: "high" (floating or pulled up: the shift registers read
        0xFF, the ADC full scale) or "low" (shorted: 0x00, ADC 0); None mends it."""
        self.front_end_fault = level

    def adc_u16(self):
        fail = self.front_end_fault
        if fail is not None:
            return 0xFFFF if fail == "high" else 0
        s = (self.gpio_out >> self.sel_base) & 0xFF
        if s >= self.cfg.n_slots:
            return 0
        v = self.stuck.get(s)
        field = self.field
        if v == "open":
            code = 0
        elif self.signal_codes is not None or field is None:      # the idealised sensors
            zero = self.offset(s) if field is None else int(field.sensor(s)[1] + 0.5)
            code = self.cfg.analog["zero_code"] + zero + self.drift_codes
            if self.occupied(s):
                colour = 1 if v == 1 else self.col[s]
                sig = self.signal_codes or 500
                k = 1 if v == 1 else self.lev[s]
                code += -sig * k if colour == 1 else sig * k
            code += self._noise(self.noise or 0)
        else:
            code = self.cfg.analog["zero_code"] + self.drift_codes
            if v == 1:                                  # stuck on: reads as one White checker
                gain, zero, _ = field.sensor(s)
                code += zero + gain * field.per_mt * field.l1
            elif v == 0:
                code += field.sensor(s)[1]
            else:
                code += field.code[s]
            if not isinstance(code, int):
                code = int(code + 0.5) if code >= 0 else 0
            code += self._noise(field.noise if self.noise is None else self.noise)
        code = 0 if code < 0 else 4095 if code > 4095 else code
        return (code << 4) | (code >> 8)

    def _noise(self, amp):
        """Uniform noise of +-amp codes (the idealised model), or the physical model's."""
        if not amp:
            return 0
        if self.signal_codes is None and self.field is not None and self.noise is None:
            return self.field.noise_code()
        self._lcg = (self._lcg * 1103515245 + 12345) & 0x7FFFFFFF
        return (self._lcg >> 8) % (2 * amp + 1) - amp

    def factory_calibration(self, scanner):
        """What the factory measured on this board with its own scanner (the zeros, then the
        gains: firmware.sim.hallfield.calibration). Computed once per world (kept across
        reboots, like a board's flash)."""
        if self._factory is None:
            from firmware.sim.hallfield import calibration
            self._factory = calibration(self, scanner)
        return self._factory

    # buttons ---------------------------------------------------------------
    def press(self, button, ms=100):
        """Hold a button (0/"p0", 1/"p1", 2/"menu") down for ms from now."""
        from firmware.drivers.buttons import NAMES     # (not at import: see fakeboard)
        i = NAMES.index(button) if isinstance(button, str) else button
        self.release_at[i] = self.clock() + ms

    def gpio_in(self):
        v = 0x3FFFFFFF
        now = None
        for i in range(3):
            r = self.release_at[i]
            if r is None:
                continue
            if now is None:
                now = self.clock()
            if now < r:
                v &= ~(1 << (self.btn_base + i))
        return v

    # registers ---------------------------------------------------------------
    def mem_read(self, addr):
        if addr == _SIO_GPIO_IN:
            return self.gpio_in()
        if addr == _SIO_GPIO_OUT:
            return self.gpio_out
        if addr == _ROSC_RANDOMBIT:
            return self.rosc_bit()
        return 0

    def mem_write(self, addr, value):
        if addr == _SIO_GPIO_OUT:
            self.gpio_out = value
        elif addr == _SIO_GPIO_OUT_SET:
            self.gpio_out |= value
        elif addr == _SIO_GPIO_OUT_CLR:
            self.gpio_out &= ~value
        elif addr == _SIO_GPIO_OUT_XOR:
            self.gpio_out ^= value

    def stick_rosc(self, pattern=None):
        """A broken random source: the raw bit cycles through ``pattern`` (e.g. (1,) stuck
        high, (0, 1) stuck in a short cycle); None makes it healthy again."""
        self._rstuck = tuple(pattern) if pattern else None
        self._rstuck_i = 0

    def rosc_bit(self):
        """A raw, deliberately biased random bit (the driver must whiten it)."""
        stuck = self._rstuck
        if stuck is not None:
            i = self._rstuck_i
            self._rstuck_i = (i + 1) % len(stuck)
            return stuck[i]
        pos = self._rpos
        if pos >= len(self._rbits):
            self._refill(self._rbits)
            pos = 0
        self._rpos = pos + 1
        return 1 if self._rbits[pos] < self.rosc_p1 else 0

    def _refill(self, out):
        """The noise behind the raw bits, in place: the OS's, or a 32-bit xorshift when a seed
        was given (the same seed, the same dice: a game can be played again to reproduce it)."""
        x = self._seed
        n = len(out)
        if x is None:
            out[:] = os.urandom(n)
            return
        for i in range(0, n, 4):
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            out[i] = x & 0xFF
            out[i + 1] = (x >> 8) & 0xFF
            out[i + 2] = (x >> 16) & 0xFF
            out[i + 3] = x >> 24
        self._seed = x

    # LEDs ------------------------------------------------------------------
    def led_written(self, buf):
        if self.fs.dead:
            return
        self.frame = bytes(buf)
        self.frames += 1
        if self.on_led_frame is not None:
            self.on_led_frame(self.led_frame())

    def led_frame(self, text=False):
        """What the strip shows, RGB per LED in strip order (after the limiter; dark when off):
        bytes, or with ``text`` the protocol's "leds" line, the bytes in hex, made in one buffer
        (then its str): the simulator shares the board's heap, whose holes are small."""
        n = 3 * self.cfg.n_leds
        f = self.frame
        dark = f is None or self.fs.dead
        out = bytearray(2 * n + 24 if text else n)
        for b in range(n):
            r = b % 3
            v = 0 if dark else f[b + 1 if r == 0 else b - 1 if r == 1 else b]
            if text:
                out[2 * b + 22] = b"0123456789abcdef"[v >> 4]
                out[2 * b + 23] = b"0123456789abcdef"[v & 15]
            else:
                out[b] = v
        if not text:
            return bytes(out)
        out[:22] = b'{"t": "leds", "rgb": "'
        out[-2:] = b'"}'
        return str(out, "ascii")

    # watchdog ----------------------------------------------------------------
    def wdt_start(self, timeout):
        self.wdt_timeout = timeout
        self.wdt_fed = self.clock()

    def wdt_feed(self):
        self.wdt_fed = self.clock()

    # power -----------------------------------------------------------------
    def power_cut(self, after_bytes=None):
        """Cut the power now, or after ``after_bytes`` more bytes reach the flash (a rename
        counts 1). Afterwards writes raise PowerCut and the strip is dark until reboot()."""
        self.fs.power_cut(after_bytes)

    def reboot(self, path=None, front_end=None):
        """Power back on: a fresh Hardware on the same flash, sensors and clock."""
        from firmware.drivers import hardware
        self.fs.power_on()
        self.frame = None
        self.wdt_timeout = None
        self.wdt_fired = False
        self.release_at = [None, None, None]
        return build(path or hardware.DESCRIPTION, front_end or self.cfg.front_end, self)


def build(path=None, front_end=None, world=None, storage_root=None, led_driver=None):
    """The Hardware of a simulated board (``firmware.drivers.hardware``'s, on this module's parts;
    ``hw.sim`` is the world): ``world`` reuses a SimWorld (e.g. after a power cut), else a new one
    keeps its flash in ``storage_root`` (a host folder; a fresh temporary one by default).
    ``front_end`` ("digital"/"analog") and ``led_driver`` ("neopixel"/"pio") override board.json."""
    from firmware.drivers import hardware
    cfg = hardware.config(path or hardware.DESCRIPTION, front_end, led_driver)
    if world is None:
        world = SimWorld(cfg, storage_root)
    else:
        world.attach(cfg)
    return hardware.Hardware(cfg, world.machine, world.neopixel, world.rp2, world.fs,
                             world.ticks_ms, hardware.DATA_ROOT, world)


__all__ = ["SimWorld", "PowerCut", "build"]
