"""The engine: output layout and equity, pubeval's known choices, legal plays only, the protocol,
and training that reproduces its weights from the seed and chunking."""

import io
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from firmware.rules.game import Game, MOVE, OVER, ROLL, DOUBLET, OPENING
from firmware.rules.variants import VARIANTS, get_rules
from host_tools.engine import weights
from host_tools.engine.candidates import Candidates
from host_tools.engine.encode import INPUTS
from host_tools.engine.gameplay import Dice, play_game
from host_tools.engine.heuristic import HeuristicPlayer
from host_tools.engine.net import Net
from host_tools.engine.outcomes import Outcomes
from host_tools.engine.players import NetPlayer, PubevalPlayer, RandomPlayer
from host_tools.engine.protocol import Engine, serve
from host_tools.engine.train import Trainer

ALL = sorted(VARIANTS)


@pytest.mark.parametrize("variant,names", [
    ("backgammon", ["win", "win>=2", "win>=3", "lose>=2", "lose>=3"]),
    ("short", ["win", "win>=2", "win>=4", "win>=8", "lose>=2", "lose>=4", "lose>=8"]),
    ("long", ["win", "win>=2", "win>=4", "lose>=2", "lose>=4"]),
    ("persian", ["win", "win>=2", "lose>=2"]),
])
def test_outputs_follow_the_rules_scoring(variant, names):
    out = Outcomes(get_rules(variant))
    assert out.names == names
    for pts in get_rules(variant).results:
        assert out.equity(out.terminal(pts, True)) == pytest.approx(pts)
        assert out.equity(out.terminal(pts, False)) == pytest.approx(-pts)
        assert out.equity(out.flip(out.terminal(pts, True))) == pytest.approx(-pts)


def test_equity_never_counts_a_gammon_likelier_than_the_win():
    out = Outcomes(get_rules("backgammon"))
    assert out.equity([0.3, 0.9, 0.9, 0.1, 0.0]) == pytest.approx(2 * 0.3 - 1 + 0.3 + 0.3 - 0.1)
    assert out.equity([0.9, 0.0, 0.5, 0.5, 0.5]) == pytest.approx(2 * 0.9 - 1 - 0.1 - 0.1)


