"""The hall's load: many boards committing a turn every few seconds into one station, timed from each commit to the spectators' page.

A bench board is an MQTT client logged in as an admitted board (its own credentials, so the
broker's ACL applies as to a real one) that plays a real game back: the sealed lines of a game a
simulated board played (``templates``), sealed again under the bench board's own id and key,
so the station verifies each one as it verifies a board's. At the start it publishes the game's
opening lines and status; then, every ``interval`` seconds (each board at its own phase), one
turn: the lines up to and including the next ``turn`` line (a roll, the turn), a ``commit``
event and a status, as a board does when a player presses; at the game's end its last lines and
the board's tag. The moment a turn line is handed to the client is its commit time; the bench
reads the spectators' page's event stream (the same one the page reads) and takes the moment
the view that shows that turn arrives. ``gen`` runs a share of the boards in a process of its
own (``python -m host_tools.hall.bench gen ...``) and prints every commit time (with the time
the turn fell due) as it goes, then the turns that fell due but were never sent.
"""

import argparse
import json
import random
import sys
import threading
import time

from firmware.board import hall_link
from firmware.board import record as rec
from firmware.board.identity import Mac, key_id


def templates(count=3, seed=7):
    """Records of real games (sealed lines), played by soak players on simulated boards."""
    from host_tools.soak.soakboard import VirtualBoard
    from host_tools.soak.soakplayer import Player
    out = []
    for i, variant in enumerate(("backgammon", "short", "long", "persian")[:count]):
        vb = VirtualBoard(variant, fast=True, seed=seed + i)
        try:
            vb.pace = 50
            vb.cmd("dice auto")
            if Player(vb, random.Random(seed + i), "none").play_match(variant):
                out.append(vb.record())
        finally:
            vb.close()
    return out


def reseal(record, board, key, serial=1):
    """The lines of ``record`` as board ``board`` with ``key`` would have sealed them in its game
    ``serial``, and the board's tag over them."""
    mac = Mac(key)
    prefix = "%s|%d|" % (board, serial)
    lines = []
    for n, line in enumerate(record["lines"]):
        ev = json.loads(line[:-33])
        if n == 0:
            ev["board"] = board
            ev["serial"] = serial
            ev["key"] = key_id(key)
            ev["locked"] = False
        text = json.dumps(ev)
        lines.append(text + "|" + mac.hex(prefix, text))
    head = lines[-1][-32:]
    tag = {"t": "record_end", "serial": serial, "lines": len(lines), "head": head,
           "tag": mac.hex("export|", board, "|", str(serial), "|", str(len(lines)), "|", head),
           "lost": [], "damaged": 0, "ended": True}
    return lines, tag


