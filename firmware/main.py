"""The board's main program: the loop over the hardware, the session and the host link.

On the board it is deployed as main.py. On a PC it runs the unchanged firmware on the simulated
hardware, reading protocol commands from stdin and writing protocol lines to stdout:
    python -m firmware.main --sim [--variant V] [--flash DIR] [--seed N] [--virtual-time]
    micropython firmware/main.py --sim ...        (cwd = the repository root)
--virtual-time: the simulated clock moves only with ``sim wait <ms>`` (deterministic scripts).
"""

try:                    # first of all (the port runs main.py with Ctrl-C enabled): a Ctrl-C while
    import micropython  # the board starts is a byte, never a prompt; Runner.guard opens the REPL
    micropython.kbd_intr(-1)     # again once the board is known to be unlocked
except (ImportError, AttributeError):    # CPython: no REPL to close
    pass

import gc
import sys
import time

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_SCAN_MS = const(5)   # the scan period, ms


def _repo_root_on_path():
    arg0 = sys.argv[0] if sys.argv else ""
    if arg0.endswith("main.py") and "/" in arg0:
        firmware_dir = arg0[:arg0.rfind("/")]
        root = firmware_dir[:firmware_dir.rfind("/")] if "/" in firmware_dir else "."
        if root not in sys.path:
            sys.path.append(root or ".")     # after MICROPYPATH: precompiled .mpy files win


def _option(argv, name, default=None):
    if name in argv:
        i = argv.index(name)
        if i + 1 < len(argv):
            return argv[i + 1]
    return default


def _sleep_ms(ms):
    if hasattr(time, "sleep_ms"):
        time.sleep_ms(ms)
    else:
        time.sleep(ms / 1000)


class Runner:
    """Owns the App (and, simulated, the world it reboots on after a power cut)."""

    def __init__(self, argv):
        from firmware.board.hostlink import LineReader, write_line
        self.sim = "--sim" in argv
        self.virtual = "--virtual-time" in argv
        self.variant = _option(argv, "--variant", "short")
        self.write = write_line
        self.world = None
        if self.sim:
            from firmware import sim
            sim.install(False)     # (rp2: the world's, when a PIO strip needs it)
            # the modules a playing board keeps first, before anything else takes the heap:
            # their code lies together at its bottom, and the work of the boot (the
            # description's parse, the game read back) leaves its holes above them
            from firmware import app                # (the session, the rules core, ...)
            from firmware.board import ledview, hwfaults
            from firmware.drivers import hardware
            del app, ledview, hwfaults, hardware
            gc.collect()
            from firmware.drivers import board_config
            from firmware.drivers import hardware
            from firmware.sim.world import SimWorld, build
            cfg = board_config.load(hardware.DESCRIPTION, None)
            seed = _option(argv, "--seed")
            self.world = SimWorld(cfg, _option(argv, "--flash"), realtime=not self.virtual,
                                  seed=None if seed is None else int(seed))
            hw = build(world=self.world)
            del cfg               # the world has the Hardware's description now: free this one
        else:
            from firmware.drivers import hardware
            hw = hardware.build()
        self.reader = LineReader()
        self.closed = None    # the REPL's state: closed while the board is locked (``guard``)
        gc.collect()          # the description's parse is garbage now: free it before the App
        self.app = self._boot(hw)   # is built, so the App's long-lived objects fill its place
        self.guard()

    def guard(self):
        """On a board, the REPL is closed while it is locked for tournament play: Ctrl-C is a
        plain byte then (no KeyboardInterrupt, so no prompt, no raw REPL, no reading the flash);
        unlocked, Ctrl-C stops the firmware as usual (deploy, calibrate)."""
        locked = self.app.session.auth.locked
        if locked == self.closed:
            return
        self.closed = locked
        try:
            import micropython
            # on a board Ctrl-C then arrives as a byte the host link drops (the fake board of
            # the tests, the unix port, keeps it a signal and ``run`` catches it: fakeboard.py)
            micropython.kbd_intr(-1 if locked else 3)
        except (ImportError, AttributeError):     # CPython: no REPL to close
            pass

    def _boot(self, hw):
        from firmware.app import App
        app = App(hw, self.write, self.variant)
        app.start()
        return app

    def reboot(self):
        """Simulated power back on: the old App is let go (and collected) before the new one is
        built, as on a board, where a reset frees everything; two at once do not fit a Pico. So
        is every module of the board's (not the world's, ``firmware.sim``, which survives a power
        cut, nor the host side of the link, whose reader holds the input in transit): a reset
        loads them all again, into an empty heap, and so does the next boot here, into the room
        they leave together (kept, the modules a long session loaded again in its holes stay
        there as islands, and the journal's replay found no block of a few hundred bytes in
        45 KB free). (Inline, not helpers: every global name costs the name pool, see
        docs/hall.md, "A Pico W's heap".)"""
        hands = getattr(self.world, "hands", None)
        if hands is not None:
            hands.tick = None            # the world's hands held the old App's tick
        self.app = None
        from firmware import drop
        kept = ("firmware.sim", "firmware.board.hostlink", "firmware.main")
        board = []
        for m in sys.modules:
            # (split, not startswith("firmware."): that short literal would be a new name)
            if m.split(".", 1)[0] == "firmware" and m != "firmware":
                for k in kept:
                    if m == k or m.startswith(k + "."):
                        break
                else:
                    board.append(m)
        drop(*board)
        gc.collect()
        if hands is not None:
            hands.pack()                 # the checkers' lists, out of the next boot's way
            gc.collect()
        hw = self.world.reboot()
        gc.collect()          # the description's parse is garbage now, as at the first boot
        self.app = self._boot(hw)

    def poll_host(self):
        """Run the command lines that arrived; how many (0 when none), or -1 once the host
        closed the input."""
        n = 0
        for text in self.reader.lines():
            n += 1
            self.app.line(text)
            if not self.app.powered and self.world is not None:
                self.reboot()
        if n:
            self.guard()                 # a command may have locked or unlocked the board
        return -1 if self.reader.eof else n

    def run(self):
        """Every scan period: the hardware (unless time is virtual: then only ``sim wait`` moves
        it), then the host's lines; straight on while lines wait. One loop, no scheduler: the
        scan and the host share one thread, and neither can starve the other."""
        while True:
            try:
                if not self.virtual:
                    self.app.tick(self.app.hw.ticks_ms())
                n = self.poll_host()
                if n < 0:
                    return
                if not n:
                    _sleep_ms(_SCAN_MS)
            except KeyboardInterrupt:
                if not self.closed:       # unlocked: Ctrl-C stops the firmware (the REPL opens)
                    raise