# the standard replies to three opening rolls, which pubeval finds too (a check of its encoder)
@pytest.mark.parametrize("dice,play", [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7")])
def test_pubeval_plays_the_known_openings(dice, play):
    rules = get_rules("backgammon")
    eng_turn = Game(rules)
    eng_turn.opening_roll(dice[0], dice[1])
    steps = PubevalPlayer(rules).play(eng_turn)
    t = eng_turn.turn
    for s, d in steps:
        t.push(s, d)
    from firmware.rules.notation import format_steps
    assert format_steps(t.steps) == play


def _random_net(rules, seed=3):
    return Net(INPUTS, 16, Outcomes(rules).n, seed=seed)


@pytest.mark.parametrize("variant", ALL)
def test_every_player_finishes_games_with_legal_plays_only(variant):
    """play_game pushes each step through Turn.push, which refuses any step not offered."""
    rules = get_rules(variant)
    players = [NetPlayer(_random_net(rules), rules), RandomPlayer(1), HeuristicPlayer(rules)]
    for i, (a, b) in enumerate([(0, 1), (2, 0), (1, 2)]):
        r = play_game(rules, (players[a], players[b]), Dice(100 + i))
        assert r.winner in (0, 1) and r.points in rules.results


@settings(max_examples=25, deadline=None)
@given(variant=st.sampled_from(ALL), seed=st.integers(0, 10**6), plies=st.integers(0, 120))
def test_candidates_are_exactly_the_legal_plays(variant, seed, plies):
    """At a random point of a random game, the candidates' positions are the rules core's finals."""
    rules = get_rules(variant)
    rng = random.Random(seed)
    game = Game(rules, cube=False)
    while game.phase == OPENING:
        if rules.opening == "parity":
            game.opening_parity(0, True, rng.randint(1, 6))
        else:
            game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
    for _ in range(plies):
        if game.phase == OVER:
            return
        if game.phase == ROLL:
            game.roll(rng.randint(1, 6), rng.randint(1, 6))
        if game.phase == DOUBLET:
            game.choose_doublet(rng.randint(1, 6))
        if game.phase == MOVE:
            c = Candidates(game.turn)
            finals = sorted(p.encode() for p in game.turn.finals())
            got = []
            for i in range(c.n):
                b = bytearray(52)
                side = game.side
                b[side * 26:side * 26 + 26] = bytes(c.mover[i])
                b[(1 - side) * 26:(1 - side) * 26 + 26] = bytes(c.other[i])
                from firmware.rules.position import Position
                got.append(Position(b, side).encode())
            assert sorted(got) == finals
            steps = c.steps(rng.randrange(c.n)) if c.n else []
            for s, d in steps:
                game.turn.push(s, d)
            ok, why = game.commit()
            assert ok, why


def _engine(tmp_path, variant="backgammon"):
    rules = get_rules(variant)
    weights.save(variant, _random_net(rules), {"variant": variant}, str(tmp_path))
    return Engine(variant, folder=str(tmp_path))


def _session(eng, text, as_json=True):
    out = []
    serve(eng, io.StringIO(text), out.append, as_json=as_json)
    return [json.loads(x) for x in out] if as_json else out


def test_protocol_answers_plays_hints_and_evaluations(tmp_path):
    eng = _engine(tmp_path)
    a = _session(eng, "start\ndice 3 1\nplay\nhint 2\neval\n")
    assert a[0]["ok"] == "position" and a[1]["dice"] == [3, 1]
    assert a[2]["play"] in [h["play"] for h in _session(eng, "hint 100\n")[0]["hint"]]
    assert len(a[3]["hint"]) == 2 and a[3]["hint"][0]["equity"] >= a[3]["hint"][1]["equity"]
    assert set(a[4]["eval"]) == {"win", "win>=2", "win>=3", "lose>=2", "lose>=3"}
    assert len(_session(eng, "hint 100\n")[0]["hint"]) == 16       # 3-1 at the start: 16 plays


@pytest.mark.parametrize("line,words", [
    ("dice 7 1", "two numbers"), ("play", "no dice"), ("position white 24:2", "bad position"),
    ("variant chess", "unknown variant"), ("level godlike", "unknown level"), ("fly", "unknown command"),
    ("position " + "f" * 53, "bad position"), ("hint x", "positive"), ("x" * 5000, "longer than"),
    ("variant backgammon colour=red", "no option"),
])
def test_protocol_errors_are_one_line_and_the_engine_goes_on(tmp_path, line, words):
    eng = _engine(tmp_path)
    out = _session(eng, line + "\nstart\n", as_json=False)
    assert len(out) == 2 and out[0].startswith("error: ") and words in out[0], out
    assert out[1].startswith("ok position")


def test_training_reproduces_its_weights_from_seed_and_chunking(tmp_path):
    a = Trainer("short", seed=5, folder=str(tmp_path / "a"), hidden=8, log=io.StringIO())
    a.run(6, chunk=6)
    b = Trainer("short", seed=5, folder=str(tmp_path / "b"), hidden=8, log=io.StringIO())
    b.run(4, chunk=4)
    b = Trainer("short", resume=True, folder=str(tmp_path / "b"), log=io.StringIO())
    b.run(2, chunk=2)
    na, ra = weights.load("short", str(tmp_path / "a"))
    nb, rb = weights.load("short", str(tmp_path / "b"))
    assert ra["weights_sha"] == rb["weights_sha"] and rb["training"]["games"] == 6
    c = Trainer("short", seed=6, folder=str(tmp_path / "c"), hidden=8, log=io.StringIO())
    c.run(6, chunk=6)
    assert weights.load("short", str(tmp_path / "c"))[1]["weights_sha"] != ra["weights_sha"]


def test_each_chunk_records_its_own_plies_not_the_runs_so_far(tmp_path):
    # one run of two chunks of 3 games, against the same games as two runs of 3 (a resume):
    # the second chunk's plies are its own games' in both
    a = Trainer("short", seed=5, folder=str(tmp_path / "a"), hidden=8, log=io.StringIO())
    a.run(6, chunk=3)
    b = Trainer("short", seed=5, folder=str(tmp_path / "b"), hidden=8, log=io.StringIO())
    b.run(3, chunk=3)
    b = Trainer("short", resume=True, folder=str(tmp_path / "b"), log=io.StringIO())
    b.run(3, chunk=3)
    ha = weights.load("short", str(tmp_path / "a"))[1]["history"]
    hb = weights.load("short", str(tmp_path / "b"))[1]["history"]
    assert [e["chunk_plies"] for e in ha] == [e["chunk_plies"] for e in hb]
    assert all(e["chunk_plies"] > 0 for e in ha)


def test_weights_that_do_not_match_their_record_are_refused(tmp_path):
    rules = get_rules("persian")
    weights.save("persian", _random_net(rules), {}, str(tmp_path))
    npz, js = weights.paths("persian", str(tmp_path))
    rec = json.load(open(js))
    rec["weights_sha"] = "0" * 12
    json.dump(rec, open(js, "w"))
    with pytest.raises(ValueError, match="does not match"):
        weights.load("persian", str(tmp_path))
    with pytest.raises(LookupError, match="nardy train"):
        weights.load("long", str(tmp_path / "none"))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=26, max_size=26), min_size=1, max_size=8),
       st.sampled_from(ALL))
