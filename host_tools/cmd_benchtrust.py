"""What trust costs on the RP2040: sealing a line, a turn, reading a game back, a streamed export, a signature.

    python -m host_tools benchtrust [--json] [--quick]

Each workload runs under the MicroPython unix port with the firmware compiled to .mpy, counted by
valgrind and converted with the project's RP2040 estimator (host_tools/bench/rp2040_estimate.py), net
of its set-up:

* seal one line: the HMAC-SHA256 of a typical turn line (``identity.Mac.hex``, the journal's
  seal), and journaling one whole turn (its roll and turn lines: JSON, seal, into RAM);
* resume: reading back and replaying a 100-turn game (``restore.walk`` + ``GameReplay``), which
  checks every line's seal;
* export: streaming a 300-turn game's record (600 lines, every one re-checked and sent), with the
  smallest unix-port heap it runs in, and that of its set-up alone (the game's lines written);
* Ed25519 (firmware/board/ed25519.py, pure MicroPython: SHA-512 included, which the rp2 port
  lacks): loading the module (and the RAM it holds while loaded), one signature of a 119-byte
  line and of a 32-byte digest (the hashes of a signature cover the message twice: a long one
  costs two more SHA-512 blocks of about 50 ms each), the public key of a seed; the signature's
  smallest heap says what signing needs beyond the loaded module.

The Ed25519 figures are low: the board likely takes 1.3 to 1.6 times as long. MicroPython's big
integers (mpz.c) keep 32-bit digits on a 64-bit machine (the unix port here) and 16-bit digits on
a 32-bit one (rp2 sets no MPZ_DIG_SIZE of its own, so mpz.h's default for the RP2040 is 16):
every digit loop runs twice as many times on the board, and a 255-bit product takes 256 digit
products there against 64 here. Counted under callgrind, a signature spends about 13% of its
instructions in linear digit loops (and, xor, add, shift, compare, divide) and 15% in
multiplication (field products, but also 19 x and SHA-512's small ones); doubling the first and
doubling to quadrupling the second adds 30-60%. The rest (allocation, the collector, the
bytecode) is what k is calibrated on, except that the collector sweeps a board's smaller,
fuller heap more often than the 464K one counted here.

sha256 is C code: its x86 instructions are converted with the bytecode's k too, which overstates
it (C runs nearer 1 cycle an instruction): the seal figures are upper bounds.
"""

import argparse
import json
import os
import sys
import tempfile

from host_tools import prog
from host_tools.bench import rp2040_estimate as est
from host_tools import REPO_ROOT


SETUP = r"""
import json, gc
from firmware import sim
sim.install()
from firmware.sim.memstore import MemStorage
from firmware.board.identity import Identity
from firmware.board.journal import Journal
st = MemStorage()
ident = Identity(st, "e6614103e7a5b12c")
ident.provision(bytes(range(32)))
j = Journal(st, ident)
j.start(17)
TURN = {"k": "turn", "side": 0, "dice": [6, 4], "kind": "roll", "s": [[24, 18, 6, 0], [13, 9, 4, 0]],
        "ms": 5200, "pos": "0" * 53, "clock": [598000, 600000], "by": "p0"}
ROLL = {"k": "roll", "dice": [6, 4], "i": 12, "by": "board"}
TEXT = json.dumps(TURN)
"""

SEAL = SETUP + r"""
for _ in range(100):
    j.seal(TEXT)
"""
SEAL_BASE = SETUP + r"""
for _ in range(100):
    pass
"""

TURN_JOURNAL = SETUP + r"""
for _ in range(100):
    j.append(dict(ROLL))
    j.append(dict(TURN))
    j.pending = bytearray()
"""
TURN_BASE = SETUP + r"""
for _ in range(100):
    dict(ROLL)
    dict(TURN)
"""

GAME = r"""
import gc
from firmware import sim
sim.install()
from firmware.sim.memstore import MemStorage
from firmware.board.session import Session
from firmware.drivers import board_config
from firmware.board.zonemap import ZONES
from firmware.rules.variants import get_rules
from firmware.rules import Turn
cfg = board_config.load(DESCRIPTION, None)
st = MemStorage()
out = []
s = Session(st, lambda: 3, cfg.zone_cap, lambda k, f: out.append(k), lambda: 0, "e6614103e7a5b12c")
s.identity.provision(bytes(range(32)))
s.dice_mode = "manual"
s.new_match("backgammon", {}, 99)
s.setup_done = True
class Rng:                       # a fixed sequence (MicroPython's random has no Random)
    x = 5
    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return self.x % n
rng = Rng()
turns = 0
game = s.game
from firmware.sim.hands import force_position
start = s.rules.start_position()
while turns < TURNS:
    if game.phase == "over":           # one long game: back to the start, on its record
        force_position(s, start)
    if game.phase == "opening":
        a, b = rng.below(6) + 1, rng.below(6) + 1
        s.manual_roll(a, b if a != b else a % 6 + 1)
    elif game.phase == "roll":
        s.manual_roll(rng.below(6) + 1, rng.below(6) + 1)
    elif game.phase == "move":
        t = game.turn
        plays = t.plays()
        for st_ in plays[rng.below(len(plays))] if plays else []:
            t.push(st_[0], st_[2])
        ok, why = game.commit()
        s._committed(why, t.position(), None, "p0")
        turns += 1
    else:
        break
s.save()
out.clear()
"""