class BenchBoard:
    """One board's client and its game, a turn at a time."""

    def __init__(self, room, board, record, out, lock):
        from host_tools.hall import mqtt
        self.room = room
        self.board = board
        self.lines, self.tag = reseal(record, board, room.board_key(board))
        self.events = [json.loads(x[:-33]) for x in self.lines]
        self.pos = 0
        self.out = out
        self.lock = lock
        self.ready = threading.Event()
        self.client = mqtt.connect(room, board, on_connect=lambda c: self.ready.set())

    def topic(self, kind):
        return hall_link.topic(self.room.name, self.board, kind)

    def _line(self, n):
        return json.dumps({"t": "rl", "s": 1, "l": self.lines[n]})

    def _status(self):
        ev = self.events[self.pos - 1]
        return json.dumps({"t": "status", "variant": self.events[0].get("variant"),
                           "phase": "roll", "turn": 1 - ev.get("side", 1), "dice": [],
                           "position": "", "score": [0, 0], "match_to": 1, "serial": 1,
                           "seal": self.lines[self.pos - 1][-32:], "board": "settled",
                           "clock": {"reserve": 0, "left": [0, 0], "running": -1}})

    def opening(self):
        """The lines before the first turn."""
        while self.pos < len(self.lines) and self.events[self.pos].get("k") != rec.TURN:
            self.client.publish(self.topic(hall_link.LINE), self._line(self.pos), qos=1)
            self.pos += 1

    def turn(self, due):
        """The next turn (and whatever comes before it), due at time ``due``; False once the
        game is over."""
        if self.pos >= len(self.lines):
            return False
        while self.pos < len(self.lines):
            ev = self.events[self.pos]
            line = self._line(self.pos)
            if ev.get("k") == rec.TURN:
                t = time.time()
                self.client.publish(self.topic(hall_link.LINE), line, qos=1)
                with self.lock:
                    self.out.write("%s\n" % json.dumps([self.board, 1, self.pos, t, due]))
                self.pos += 1
                break
            self.client.publish(self.topic(hall_link.LINE), line, qos=1)
            self.pos += 1
        if self.pos < len(self.lines) and self.events[self.pos].get("k") == rec.ROLL:
            self.client.publish(self.topic(hall_link.LINE), self._line(self.pos), qos=1)
            self.pos += 1
        if all(e.get("k") != rec.TURN for e in self.events[self.pos:]):
            while self.pos < len(self.lines):
                self.client.publish(self.topic(hall_link.LINE), self._line(self.pos), qos=1)
                self.pos += 1
            self.client.publish(self.topic(hall_link.TAG), json.dumps(self.tag), qos=1)
        self.client.publish(self.topic(hall_link.EV), json.dumps({"t": "ev", "ev": "commit"}))
        self.client.publish(self.topic(hall_link.STATUS), self._status(), qos=1, retain=True)
        return True


def generate(room, boards, records, interval, duration, out, seed=1):
    """Run ``boards`` (ids) for ``duration`` seconds, a turn each every ``interval`` seconds;
    writes a [board, serial, n, commit time, due time] line to ``out`` for each turn, and at the
    end {"missed": turns that fell due before the end but were not sent (the generator fell
    behind), "unready": boards not connected yet when the play began}."""
    from host_tools.hall import mqtt
    rng = random.Random(seed)
    lock = threading.Lock()
    bench = [BenchBoard(room, b, records[i % len(records)], out, lock)
             for i, b in enumerate(boards)]
    deadline = time.time() + 60
    for b in bench:
        b.ready.wait(max(0.1, deadline - time.time()))
    unready = sum(1 for b in bench if not b.ready.is_set())
    for b in bench:
        b.opening()
    start = time.time()
    due = [start + rng.uniform(0, interval) for _ in bench]
    end = start + duration
    while True:
        # every turn due before the end goes, late if need be (the lateness is printed), until
        # an interval past the end: what is left then was missed (the generator fell behind)
        now = time.time()
        i = min(range(len(bench)), key=lambda k: due[k])
        if due[i] >= end or now >= end + interval:
            break
        if due[i] > now:
            time.sleep(min(due[i] - now, 0.05))
            continue
        if not bench[i].turn(due[i]):
            due[i] = end + 1
            continue
        due[i] += interval
    missed = 0
    for i, b in enumerate(bench):
        if due[i] < end and any(e.get("k") == rec.TURN for e in b.events[b.pos:]):
            missed += min(int((end - due[i]) // interval) + 1,
                          sum(1 for e in b.events[b.pos:] if e.get("k") == rec.TURN))
    with lock:
        out.write("%s\n" % json.dumps({"missed": missed, "unready": unready}))
    time.sleep(1.0)
    for b in bench:
        mqtt.close(b.client)
    out.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.hall.bench")
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("gen")
    p.add_argument("room")
    p.add_argument("templates")
    p.add_argument("boards", help="comma-separated board ids")
    p.add_argument("--interval", type=float, default=5.0)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    from host_tools.hall.room import Room
    with open(args.templates) as f:
        records = [json.loads(x) for x in f]
    generate(Room(args.room), args.boards.split(","), records, args.interval, args.duration,
             sys.stdout, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