def test_hand_made_inputs_count_runs_and_home_points(rows, variant):
    import numpy as np
    from host_tools.engine.encode import Geometry, _hand_made
    rules = get_rules(variant)
    geo = Geometry(rules)
    c = np.array(rows, dtype=np.uint8)
    h = _hand_made(c, np.zeros_like(c), geo)
    for i, r in enumerate(rows):
        best = run = 0
        for n in r[1:25]:
            run = run + 1 if n >= geo.need else 0
            best = max(best, run)
        assert h[i, 1] * 6 == pytest.approx(best)
        assert h[i, 2] * 6 == pytest.approx(sum(1 for n in r[1:7] if n >= geo.need))
        assert h[i, 0] == 0          # no opposing checker anywhere: no blot has one to pass


def test_protocol_1ply_level_ranks_every_play_and_keeps_the_levels_apart(tmp_path):
    eng = _engine(tmp_path)
    zero = _session(eng, "start\ndice 6 5\nhint 100\n")[2]["hint"]
    one = _session(eng, "level 1ply\ndice 6 5\nhint 100\nplay\n")
    assert one[0] == {"ok": "level", "level": "1ply"}
    assert sorted(h["play"] for h in one[2]["hint"]) == sorted(h["play"] for h in zero)
    assert one[3]["play"] == one[2]["hint"][0]["play"]
    noisy = _session(eng, "level beginner\nhint 1\n")[1]["hint"][0]
    assert noisy == zero[0]                         # a hint is always at full strength


@pytest.mark.parametrize("loss,name", [(0.0, ""), (0.039, ""), (0.04, "doubtful"), (0.079, "doubtful"),
                                       (0.08, "bad"), (0.16, "very bad"), (1.5, "very bad")])
def test_analysis_marks_use_gnubgs_thresholds(loss, name):
    from host_tools.engine.analysis import mark
    assert mark(loss) == name


@pytest.mark.parametrize("rate,name", [(0.001, "supernatural"), (0.004, "world class"), (0.007, "expert"),
                                       (0.011, "advanced"), (0.017, "intermediate"), (0.025, "casual"),
                                       (0.034, "beginner"), (0.05, "awful")])
def test_analysis_ratings_use_gnubgs_thresholds(rate, name):
    from host_tools.engine.analysis import rating
    assert rating(rate) == name


def test_analysis_of_a_match_file_scores_every_play(tmp_path):
    import glob
    import os
    from host_tools.engine.analysis import analyse_match
    from host_tools.records.matfile import parse_file
    from host_tools.records.replay import replay_match
    rules = get_rules("backgammon")
    path = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "data", "games",
                                         "gnubg-selfplay", "*.mat")))[0]
    match = parse_file(path)
    rep = analyse_match(match, _random_net(rules), rules, plies=0, luck=False)
    moves = sum(len(g["moves"]) for g in rep["games"])
    assert moves == replay_match(match)["moves"] > 0
    for g in rep["games"]:
        for m in g["moves"]:
            assert m["loss"] >= 0 and (m["played"] is None or m["played"] <= m["best"] + 1e-9)
        assert [s["player"] for s in g["summary"]] == g["players"]


def test_analysis_finds_no_loss_in_the_engines_own_choice():
    from host_tools.engine.analysis import Analyser
    rules = get_rules("backgammon")
    net = _random_net(rules)
    game = Game(rules, cube=False)
    game.opening_roll(6, 4)
    before = game.pos.copy()
    for s, d in NetPlayer(net, rules).play(game):
        game.turn.push(s, d)
    after = game.turn.position()
    m = Analyser(net, rules).move(before, (6, 4), after)
    assert m["loss"] == 0 and m["mark"] == "" and m["candidates"] > 1 and "luck" in m


