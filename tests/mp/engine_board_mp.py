"""Under the unix port: the board engine's answers for the positions on stdin (one JSON a line)."""

import gc
import json
import sys

from firmware.rules.variants import get_rules
from firmware.rules.position import Position
from firmware.rules.movegen import Turn

head = json.loads(sys.stdin.readline())
rules = get_rules(head["variant"])
gc.collect()
free0 = gc.mem_free()
from firmware.engine.chooser import Engine, evaluate  # noqa: E402
from firmware.engine import arith  # noqa: E402
e = Engine(rules, head["path"])
gc.collect()
print(json.dumps({"heap": free0 - gc.mem_free(), "viper": evaluate is not arith.evaluate}))
n = e.net
for line in sys.stdin:
    q = json.loads(line)
    t = Turn(rules, Position(bytes(q["board"]), q["turn"]), q["dice"])
    res = {}
    for again in (0, 1):
        eq = e.position_equity(t, again)
        out = list(e.out)
        x = list(e.x)
        n.p[8] = again
        plain = arith.evaluate(t.mine, t.opp, n.xlat, e.r, e.x, e.zero, n.b1, e.acc, e.out,
                               n.w1, n.w2, n.b2, n.table, n.p)
        res["a%d" % again] = [eq, out, plain, list(e.out), x]
    best = e.choose(t, q["again"])
    res["best"] = best
    res["steps"] = e.steps(best)
    print(json.dumps(res))
