"""Quick strength checks for training (small paired matches): the network against the baselines."""

from firmware.rules.variants import get_rules
from host_tools.engine.match import paired_match
from host_tools.engine.players import NetPlayer, PubevalPlayer, RandomPlayer


def quick_check(variant, pairs=100, seed=99):
    """A ``check(net, games)`` for ``Trainer.run``: win rate and ppg against the random mover
    (and pubeval in backgammon) over ``pairs`` paired games."""
    rules = get_rules(variant)

    def check(net, games):
        res = {}
        s = paired_match(rules, lambda i: NetPlayer(net, rules), lambda i: RandomPlayer(i),
                         pairs, seed).summary()
        res["vs_random"] = {"pairs": pairs, "seed": seed, "win_rate": round(s["win_rate"], 3),
                            "ppg": round(s["ppg"], 3)}
        if variant == "backgammon":
            s = paired_match(rules, lambda i: NetPlayer(net, rules), lambda i: PubevalPlayer(rules),
                             pairs, seed + 1).summary()
            res["vs_pubeval"] = {"pairs": pairs, "seed": seed + 1,
                                 "win_rate": round(s["win_rate"], 3), "ppg": round(s["ppg"], 3)}
        return res
    return check
