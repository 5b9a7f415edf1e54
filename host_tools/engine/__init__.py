"""The engine: a small neural evaluator per variant, its self-play training, players and matches.

The rules core (``firmware.rules``) stays the only judge of legality: every play the engine
chooses is one of ``Turn.plays_packed()``. See docs/engine.md.
"""