_USAGE = const("usage: python -m firmware.main --sim [--variant V] [--flash DIR] [--seed N] "
               "[--virtual-time]   (on a board: main.py, no options)")


def _maybe_locked(names=("data/lock", "data/lock.b")):
    """Before the App knows: boot.py's rule (a lock copy that does not say it is off), read
    relative to the board's "/" (fail closed: a copy that cannot be read counts as locked)."""
    for name in names:
        try:
            with open(name, "rb") as f:
                if b'"locked": false' not in f.read():
                    return True
        except OSError as exc:
            if exc.args and exc.args[0] != 2:      # ENOENT: no copy; anything else: locked
                return True
    return False


def _restart_if_locked(runner):
    """main.py is about to end, and on a board the REPL would open: a board that is (or may be)
    locked starts again instead, so its flash (its key, the dice seed) is never readable."""
    if runner.closed if runner is not None else _maybe_locked():
        try:
            import machine
            machine.reset()
        except (ImportError, AttributeError):    # a host without the stand-ins: no board
            pass


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if "-h" in argv or "--help" in argv:
        print(_USAGE)
        return 0
    if "--sim" not in argv and sys.implementation.name != "micropython":
        print("CPython is no board: add --sim to run on the simulated board\n" + _USAGE)
        return 2
    runner = None
    try:
        from firmware.drivers.board_config import BoardConfigError
        try:
            runner = Runner(argv)
        except BoardConfigError as exc:        # the board cannot start: say why on the host link
            from firmware.board.hostlink import write_line
            import json
            write_line(json.dumps({"t": "fatal", "msg": str(exc)}))
            if "--sim" not in argv:
                _restart_if_locked(None)
            return 1
        runner.run()
    except Exception:
        # a crash (at start-up too: a damaged flash, no memory): on a locked board the firmware
        # starts again at once, never a prompt; unlocked, the traceback is shown
        _restart_if_locked(runner)
        raise
    if not runner.sim:                          # a board's input never ends; if it did
        _restart_if_locked(runner)
    return 0


if __name__ == "__main__":
    _repo_root_on_path()
    _rc = main()
    if _rc and sys.platform != "rp2":    # on a board, SystemExit from main.py would soft-reset
        sys.exit(_rc)