@pytest.mark.parametrize("p,gammon,action,response", [
    (0.50, 0.0, "no double", "take"), (0.65, 0.0, "no double", "take"),
    (0.72, 0.0, "double", "take"), (0.76, 0.0, "double", "take"),
    (0.82, 0.0, "double", "pass"), (1.00, 0.0, "double", "pass"),
    (0.85, 0.6, "too good", "pass"),            # playing on for the gammon is worth more
])
def test_cube_decisions_follow_janowskis_money_model(p, gammon, action, response):
    from host_tools.engine.cube import decide
    d = decide([p, gammon, 0.0, 0.0, 0.0], (1, 2, 3))
    assert (d["action"], d["response"]) == (action, response), d


def test_cube_beaver_and_ownership():
    from host_tools.engine.cube import decide
    assert decide([0.2, 0.0, 0.0, 0.0, 0.0], (1, 2, 3), beaver=True)["response"] == "beaver"
    assert decide([0.2, 0.0, 0.0, 0.0, 0.0], (1, 2, 3))["response"] == "take"
    mine = decide([0.7, 0.0, 0.0, 0.0, 0.0], (1, 2, 3), owner="me")
    centre = decide([0.7, 0.0, 0.0, 0.0, 0.0], (1, 2, 3))
    assert mine["no_double"] > centre["no_double"]   # owning the cube is worth something
    with pytest.raises(ValueError):
        decide([0.7, 0, 0, 0, 0], (1, 2, 3), owner="them")


def test_protocol_cube_answers_and_refuses_a_cubeless_variant(tmp_path):
    eng = _engine(tmp_path)
    a = _session(eng, "start\ncube\ncube mine beaver\ncube sideways\n")
    assert a[1]["cube"]["action"] == "no double" and a[2]["cube"]["response"] in ("take", "beaver")
    assert "centre|mine" in a[3]["error"]
    eng = _engine(tmp_path, "long")
    assert "without the cube" in _session(eng, "cube\n")[0]["error"]


def test_analysis_html_report_has_a_plot_and_escapes_names():
    from host_tools.engine.report import html_report
    rep = {"file": "a<b>.mat", "games": [{"number": 1, "players": ["<Al>", "Bo"], "moves": [
        {"player": 0, "played": 0.2, "best": 0.3, "loss": 0.1, "mark": "bad", "line": 3,
         "dice": [3, 1], "text": "8/5 6/5", "forced": False},
        {"player": 1, "played": None, "best": None, "loss": 0.0, "mark": "", "line": 4,
         "dice": [6, 6], "text": "", "forced": True}],
        "summary": [{"player": "<Al>", "unforced": 1, "error_rate_milli": 100.0, "rating": "awful",
                     "marks": {"doubtful": 0, "bad": 1, "very bad": 0}, "luck": 0.0}]}]}
    page = html_report(rep)
    assert "<svg" in page and "<polyline" in page and "&lt;Al&gt;" in page and "<Al>" not in page
    assert page.count("class='bad'") == 1


# -- the learner: the gradient, the perspective of the targets, the size of a game's step ------

@pytest.mark.parametrize("inputs,hidden,outputs,rows", [(7, 5, 3, 1), (7, 5, 3, 4), (12, 3, 5, 6)])
def test_learn_steps_down_the_summed_cross_entropy(inputs, hidden, outputs, rows):
    """Net.learn's step is -rate x the gradient of the summed cross-entropy (finite
    differences in float64), and learn_each is the same step taken one row at a time."""
    import numpy as np
    rng = np.random.default_rng(inputs + rows)
    net = Net(inputs, hidden, outputs, seed=rows)
    for k, a in net.arrays().items():
        setattr(net, k, a.astype(np.float64))
    x, t = rng.random((rows, inputs)), rng.random((rows, outputs))

    def loss():
        o = net.forward(x)
        return -(t * np.log(o) + (1 - t) * np.log(1 - o)).sum()
    stepped = Net.from_arrays(net.arrays())
    for k in ("w1", "b1", "w2", "b2"):
        setattr(stepped, k, getattr(net, k).copy())
    stepped.learn(x, t, 1e-3)
    for k in ("w1", "b1", "w2", "b2"):
        w = getattr(net, k)
        grad = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            old = w[i]
            w[i] = old + 1e-6
            up = loss()
            w[i] = old - 1e-6
            grad[i] = (up - loss()) / 2e-6
            w[i] = old
        assert np.allclose((w - getattr(stepped, k)) / 1e-3, grad, atol=1e-6), k
    a, b = Net(inputs, hidden, outputs, seed=1), Net(inputs, hidden, outputs, seed=1)
    for r in range(rows):
        a.learn(x[r:r + 1], t[r:r + 1], 0.1)
    b.learn_each(x, t, 0.1)
    for k in ("w1", "b1", "w2", "b2"):
        assert np.allclose(getattr(a, k), getattr(b, k), atol=1e-6), k


