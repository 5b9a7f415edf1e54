"""The board application: sensors and buttons in, the session's verdicts and LEDs out, host lines."""

import gc
import json
import sys

from firmware.board.session import Session, P0, P1, MENU
from firmware.drivers.dice import DiceFault
from firmware.board.tracker import SETTLED, MISMATCH
from firmware.board.zonemap import zone_name, ZONES
from firmware.drivers.buttons import BTN_P0, BTN_P1, BTN_MENU, LONG

FW_VERSION = "0.5.0"        # the one version: pyproject.toml, hello and --version read it
_BUTTON = {BTN_P0: P0, BTN_P1: P1, BTN_MENU: MENU}
_COLLECT = sys.implementation.name == "micropython"


class App:
    """One board: ``start()`` once, then ``tick(now)`` every scan period and ``line(text)`` for
    each command line; ``write`` gets each protocol line (without the newline)."""

    def __init__(self, hw, write, variant="short"):
        self.hw = hw
        self.write = write
        self.variant = variant
        world = hw.sim
        self.sim = None
        self.features = {}   # commands of feature modules this board adds (protocol.FEATURES)
        if world is not None:
            from firmware.sim.hands import SimHands
            self.features["sim"] = "firmware.sim.commands"   # the sim's own commands
            hands = getattr(world, "hands", None)
            if hands is None:
                hands = SimHands(world)
                world.hands = hands
            hands.tick = self.tick
            self.sim = hands
        if hw.config.wifi:          # a Pico W: its link to the tournament hall (hall_link.py)
            self.features["hall"] = "firmware.board.hall_link"
        self.powered = True
        self.hwfaults = None   # (built in ``start``, after the resume: at boot their code and
        self.view = None       # the protocol's come after the journal's, which needs the room)
        self.by = "host"     # who sent the command being run (protocol: host or director)
        self.session = Session(hw.storage, hw.dice.roll, hw.zones.capacity, self.emit,
                               self._clock, hw.board_id)
        self.dirty = True
        self._phase = -1
        self._last = bytearray(ZONES)
        self._born = hw.ticks_ms()

    settle_ms = 120      # sensors are believed after the debounce of the first scans

    def _clock(self):
        return self.hw.ticks_ms()

    # -- output ------------------------------------------------------------------------------
    def emit(self, kind, fields):
        obj = {"t": kind}
        for k in fields:
            obj[k] = fields[k]
        if kind == "status" and self.hwfaults is not None:
            obj["hw_faults"] = self.hwfaults.active()     # failed parts (hwfaults.PARTS)
        self.write(json.dumps(obj))
        self.dirty = True

    # -- life --------------------------------------------------------------------------------------
    def start(self):
        """Say hello, then resume the journaled game or start a new match."""
        # the resident modules first, while the heap is whole: the game read back leaves it
        # in holes, and their code needs blocks of a kilobyte and more
        from firmware.board.ledview import LedView
        from firmware.board.hwfaults import HwFaults
        self.emit("hello", {"fw": FW_VERSION, "hw": "sim" if self.sim is not None else "rp2040",
                            "variant": self.variant, "board": self.session.identity.board_id,
                            "locked": self.session.auth.locked})
        if not self.session.resume():
            self.session.new_match(self.variant)
        self.hwfaults = HwFaults(self.hw)
        self.view = LedView(self.hw.leds)
        if "hall" in self.features:              # loaded for good: it publishes every line
            import firmware as features
            features.load(self.features["hall"]).run(self, ["hall", "on"], None, None)
        self.tick(self.hw.ticks_ms())

    def tick(self, now):
        """One scan period: buttons, sensors, LEDs, watchdog."""
        if not self.powered:
            return
        hw = self.hw
        ev = hw.buttons.poll(now)
        if ev:
            who = _BUTTON.get(ev & ~LONG)
            if who is not None:
                try:
                    self.session.press(who, bool(ev & LONG))
                except DiceFault as exc:      # no throw: refused, nothing changed (hw_fault)
                    self.emit("ev", {"ev": "refused", "what": "throw", "reason": str(exc)})
                self.dirty = True
        self.session.tick(now)
        fresh = hw.zones.poll(now)
        faults = self.hwfaults.poll(now, fresh)
        if faults is not None:
            for f in faults:
                self.emit("ev", f)
        if not fresh and not self.session.have_frame:
            fresh = hw.ticks_diff(now, self._born) >= self.settle_ms
        if fresh and self.hwfaults.hold and self.session.have_frame:
            fresh = False                     # a failed front end: the board keeps its last reading
        if fresh:
            counts = hw.zones.counts
            tr = self.session.tracker
            was = tr.state
            self.session.frame_in(counts, hw.zones.faults, hw.zones.colour,
                                  getattr(hw.zones, "unclear", 0))
            self._render(now, True)
            self._raw_events(counts)
            if was != SETTLED and tr.state == SETTLED and _COLLECT:
                gc.collect()     # hands are free: collect now, so no collection falls mid-lift
        else:
            self._render(now, self.dirty)
            tr = self.session.tracker
            hint = tr.hint
            tr.prepare()                      # idle: ready the next lift's destinations
            if tr.hint != hint:
                self.dirty = True             # stacks the sensors cannot see: lit ahead
        hw.wdt.feed()

    def _render(self, now, force):
        tr = self.session.tracker
        animated = tr.flash or tr.ambiguous or tr.state == MISMATCH \
            or not self.session.setup_done or self.session.verdict is not None \
            or self.session.resign_offer is not None \
            or self.view.clock_low(self.session, now) or self.hwfaults.bits \
            or self.view.animated(self.session, now)
        phase = (now // 125) if animated else -1
        if not force and phase == self._phase:
            return
        self._phase = phase
        self.dirty = False
        if self.view.render(self.session, now, self.hwfaults.code()) and self.sim is not None \
                and self.sim.led_lines:
            self.write(self.hw.sim.led_frame(True))

    def _raw_events(self, counts):
        last = self._last
        for z in range(ZONES):
            c = counts[z]
            if c != last[z]:
                self.emit("ev", {"ev": "lift" if c < last[z] else "place",
                                 "zone": zone_name(z), "count": c})
                last[z] = c

    def line(self, text):
        """One command line from the host."""
        if self.powered:
            from firmware.board import protocol
            protocol.handle(self, text)

    def power_cut(self):
        """Simulated hardware: the power goes now; the runner reboots a new App on the same
        world (flash, checkers and clock survive)."""
        self.hw.sim.power_cut()
        self.powered = False
        self.sim.tick = None       # the hands stay with the world; this board's RAM does not
