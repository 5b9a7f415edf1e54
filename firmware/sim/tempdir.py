"""A fresh folder for a simulated board's flash when nobody names one (a feature module, loaded
for the call: its names cost the interpreter nothing when ``--flash`` gives the folder)."""

import os


def new(world):
    """A fresh folder for ``world``'s flash; on CPython it is removed with the world."""
    try:
        import shutil
        import tempfile
        import weakref
    except ImportError:        # MicroPython: a name under /tmp, left for the caller to remove
        for i in range(1000):
            name = "/tmp/nardy-sim-mp-%d" % (int.from_bytes(os.urandom(3), "little") + i)
            try:
                os.mkdir(name)
                return name
            except OSError:
                pass
        raise OSError("no temp dir")
    name = tempfile.mkdtemp(prefix="nardy-sim-")
    weakref.finalize(world, shutil.rmtree, name, True)
    return name
