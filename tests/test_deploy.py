"""deploy: the firmware compiled and copied with mpremote to a board (the real MicroPython on a pty)."""

import io
import os
import subprocess
import sys
import time

import pytest

from host_tools import cmd_deploy
from host_tools.cmd_deploy import build_image, deploy
from firmware.rules import get_rules
from polling import wait_until

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPY_HEADER = b"M\x06"          # .mpy format version 6 (MicroPython 1.19 and later)


def on_board(board, code):
    """Run code on the board with the mpremote command line; its printed output."""
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), "mpremote"), "connect",
                           board.port, "exec", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


def test_image_is_bytecode_except_the_boot_files_and_leaves_the_simulator_out():
    items = {i.remote: i for i in build_image(REPO)}
    assert items["/main.py"].data == open(os.path.join(REPO, "firmware", "main.py"), "rb").read()
    assert items["/boot.py"].data == open(os.path.join(REPO, "boot.py"), "rb").read()
    assert "/hardware/board.json" in items
    modules = [r for r in items if r.startswith("/firmware/")]
    assert "/firmware/rules/movegen.mpy" in modules and "/firmware/app.mpy" in modules
    assert all(r.endswith(".mpy") and items[r].data.startswith(MPY_HEADER) for r in modules)
    assert not any(r.startswith("/firmware/sim/") for r in modules)
    # every module is portable bytecode (arch 0 in the header's third byte), the analog scan's
    # viper module too: the board compiles its kernel itself at import
    assert "/firmware/drivers/analog_viper.mpy" in modules
    assert all(items[r].data[2] >> 2 == 0 for r in modules)


@pytest.mark.micropython
def test_dry_run_lists_everything_and_writes_nothing(fake_board):
    out = io.StringIO()
    copied, removed = deploy(fake_board.port, root=REPO, dry_run=True, out=out)
    assert len(copied) == len(build_image(REPO)) and removed == []
    assert "would copy" in out.getvalue()
    assert os.listdir(fake_board.root) == []
    assert fake_board.hard_resets == 0


@pytest.mark.micropython
def test_deploy_copies_the_image_then_only_what_changed(fake_board):
    root = fake_board.root
    out = io.StringIO()
    copied, removed = deploy(fake_board.port, root=REPO, out=out)
    items = build_image(REPO)
    assert sorted(copied) == sorted(i.remote for i in items) and removed == []
    for item in items:
        with open(root + item.remote, "rb") as f:
            assert f.read() == item.data, item.remote
    assert not any(name.endswith(".part") for _, _, files in os.walk(root) for name in files)
    assert "[%d/%d]" % (len(items), len(items)) in out.getvalue()
    wait_until(lambda: fake_board.hard_resets == 1, what="the board's reset")

    # the bytecode runs on the board's MicroPython: the rules core answers as on CPython
    shown = on_board(fake_board, "import firmware.rules as r; print(r.get_rules('long').start_position())")
    assert shown.strip() == str(get_rules("long").start_position())

    copied, removed = deploy(fake_board.port, root=REPO, out=io.StringIO())
    assert copied == [] and removed == []
    time.sleep(0.3)
    assert fake_board.hard_resets == 1, "nothing changed, yet the board was reset"

    with open(root + "/firmware/rules/game.mpy", "r+b") as f:
        f.seek(10)
        f.write(b"\x00\x00")
    with open(root + "/firmware/stale.py", "w") as f:
        f.write("print('old code')\n")
    copied, removed = deploy(fake_board.port, root=REPO, out=io.StringIO())
    assert copied == ["/firmware/rules/game.mpy"] and removed == ["/firmware/stale.py"]
    assert not os.path.exists(root + "/firmware/stale.py")
    wait_until(lambda: fake_board.hard_resets == 2, what="the board's second reset")


def test_deploy_command_without_a_board_says_so(capsys):
    assert cmd_deploy.main(["--port", "/dev/no-such-board"]) == 1
    assert "cannot open /dev/no-such-board" in capsys.readouterr().err


# Deployed modules that name the simulator, each only on a run with --sim (a PC): main.py builds
# the simulated board there, and the App takes the simulated hands' commands from its world.
SIM_ON_A_PC_ONLY = {"firmware.main", "firmware.app"}


@pytest.mark.micropython
def test_a_fresh_board_gets_no_simulation_module(fake_board, capsys):
    import test_imports
    assert cmd_deploy.main(["--dry-run", "--port", fake_board.port]) == 0
    listed = [line.split(" -> ")[0].split()[-1] for line in capsys.readouterr().out.splitlines()
              if line.startswith("would copy")]
    assert os.listdir(fake_board.root) == [], "a dry run wrote to the board"
    modules = {src[:-3].replace("/", ".") for src in listed if src.startswith("firmware/")}
    modules = {m[:-len(".__init__")] if m.endswith(".__init__") else m for m in modules}
    every = {m for m in test_imports.modules() if m.startswith("firmware")}
    simulation = {m for m in every if m == "firmware.sim" or m.startswith("firmware.sim.")}
    assert simulation, "the simulator has moved: this test no longer sees it"
    assert modules & simulation == set()
    assert modules == every - simulation, "a firmware module is not deployed"
    assert "hardware/board.json" in listed and "boot.py" in listed
    # and nothing deployed imports the simulator, but where a --sim run on a PC does
    edges = test_imports.graph()
    naming = {m for m in modules if any(test_imports.within(t, "firmware.sim") for t in edges[m])}
    assert naming <= SIM_ON_A_PC_ONLY, naming - SIM_ON_A_PC_ONLY


def test_the_test_tree_drops_the_bytecode_of_a_module_whose_source_is_gone(tmp_path):
    """host_tools.device.mpytree: a module deleted from firmware/ must not stay importable in
    the .mpy tree the MicroPython tests run (it would hide the import that now fails)."""
    from host_tools.device import mpytree
    pkg = tmp_path / "firmware"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kept.py").write_text("X = 1\n")
    (pkg / "gone.py").write_text("Y = 2\n")
    (tmp_path / "hardware").mkdir()
    tree = mpytree.build(str(tmp_path), "tree")
    assert sorted(os.listdir(os.path.join(tree, "firmware"))) == ["__init__.mpy", "gone.mpy",
                                                                   "kept.mpy"]
    (pkg / "gone.py").unlink()
    mpytree.build(str(tmp_path), "tree")
    assert sorted(os.listdir(os.path.join(tree, "firmware"))) == ["__init__.mpy", "kept.mpy"]
