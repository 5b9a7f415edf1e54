"""Agreement with GNU Backgammon: on generated backgammon positions (host_tools.bench.positions) the set
of positions our Turn can reach equals the set gnubg's move generator reaches.

gnubg is asked through its Python module (``find_best_moves``: one entry per distinct resulting
position); its move tuples stop at the first step that bears off, so for every case where some
play bears off the answer comes from Debian's gnubg CLI instead (``hint`` lists every play in
full notation). The resulting boards are computed here from gnubg's moves with a few lines of
plain arithmetic, independent of the rules core. On every tenth case ``Turn.check`` must also
accept each position gnubg reaches (and refuse the unmoved position when gnubg has a play).
"""

import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

gnubg = pytest.importorskip("gnubg")

from firmware.rules import get_rules, Position, Turn   # noqa: E402
from host_tools.bench import positions as P                  # noqa: E402

GNUBG_CLI = shutil.which("gnubg") or "/usr/games/gnubg"
RULES = get_rules("backgammon")


# -- gnubg's side ---------------------------------------------------------------------------

def _apply(own, opp, pairs):
    """Move the mover's checkers along (src, dst) pairs (25 bar, 0 off); a checker landing on
    a single opposing checker sends it to the bar. Returns the board pair as tuples."""
    own = list(own)
    opp = list(opp)
    for s, d in pairs:
        assert own[s] > 0, (s, d)
        own[s] -= 1
        own[d] += 1
        if d:
            q = 25 - d
            assert opp[q] <= 1, (s, d)
            if opp[q] == 1:
                opp[q] = 0
                opp[25] += 1
    return tuple(own), tuple(opp)


def _text_pairs(text):
    """gnubg's move text ('24/18 13/10*/7 6/off(2) bar/22') as (src, dst) pairs."""
    out = []
    for word in text.split():
        count = 1
        m = re.match(r"^(.*)\((\d)\)$", word)
        if m:
            word, count = m.group(1), int(m.group(2))
        pts = []
        for w in word.split("/"):
            w = w.rstrip("*")
            pts.append(25 if w == "bar" else 0 if w == "off" else int(w))
        for _ in range(count):
            out += list(zip(pts, pts[1:]))
    return out


_HINT = re.compile(r"^\s*\d+\.\s+Cubeful 0-ply\s+(.*?)\s+Eq\.:")


def _cli_finals(cases):
    """One gnubg CLI session answering every case with 'hint'."""
    cmds = ["set player 0 human", "set player 1 human",
            "set evaluation chequerplay evaluation plies 0", "new game"]
    for _kind, own, opp, dice in cases:
        cmds.append("set board " + gnubg.position_id(P.gnubg_board(own, opp)))
        cmds.append("set dice %d %d" % dice)
        cmds.append("hint 100000")
    out = subprocess.run([GNUBG_CLI, "-t", "-q"], input="\n".join(cmds) + "\n",
                         capture_output=True, text=True, timeout=600).stdout
    blocks = out.split("The dice have been set to")[1:]
    assert len(blocks) == len(cases), "gnubg CLI answered %d of %d cases" % (len(blocks), len(cases))
    result = []
    for (_kind, own, opp, _dice), block in zip(cases, blocks):
        texts = [m.group(1) for m in map(_HINT.match, block.splitlines()) if m]
        if not texts:
            assert "There are no legal moves" in block, block[:400]
            result.append({(tuple(own), tuple(opp))})
        else:
            result.append({_apply(own, opp, _text_pairs(t)) for t in texts})
    return result


def gnubg_finals(cases):
    """For each case, the set of board pairs gnubg's legal plays lead to."""
    ci = gnubg.cube_info()
    ec = gnubg.eval_context(0, 0)
    result = [None] * len(cases)
    cli = []
    for i, (_kind, own, opp, dice) in enumerate(cases):
        moves = gnubg.find_best_moves(P.gnubg_board(own, opp), ci, ec, dice)
        if not moves:
            result[i] = {(tuple(own), tuple(opp))}
        elif any(len(m["move"]) % 2 for m in moves):
            cli.append(i)          # some play bears off: the tuples are cut short
        else:
            finals = set()
            for m in moves:
                t = m["move"]
                finals.add(_apply(own, opp, list(zip(t[0::2], t[1::2]))))
            assert len(finals) == len(moves)
            result[i] = finals
    if cli:
        for i, finals in zip(cli, _cli_finals([cases[i] for i in cli])):
            result[i] = finals
    return result, len(cli)


# -- our side -----------------------------------------------------------------------------------

def our_finals(own, opp, dice, side):
    """The board pairs our Turn reaches, with the mover playing as ``side``."""
    pos = Position(P.to_board(own, opp, side), side)
    turn = Turn(RULES, pos, dice)
    me = side * 26
    op = (1 - side) * 26
    finals = set()
    for f in turn.finals():
        b = f.board
        finals.add((tuple(b[me:me + 26]), tuple(b[op:op + 26])))
    if not finals:
        finals.add((tuple(own), tuple(opp)))
    return finals, turn.max_steps


