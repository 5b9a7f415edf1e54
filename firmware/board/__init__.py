"""The board's mind: tracking hands on checkers, guidance, verdicts, journal and the host link.

Its rare work lives in feature modules, loaded and dropped by the loader of ``firmware``
(``firmware.load``, ``call``, ``drop``; re-exported here for older callers).
"""

from firmware import call, drop, load
