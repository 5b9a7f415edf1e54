"""The tournament clock: each player's reserve of time for the match, with a simple delay.

Backgammon tournaments (ABT, WBF practice) give each player a reserve for the whole match
(commonly 2 minutes per match point) and a "simple delay" per turn (commonly 12 s): a player's
reserve does not run during the first ``delay`` ms of each period in which they must act, and a
player whose reserve runs out loses the match. Who must act is the board's business
(``Session``): the side to move from its roll to its button, the doubled side while it decides.

Times come in as milliseconds from the board's clock; nothing here reads a clock or allocates
after construction, but the checkpoint: the running period kept on flash (``_CLOCK_FILE``) now and
then, so that a reset charges what it had used (``resume``). A reserve of 0 means no clock.
"""

import json

from firmware.drivers.storage import seal, unseal

try:
    from micropython import const
except ImportError:                 # CPython (host tools)
    def const(x):
        return x

_CLOCK_FILE = const("clock.ck")   # the checkpoint: the running period, so a reset charges it
_CHECKPOINT_MS = const(2000)      # a checkpoint at least this often while the board is settled ...
_BUSY_MS = const(10000)   # ... and, while a checker is in the air, at least this often


class GameClock:
    """Reserves of both sides (ms left), the delay, and whose period is running since when."""

    def __init__(self, reserve_ms=0, delay_ms=12000, left=None):
        self.reserve = reserve_ms
        self.delay = delay_ms
        self.left = [reserve_ms, reserve_ms] if left is None else [left[0], left[1]]
        self.side = -1          # whose period runs now (-1: nobody's)
        self.t0 = 0             # when it began
        self.saved = 0          # when the running period was last checkpointed

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

    def checkpoint(self, journal, now, changed, hands):
        """Keep the running period on flash when it is due: at once when whose period runs
        ``changed``, every _CHECKPOINT_MS while the board is settled, every _BUSY_MS while
        ``hands`` are at work (a flash write then could delay reading them)."""
        due = now - self.saved
        if self.side >= 0 and (changed or due >= _BUSY_MS or (due >= _CHECKPOINT_MS and not hands)):
            self.saved = now
            data = {"serial": journal.serial, "n": journal.count, "side": self.side,
                    "used": self.elapsed(now), "left": list(self.left)}
            journal.put(_CLOCK_FILE, seal(json.dumps(data).encode()))

    def resume(self, side, now, storage, serial, n):
        """After a reset: the period of ``side`` goes on (its delay is not given again), charged
        with what it had used by its checkpoint, when that was taken at line ``n`` of game
        ``serial`` for ``side``, plus _CHECKPOINT_MS, the longest a checkpoint may have missed.
        Returns the ms charged (0 when no period runs)."""
        self.side = -1
        if self.reserve <= 0 or side < 0:
            return 0
        data = unseal(storage.read(_CLOCK_FILE))
        try:
            ck = json.loads(bytes(data).decode()) if data is not None else None
        except (ValueError, UnicodeError):
            ck = None
        used = _CHECKPOINT_MS
        if (isinstance(ck, dict) and ck.get("serial") == serial and ck.get("n") == n
                and ck.get("side") == side and isinstance(ck.get("used"), int)
                and ck["used"] >= 0):
            used += ck["used"]
        self.side = side
        self.t0 = now - used
        return used

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
