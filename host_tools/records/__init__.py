"""The board's records and the match files: reading, verifying, replaying, writing; the director's keys."""
