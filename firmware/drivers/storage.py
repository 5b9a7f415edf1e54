"""Files on the board's flash: read, atomic replace (temp file + rename), remove, checksums."""

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

try:
    from binascii import crc32
except ImportError:  # pragma: no cover - every supported port has it
    crc32 = None  # type: ignore[assignment]

# littlefs (the rp2 port's filesystem) is copy-on-write: a rename that replaces a file commits
# atomically, so after a power cut the name holds either the whole old or the whole new file. A
# power cut during the temp write leaves a stray ".tmp" that the next write or read removes.

_TMP = const(".tmp")


class Storage:
    """Named blobs under ``root``; ``fs`` is the simulator's flash, or None for the board's own
    filesystem (the os module, with the built-in open)."""

    def __init__(self, root, fs=None):
        if fs is None:
            import os
            fs = _OsFiles(os)
        self.root = root
        self.fs = fs
        try:
            fs.mkdir(root)
        except OSError:
            pass

    def path(self, name):
        return self.root + "/" + name

    def read(self, name):
        """The file's bytes, or None if there is none."""
        try:
            with self.fs.open(self.path(name), "rb") as f:
                return f.read()
        except OSError:
            return None

    def write_atomic(self, name, data):
        """Replace ``name`` with ``data``: readers see the old or the new bytes, never a mix."""
        fs = self.fs
        final = self.path(name)
        tmp = final + _TMP
        try:
            with fs.open(tmp, "wb") as f:
                f.write(data)
        except OSError:
            try:
                fs.remove(tmp)        # a write the flash had no room for leaves nothing behind
            except OSError:
                pass
            raise
        try:
            fs.rename(tmp, final)
        except OSError:      # a filesystem that refuses to rename onto a file (FAT)
            fs.remove(final)
            fs.rename(tmp, final)

    def append(self, name, data):
        """Add ``data`` at the end of ``name`` (made if missing). On littlefs the file's new
        length is committed when it is closed: a power cut keeps the old file, or at worst the
        simulated flash leaves a torn tail, which readers of appended lines must expect."""
        with self.fs.open(self.path(name), "ab") as f:
            f.write(data)

    def chunks(self, name, n):
        """The file's bytes, ``n`` at a time (nothing when there is no such file)."""
        try:
            f = self.fs.open(self.path(name), "rb")
        except OSError:
            return
        try:
            while True:
                data = f.read(n)
                if not data:
                    return
                yield data
        finally:
            f.close()

    def size(self, name):
        """The file's length in bytes (0 when there is none)."""
        try:
            return self.fs.stat(self.path(name))[6]
        except OSError:
            return 0

    def remove(self, name):
        for p in (self.path(name), self.path(name) + _TMP):
            try:
                self.fs.remove(p)
            except OSError:
                pass

    def names(self):
        """The files' names one at a time (no list: a flash of many games names them in a
        kilobyte, which a fragmented heap may not have in one piece); ``list()`` them before
        removing any."""
        try:
            for entry in self.fs.ilistdir(self.root):
                if not entry[0].endswith(_TMP):
                    yield entry[0]
        except OSError:
            return


class _OsFiles:
    """The os module plus the built-in open, in the shape of the simulator's flash."""

    def __init__(self, os):
        self.mkdir = os.mkdir
        self.rename = os.rename
        self.remove = os.remove
        self.listdir = os.listdir
        self.ilistdir = getattr(os, "ilistdir", None) or (    # (CPython: (name,) entries)
            lambda path: ((name,) for name in os.listdir(path)))
        self.stat = os.stat

    def open(self, path, mode="r"):
        return open(path, mode)


def checksum(data):
    """CRC-32 of data (an int below 2**32)."""
    return crc32(data) & 0xFFFFFFFF


def seal(data):
    """data + its CRC-32 (4 bytes, little endian): a record that can tell it is whole."""
    c = checksum(data)
    return bytes(data) + bytes((c & 255, (c >> 8) & 255, (c >> 16) & 255, (c >> 24) & 255))


def unseal(blob):
    """The data of a sealed record, or None when it is short or its checksum is wrong."""
    if blob is None or len(blob) < 4:
        return None
    data = blob[:-4]
    t = blob[-4:]
    if checksum(data) != t[0] | (t[1] << 8) | (t[2] << 16) | (t[3] << 24):
        return None
    return data


def write_copies(storage, names, data):
    """Keep ``data`` sealed (CRC-32) in every file of ``names``: one worn byte never loses it."""
    blob = seal(data)
    for name in names:
        storage.write_atomic(name, blob)


def read_copies(storage, names, check=None):
    """(data, damaged): the first copy among ``names`` whose seal holds (and that ``check(data)``
    accepts, when given), or None; ``damaged`` when a copy is missing or does not hold (the
    caller may write them again)."""
    found = None
    damaged = False
    for name in names:
        data = unseal(storage.read(name))
        if data is not None and check is not None and not check(data):
            data = None
        if data is None:
            damaged = True
        elif found is None:
            found = data
    return found, damaged
