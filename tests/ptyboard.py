"""A real board's stand-in for the live view's tests: the firmware on the simulated hardware (CPython,
``host_tools.web.firmware_process``) behind a pseudo-terminal, so that ``play --port``, ``director
--port`` and pyserial open it as they would a board's USB serial port. Faster than
``host_tools.device.fakeboard`` (no deploy, no MicroPython) and, like a board whose host is not reading,
it drops what it writes while nobody has the port open instead of stalling."""

import errno
import os
import threading
import time
import tty

from host_tools.web.firmware_process import FirmwareProcess


class PtyBoard:
    """``start()``, then open ``.port``; ``stop()`` when done. ``flash_dir`` keeps the board's
    flash (its key, its lock, its journal) from one start to the next."""

    def __init__(self, flash_dir, seed=7):
        self.firmware = FirmwareProcess(flash_dir=str(flash_dir), seed=seed)
        self.port = None
        self.said = []               # every line the board wrote, for the tests to read
        self.heard = []              # every line the host sent it
        self._master = self._slave = None
        self._stop = threading.Event()
        self._thread = None
        self._last = time.monotonic()

    def start(self):
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.port = os.ttyname(self._slave)
        self.firmware.start(self._to_host)
        self._thread = threading.Thread(target=self._from_host, name="ptyboard", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self.firmware.close()
        if self._thread is not None:
            self._thread.join(timeout=2)
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def settle(self, quiet=0.3, timeout=10.0):
        """Wait until the board has said nothing for ``quiet`` seconds: the answers to a client
        that closed the port are out, so the next one does not read them as its own."""
        end = time.monotonic() + timeout
        while time.monotonic() - self._last < quiet and time.monotonic() < end:
            time.sleep(0.05)

    def _to_host(self, text):
        self._last = time.monotonic()
        self.said.append(text)
        try:
            os.write(self._master, (text + "\n").encode("utf-8"))
        except OSError as exc:       # the host reads nothing now: the line is lost, as on USB
            if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
                raise

    def _from_host(self):
        import select
        pending = b""
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self._master, 4096)
            except OSError:
                continue
            pending += chunk
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                line = raw.decode("utf-8", "replace").rstrip("\r")
                self.heard.append(line)
                self.firmware.send(line)
