"""Cube decisions for money play from the network's cubeless outcome probabilities.

Janowski's model (R. Janowski, "Take-Points in Money Games", 1993): the cubeful equity is
``x E_live + (1 - x) E_dead``, with ``x`` the cube's efficiency (0.68, Janowski's typical value
for money play), ``E_dead = p W - (1 - p) L`` the cubeless equity, and ``E_live`` the equity if
every double came exactly at the opponent's take point: piecewise linear in ``p``, through
``-1`` at the point where the opponent would cash and ``+1`` at one's own cash point. ``W`` and
``L`` are the average cubeless values of the games won and lost (gammons included), and the
live take point for the side with values ``W, L`` is ``(L - 1/2) / (W + L + 1/2)``.

>>> d = decide([1.0, 0.0, 0.0, 0.0, 0.0], (1, 2, 3))        # a certain single win
>>> d["action"], d["response"]
('double', 'pass')
>>> decide([0.5, 0.1, 0.0, 0.1, 0.0], (1, 2, 3))["action"]
'no double'
"""

EFFICIENCY = 0.68


def win_loss_values(o, results):
    """(p, W, L): P(win) and the average values of wins and losses, from outputs ``o``."""
    k = len(results) - 1
    p = min(max(float(o[0]), 1e-9), 1 - 1e-9)
    win = p
    loss = 1.0 - p
    for i in range(k):
        step = results[i + 1] - results[i]
        win += step * float(o[1 + i])
        loss += step * float(o[1 + k + i])
    return p, win / p, loss / (1.0 - p)


def _line(p, a, b):
    (p0, e0), (p1, e1) = a, b
    if p1 == p0:
        return e1
    return e0 + (e1 - e0) * (p - p0) / (p1 - p0)


def live_equity(p, win_v, loss_v, owner):
    """Janowski's live-cube equity for the side with P(win) ``p``; ``owner``: "centre",
    "me" (this side owns the cube) or "them"."""
    take_me = (loss_v - 0.5) / (win_v + loss_v + 0.5)  # below it the opponent's double is a pass
    cash_me = 1.0 - (win_v - 0.5) / (win_v + loss_v + 0.5)  # above it the opponent passes mine
    low, high = (0.0, -loss_v), (1.0, win_v)
    if owner == "me":
        return _line(p, low, (cash_me, 1.0)) if p <= cash_me else _line(p, (cash_me, 1.0), high)
    if owner == "them":
        return _line(p, low, (take_me, -1.0)) if p <= take_me else _line(p, (take_me, -1.0), high)
    if p <= take_me:
        return _line(p, low, (take_me, -1.0))
    if p <= cash_me:
        return _line(p, (take_me, -1.0), (cash_me, 1.0))
    return _line(p, (cash_me, 1.0), high)


def cubeful(p, win_v, loss_v, owner, x=EFFICIENCY):
    return x * live_equity(p, win_v, loss_v, owner) + (1 - x) * (p * win_v - (1 - p) * loss_v)


def decide(o, results, owner="centre", beaver=False, x=EFFICIENCY):
    """The money cube decision of the side on roll with outputs ``o`` (cubeless, its view):
    {"action": "no double" | "double" | "too good", "response": "take" | "pass" | "beaver",
    and the equities per unit of the present cube: no double, double/take, double/pass}."""
    if owner == "them":
        raise ValueError("the side on roll cannot double: the opponent owns the cube")
    p, win_v, loss_v = win_loss_values(o, results)
    nd = cubeful(p, win_v, loss_v, owner, x)
    dt = 2.0 * cubeful(p, win_v, loss_v, "them", x)
    dp = 1.0
    if dt <= dp:
        response = "beaver" if beaver and dt < 0 else "take"
    else:
        response = "pass"
    best_double = min(dt, dp)
    if nd >= dp and dt > dp:
        action = "too good"
    elif best_double > nd:
        action = "double"
    else:
        action = "no double"
    return {"action": action, "response": response, "p": round(p, 4), "W": round(win_v, 4),
            "L": round(loss_v, 4), "no_double": round(nd, 4), "double_take": round(dt, 4),
            "double_pass": dp}
