"""A virtual board in-process: the unchanged firmware App on the simulated hardware, with hands.

Tests and the soak drive it with physical actions (lift, place, slide, press, knock, power cut)
and read back the protocol lines the firmware wrote. The clock is virtual: time passes only in
``wait`` (the firmware ticks every 5 ms meanwhile), so every run is deterministic given its dice.
"""

import hashlib
import json
import os
import shutil
import tempfile

from firmware import sim as _sim

_sim.install()

from firmware.drivers import board_config, hardware  # noqa: E402
from firmware.drivers.buttons import NAMES  # noqa: E402
from firmware.sim import world as simworld  # noqa: E402
from firmware.sim.world import SimWorld  # noqa: E402
from firmware.sim.flash import PowerCut  # noqa: E402
from firmware.app import App  # noqa: E402
from firmware.board.zonemap import zone_name  # noqa: E402
from firmware.board.tracker import SETTLED  # noqa: E402

class QuickWorld(SimWorld):
    """The simulated board with the shift-register image cached between sensor changes (the
    soak scans the sensors ten thousand times a game; the image only changes when hands act)."""

    _image = None

    def attach(self, cfg):
        self._image = None
        SimWorld.attach(self, cfg)

    def set_stack(self, s, sides, ids=None):
        self._image = None
        SimWorld.set_stack(self, s, sides, ids)

    def stick(self, s, value):
        self._image = None
        SimWorld.stick(self, s, value)

    def fail_front_end(self, level=None):
        self._image = None
        SimWorld.fail_front_end(self, level)

    def shift_bytes(self, buf, start=0):
        if start:                        # past the first read: the chain check's tail byte
            SimWorld.shift_bytes(self, buf, start)
            return
        img = self._image
        if img is None or len(img) != len(buf):
            SimWorld.shift_bytes(self, buf)
            self._image = bytes(buf)
        else:
            buf[:] = img


SCAN_MS = 10       # the soak's scan: the firmware scans every 5 ms on the board; 10 keeps every debounce honest
PACE_MS = 50       # the soak's hurried hands: 50 ms per action (people take 250 ms or more)


