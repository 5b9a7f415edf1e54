"""The wheel in a fresh virtual environment with only the base dependencies, run from an empty
folder: every command's --help, and short real runs of soak, soak --replay, replay, export, legal
and the firmware on the simulated board, each exit 0 or a one-line error (never a traceback)."""

import glob
import json
import os
import shutil
import subprocess
import sys
import venv

import pytest

from host_tools import __main__ as entry

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATCH = os.path.join(REPO, "tests", "data", "games", "gnubg-selfplay",
                     "charlot1-charlot2_7p_2025-11-08-2305.mat")
LEGAL = {"variant": "backgammon", "points": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0,
                                             -5, 0, 0, 0, 0, 2], "bar": [0, 0], "off": [0, 0], "dice": [3, 1]}

pytestmark = pytest.mark.soak          # a venv and pip install: a minute or two


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh environment's bin folder, an empty folder to run in)."""
    from test_packaging import clean_copy
    top = tmp_path_factory.mktemp("install")
    src = clean_copy(str(top / "src"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                           "--disable-pip-version-check", "-w", str(top / "dist"), src],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    shutil.rmtree(src)
    (wheel,) = glob.glob(str(top / "dist" / "*.whl"))
    venv.EnvBuilder(with_pip=True).create(str(top / "env"))
    done = subprocess.run([str(top / "env" / "bin" / "pip"), "install", "-q",
                           "--disable-pip-version-check", wheel],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    empty = top / "empty"
    empty.mkdir()
    return str(top / "env" / "bin"), str(empty)


def run(installed, argv, stdin="", timeout=300):
    bin_dir, empty = installed
    exe = os.path.join(bin_dir, argv[0])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([exe] + argv[1:], cwd=empty, input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=env)


def one_line_or_ok(done):
    """Exit 0, or a failure said in one line (no traceback)."""
    if done.returncode == 0:
        return True
    err = done.stderr.strip()
    return "Traceback" not in err and len(err.splitlines()) == 1


def test_the_installed_package_works_from_an_empty_folder(installed):
    """One test, so that the environment is built once (on one xdist worker)."""
    every_command_helps_or_says_what_to_install(installed)
    short_real_runs_from_an_empty_folder(installed)


def every_command_helps_or_says_what_to_install(installed):
    bad = []
    for command in entry._commands():
        done = run(installed, ["nardy", command, "--help"], timeout=120)
        if not one_line_or_ok(done):
            bad.append("%s: exit %d\n%s" % (command, done.returncode, done.stderr[-1500:]))
        elif done.returncode == 0 and "nardy " + command not in done.stdout \
                and command not in done.stdout.splitlines()[0]:
            bad.append("%s: the usage does not name the command: %s" % (command, done.stdout[:200]))
        elif done.returncode != 0 and "pip install" not in done.stderr and "apt-get" not in done.stderr:
            bad.append("%s: %s" % (command, done.stderr))
    assert not bad, "\n".join(bad)


def short_real_runs_from_an_empty_folder(installed):
    _bin, empty = installed
    shutil.copy(MATCH, os.path.join(empty, "m.mat"))
    done = run(installed, ["nardy", "soak", "--variant", "short", "--games", "1", "--fast",
                           "--seed", "3"])
    assert done.returncode == 0 and "games 1" in done.stdout, done.stderr[-1500:]
    done = run(installed, ["nardy", "replay", "m.mat"])
    assert done.returncode == 0 and ": ok" in done.stdout, done.stdout + done.stderr[-1500:]
    done = run(installed, ["nardy", "soak", "--replay", "m.mat"])
    assert done.returncode == 0 and "bad games 0" in done.stdout, done.stderr[-1500:]
    done = run(installed, ["nardy", "legal"], stdin=json.dumps(LEGAL) + "\n")
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[0])["legal"], done.stderr
    done = run(installed, ["python", "-m", "firmware.main", "--sim", "--virtual-time"],
               stdin="status\n", timeout=120)
    assert done.returncode == 0 and '"t": "status"' in done.stdout, done.stderr[-1500:]
    from host_tools.soak.soakplayer import record_match
    with open(os.path.join(empty, "rec.json"), "w") as f:
        json.dump(record_match("backgammon", 1, 11), f)
    done = run(installed, ["nardy", "export", "rec.json", "-o", "out.mat"])
    assert done.returncode == 0, done.stderr[-1500:]
    done = run(installed, ["nardy", "replay", "out.mat"])
    assert done.returncode == 0 and ": ok" in done.stdout, done.stdout + done.stderr[-1500:]
    done = run(installed, ["nardy", "fuzz", "replay", "--count", "3"])
    assert one_line_or_ok(done), done.stderr[-1500:]
    done = run(installed, ["nardy", "mip", "--check"])
    assert done.returncode != 0 and "clone" in done.stderr and one_line_or_ok(done), done.stderr
    done = run(installed, ["nardy", "doctor"])
    assert done.returncode == 0 and done.stdout.startswith("ok Python"), done.stdout
    assert not glob.glob(os.path.join(empty, "hardware*"))      # nothing leaked into the cwd
