"""A simulated USB board for the hall: the firmware on the simulated hardware, played by a soak player, behind a pseudo-terminal.

``python -m host_tools.hall.simboard --id NAME --variant V --seed N [--games G] [--key HEX]``
runs the unchanged firmware (``soakboard.VirtualBoard``, frame-level hardware) with a soak
player's hands (``soakplayer.Player``: realistic hands, noise, power cuts mid-write, seeded)
and serves the board's protocol on a pseudo-terminal, as a board's USB serial port: it prints
``{"port": "/dev/pts/N", "board": id}`` first, and the bridge opens that port as it opens a
real board's. Every line the firmware writes goes to the port; the commands read from it (the
bridge's ``identity``, ``status``, ``export s n``) run between the player's actions. Like a USB
device whose host is not reading, lines that find the port's buffer full are dropped (the
station asks for them again). When its games are played it writes each game's record, as the
board itself exports it, to ``--out`` (JSON lines) and prints ``{"done": ...}`` with the soak
counters, then goes on serving the port until it is stopped.
"""

import argparse
import binascii
import errno
import json
import os
import random
import signal
import sys
import tempfile
import time
import tty

from host_tools.soak.soakboard import VirtualBoard

OUT_CAP = 256 * 1024      # bytes waiting for the port before lines are dropped


class PtyPort:
    """The board's end of a pseudo-terminal: lines out without ever blocking, commands in."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.out = bytearray()
        self.inbuf = b""
        self.dropped = 0

    def write(self, text):
        if len(self.out) > OUT_CAP:
            self.dropped += 1
            return
        self.out += text.encode() + b"\n"
        self.flush()

    def flush(self):
        while self.out:
            try:
                n = os.write(self.master, self.out)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EIO):
                    return
                raise
            del self.out[:n]

    def lines(self):
        self.flush()
        try:
            data = os.read(self.master, 4096)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EIO):
                return []
            raise
        self.inbuf += data
        out = []
        while b"\n" in self.inbuf:
            raw, self.inbuf = self.inbuf.split(b"\n", 1)
            text = raw.decode("utf-8", "replace").strip()
            if text:
                out.append(text)
        return out


class LinkedBoard(VirtualBoard):
    """A VirtualBoard whose every line also goes to ``port``, and which runs the port's commands
    whenever time passes on it; ``speed`` caps simulated time at that many times real time."""

    def __init__(self, port, speed=0.0, **kw):
        self.port = port
        self.speed = speed
        self.served = 0
        self._t0 = time.monotonic()
        self._virtual = 0
        VirtualBoard.__init__(self, **kw)

    def _write(self, text):
        VirtualBoard._write(self, text)
        if text.startswith('{"t": "leds"'):
            return
        self.port.write(text)

    def serve(self):
        for text in self.port.lines():
            self.served += 1
            self.cmd(text)

    def wait(self, ms=None):
        self.serve()
        VirtualBoard.wait(self, ms)
        if self.speed:
            self._virtual += self.pace if ms is None else ms
            ahead = self._virtual / self.speed / 1000.0 - (time.monotonic() - self._t0)
            if ahead > 0:
                time.sleep(ahead)


def provision(flash, board_id, key):
    """Put ``key`` on the simulated flash before the board first starts, as a director
    provisions a board before the tournament (a key given later would leave the game the board
    began at its first start sealed under the open key)."""
    from firmware.board.identity import Identity
    from firmware.drivers.hardware import DATA_ROOT
    from firmware.drivers.storage import Storage
    os.makedirs(flash, exist_ok=True)
    ident = Identity(Storage(flash + DATA_ROOT), board_id)
    if ident.key != key:
        ident.provision(key)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.hall.simboard",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--id", required=True, help="the flash's unique id (the board id is its hex)")
    ap.add_argument("--variant", default="short")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=1, help="matches to play")
    ap.add_argument("--match", type=int, default=1, help="match length")
    ap.add_argument("--noise", choices=("none", "low", "high"), default="high")
    ap.add_argument("--key", help="provision the board with this key (64 hex digits)")
    ap.add_argument("--flash", help="folder standing for the board's flash")
    ap.add_argument("--out", help="write each game's record here (JSON lines) when done")
    ap.add_argument("--speed", type=float, default=0.0,
                    help="simulated time at most this many times real time (0: no limit)")
    ap.add_argument("--wait-host", action="store_true",
                    help="play once the port has brought a first command (a bridge is there)")
    ap.add_argument("--linger", type=float, default=3600.0,
                    help="seconds to go on serving the port after the games")
    args = ap.parse_args(argv)
    from host_tools.soak.soakboard import PACE_MS, SCAN_MS, world_seed
    from host_tools.soak.soakplayer import Counters, Player
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    flash = args.flash or tempfile.mkdtemp(prefix="nardy-hallboard-")
    board_id = binascii.hexlify(args.id.encode()).decode()
    if args.key:
        provision(flash, board_id, bytes.fromhex(args.key))
        keys = os.path.join(flash, "keys.json")      # the soak player's own record check
        with open(keys, "w") as f:
            json.dump({"boards": {board_id: args.key}}, f)
        os.environ["NARDY_KEYS"] = keys
    port = PtyPort()
    vb = LinkedBoard(port, args.speed, variant=args.variant, flash_dir=flash,
                     scan_ms=SCAN_MS, fast=True, seed=world_seed("hall/%s/%d" % (args.id, args.seed)),
                     unique_id=args.id.encode())
    print(json.dumps({"port": port.path, "board": vb.session.identity.board_id}), flush=True)
    vb.pace = PACE_MS
    if args.wait_host:                   # the tournament starts once the board is connected
        while vb.served == 0:
            vb.serve()
            time.sleep(0.05)
    counters = Counters()
    rng = random.Random("hall/%s/%d" % (args.id, args.seed))
    done = 0
    for _ in range(args.games):
        if Player(vb, rng, args.noise, counters).play_match(args.variant, args.match):
            done += 1
    records = []
    for serial in vb.session.journal.games():
        records.append(vb.record(serial))
    if args.out:
        with open(args.out + ".tmp", "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        os.replace(args.out + ".tmp", args.out)
    print(json.dumps({"done": True, "board": vb.session.identity.board_id, "matches": done,
                      "games": len(records), "counters": counters.as_dict(),
                      "dropped": port.dropped, "served": vb.served}), flush=True)
    end = time.monotonic() + args.linger
    while time.monotonic() < end:
        vb.serve()
        time.sleep(0.02)
    return 0


if __name__ == "__main__":
    sys.exit(main())
