"""The tournament clock: each player's reserve of time for the match, with a simple delay.

Backgammon tournaments (ABT, WBF practice) give each player a reserve for the whole match
(commonly 2 minutes per match point) and a "simple delay" per turn (commonly 12 s): a player's
reserve does not run during the first ``delay`` ms of each period in which they must act, and a
player whose reserve runs out loses the match. Who must act is the board's business
(``Session``): the side to move from its roll to its button, the doubled side while it decides.

Pure: times come in as milliseconds from the board's clock; nothing here reads a clock or
allocates after construction. A reserve of 0 means no clock.
"""


class GameClock:
    """Reserves of both sides (ms left), the delay, and whose period is running since when."""

    def __init__(self, reserve_ms=0, delay_ms=12000, left=None):
        self.reserve = reserve_ms
        self.delay = delay_ms
        self.left = [reserve_ms, reserve_ms] if left is None else [left[0], left[1]]
        self.side = -1          # whose period runs now (-1: nobody's)
        self.t0 = 0             # when it began

    def on(self):
        return self.reserve > 0

    def run(self, side, now):
        """From ``now`` the period of ``side`` runs (-1: nobody's); the period running until now
        ends and is charged. The same side again changes nothing."""
        if side == self.side:
            return
        self.stop(now)
        if self.reserve > 0 and side >= 0:
            self.side = side
            self.t0 = now

    def stop(self, now):
        """End the running period: charge its time beyond the delay to that side's reserve."""
        side = self.side
        if side >= 0:
            self.left[side] = self.remaining(side, now)
            self.side = -1

    def remaining(self, side, now):
        """Reserve of ``side`` at ``now`` (ms, never below 0)."""
        left = self.left[side]
        if side == self.side:
            over = now - self.t0 - self.delay
            if over > 0:
                left -= over
        return left if left > 0 else 0

    def elapsed(self, now):
        """How long the running period has run (ms; 0 when none runs)."""
        return now - self.t0 if self.side >= 0 else 0

    def resume(self, side, used, now):
        """After a reset: the period of ``side`` goes on as if it had run ``used`` ms already
        (its delay is not given again)."""
        self.side = -1
        if self.reserve > 0 and side >= 0:
            self.side = side
            self.t0 = now - used

    def delay_left(self, now):
        """What is left of the running period's delay (ms); 0 when nobody's period runs."""
        if self.side < 0:
            return 0
        d = self.delay - (now - self.t0)
        return d if d > 0 else 0

    def fallen(self, now):
        """The side whose reserve ran out in its running period, or -1."""
        side = self.side
        if side >= 0 and self.reserve > 0 and self.remaining(side, now) == 0:
            return side
        return -1

    def state(self):
        """What the journal keeps (plain data)."""
        return {"reserve": self.reserve, "delay": self.delay, "left": list(self.left)}
