"""Damage a game's journal every way a worn flash or a power cut can, and boot the board on it.

``make_game`` plays a game of N turns on a Session over RAM flash (host_tools' own players' way:
random legal plays, the dice entered) and returns its files. ``damage_run`` damages them every
way (every single-byte flip, each byte XORed with each mask, and every truncation, of the game's
file and of its header's copy; or every k-th of them), boots a board on each copy (``boot``) and
judges it (``judge``): the board must run, keep every line the damage did not touch (its own
streamed export shows what it kept), and say so when it lost one. ``MP_SCRIPT`` holds these and
runs on CPython (``run``) and under the MicroPython unix port in a Pico-sized heap
(``run_micropython``).
"""

import json
import os
import random

BOARD = "4e4152445953494d"      # the simulated board's id (firmware/sim/machine.py)
KEY = bytes(range(32))


def make_game(turns=100, seed=7):
    """The flash files (name -> bytes) of one backgammon game of ``turns`` turns (back to the
    start position, on its record, whenever the checkers near the end) and its serial."""
    from firmware import sim
    sim.install()
    from firmware.board.session import Session
    from firmware.drivers import board_config, hardware
    from firmware.sim.hands import force_position
    from firmware.sim.memstore import MemStorage
    cfg = board_config.load(hardware.DESCRIPTION, None)
    st = MemStorage()
    s = Session(st, lambda: 3, cfg.zone_cap, lambda k, f: None, lambda: 0, BOARD)
    s.identity.provision(KEY)
    s.dice_mode = "manual"
    s.new_match("backgammon", {}, 1)
    s.setup_done = True
    rng = random.Random(seed)
    start = s.rules.start_position()
    done = 0
    while done < turns:
        game = s.game
        if game.phase == "opening":
            a = rng.randint(1, 6)
            s.manual_roll(a, a % 6 + 1)
        elif game.phase == "roll":
            if max(game.pos.off(0), game.pos.off(1)) >= 10:
                force_position(s, start)          # a long game: back to the start
                continue
            s.manual_roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase == "move":
            t = game.turn
            plays = t.plays()
            for step in (rng.choice(plays) if plays else []):
                t.push(step[0], step[2])
            ok, why = game.commit()
            assert ok, why
            s._committed(why, t.position(), None, "p0")
            done += 1
        else:
            raise AssertionError("the game left play: %s" % game.phase)
    s.save()
    return dict(st.files), s.journal.serial


# The boot, as a script the MicroPython unix port runs too (no host_tools inside).
MP_SCRIPT = r"""
import json, sys
from binascii import crc32
from firmware import sim
sim.install()
from firmware.board.session import Session
from firmware.board.director import export_game
from firmware.drivers import board_config

def boot(st, cap, board):
    said = []
    emit = lambda kind, fields: said.append((kind, fields))
    s = Session(st, lambda: 3, cap, emit, lambda: 0, board)
    running = s.resume()
    if not running:
        s.new_match("backgammon", {}, 1)
    lines = set()                   # what the board kept: its export, each line by its CRC
    def keep(kind, fields):
        if kind == "rl":
            lines.add(crc32(fields["l"].encode()))
    s.emit = keep
    export_game(s, s.journal.serial)
    restore = [f for k, f in said if k == "ev" and f.get("ev") == "power_restore"]
    lost = [f for k, f in said if k == "ev" and f.get("ev") == "journal_lost"]
    return {"running": running, "lines": lines, "status": s.status()["phase"],
            "dropped": restore[0]["dropped"] if restore else None,
            "journal_lost": bool(lost)}


def identities(chunks):
    # the CRCs of the whole lines in a file read in chunks
    out = set()
    rest = b""
    for data in chunks:
        data = rest + data
        lines = data.split(b"\n")
        rest = lines.pop()
        for line in lines:
            if len(line) > 33:
                out.add(crc32(line))
    return out


def judge(good, untouched, result):
    # problems of one boot: the board must run, keep every line the damage did not touch, and
    # say so when it lost one; good and untouched are the CRCs of the lines
    problems = []
    if result["status"] is None:
        problems.append("the board did not run")
    kept = result["lines"]
    missing = [c for c in untouched if c in good and c not in kept]
    if missing and not result["journal_lost"]:
        problems.append("%d good line(s) dropped" % len(missing))
    lost = len([c for c in good if c not in kept])
    if lost and not result["journal_lost"] and not result["dropped"]:
        problems.append("%d line(s) lost and nothing said" % lost)
    return problems, lost


def damage_run(st, serial, cap, board, every, first, masks):
    # every every-th byte of the game's file and of its header's copy flipped by each mask, and
    # every every-th truncation of them, each booted: boots, lines lost, problems
    out = {"boots": 0, "reported": 0, "repaired": 0, "journal_lost": 0, "problems": []}
    game = "g%d" % serial
    good = identities(st.chunks(game, 1024))
    for name in (game, game + ".h"):
        n = st.size(name)
        for i in range(first, n, every):
            for m in list(masks) + [-1]:
                if m < 0:
                    st.cut(name, i)
                    what = "cut %s at %d" % (name, i)
                else:
                    st.flip(name, i, m)
                    what = "flip %s[%d]^%02x" % (name, i, m)
                untouched = identities(st.chunks(game, 1024))
                result = boot(st, cap, board)
                probs, lost = judge(good, untouched, result)
                out["boots"] += 1
                out["reported"] += 1 if result["dropped"] else 0
                out["repaired"] += 1 if not lost and not result["dropped"] else 0
                out["journal_lost"] += 1 if result["journal_lost"] else 0
                for p in probs:
                    out["problems"].append(what + ": " + p)
                st.restore()
    return out
"""


