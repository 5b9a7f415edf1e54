"""The board's mind: tracking hands on checkers, guidance, verdicts, journal and the host link.

The board's rare work (reading a game back at boot, the export, the director's commands, the
settings, the cube and resignations) lives in feature modules that ``load`` imports on demand and
``drop`` removes from ``sys.modules`` and from this package again, so the collector frees their
code: it costs RAM only while used (micropython-lib's optional features are the model: a small
core, features that come when asked). Their names stay interned, so a feature is a module only
when its code is large.
"""

import gc
import sys


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
