"""The seeds' line notation (lines 1-12 and I-XII, both colours): read and write plays in it.

The seeds name the 24 points "lines": Arabic 1..12 along White's side, Roman I..XII along
Black's, I opposite 1 and XII opposite 12 (rules.md §1.1). They describe a move by its source
line and a distance ("from line XII five lines") or a destination ("from 8 they hit on IX").
The compact text form written here follows that:

    play   := part ( " " part )*          or "-" / "" for no move (a dance)
    part   := source step+ [ "(" n ")" ]   the same movement made by n checkers
    source := line | "bar"                 line = 1..12 or I..XII ("Б" = bar)
    step   := "-" d [ "*" ]                move d lines on along the mover's path (one die d)
            | ">" line [ "*" ]             move on to that line (one or more dice)
            | ">off" | ">Д"                bear off (the die may be larger than needed)

``*`` marks a hit the text announces. Examples from seed 001's sample game:
``XII-5 I-1`` (White 5-1: from XII five lines, from I one line), ``12-4-3`` (Black 4-3, one
checker four then three lines), ``XII-4(2) 8-4(2)`` (White 4-4), ``bar>III-6`` (White 6-3:
enters on III and goes on six lines), ``bar>1*-6`` (enters hitting on 1, then six more),
``6>off(4)`` (four checkers borne off from 6), ``VIII-6* VI-4``.

Lines become the mover's own pips through the physical index k (Arabic n is k = n, Roman N is
k = 25 - N) and the variant's geometry: short nardy (and backgammon, takhteh, jacquet) White
pip = k, Black pip = 25 - k; long nardy White pip = 25 - k, Black pip = 13 - k (k <= 12) or
37 - k (rules.md §1.2). Pass a ``rules`` object (its ``pip_of``/``k_of``) for another geometry.
"""

ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
BAR = 25


class LineNotationError(ValueError):
    """Text in line notation that cannot be read."""


def _canon(word):
    """Upper case, with the Cyrillic look-alikes the seeds use (Х, І) made Latin."""
    return word.upper().replace("\u0425", "X").replace("\u0406", "I").replace("\u0445", "X")


def line_k(name):
    """Physical index k (1..24) of a line name ('7', 'XII'); LineNotationError if unknown."""
    w = _canon(name)
    if w.isdigit():
        n = int(w)
        if 1 <= n <= 12:
            return n
    elif w in ROMAN:
        return 25 - (ROMAN.index(w) + 1)
    raise LineNotationError("%r is not a line (1..12 or I..XII)" % name)


def k_line(k):
    """Line name of physical index k."""
    if not 1 <= k <= 24:
        raise LineNotationError("no line at k=%r" % (k,))
    return str(k) if k <= 12 else ROMAN[24 - k]


def pip_of_line(name, side, rules=None):
    """The mover's own pip of a line for ``side`` (0 White, 1 Black)."""
    k = line_k(name)
    if rules is not None:
        return rules.pip_of(side, k)
    return k if side == 0 else 25 - k


def line_of_pip(pip, side, rules=None):
    """Line name of ``side``'s own pip 1..24."""
    if rules is not None:
        return k_line(rules.k_of(side, pip))
    return k_line(pip if side == 0 else 25 - pip)


def _point(word, side, rules, what):
    w = _canon(word)
    if w in ("BAR", "\u0411"):
        if what == "destination":
            raise LineNotationError("the bar cannot be a destination")
        return BAR
    if w in ("OFF", "\u0414"):
        if what == "source":
            raise LineNotationError("'off' cannot be a source")
        return 0
    return pip_of_line(word, side, rules)


def _split_part(part):
    """'bar>III*-6(2)' -> ('bar', [('>', 'III', True), ('-', '6', False)], 2)."""
    count = 1
    if part.endswith(")"):
        at = part.rfind("(")
        digits = part[at + 1:-1]
        if at < 1 or not digits.isdigit() or not 1 <= int(digits) <= 4:
            raise LineNotationError("bad checker count in %r" % part)
        count = int(digits)
        part = part[:at]
    i = 0
    while i < len(part) and part[i] not in "->":
        i += 1
    source = part[:i]
    if not source:
        raise LineNotationError("%r has no source line" % part)
    steps = []
    while i < len(part):
        kind = part[i]
        j = i + 1
        while j < len(part) and part[j] not in "->":
            j += 1
        word = part[i + 1:j]
        hit = word.endswith("*")
        if hit:
            word = word[:-1]
        if not word:
            raise LineNotationError("%r: '%s' must be followed by a %s" % (
                part, kind, "distance" if kind == "-" else "line"))
        steps.append((kind, word, hit))
        i = j
    if not steps:
        raise LineNotationError("%r gives no distance ('-5') or destination ('>VIII')" % part)
    return source, steps, count


def parse_lines(text, side, rules=None):
    """Read a play in line notation for ``side``; returns [(src, dst, hit_marked), ...] in the
    mover's own pips (25 = bar, 0 = off), one entry per movement, counts expanded (the shape
    of ``notation.parse_move``). A '-d' step is one die; a '>line' step may span several."""
    out = []  # type: list
    words = text.replace(",", " ").split()
    if words == ["-"]:
        return out
    for part in words:
        source, steps, count = _split_part(part)
        cur = _point(source, side, rules, "source")
        moves = []
        for kind, word, hit in steps:
            if cur == 0:
                raise LineNotationError("%r moves on after bearing off" % part)
            if kind == "-":
                if not word.isdigit() or not 1 <= int(word) <= 6:
                    raise LineNotationError("%r: a distance is 1..6, got %r" % (part, word))
                dst = cur - int(word)
                if dst < 0:
                    dst = 0
            else:
                dst = _point(word, side, rules, "destination")
            if dst >= cur:
                raise LineNotationError("%r does not move forward for %s" % (
                    part, ("White", "Black")[side]))
            moves.append((cur, dst, hit))
            cur = dst
        for _ in range(count):
            out.extend(moves)
    return out


def format_lines(steps, side, rules=None):
    """Write single-die steps [(src, dst, die, hit), ...] of ``side`` in line notation: one part
    per checker ('12-4-3*'), identical parts merged with a count, '-' for no move."""
    if not steps:
        return "-"
    chains = []  # type: list
    for step in steps:
        s, t, die, hit = step[0], step[1], step[2], step[3]
        for ch in chains:
            if ch[0] == s and s != 0:
                ch[0] = t
                ch[1].append((die, hit))
                break
        else:
            chains.append([t, [(die, hit)], s])
    parts = []
    for end, moves, src in chains:
        words = ["bar" if src == BAR else line_of_pip(src, side, rules)]
        cur = src
        for die, hit in moves:
            nxt = cur - die
            if nxt <= 0:
                words.append(">off")
            elif cur == BAR:
                words.append(">" + line_of_pip(nxt, side, rules))
            else:
                words.append("-%d" % die)
            if hit:
                words.append("*")
            cur = nxt if nxt > 0 else 0
        parts.append("".join(words))
    out = []  # type: list
    for p in parts:
        if out and out[-1][0] == p:
            out[-1][1] += 1
        else:
            out.append([p, 1])
    return " ".join(p + ("(%d)" % n if n > 1 else "") for p, n in out)
