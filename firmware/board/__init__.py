"""The board's mind: tracking hands on checkers, guidance, verdicts, journal and the host link.

Its rare work lives in feature modules, loaded and dropped by the firmware package's loader
(``firmware.load``, ``call``, ``drop``: docs/ARCHITECTURE.md, "Feature modules").
"""