def world_seed(key):
    """The simulated world's random bits for a soak's game key (its board's fair dice)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big")


SETTLE_MS = 260         # a hand's action: longer than the debounce (20/40 ms) and than the zone
                        # reader's quick-flip window (250 ms), as people are


class VirtualBoard:
    """One simulated board running the firmware; ``lines`` holds every JSON line it wrote.
    ``fast``: frame-level hardware (host_tools.soak.soakfast) instead of the slot-level simulation.
    ``seed`` fixes the simulated world's random bits (the board's fair dice), so a board plays
    the same game again from the same seed and actions; ``unique_id`` (bytes) is its flash's
    unique id, whose hex is the board's id (one of its own in a process by default)."""

    made = 0

    def __init__(self, variant="short", flash_dir=None, keep_leds=False, record=False, scan_ms=5,
                 fast=False, front_end=None, seed=None, unique_id=None):
        self.own_dir = flash_dir is None
        ram = "/dev/shm" if os.path.isdir("/dev/shm") else None    # renames on tmpfs are cheap
        self.flash_dir = flash_dir or tempfile.mkdtemp(prefix="nardy-vb-", dir=ram)
        cfg = board_config.load(hardware.DESCRIPTION, front_end)
        self.fast = fast
        if fast:
            import random
            from host_tools.soak.soakfast import FastWorld
            self.world = FastWorld(cfg, self.flash_dir,
                                   None if seed is None else random.Random(seed))
        else:
            self.world = QuickWorld(cfg, self.flash_dir, seed=seed)   # seed: the dice's bits
        self.keep_leds = keep_leds
        self.scan_ms = scan_ms
        self.pace = SETTLE_MS       # ms each hand action takes (the soak hurries)
        self.lines = []
        self.script = [] if record else None     # the protocol lines that replay this run
        self.variant = variant
        self.boots = 0
        VirtualBoard.made += 1             # every virtual board has a flash id of its own
        self.world.unique_id = unique_id or ("vb%06d" % VirtualBoard.made).encode()
        self._boot(self.world.reboot() if fast else
                   simworld.build(front_end=front_end, world=self.world))

    def _boot(self, hw):
        self.hw = hw
        self.app = App(hw, self._write, self.variant)
        self.hands = self.world.hands
        self.hands.led_lines = self.keep_leds
        self.hands.scan_ms = self.scan_ms
        self.boots += 1
        self.app.start()

    def close(self):
        if self.own_dir:
            shutil.rmtree(self.flash_dir, ignore_errors=True)

    def _write(self, text):
        if not self.keep_leds and text.startswith('{"t": "leds"'):
            return
        self.lines.append(json.loads(text))

    # -- reading what the firmware said ---------------------------------------------------------
    @property
    def session(self):
        return self.app.session

    def mark(self):
        return len(self.lines)

    def since(self, mark, ev=None, t=None):
        out = []
        for obj in self.lines[mark:]:
            if t is not None and obj.get("t") != t:
                continue
            if ev is not None and obj.get("ev") != ev:
                continue
            out.append(obj)
        return out

    def record(self, serial=None):
        """The game's record as the board's ``export`` streams it, assembled (host_tools.records.export)."""
        from host_tools.records.export import assemble
        m = self.mark()
        r = self.cmd("export" if serial is None else "export %d" % serial)
        if r is None or r.get("t") != "ok":
            raise RuntimeError("export refused: %r" % (r,))
        return assemble(self.lines[m:])[0]

    def events(self, serial=None):
        """The events of the game's record, in order (dicts)."""
        return [json.loads(line[:-33]) for line in self.record(serial)["lines"]]

    def status(self):
        self.cmd("status")
        return [o for o in self.lines if o.get("t") == "status"][-1]

    # -- commands and actions --------------------------------------------------------------------
    def cmd(self, text):
        """Send one protocol line; returns the ok/err object that ended it."""
        m = self.mark()
        self._log(text)
        self.app.line(text)
        if not self.app.powered:
            self.reboot()
        for obj in self.lines[m:]:
            if obj.get("t") in ("ok", "err"):
                return obj
        return None

    def _log(self, text):
        if self.script is not None:
            self.script.append(text)

    def wait(self, ms=None):
        if ms is None:
            ms = self.pace
        self._log("sim wait %d" % ms)
        self.hands.wait(ms)

    def lift(self, zone, side=-1, settle=True):
        self._log("sim lift %s%s" % (zone_name(zone), "" if side < 0 else " %d" % side))
        self.hands.lift(zone, side)
        if settle:
            self.wait()

    def place(self, zone, side=-1, settle=True):
        self._log("sim place %s%s" % (zone_name(zone), "" if side < 0 else " %d" % side))
        self.hands.place(zone, side)
        if settle:
            self.wait()

    def move(self, src, dst, side=-1):
        self.lift(src, side)
        self.place(dst)

    def slide(self, src, dst, via, dwell=30, side=-1):
        """Slide a checker from src over the zones ``via`` (each touched for ``dwell`` ms)."""
        self.lift(src, side)
        for z in via:
            self.place(z, -1, False)
            self.wait(dwell)
            self.lift(z, self.hands.stacks[z][-1], False)
            self.wait(dwell)
        self.place(dst)

    def press(self, who, ms=80):
        i = NAMES.index(who) if isinstance(who, str) else who
        self._log("sim press %s %d" % (NAMES[i], ms))
        self.world.press(i, ms)
        self.wait(ms + 40)

    def setup(self):
        """Set out the checkers where the tracked game has them, and look at the board until it
        reads them (2 s at most: people take longer than that to set out 30 checkers; a stack
        set down whole can take the sensors' periodic second reading, ~0.7 s a round)."""
        self.cmd("sim setup")
        self.wait(100)
        for _ in range(20):
            if self.session.phase != "setup":
                break
            self.wait(100)

    def power_cut(self, after_bytes=None, off_ms=0):
        """Cut the power (now, or during the next flash writes) and boot again."""
        if after_bytes is None:
            self._log("sim power_cut")
            self.app.power_cut()
            self.reboot(off_ms)
        else:
            self.world.power_cut(after_bytes)

    def reboot(self, off_ms=0):
        self.app.powered = False
        if off_ms:
            self.world.advance(off_ms)
        self._boot(self.world.reboot())
        self.wait(150)

    def guarded(self, fn, *args):
        """Run an action; a power cut armed for the flash writes reboots the board."""
        try:
            return fn(*args)
        except PowerCut:
            self.reboot()
            return None

    def force_position(self, text):
        """Test fixture: go on from a position (Position text; its side rolls next), with the
        checkers set out to match (the protocol's ``sim position``)."""
        from firmware.rules.position import Position
        assert self.cmd("sim position " + Position.parse(text).encode())["t"] == "ok"
        self.wait(100)

    # -- the truth -------------------------------------------------------------------------------
    def physical(self):
        return bytearray(len(s) for s in self.hands.stacks)

    def settled(self):
        return self.session.tracker.state == SETTLED

    def zone_of(self, side, pip):
        return self.session.zmap.zone(side, pip)

    def name(self, z):
        return zone_name(z)
