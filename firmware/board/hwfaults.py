"""Hardware faults as the board reports them: which part failed (the dice's random source, the
sensor front end, a stuck button, the LED output), one ``hw_fault`` event per change on the host
link, a beep when one appears, and the code the LEDs show while any lasts.

What each driver detects (docs/hardware.md, "Hardware faults"):
* dice: ``Dice.roll`` raised DiceFault (the random bit reads constant or cycles; bounded tries);
* sensors: the shift-register chain failed its check (``ShiftRegisterScanner.silent``: the data
  line floats, is pulled up or is shorted), every zone has a sensor the zone reader cannot
  believe at once (an analog front end whose ADC reads a rail), or the sensors count more
  checkers than a game has (30). Past twice that it is the front end (a failed mux or ADC):
  ``hold`` is set, the App keeps the board's last reading (no phantom lifts or places), and it
  lasts until every sensor is believed again (the rail check drops them one a scan);
* p0, p1, menu: a button held for ``buttons.stuck_ms`` (``Buttons.stuck``);
* leds: the strip's driver failed (``Leds.fault``: a DMA that never finished). A strip that is
  merely absent or cut cannot be seen: WS2812s send nothing back.
"""

from firmware.board.zonemap import ZONES
from firmware.drivers.buttons import NAMES

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

PARTS = ("dice", "sensors") + NAMES + ("leds",)
CODES = (1, 2, 3, 3, 3, 4)         # the number die 0 shows for each part (the buttons share 3)
_MAX_CHECKERS = const(30)
ALL_ZONES = (1 << ZONES) - 1
_BEEP_HZ = const(440)
_BEEP_MS = const(600)


class HwFaults:
    """``poll(now, fresh)`` once per scan (``fresh``: the zone counts changed) returns None, or
    the list of ``hw_fault`` event fields for the parts whose state changed; ``bits`` (bit i for
    PARTS[i]) and ``why`` say what is failed now; ``code()`` is the number to show (0: none)."""

    def __init__(self, hw):
        self.hw = hw
        self.bits = 0
        self.why = [None] * len(PARTS)
        self._sensors = None        # the sensors' reason, judged when the counts change
        self.hold = False           # the front end failed as a whole: keep the last reading

    def _sensor_reason(self, fresh):
        hw = self.hw
        sc = hw.scanner
        if getattr(sc, "silent", False):
            return "the shift-register chain fails its check (data line open or shorted)"
        zones = hw.zones
        if zones.faults == ALL_ZONES:
            return "no zone has a sensor that can be believed (sensor supply or ADC)"
        if fresh:
            n = sum(zones.counts)
            # more than twice a game's checkers is no hand or stray magnet but the front end
            # (a failed mux or ADC reads every sensor at a rail): the board keeps its last
            # reading, and the fault holds while the rail check distrusts the sensors one by one
            # (the count falls as they go) until every sensor is believed again. A few too many
            # (a brushed or stuck sensor) is reported, and the reading goes on to the game.
            if n > 2 * _MAX_CHECKERS:
                self.hold = True
            elif not (self.hold and zones.faults):
                self.hold = False
            if n > _MAX_CHECKERS:
                self._sensors = "the sensors count %d checkers (a game has %d)" % (n, _MAX_CHECKERS)
            elif not self.hold:
                self._sensors = None
        return self._sensors

    def poll(self, now, fresh=False):
        hw = self.hw
        hw.buzzer.poll(now)
        why = self.why
        bits = 0
        dice = hw.dice.fault
        if dice is not None:
            bits |= 1
        sensors = self._sensor_reason(fresh)
        if sensors is not None:
            bits |= 2
        stuck = hw.buttons.stuck
        bits |= stuck << 2
        leds = hw.leds.fault
        if leds is not None:
            bits |= 32
        if bits == self.bits:
            return None
        out = []
        new = bits & ~self.bits
        for i in range(len(PARTS)):
            bit = 1 << i
            if (bits ^ self.bits) & bit:
                if bits & bit:
                    if i == 0:
                        text = dice
                    elif i == 1:
                        text = sensors
                    elif i == 5:
                        text = leds
                    else:
                        text = "button %s held down for %d s" % (
                            PARTS[i], hw.buttons.stuck_ms // 1000)
                    why[i] = text
                    out.append({"ev": "hw_fault", "part": PARTS[i], "fault": True, "why": text})
                else:
                    why[i] = None
                    out.append({"ev": "hw_fault", "part": PARTS[i], "fault": False})
        self.bits = bits
        if new:
            hw.buzzer.beep(now, _BEEP_HZ, _BEEP_MS)   # heard even when the LEDs are what failed
        return out

    def code(self):
        """The number die 0 shows: 1 dice, 2 sensors, 3 a button, 4 LEDs (the lowest failed)."""
        bits = self.bits
        for i in range(len(PARTS)):
            if bits & (1 << i):
                return CODES[i]
        return 0

    def active(self):
        """The failed parts, for ``status``."""
        return [PARTS[i] for i in range(len(PARTS)) if self.bits & (1 << i)]
