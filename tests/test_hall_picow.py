"""A Pico W board in the hall: the firmware under the real MicroPython unix port (230K heap), on the simulated
hardware with hardware/board.json's Wi-Fi option, publishes its journal itself with umqtt.simple
(fetched from PyPI at set-up) at QoS 1 to Mosquitto; the broker is killed mid-game and started
again, and the station still ends with the whole game, line for line as the board exports it."""

import json
import os
import random
import shutil
import subprocess
import threading
import time

import pytest

from test_board_micropython import _micropython, _mpy_cross
from host_tools.cmd_deploy import source_name

pytestmark = pytest.mark.micropython

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARD = b"NARDYSIM".hex()       # the simulated flash's unique id when nobody sets one
# A whole game alone needs the 230K budget; the hall link deployed as .mpy adds its code and
# umqtt.simple's (about 9 KB) and their 71 new names. The game's names must stay below the
# 1,261 the interpreter's first name pools hold (1,205 digital, 1,248 analog at 07bdbf3; this
# game with the analog front end ends at 1,258, docs/hall.md "A Pico W's heap"): the next pool
# takes 14.5 KB in one block, and past it the test fails at any heap size near this one. Frozen into the image (manifest.py) names and code stay
# in flash. NARDY_HALL_HEAP measures the least it plays in.
HEAP = os.environ.get("NARDY_HALL_HEAP", "250K")


def _tree(tmp, umqtt_dir):
    """The firmware and umqtt.simple as .mpy (as deployed), beside a board.json saying Pico W."""
    out = str(tmp / "tree")
    jobs = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "firmware")):
        for f in files:
            if f.endswith(".py"):
                src = os.path.join(dirpath, f)
                rel = os.path.relpath(src, ROOT)
                jobs.append((src, os.path.join(out, rel[:-3] + ".mpy"), source_name(rel)))
    jobs.append((os.path.join(umqtt_dir, "umqtt", "simple.py"),
                 os.path.join(out, "umqtt", "simple.mpy"), "umqtt/simple.py"))
    for src, dst, name in jobs:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        subprocess.run([_mpy_cross(), "-o", dst, "-s", name, src], check=True,
                       capture_output=True)
    os.makedirs(os.path.join(out, "hardware"))
    with open(os.path.join(ROOT, "hardware", "board.json")) as f:
        desc = json.load(f)
    desc["mcu"]["wifi"] = True
    with open(os.path.join(out, "hardware", "board.json"), "w") as f:
        json.dump(desc, f)
    return out


def _script():
    """A whole backgammon game with dice entered by hand, as the soak player plays it on the
    CPython board (replayed under MicroPython it is the same game)."""
    from host_tools.soak.soakboard import VirtualBoard
    from host_tools.soak.soakplayer import Player
    seed = next(s for s in range(1, 100) if random.Random(s).random() >= 0.5)  # manual dice
    vb = VirtualBoard("backgammon", record=True, seed=seed)
    try:
        assert Player(vb, random.Random(seed), "none").play_match("backgammon")
        return list(vb.script)
    finally:
        vb.close()


def test_a_pico_w_publishes_its_journal_with_umqtt_and_loses_nothing_when_the_broker_goes(
        tmp_path, mosquitto):
    from host_tools.hall import umqtt
    from host_tools.hall.broker import Broker, free_port
    from host_tools.hall.room import Room
    from host_tools.hall.simboard import provision
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    if _micropython() is None or _mpy_cross() is None:
        pytest.skip("micropython / mpy-cross not installed")
    lib = umqtt.default_target(ROOT)
    if not umqtt.installed(lib):
        pytest.skip("umqtt.simple not fetched (python -m host_tools hall umqtt)")
    room = Room.create(str(tmp_path / "room"), port=free_port(), boards=[BOARD])
    broker = Broker(room).start()
    station = Station(room, Store(str(tmp_path / "station.db"))).start()
    broker.on_report = station.broker_report
    tree = _tree(tmp_path, lib)
    flash = str(tmp_path / "flash")
    provision(flash, BOARD, room.board_key(BOARD))
    with open(os.path.join(flash, "data", "hall.json"), "w") as f:
        json.dump({"hall": room.name, "broker": room.host, "port": room.port, "ssid": "sim",
                   "password": room.password(BOARD)}, f)
    script = _script()
    env = dict(os.environ, MICROPYPATH=".frozen")
    proc = subprocess.Popen([_micropython(), "-X", "heapsize=" + HEAP, "-m", "firmware.main",
                             "--sim", "--virtual-time", "--flash", flash], cwd=tree, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    out = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)
    reader.start()

    def send(lines):
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()

    def held():
        with station.lock:
            st = station.boards.get(BOARD)
            return max((g.next for g in st.games.values()), default=0) if st else 0

    def wait_for(cond, what, limit=60):
        deadline = time.time() + limit
        while not cond():
            assert proc.poll() is None, "the board stopped: " + "".join(out[-20:])
            assert time.time() < deadline, what + "; the board said: " + "".join(out[-10:])
            send(["sim wait 500"])
            time.sleep(0.1)

    try:
        cut = [len(script) * 2 // 5, len(script) * 7 // 10]
        send(["sim leds off"] + script[:cut[0]])
        wait_for(lambda: held() > 20, "the station holds no lines from the Pico W")
        broker.stop(kill=True)                    # the broker dies mid-game
        send(script[cut[0]:cut[1]])
        time.sleep(1.0)
        broker.start()
        send(script[cut[1]:])

        def complete():
            with station.lock:
                st = station.boards.get(BOARD)
                return st is not None and any(g.state == "complete" for g in st.games.values())

        wait_for(complete, "the game never completed at the station", 120)
        m = len(out)
        send(["hall", "export"])
        wait_for(lambda: any('"record_end"' in x for x in out[m:]), "no export", 30)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=90)         # (90 s: a loaded machine)
        except subprocess.TimeoutExpired:
            proc.kill()
        reader.join(timeout=5)
        station.stop()
        broker.stop()
    objs = []
    for line in out:
        try:
            objs.append(json.loads(line))
        except ValueError:
            raise AssertionError("the board wrote a line that is not JSON: %r" % line)
    assert proc.returncode == 0
    assert not [o for o in objs if o.get("t") == "err" and "internal" in o.get("msg", "")]
    state = [o for o in objs if o.get("t") == "hall"][-1]
    assert state["on"] and state["sent"] > 0 and state["fails"] >= 1, state
    from host_tools.records.export import assemble
    # the game played is the board's current one, which `export` sends; the station's wants
    # (the abandoned game the board began at its first start, say) may be answered beside it
    record = max(assemble(objs[m:]), key=lambda r: r["serial"])
    game = station.boards[BOARD].games[record["serial"]]
    assert game.state == "complete" and game.authenticated
    assert [game.lines[n] for n in range(game.next)] == record["lines"]
    assert station.counts["rejected"] == 0
    shutil.rmtree(tree, ignore_errors=True)
