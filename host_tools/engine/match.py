"""Matches with paired dice: every dice stream is played twice, the players swapping colours.

Figures (``MatchStats.summary``): games, pairs, win rate with its 95% Wilson interval, points
per game with a 95% interval from the paired results (the mean of each pair's two games is
one sample, so the dice's luck largely cancels), and the share of each result class.
"""

import math

from host_tools.engine.gameplay import Dice, play_game


def wilson(wins, n, z=1.96):
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


class MatchStats:
    """Results of player A against player B, game by game."""

    def __init__(self):
        self.points = []          # A's points per game
        self.pair_means = []
        self.classes = {}
        self.plies = 0

    def add_pair(self, a_first, a_second):
        for r in (a_first, a_second):
            self.points.append(r)
            k = ("won %d" if r > 0 else "lost %d") % abs(r)
            self.classes[k] = self.classes.get(k, 0) + 1
        self.pair_means.append((a_first + a_second) / 2.0)

    def summary(self):
        n = len(self.points)
        wins = sum(1 for p in self.points if p > 0)
        lo, hi = wilson(wins, n)
        m = len(self.pair_means)
        ppg = sum(self.pair_means) / m if m else 0.0
        var = (sum((x - ppg) ** 2 for x in self.pair_means) / (m - 1)) if m > 1 else 0.0
        half = 1.96 * math.sqrt(var / m) if m > 1 else float("inf")
        return {"games": n, "pairs": m, "wins": wins, "win_rate": wins / n if n else 0.0,
                "win_rate_ci95": [lo, hi], "ppg": ppg, "ppg_ci95": [ppg - half, ppg + half],
                "classes": dict(sorted(self.classes.items())),
                "plies_per_game": self.plies / n if n else 0.0}


def paired_match(rules, make_a, make_b, pairs, seed, progress=None):
    """Play ``pairs`` pairs of games of A against B. ``make_a(i)`` and ``make_b(i)`` make fresh
    players for pair i (so a noisy player's own draws are seeded too). Pair i throws the dice
    of ``Dice(seed * 1_000_003 + i)`` in both its games: A is White in the first, Black in the
    second."""
    st = MatchStats()
    for i in range(pairs):
        s = seed * 1_000_003 + i
        a, b = make_a(i), make_b(i)
        r1 = play_game(rules, (a, b), Dice(s))
        r2 = play_game(rules, (b, a), Dice(s))
        st.plies += r1.plies + r2.plies
        st.add_pair(r1.for_side(0), r2.for_side(1))
        if progress:
            progress(i + 1, st)
    return st
