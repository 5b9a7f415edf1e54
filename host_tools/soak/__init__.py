"""The soak: the firmware on a virtual board played by scripted hands (random legal games, power cuts, noise), its fast frame-level hardware, and recorded games replayed through the hands."""
