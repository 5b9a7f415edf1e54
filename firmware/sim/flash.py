"""Simulated flash: a host folder behind an os-like interface, with power cuts at any byte."""

import os


class PowerCut(BaseException):
    """The simulated board lost power: nothing more reaches the flash until reboot."""


class _File:
    def __init__(self, flash, f, writing):
        self.flash = flash
        self.f = f
        self.writing = writing

    def write(self, data):
        self.flash.room(len(data))
        n = self.flash.spend(len(data))
        if n < len(data):
            self.f.write(data[:n])
            self.f.close()
            raise PowerCut()
        return self.f.write(data)

    def read(self, n=-1):
        return self.f.read() if n is None or n < 0 else self.f.read(n)

    def flush(self):
        self.f.flush()

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()
        return False


class SimFlash:
    """Paths like "/data/x" live under ``root`` on the host. ``cut_after`` (bytes, a rename
    costs 1) arms a power cut in the middle of the next writes; ``dead`` refuses everything;
    ``capacity`` (bytes, None: unlimited) makes a write that would not fit fail whole with
    ENOSPC, as a full littlefs does."""

    def __init__(self, root, capacity=None):
        self.root = root
        self.capacity = capacity
        self.cut_after = None
        self.dead = False
        self.bytes_written = 0

    def power_cut(self, after_bytes=None):
        """Cut the power now, or after ``after_bytes`` more bytes are written (a rename counts 1)."""
        if after_bytes is None:
            self.dead = True
        else:
            self.cut_after = after_bytes

    def power_on(self):
        self.dead = False
        self.cut_after = None

    def host(self, path):
        return self.root + (path if path.startswith("/") else "/" + path)

    def used(self):
        """Bytes in all files under the root."""
        total = 0
        for top, _dirs, files in os.walk(self.root):
            for name in files:
                total += os.path.getsize(os.path.join(top, name))
        return total

    def room(self, n):
        """Raise ENOSPC when ``n`` more bytes do not fit in ``capacity``."""
        if self.capacity is not None and self.used() + n > self.capacity:
            raise OSError(28, "ENOSPC")

    def spend(self, n):
        """How many of n units get done before the power goes (all of them normally)."""
        if self.dead:
            raise PowerCut()
        if self.cut_after is not None:
            if n > self.cut_after:
                n = self.cut_after
                self.cut_after = 0
                self.dead = True
                self.bytes_written += n
                return n
            self.cut_after -= n
        self.bytes_written += n
        return n

    def open(self, path, mode="r"):
        writing = "w" in mode or "a" in mode or "+" in mode
        if writing and self.dead:
            raise PowerCut()
        return _File(self, open(self.host(path), mode), writing)

    def rename(self, a, b):
        if self.spend(1) < 1:
            raise PowerCut()
        os.rename(self.host(a), self.host(b))

    def remove(self, path):
        if self.dead:
            raise PowerCut()
        os.remove(self.host(path))

    def mkdir(self, path):
        os.mkdir(self.host(path))

    def listdir(self, path="/"):
        return os.listdir(self.host(path))

    def ilistdir(self, path="/"):
        """The entries one at a time, as MicroPython's ``os.ilistdir`` (CPython: (name,))."""
        host = self.host(path)
        if hasattr(os, "ilistdir"):
            return os.ilistdir(host)
        return ((name,) for name in os.listdir(host))

    def stat(self, path):
        return os.stat(self.host(path))
