"""The boot window (issue 23): a locked board shows no prompt and no key at any point of start-up,
with Ctrl-C held from any point on and after a power cut at any point, under CPython and under
the MicroPython unix port: tests/mp/bootwindow.py boots it as the rp2 port does."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from host_tools.records.director import BoardClient, Director
from host_tools.soak.soakboard import VirtualBoard
from tests import mphelp

ROOT = mphelp.ROOT
HARNESS = os.path.join(ROOT, "tests", "mp", "bootwindow.py")
MASTER = bytes(range(32))
UID = b"NARDYSIM"          # the simulator's flash id: the harness's board is this one


def _client(vb):
    def send(line):
        m = vb.mark()
        vb.cmd(line)
        return vb.lines[m:]
    return BoardClient(send)


def make_flash(path, lock):
    """A provisioned board (locked or not) with a backgammon game under way, and its key's hex."""
    director = Director(MASTER)
    vb = VirtualBoard("backgammon", flash_dir=str(path), unique_id=UID)
    try:
        c = _client(vb)
        c.provision(director)
        assert vb.cmd("new backgammon")["t"] == "ok"
        if lock:
            assert c.lock(director)["locked"] is True
        vb.setup()
        for _ in range(3):
            vb.press("p0")
        board_id = vb.session.identity.board_id
    finally:
        vb.close()
    shutil.copytree(os.path.join(ROOT, "hardware"), os.path.join(str(path), "hardware"))
    return director.board_key(board_id).hex()


# The harness's own code and hooks take some 8K of the heap beside the firmware (which starts in
# 230K without them: firmware/main.py from source, as deployed): 240K for the MicroPython runs.
MP_HEAP = "240K"


def _run(work, specs, micropython):
    """The boots ``specs`` in one process, on the flash folder ``work`` itself."""
    if micropython:
        out = mphelp.run(HARNESS, args=[ROOT, work] + list(specs), heap=MP_HEAP, timeout=600)
    else:
        env = dict(os.environ, PYTHONPATH=ROOT)
        out = subprocess.run([sys.executable, HARNESS, ROOT, work] + list(specs), env=env,
                             capture_output=True, text=True, timeout=600, check=True).stdout
    got = [json.loads(line[3:]) for line in out.splitlines() if line.startswith("@@ ")]
    assert len(got) == len(specs), out[-3000:]
    return got, out


def boots(flash, specs, micropython=False, then=()):
    """Run the boots ``specs`` on a copy of ``flash`` in one process, then the boots ``then`` in
    a second one (a fresh heap, as after a power cut); their summaries and everything said."""
    work = flash + "-run"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(flash, work)
    try:
        got, out = _run(work, specs, micropython)
        if then:
            more, out2 = _run(work, then, micropython)
            got, out = got + more, out + out2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return got, out


@pytest.fixture(scope="module")
def locked_flash(tmp_path_factory):
    path = tmp_path_factory.mktemp("bw") / "locked"
    return str(path), make_flash(path, True)


def _check_locked(got, out, key):
    assert key not in out and key.upper() not in out          # the key: never said
    for g in got:
        assert g["outcome"] in ("ended", "cut", "reset"), g          # never a prompt
        # Ctrl-C was enabled only before the first statement's own lookup: at no point
        assert g["open"] == [], g


def test_a_locked_board_starts_with_ctrl_c_held_from_any_point(locked_flash):
    flash, key = locked_flash
    (clean,), out = boots(flash, ["ctrlc@999999"])
    assert clean["outcome"] == "ended" and '"locked": true' in out.replace("'", '"'), out[-2000:]
    n = clean["points"]
    assert n > 20, clean          # start-up imports and reads: these are its points
    got, out = boots(flash, ["ctrlc@%d" % k for k in range(1, n + 1)])
    _check_locked(got, out, key)
    assert [g["outcome"] for g in got] == ["ended"] * n


def test_a_locked_board_cut_at_any_point_of_start_up_then_ctrl_c_shows_no_prompt(locked_flash):
    flash, key = locked_flash
    (clean,), _ = boots(flash, ["ctrlc@1"])
    specs = []
    for c in range(1, clean["points"] + 1):
        specs += ["cut@%d" % c, "ctrlc@1"]      # the power goes at point c; back on, Ctrl-C held
    got, out = boots(flash, specs)
    _check_locked(got, out, key)
    assert all(g["outcome"] == "ended" for g in got[1::2]), got


def test_an_unlocked_board_still_gives_its_prompt_to_ctrl_c(tmp_path):
    """The other side: unlocked, a Ctrl-C once the firmware runs stops it (deploy, calibrate);
    during start-up it is a byte, and the firmware opens the REPL when it knows."""
    flash = str(tmp_path / "open")
    make_flash(flash, False)
    (got,), _ = boots(flash, ["ctrlc@1"])
    assert got["outcome"] == "prompt" and "KeyboardInterrupt" in got["error"], got
    assert got["open"] == [got["points"]], got        # enabled only once the firmware runs


@pytest.mark.micropython
def test_the_boot_window_under_micropython(locked_flash):
    flash, key = locked_flash
    (clean,), _ = boots(flash, ["ctrlc@999999"], micropython=True)
    assert clean["outcome"] == "ended", clean
    n = clean["points"]
    for c in range(1, n + 1, 4):                   # one process per power cut: a fresh heap
        got, out = boots(flash, ["cut@%d" % c], micropython=True, then=["ctrlc@1"])
        _check_locked(got, out, key)
        assert got[1]["outcome"] == "ended", (c, got)
