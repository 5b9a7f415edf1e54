"""Standard move text (``24/18 13/11*``, ``bar/22``, ``6/off``, ``8/5(2)``, ``13/10*/7``): write and read.

Points are the mover's own pips; ``bar`` (or 25) is the bar, ``off`` (or 0) borne off. Writing
follows gnubg's ``FormatMove``: a checker moving on is written once (``13/7``), keeping an
intermediate point only where it hit (``13/10*/7``); identical moves are merged with a count
(``8/4(2)``); parts are ordered by decreasing source point.
"""

from firmware.rules.position import SIDE

BAR = 25


class NotationError(ValueError):
    """Move text that cannot be read, or that does not fit the position."""


def _point_name(p):
    if p == BAR:
        return "bar"
    if p == 0:
        return "off"
    return str(p)


def format_steps(steps):
    """gnubg-style text of a play given as [(src, dst, die, hit), ...] (dst 0 = off)."""
    if not steps:
        return ""
    chains = []  # type: list  # each: [points..., hits...] as two lists
    for step in steps:
        s, t, hit = step[0], step[1], step[3]
        joined = False
        for ch in chains:
            if ch[0][-1] == s and s != 0:
                ch[0].append(t)
                ch[1].append(hit)
                joined = True
                break
        if not joined:
            chains.append([[s, t], [0, hit]])
    texts = []
    for pts, hits in chains:
        words = [_point_name(pts[0])]
        for i in range(1, len(pts)):
            last = i == len(pts) - 1
            if hits[i] or last:
                words.append(_point_name(pts[i]) + ("*" if hits[i] else ""))
        text = "/".join(words)
        texts.append((pts[0], pts[-1], text.replace("*", ""), text))
    texts.sort(key=lambda x: (-x[0], -x[1], x[2], x[3] == x[2]))
    out = []
    i = 0
    while i < len(texts):          # identical moves merge, hit or not: 4/1*(2) as gnubg writes
        j = i
        while j + 1 < len(texts) and texts[j + 1][2] == texts[i][2]:
            j += 1
        n = j - i + 1
        out.append(texts[i][3] + ("(%d)" % n if n > 1 else ""))
        i = j + 1
    return " ".join(out)


def _read_point(word, text):
    w = word.strip().lower()
    if w.endswith("*"):
        w = w[:-1]
    if w == "bar":
        return BAR
    if w == "off":
        return 0
    try:
        p = int(w)
    except ValueError:
        raise NotationError("%r in %r is not a point" % (word, text))
    if not 0 <= p <= BAR:
        raise NotationError("point %d in %r is outside 0..25" % (p, text))
    return p


def parse_move(text):
    """Read move text into [(src, dst, hit_marked), ...], one entry per checker movement
    (``13/10*/7`` gives two, ``8/5(2)`` gives two). Raises NotationError."""
    out = []
    for token in text.replace(",", " ").split():
        count = 1
        if token.endswith(")"):
            open_at = token.rfind("(")
            if open_at < 0:
                raise NotationError("unbalanced count in %r" % token)
            try:
                count = int(token[open_at + 1:-1])
            except ValueError:
                raise NotationError("bad count in %r" % token)
            if not 1 <= count <= 4:
                raise NotationError("count %d in %r is outside 1..4" % (count, token))
            token = token[:open_at]
        words = token.split("/")
        if len(words) < 2:
            raise NotationError("%r is not of the form from/to" % token)
        pts = []
        for w in words:
            pts.append((_read_point(w, text), w.endswith("*")))
        for _ in range(count):
            for i in range(len(pts) - 1):
                a = pts[i][0]
                b = pts[i + 1][0]
                if b >= a:
                    raise NotationError("%s does not move forward in %r" % (token, text))
                out.append((a, b, pts[i + 1][1]))
    return out


def apply_move_text(rules, pos, text):
    """The position after the mover plays ``text`` (checked only for checkers being there;
    whether the play is legal is ``Turn.check``'s question). Raises NotationError."""
    result = pos.copy()
    b = result.board
    me = pos.turn * SIDE
    op = (1 - pos.turn) * SIDE
    x = rules.xlat
    for a, t, _marked in parse_move(text):
        if not b[me + a]:
            raise NotationError("no checker on %s for %r" % (_point_name(a), text))
        b[me + a] -= 1
        b[me + t] += 1
        if t:
            o = op + x[t]
            if b[o] >= 1 and rules.block == 2 and b[o] == 1:
                b[o] = 0
                b[op + BAR] += 1
            elif b[o]:
                raise NotationError("point %d is held by the opponent in %r" % (t, text))
    return result
