"""A deliberately naive, independent legal-play enumerator used only to check the rules core.

It enumerates every ordered sequence of single-die steps on immutable tuples (no canonical
order, no make/unmake, no shared code with firmware.rules), then applies the rules as rules.md
words them: D1 over all prefixes whose final position passes the whole-play rules, the larger
die, the takhteh lock (max first or lock first), the long-nardy head rule with its first-turn
exception (principle / fixed doubles / doubles principle) and the six-block rule.
"""


def opp_pip(variant, q):
    return ((q + 11) % 24) + 1 if variant == "long" else 25 - q


def sequences(variant, mine, opp, dice, head_limit, lock, each_step=False):
    """All (steps, mine, opp, locks_violated) reachable, including every prefix."""
    block = 1 if variant == "long" else 2
    out = []

    def legal(m, o, s, d, head_used):
        if m[s] == 0:
            return False
        if m[25] and s != 25:
            return False
        if variant == "long" and s == 24 and head_used >= head_limit:
            return False
        t = s - d
        if t >= 1:
            return o[t] < block
        if any(m[q] for q in range(7, 26)):
            return False
        if t == 0:
            return True
        return not any(m[q] for q in range(s + 1, 7))

    def walk(m, o, left, steps, head_used, hits_home, violated):
        out.append((tuple(steps), m, o, violated))
        tried = set()
        for i, d in enumerate(left):
            if d in tried:
                continue
            tried.add(d)
            rest = left[:i] + left[i + 1:]
            for s in range(25, 0, -1):
                if not legal(m, o, s, d, head_used):
                    continue
                t = max(s - d, 0)
                m2 = list(m)
                o2 = list(o)
                m2[s] -= 1
                m2[t] += 1
                hit = False
                if t and block == 2 and o2[t] == 1:
                    o2[t] = 0
                    o2[25] += 1
                    hit = True
                if each_step and not six_block_ok(variant, mine, m2, o2):
                    continue
                v = violated or (s in hits_home)
                hh = hits_home | ({t} if (hit and t <= 6) else set())
                walk(tuple(m2), tuple(o2), rest, steps + [(s, d)], head_used + (s == 24), hh, v)

    left = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    walk(tuple(mine), tuple(opp), left, [], 0, frozenset(), False)
    return out


def six_block_ok(variant, start_mine, mine, opp):
    if variant != "long":
        return True

    def windows(m):
        occ = [False] * 25           # in the opponent's own pips
        for q in range(1, 25):
            if m[q]:
                occ[opp_pip(variant, q)] = True
        return set(j for j in range(1, 20) if all(occ[j + i] for i in range(6)))

    new = windows(mine) - windows(start_mine)
    if not new:
        return True
    q = min(new)
    # an opposing checker on an opponent pip lower than q
    return any(opp[mq] for mq in range(1, 25) if opp_pip(variant, mq) < q)


def legal_results(variant, options, mine, opp, dice, first_turn):
    """Set of (mine, opp) tuples of the legal plays (empty set when nothing can be played)."""
    head = options.get("head_exception", "principle")
    double = dice[0] == dice[1]
    full = 4 if double else 2
    limit = 1
    if variant == "long" and first_turn:
        if head == "fixed_doubles":
            limit = 2 if (double and dice[0] in (3, 4, 6)) else 1

    def candidates(lim):
        each = options.get("block_check") == "every_step"
        return [c for c in sequences(variant, mine, opp, dice, lim, None, each)
                if six_block_ok(variant, mine, c[1], c[2])]

    cands = candidates(limit)
    best = max(len(c[0]) for c in cands)
    if (variant == "long" and first_turn and head != "fixed_doubles" and best < full
            and (head == "principle" or double)):
        c2 = candidates(2)
        b2 = max(len(c[0]) for c in c2)
        if b2 > best:
            cands, best = c2, b2
    if variant == "persian":
        free = [c for c in cands if not c[3]]
        if options.get("hit_lift_priority", "max_first") == "lock_first":
            fb = max(len(c[0]) for c in free) if free else 0
            if fb >= 1:
                cands, best = free, fb
        else:
            if any(len(c[0]) == best for c in free):
                cands = free
    plays = [c for c in cands if len(c[0]) == best]
    if best == 1 and not double:
        hi = max(dice)
        if any(c[0][0][1] == hi for c in plays):
            plays = [c for c in plays if c[0][0][1] == hi]
    if best == 0:
        return set()
    return set((c[1], c[2]) for c in plays)
