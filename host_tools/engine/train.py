"""TD(lambda) self-play training in resumable chunks, with a progress line and strength checks.

Game ``i`` of a run with seed ``S`` throws the dice of ``Dice(S * 1_000_003 + i)``, so a run
cut into chunks and resumed makes exactly the same games, and the same weights, as one run
in one go (on the same machine and numpy: float sums are not portable bit for bit).
"""

import datetime
import subprocess
import sys
import time


from firmware.rules.variants import get_rules
from host_tools.engine import weights
from host_tools.engine.encode import INPUTS
from host_tools.engine.gameplay import Dice
from host_tools.engine.net import Net
from host_tools.engine.outcomes import Outcomes
from host_tools.engine.selfplay import lambda_returns, self_play

HIDDEN = 64
RATE = 0.1            # per position (net.learn_each), TD-Gammon's rate


def game_seed(seed, i):
    return seed * 1_000_003 + i


def commit_id():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def rate_at(rate, games):
    """The learning rate after ``games`` games: ``rate``, falling to a quarter by 200k games."""
    return rate / (1.0 + 3.0 * min(games, 200_000) / 200_000)


class Trainer:
    """Trains ``variant``'s network; ``folder`` holds the weights and their record."""

    def __init__(self, variant, seed=1, folder=None, lam=0.7, rate=RATE, hidden=HIDDEN,
                 resume=False, log=sys.stderr):
        self.variant = variant
        self.rules = get_rules(variant)
        self.out = Outcomes(self.rules)
        self.folder = folder
        self.log = log
        if resume:
            self.net, rec = weights.load(variant, folder)
            t = rec["training"]
            self.seed, self.lam, self.rate, self.done = t["seed"], t["lambda"], t["rate"], t["games"]
            self.record = rec
        else:
            self.net = Net(INPUTS, hidden, self.out.n, seed=seed)
            self.seed, self.lam, self.rate, self.done = seed, lam, rate, 0
            self.record = {"variant": variant, "history": []}

    def run(self, games, chunk=5000, check=None):
        """Play ``games`` more games, saving after every ``chunk``; ``check(net, games)`` returns
        a strength figure (dict) recorded at each save."""
        target = self.done + games
        t0 = time.time()
        start = self.done
        plies = 0
        while self.done < target:
            end = min(target, self.done + chunk)
            c0, cplies = time.time(), plies       # this chunk's own seconds and plies
            while self.done < end:
                tr, (_w, _p, n) = self_play(self.net, self.rules, Dice(game_seed(self.seed, self.done)))
                g = lambda_returns(tr, self.out, self.lam)
                self.net.learn_each(tr.x, g, rate_at(self.rate, self.done))
                self.done += 1
                plies += n
                if self.done % 200 == 0 or self.done == end:
                    self._progress(start, target, t0, plies)
            self._save(check, time.time() - c0, plies - cplies)
        return self.done

    def _progress(self, start, target, t0, plies):
        dt = max(time.time() - t0, 1e-9)
        rate = (self.done - start) / dt
        left = (target - self.done) / rate if rate else 0
        self.log.write("\rtrain %s: %d/%d games  %.1f games/s  %.2f ms/ply  %s left   " % (
            self.variant, self.done, target, rate, 1000 * dt / max(plies, 1),
            datetime.timedelta(seconds=int(left))))
        self.log.flush()

    def _save(self, check, seconds, plies):
        strength = check(self.net, self.done) if check else None
        rec = self.record
        rec["training"] = {"seed": self.seed, "lambda": self.lam, "rate": self.rate,
                           "games": self.done, "hidden": int(self.net.shape[1]),
                           "inputs": int(self.net.shape[0]), "outputs": self.out.names,
                           "method": "TD(lambda) self-play, forward view applied at the end of "
                                     "each game, one step per position in order, "
                                     "cross-entropy on sigmoid outputs"}
        rec["command"] = ("python -m host_tools train --variant %s --games %d --seed %d"
                          % (self.variant, self.done, self.seed))
        rec["commit"] = commit_id()
        rec["date"] = datetime.date.today().isoformat()
        entry = {"games": self.done, "date": rec["date"], "commit": rec["commit"],
                 "chunk_seconds": round(seconds, 1), "chunk_plies": plies}
        if strength:
            entry["strength"] = strength
            self.log.write("\n%s after %d games: %s\n" % (self.variant, self.done, strength))
        rec.setdefault("history", []).append(entry)
        weights.save(self.variant, self.net, rec, self.folder)