@pytest.mark.parametrize("positions", [1, 10, 60, 200])
def test_a_games_length_does_not_scale_the_trainers_step(positions):
    """A game of ``positions`` alike positions moves the trained-size network towards their
    target and never past it at the trainer's rate. (Summing a game's gradients into one
    step, as the trainer once did, overshot by about the game's length: at rate 0.1 a game of
    60 positions threw every output to the far side of its target.)"""
    import numpy as np
    from host_tools.engine.encode import Geometry, features, start_view
    from host_tools.engine.train import RATE
    rules = get_rules("backgammon")
    x = np.repeat(features(start_view(rules)[None], Geometry(rules)), positions, axis=0)
    target = np.tile([0.6, 0.2, 0.05, 0.15, 0.01], (positions, 1))
    net = Net(INPUTS, 64, 5, seed=1)
    before = np.abs(net.forward(x[:1])[0] - target[0])
    side = np.sign(net.forward(x[:1])[0] - target[0])
    net.learn_each(x, target, RATE)
    after = net.forward(x[:1])[0] - target[0]
    assert (np.abs(after) <= before + 1e-6).all() and (after * side >= -1e-3).all()
    if positions >= 60:
        assert np.abs(after).max() < 0.01


@pytest.mark.parametrize("variant", ALL)
def test_flip_is_an_involution_that_swaps_wins_and_losses(variant):
    import numpy as np
    out = Outcomes(get_rules(variant))
    o = np.random.default_rng(1).random((4, out.n))
    assert np.allclose(out.flip(out.flip(o)), o)
    assert np.allclose(out.equity(out.flip(o)), -out.equity(o))
    for pts in get_rules(variant).results:
        assert out.flip(out.terminal(pts, True)).tolist() == out.terminal(pts, False).tolist()


@pytest.mark.parametrize("variant", ALL)
def test_self_play_learns_the_positions_before_each_play_from_the_movers_side(variant,
                                                                               monkeypatch):
    """The trace's inputs are the positions before each play seen by their mover (matador's
    second play and a doublet included), ``flip`` says when the next mover is the other side,
    the outcome is the last mover's win; lambda 1 makes every target that outcome seen from
    its state's side, lambda 0 the next state's value seen from it."""
    import numpy as np
    from firmware.rules import game as game_module
    from host_tools.engine.encode import Geometry, features, position_view
    from host_tools.engine.selfplay import lambda_returns, self_play
    rules = get_rules(variant)
    geo, out = Geometry(rules), Outcomes(rules)
    seen = []
    commit = game_module.Game.commit

    def spy(game):
        seen.append((features(position_view(game.pos, game.side)[None], geo)[0], game.side))
        return commit(game)
    monkeypatch.setattr(game_module.Game, "commit", spy)
    net = _random_net(rules)
    tr, (winner, points, _plies) = self_play(net, rules, Dice(11))
    x = np.asarray(tr.x)
    assert len(seen) == len(x) and np.array_equal(np.asarray([s[0] for s in seen]), x)
    sides = [s[1] for s in seen]
    assert tr.flip == [sides[t + 1] != sides[t] for t in range(len(sides) - 1)]
    assert sides[-1] == winner and tr.z.tolist() == out.terminal(points, True).tolist()
    assert np.allclose(np.asarray(tr.o), net.forward(x), atol=1e-6)
    g1 = lambda_returns(tr, out, 1.0)
    for t, s in enumerate(sides):
        assert g1[t].tolist() == (tr.z if s == winner else out.flip(tr.z)).tolist()
    g0 = lambda_returns(tr, out, 0.0)
    for t in range(len(sides) - 1):
        v = tr.o[t + 1]
        assert np.allclose(g0[t], out.flip(v) if sides[t + 1] != sides[t] else v)