class Snapshot:
    """Flash in RAM that a damage run changes and puts back after each boot (CPython)."""

    def __init__(self, files):
        from firmware.sim.memstore import MemStorage
        self.base = dict(files)
        self.st = MemStorage()
        self.restore()

    def restore(self):
        self.st.files = dict(self.base)

    def flip(self, name, i, mask):
        data = bytearray(self.st.files[name])
        data[i] ^= mask
        self.st.files[name] = bytes(data)

    def cut(self, name, n):
        self.st.files[name] = self.st.files[name][:n]

    def __getattr__(self, name):
        return getattr(self.st, name)


def _first(every, seed, first):
    # the first byte of each ``every``: given, or chosen by the seed
    if first is not None:
        return first
    return random.Random(seed).randrange(every) if every > 1 else 0


def run(turns=100, every=1, seed=0, masks=(0x01, 0xFF), first=None):
    """Damage, boot and judge every case on CPython; a summary dict with the problems found.
    ``first``: the first byte and cut of each ``every`` (0 .. every-1; by default the seed's):
    runs with first 0 .. every-1 together cover every case."""
    from firmware import sim
    sim.install()
    from firmware.drivers import board_config, hardware
    cfg = board_config.load(hardware.DESCRIPTION, None)
    files, serial = make_game(turns)
    scope = {}
    exec(MP_SCRIPT, scope)
    first = _first(every, seed, first)
    out = scope["damage_run"](Snapshot(files), serial, cfg.zone_cap, BOARD, every, first, masks)
    out.update(turns=turns, lines=files["g%d" % serial].count(b"\n"),
               bytes=len(files["g%d" % serial]), every=every, first=first)
    return out


def run_micropython(turns=100, every=1, seed=0, masks=(0x01, 0xFF), heap="230K", first=None):
    """The same under the MicroPython unix port with a Pico-sized heap (one process)."""
    import subprocess
    import tempfile
    from host_tools.device import mpytree
    files, serial = make_game(turns)
    first = _first(every, seed, first)
    tree = mpytree.build()
    with tempfile.TemporaryDirectory(prefix="nardy-journal-fuzz-") as d:
        write_files(files, os.path.join(d, "base"))
        os.rename(os.path.join(d, "base", "index.json"), os.path.join(d, "index.json"))
        script = os.path.join(d, "run.py")
        with open(script, "w") as f:
            f.write(MP_SCRIPT + MP_MAIN % {"folder": d, "serial": serial, "every": every,
                                           "first": first, "masks": list(masks),
                                           "board": BOARD})
        done = subprocess.run([mpytree.micropython_path(), "-X", "heapsize=" + heap, script],
                              cwd=tree, env=dict(os.environ, MICROPYPATH=".frozen:" + tree),
                              capture_output=True, text=True, timeout=7200)
    if done.returncode != 0:
        raise RuntimeError("the MicroPython run failed:\n" + done.stdout[-2000:] +
                           done.stderr[-2000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out.update(turns=turns, lines=files["g%d" % serial].count(b"\n"),
               bytes=len(files["g%d" % serial]), every=every, first=first, heap=heap)
    return out


MP_MAIN = r"""
from firmware.drivers.storage import Storage

class Folder(Storage):
    # the flash: a folder (the game's files on disk, not in the heap), damaged in place and put
    # back after each boot, a kilobyte at a time
    def restore(self):
        for name in list(self.names()):
            self.remove(name)
        for name in json.load(open(%(folder)r + "/index.json")):
            self.cut(name, -1)

    def cut(self, name, n):
        # the base copy of name, its first n bytes (all when n < 0)
        with open(%(folder)r + "/base/" + name, "rb") as src:
            with open(self.path(name), "wb") as dst:
                while n:
                    data = src.read(1024 if n < 0 else min(n, 1024))
                    if not data:
                        break
                    dst.write(data)
                    if n > 0:
                        n -= len(data)

    def flip(self, name, i, mask):
        with open(self.path(name), "r+b") as f:
            f.seek(i)
            b = f.read(1)[0]
            f.seek(i)
            f.write(bytes([b ^ mask]))

st = Folder(%(folder)r + "/flash")
st.restore()
cfg = board_config.load("hardware/board.json", None)
print(json.dumps(damage_run(st, %(serial)d, cfg.zone_cap, %(board)r, %(every)d, %(first)d,
                            %(masks)r)))
"""


def write_files(files, folder):
    """The flash files into a folder (for the MicroPython run)."""
    os.makedirs(folder, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    with open(os.path.join(folder, "index.json"), "w") as f:
        json.dump(sorted(files), f)
