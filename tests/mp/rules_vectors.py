"""MicroPython side of the rules vectors: read JSON lines on stdin, print the legal results.

Each input line: {"variant", "options", "pos" (compact), "dice", "first_turn"}; each output
line: {"max": steps, "finals": compact finals of every distinct legal play}.
Runs unchanged on CPython too.
"""

import gc
import json
import sys

from firmware.rules import Position, Turn, get_rules


def main():
    cache = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        case = json.loads(line)
        key = case["variant"] + json.dumps(case["options"])
        rules = cache.get(key)
        if rules is None:
            rules = get_rules(case["variant"], **case["options"])
            cache[key] = rules
        pos = Position.decode(case["pos"])
        gc.collect()
        turn = Turn(rules, pos, case["dice"], case["first_turn"])
        # streamed: a worst-case roll has 2,225 plays, too many to hold as text in a Pico heap
        sys.stdout.write('{"max": %d, "finals": [' % turn.max_steps)
        sep = ""
        for final in turn.finals():
            sys.stdout.write(sep + '"' + final.encode() + '"')
            sep = ", "
        sys.stdout.write("]}\n")


main()
