"""Analysis of a played game: per move the equity lost against the engine's best play, marks,
each player's error rate and rating, and the luck of the dice.

Marks use GNU Backgammon's thresholds of equity lost (doubtful 0.04, bad 0.08, very bad 0.16)
and its rating names by error per unforced move (gnubg's manual and ``analysis.c``: below
0.002 supernatural, 0.005 world class, 0.008 expert, 0.012 advanced, 0.018 intermediate,
0.026 casual, 0.035 beginner, else awful). Here the judge is this project's own network, so
the figures measure agreement with our engine, not absolute truth. A roll's luck is the
equity of its best play less the average over the 36 rolls of theirs.
"""

import numpy as np

from firmware.rules.game import Game
from host_tools.engine.players import NetPlayer, SearchPlayer

MARKS = ((0.16, "very bad"), (0.08, "bad"), (0.04, "doubtful"))
RATINGS = ((0.002, "supernatural"), (0.005, "world class"), (0.008, "expert"),
           (0.012, "advanced"), (0.018, "intermediate"), (0.026, "casual"),
           (0.035, "beginner"))
_ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)]


def mark(loss):
    for t, name in MARKS:
        if loss >= t - 1e-12:
            return name
    return ""


def rating(error_rate):
    for t, name in RATINGS:
        if error_rate < t:
            return name
    return "awful"


class Analyser:
    """Scores plays of ``rules`` with ``net`` (``plies`` 0 or 1)."""

    def __init__(self, net, rules, plies=0):
        self.rules = rules
        self.player = SearchPlayer(net, rules) if plies else NetPlayer(net, rules)
        self.zero = NetPlayer(net, rules)

    def _ranked(self, pos, dice, player):
        g = Game(self.rules, cube=False)
        g.set_position(pos)
        g.roll(*dice)
        c, v = player.ranked(g)
        return g, c, v

    def move(self, before, dice, after, luck=True):
        """One play: ``before`` (its side to move plays ``dice``) and the position ``after``.
        Returns a dict: equity of the best and of the played play, loss, mark, forced, luck."""
        g, c, v = self._ranked(before, dice, self.player)
        side = before.turn
        res = {"dice": list(dice), "candidates": c.n}
        if c.n == 0:
            res.update(best=None, played=None, loss=0.0, mark="", forced=True)
        else:
            keys = [bytes(c.mover[i]) + bytes(c.other[i]) for i in range(c.n)]
            b = after.board
            mine = bytes(b[side * 26:side * 26 + 26])
            theirs = bytes(b[(1 - side) * 26:(1 - side) * 26 + 26])
            try:
                i = keys.index(mine + theirs)
            except ValueError:
                raise ValueError("the play is not one of the legal plays of %d-%d" % dice)
            best = float(v.max())
            played = float(v[i])
            loss = max(0.0, best - played)
            res.update(best=round(best, 4), played=round(played, 4), loss=round(loss, 4),
                       mark=mark(loss), forced=len(set(keys)) <= 1)
        if luck:
            res["luck"] = round(self.luck(before, dice), 4)
        return res

    def best_value(self, pos, dice):
        g, c, v = self._ranked(pos, dice, self.zero)
        if c.n:
            return float(v.max())
        # no play: the turn passes; the value is the position's for the side to move
        from host_tools.engine.encode import features, position_view
        z = self.zero
        o = z.net.forward(features(position_view(pos, 1 - pos.turn)[None], z.geo))
        return -float(z.out.equity(o)[0])

    def luck(self, pos, dice):
        """This roll's best 0-ply equity less the mean over all 36 rolls."""
        mean = sum(w * self.best_value(pos, (a, b)) for a, b, w in _ROLLS) / 36.0
        return self.best_value(pos, dice) - mean


def summarise(moves, names):
    """Per player: moves, unforced, errors, error rate, marks, rating, luck."""
    out = []
    for p, name in enumerate(names):
        mine = [m for m in moves if m["player"] == p]
        unforced = [m for m in mine if not m["forced"]]
        total = sum(m["loss"] for m in unforced)
        rate = total / len(unforced) if unforced else 0.0
        marks = {name_: sum(1 for m in unforced if m["mark"] == name_) for _, name_ in MARKS}
        out.append({"player": name, "moves": len(mine), "unforced": len(unforced),
                    "equity_lost": round(total, 4), "error_rate_milli": round(1000 * rate, 1),
                    "rating": rating(rate), "marks": marks,
                    "luck": round(sum(m.get("luck", 0.0) for m in mine), 4)})
    return out


def analyse_match(match, net, rules, plies=0, luck=True):
    """Every play of a parsed .mat match (host_tools.records.matfile), replayed by the rules
    core; returns {"file", "games": [{"number", "players", "moves": [...], "summary"}]}."""
    from host_tools.records.replay import replay_match
    an = Analyser(net, rules, plies)
    games = {}
    order = []

    def watch(action, before, after, reason):
        if reason is not None or after is None:
            return
        gnum = current[0]
        m = an.move(before, tuple(action["dice"]), after, luck)
        m.update(player=action["player"], line=action["line"], move=action["move"],
                 text=action["text"])
        games[gnum]["moves"].append(m)

    current = [None]
    for game in match["games"]:
        current[0] = game["number"]
        games[game["number"]] = {"number": game["number"], "players": game["players"], "moves": []}
        order.append(game["number"])
        one = dict(match)
        one["games"] = [game]
        report = replay_match(one, rules.name, watch=watch)
        if report.get("rejected"):
            games[game["number"]]["rejected"] = report["rejected"]
    out = {"file": match["file"], "games": []}
    for n in order:
        g = games[n]
        g["summary"] = summarise(g["moves"], g["players"])
        out["games"].append(g)
    return out


def winning_chances(game_report):
    """The equity before each play of a game, for a plot (played value, from player 0's side)."""
    xs = []
    for m in game_report["moves"]:
        if m["played"] is None:
            continue
        xs.append(m["played"] if m["player"] == 0 else -m["played"])
    return np.array(xs)
