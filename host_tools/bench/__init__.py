"""Measuring: the rules benchmark and its positions, RP2040 estimates, the small-int audit, docs/perf.md's sections."""