def check_agrees(case, side, finals):
    """Turn.check accepts every position gnubg reaches and rejects the unchanged position
    when gnubg has a play."""
    kind, own, opp, dice = case
    pos = Position(P.to_board(own, opp, side), side)
    turn = Turn(RULES, pos, dice)
    bad = []
    for f_own, f_opp in finals:
        final = Position(P.to_board(f_own, f_opp, side), side)
        ok, why = turn.check(final)
        if not ok:
            bad.append("check rejects a gnubg play: %s" % why)
    if (tuple(own), tuple(opp)) not in finals:
        ok, why = turn.check(pos)
        if ok:
            bad.append("check accepts not moving")
    return bad


def _describe(case, side):
    kind, own, opp, dice = case
    pts = " ".join("%d:%d" % (p, own[p]) for p in range(25, -1, -1) if own[p])
    ops = " ".join("%d:%d" % (p, opp[p]) for p in range(25, -1, -1) if opp[p])
    return "%s dice %d-%d mover(side %d) %s | opponent %s" % (kind, dice[0], dice[1], side, pts, ops)


def compare(cases):
    """Compare every case; returns (failures, stats)."""
    expected, via_cli = gnubg_finals(cases)
    failures = []
    stats = Counter()
    stats["via_cli"] = via_cli
    for i, case in enumerate(cases):
        kind, own, opp, dice = case
        side = i % 2
        ours, m = our_finals(own, opp, dice, side)
        stats[kind] += 1
        stats["plays"] += len(ours)
        double = dice[0] == dice[1]
        if m == 0:
            stats["no move"] += 1
        elif not double and m == 1:
            stats["one die only"] += 1
        elif double and m < 4:
            stats["part of a double"] += 1
        if own[25]:
            stats["mover on the bar"] += 1
        if i % 10 == 0:
            for why in check_agrees(case, side, expected[i]):
                failures.append("%s: %s" % (_describe(case, side), why))
        if ours != expected[i]:
            failures.append("%s: gnubg %d plays, ours %d; missing %s; extra %s" % (
                _describe(case, side), len(expected[i]), len(ours),
                sorted(expected[i] - ours)[:2], sorted(ours - expected[i])[:2]))
    return failures, stats


def test_the_oracle_reads_gnubg_correctly():
    """gnubg's answers through both paths, checked by hand on rules.md §10 positions."""
    start = P.start_cases()
    five_one = [c for c in start if c[3] == (1, 5)]
    (finals,), _ = gnubg_finals(five_one)
    assert len(finals) == 8                       # S1: 8 distinct plays of the opening 5-1
    # S6: W 5:1, 2:1 (13 off), B all on its 1-point; 6-4 -> {5/off 2/off, 5/1 2/off}
    own = [13, 0, 1, 0, 0, 1] + [0] * 20
    opp = [0, 15] + [0] * 24
    (finals,), via_cli = gnubg_finals([("bearoff", own, opp, (6, 4))])
    assert via_cli == 1
    both_off = tuple([15] + [0] * 25)
    five_one_off = tuple([14, 1] + [0] * 24)
    assert finals == {(both_off, tuple(opp)), (five_one_off, tuple(opp))}
    # S10: W bar 2, 13:13; only Black's 5-point open; 5-3 -> bar/20 only
    own = [0] * 26
    own[25] = 2
    own[13] = 13
    opp = [0] * 26
    for q in (1, 2, 3, 4, 6):
        opp[q] = 2
    opp[24] = 5
    (finals,), _ = gnubg_finals([("bar", own, opp, (5, 3))])
    after = list(own)
    after[25] = 1
    after[20] = 1
    assert finals == {(tuple(after), tuple(opp))}


def test_opening_rolls_agree():
    failures, stats = compare(P.start_cases())
    assert failures == []
    assert stats["opening"] == 21


def _run(n, seed):
    cases = P.generate(n, seed=seed)
    failures, stats = compare(cases)
    print("gnubg agreement: %d positions, %s" % (n, dict(stats)))
    assert not failures, "%d of %d disagree, e.g.\n%s" % (len(failures), n, "\n".join(failures[:5]))
    return stats


def test_generated_positions_agree_with_gnubg():
    n = int(os.environ.get("GNUBG_AGREEMENT_N", "2000"))
    stats = _run(n, seed=1)
    if n >= 2000:
        # every kind of case the issue names is really there
        for kind in P.KINDS:
            assert stats[kind] >= n // len(P.KINDS) - 1
        assert stats["no move"] >= 30
        assert stats["one die only"] >= 30
        assert stats["part of a double"] >= 10
        assert stats["mover on the bar"] >= 300


@pytest.mark.soak
def test_many_generated_positions_agree_with_gnubg():
    _run(10000, seed=20)
