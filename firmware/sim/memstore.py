"""Flash in RAM for benchmarks and tests: the Storage interface over a dict, with a capacity."""


class MemStorage:
    """Named blobs in a dict (``files``); ``capacity`` bytes (None: unlimited) make a write that
    does not fit fail whole with ENOSPC, as a full littlefs does."""

    def __init__(self, capacity=None):
        self.files = {}
        self.capacity = capacity

    def _room(self, n, replacing=0):
        if self.capacity is not None:
            used = 0
            for v in self.files.values():
                used += len(v)
            if used - replacing + n > self.capacity:
                raise OSError(28, "ENOSPC")

    def read(self, name):
        return self.files.get(name)

    def write_atomic(self, name, data):
        old = self.files.get(name)
        self._room(len(data), len(old) if old is not None else 0)
        self.files[name] = bytes(data)

    def append(self, name, data):
        self._room(len(data))
        self.files[name] = self.files.get(name, b"") + bytes(data)

    def chunks(self, name, n):
        data = self.files.get(name)
        if data is None:
            return
        for i in range(0, len(data), n):
            yield data[i:i + n]

    def size(self, name):
        data = self.files.get(name)
        return len(data) if data is not None else 0

    def remove(self, name):
        self.files.pop(name, None)

    def names(self):
        return iter(list(self.files))