RESUME = GAME + r"""
from firmware.board.gamereplay import resume
s2 = Session(st, lambda: 3, cfg.zone_cap, lambda k, f: None, lambda: 0, "e6614103e7a5b12c")
resume(s2)
"""

EXPORT_BASE = SETUP + r"""
class Board:                    # what export_game uses of a Session
    pass
b = Board()
b.journal = j
b.identity = ident
b.emit = lambda kind, fields: None
for i in range(TURNS):          # a game of TURNS turns on flash: a roll and a turn line each
    j.append(dict(ROLL))
    j.append(dict(TURN))
    j.save()
gc.collect()
"""
EXPORT = EXPORT_BASE + r"""
from firmware.board.director import export_game
export_game(b, 17)
"""

# what a game's end might sign: a line of about 120 bytes
MSG = b'{"k": "end", "g": 17, "winner": 0, "points": 2, "score": [5, 3], "turns": 87, "ms": 1843000, "key": "9d61b19d0f3a5c7e"}'
SIGN_BASE = r"""
import gc
from firmware.board import ed25519
SEED = bytes(range(32))
MSG = %r
DIGEST = bytes(range(100, 132))
gc.collect()
""" % MSG
SIGN = SIGN_BASE + r"""
ed25519.sign(SEED, MSG)
"""
SIGN_DIGEST = SIGN_BASE + r"""
ed25519.sign(SEED, DIGEST)
"""
PUBLIC_KEY = SIGN_BASE + r"""
ed25519.public_key(SEED)
"""
LOAD_BASE = r"""
import gc
import firmware.board
gc.collect()
"""
LOAD = LOAD_BASE + r"""
from firmware.board import ed25519
"""


def _run(script, base, paths, min_heap=False):
    with tempfile.TemporaryDirectory(prefix="nardy-benchtrust-") as d:
        a = os.path.join(d, "target.py")
        b = os.path.join(d, "base.py")
        with open(a, "w") as f:
            f.write(script)
        with open(b, "w") as f:
            f.write(base)
        return est.measure(a, paths, b, min_heap=min_heap)


def main(argv):
    p = argparse.ArgumentParser(prog=prog("benchtrust"),
                                description=__doc__.strip().splitlines()[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--quick", action="store_true", help="smaller games (30 and 60 turns)")
    args = p.parse_args(argv)
    why = est.missing()
    if why:
        print("benchtrust: needs %s" % why, file=sys.stderr)
        return 1
    resume_turns, export_turns = (30, 60) if args.quick else (100, 300)
    import shutil
    lib = tempfile.mkdtemp(prefix="nardy-benchtrust-lib-")
    try:
        shutil.copytree(os.path.join(REPO_ROOT, "firmware"), os.path.join(lib, "firmware"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        paths = [lib]
        desc = "DESCRIPTION = %r\n" % os.path.join(REPO_ROOT, "hardware", "board.json")

        def game(script, turns):
            return desc + script.replace("TURNS", str(turns))
        seal = _run(SEAL, SEAL_BASE, paths)
        turn = _run(TURN_JOURNAL, TURN_BASE, paths)
        resume = _run(game(RESUME, resume_turns), game(GAME, resume_turns), paths)
        export = _run(EXPORT.replace("TURNS", str(export_turns)),
                      EXPORT_BASE.replace("TURNS", str(export_turns)), paths, min_heap=True)
        sign = _run(SIGN, SIGN_BASE, paths, min_heap=True)
        sign32 = _run(SIGN_DIGEST, SIGN_BASE, paths)
        pub = _run(PUBLIC_KEY, SIGN_BASE, paths)
        load = _run(LOAD, LOAD_BASE, paths, min_heap=True)
    finally:
        shutil.rmtree(lib, ignore_errors=True)
    rows = [
        ("seal one turn line (HMAC-SHA256)", seal, 100, "per line"),
        ("journal one turn (roll + turn lines: JSON, seal)", turn, 100, "per turn"),
        ("resume a %d-turn game (every seal checked, replayed)" % resume_turns, resume, 1, "once"),
        ("export a %d-turn game, streamed" % export_turns, export, 1, "once"),
        ("Ed25519: load the module (firmware/board/ed25519.py)", load, 1, "once"),
        ("Ed25519: sign a %d-byte message" % len(MSG), sign, 1, "per signature"),
        ("Ed25519: sign a 32-byte digest", sign32, 1, "per signature"),
        ("Ed25519: the public key of a seed", pub, 1, "once"),
    ]
    out = []
    for name, r, n, per in rows:
        out.append({"workload": name, "per": per, "rp2040_ms": round(r["rp2040_ms_est"] / n, 3),
                    "rp2040_ms_low": round(r["rp2040_ms_low"] / n, 3),
                    "rp2040_ms_high": round(r["rp2040_ms_high"] / n, 3),
                    "ir_net": r["ir_net"] // n,
                    "min_heap_unix64": r.get("min_heap_bytes_unix64"),
                    "min_heap_unix64_setup": r.get("min_heap_bytes_baseline_unix64")})
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print("RP2040 estimates (%s):" % est.describe_k())
    for row in out:
        heap = (", smallest unix heap %d KiB (its set-up alone %d KiB)"
                % (row["min_heap_unix64"] // 1024, row["min_heap_unix64_setup"] // 1024)
                if row["min_heap_unix64"] else "")
        print("  %-58s %9.2f ms (%.2f-%.2f) %s%s" % (row["workload"], row["rp2040_ms"],
                                                   row["rp2040_ms_low"], row["rp2040_ms_high"],
                                                   row["per"], heap))
    return 0
