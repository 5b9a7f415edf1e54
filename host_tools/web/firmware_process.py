"""The unchanged firmware on the simulated hardware in a subprocess (CPython or MicroPython), as a line link."""

import subprocess
import sys
import threading

from host_tools.device.fakeboard import micropython_command
from host_tools import REPO_ROOT

MICROPYTHON_HEAP = "512K"


def firmware_command(micropython=False, variant=None, flash_dir=None, seed=None):
    """The command line that runs firmware/main.py on the simulated hardware."""
    if micropython:
        cmd = micropython_command() + ["-X", "heapsize=" + MICROPYTHON_HEAP,
                                       "firmware/main.py", "--sim"]
    else:
        cmd = [sys.executable, "-u", "-m", "firmware.main", "--sim"]
    if variant:
        cmd += ["--variant", variant]
    if flash_dir:
        cmd += ["--flash", flash_dir]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    return cmd


class FirmwareProcess:
    """Protocol lines to and from the firmware running in a child process (same interface as
    ``serial_link.SerialLink``: ``start(on_line)``, ``send(text)``, ``close()``, ``on_close``)."""

    kind = "sim"

    def __init__(self, micropython=False, variant=None, flash_dir=None, cwd=REPO_ROOT, seed=None):
        self.micropython = micropython
        self.command = firmware_command(micropython, variant, flash_dir, seed)
        self.cwd = cwd
        self.proc = None
        self.stderr_tail = []
        self.on_close = None
        self._closing = False
        self._write_lock = threading.Lock()
        self._threads = []

    def describe(self):
        return "firmware on the simulated board (%s)" % (
            "MicroPython unix port" if self.micropython else "CPython")

    def start(self, on_line):
        self.proc = subprocess.Popen(
            self.command, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, bufsize=0)
        for target, args in ((self._read_loop, (on_line,)), (self._stderr_loop, ())):
            t = threading.Thread(target=target, args=args, daemon=True, name="firmware-link")
            t.start()
            self._threads.append(t)
        return self

    def send(self, text):
        data = (text.rstrip("\r\n") + "\n").encode("utf-8")
        with self._write_lock:
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def close(self):
        self._closing = True
        if self.proc is None:
            return
        try:
            self.proc.stdin.close()       # the firmware ends when its input closes
        except OSError:
            pass
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=3)
        for t in self._threads:
            t.join(timeout=2)

    def _read_loop(self, on_line):
        for raw in self.proc.stdout:
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if text:
                on_line(text)
        if self.on_close is not None and not self._closing:
            self.on_close()

    def _stderr_loop(self):
        for raw in self.proc.stderr:
            self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip())
            del self.stderr_tail[:-40]
