"""The board's mind: tracking hands on checkers, guidance, verdicts, journal and the host link."""
