"""The board's own opponent: an 8-bit network and a 0-ply chooser, loaded only when a game asks."""
