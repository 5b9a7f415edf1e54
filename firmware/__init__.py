"""The firmware (rules core, drivers, board logic, app), its feature-module loader (``load``, ``call``, ``drop``) and the board's zone count.

Rare work (reading a game back at boot, the export, the director's commands, the settings, the
cube and resignations, a front end's scanner) lives in feature modules that ``load`` imports on
demand and ``drop`` removes from ``sys.modules`` and from its package again, so the collector
frees their code: it costs RAM only while used (micropython-lib's optional features are the
model: a small core, features that come when asked). Their names stay interned, so a feature is a
module only when its code is large. The loader lives here, above the rooms, so that the drivers
and the board logic both use it without the drivers importing the board room; the contract is in
docs/ARCHITECTURE.md, "Feature modules".
"""

import gc
import sys

ZONES = 28         # the board's sensing zones: 24 points, 2 bars, 2 trays (the drivers read them,
                   # the board logic maps pips onto them: their one home is above both rooms)


def load(name):
    """The module ``name`` (a dotted path), imported now (after a collection, so its code finds
    room in a heap that rare work leaves fragmented)."""
    if name not in sys.modules:
        gc.collect()
    return __import__(name, None, None, ("__name__",))


def call(name, fn, *args, **kw):
    """``fn(*args, **kw)`` of the feature module ``name``, loaded for the call and dropped again
    after it (unless it was loaded already: a call from inside it), so its code takes RAM only
    meanwhile."""
    had = name in sys.modules
    try:
        return getattr(load(name), fn)(*args, **kw)
    finally:
        if not had:
            drop(name)


def drop(*names):
    """Forget the modules ``names``: the next ``load`` imports them again."""
    for name in names:
        if sys.modules.pop(name, None) is None:
            continue
        cut = name.rfind(".")
        pkg = sys.modules.get(name[:cut])
        if pkg is not None:
            try:
                delattr(pkg, name[cut + 1:])
            except (AttributeError, TypeError):
                pass
