"""Run a tournament hall: the broker, the director's station and the pages (init, add, run, broker, export, picow, umqtt).

python -m host_tools hall init ROOM [--name HALL] [--host ADDR] [--port N] [BOARD ...]
    make the hall's folder: the director's secret (keys.json), the hall's name and broker
    address, the boards admitted (ids as `identity` says them)
python -m host_tools hall add ROOM BOARD ...        admit boards (a running broker re-reads)
python -m host_tools hall keys ROOM BOARD           the key to provision BOARD with (provision <hex>)
python -m host_tools hall run ROOM [--delay N] [--db URL] [--http-port N] [--spectators-port N]
                                   [--no-broker] [--public NAME]
    start Mosquitto with the generated configuration (unless --no-broker: a broker of your own,
    e.g. a cluster, see docs/hall.md), the station (every line verified, games in SQLite, or in
    PostgreSQL with --db postgresql://...) and its two pages: the director's (printed with its
    key) and the spectators' (read-only, held back --delay moves); runs until Ctrl-C
python -m host_tools hall broker ROOM               Mosquitto alone, in the foreground
python -m host_tools hall export ROOM [--round N] [--out DIR]
    the round's games (.mat and SGF where gnubg can read the variant, the board's own record
    otherwise) and the results table (CSV and Markdown)
python -m host_tools hall picow ROOM BOARD --ssid NAME --wifi-key KEY [--broker ADDR] [-o FILE]
    the hall.json a Pico W board keeps on its flash (its hall, broker and secrets)
python -m host_tools hall umqtt [--target DIR]      fetch umqtt.simple for the MicroPython unix port
"""

import argparse
import json
import os
import signal
import sys
import threading

from host_tools.hall.room import Room, RoomError


def _room(path):
    try:
        return Room(path)
    except RoomError as exc:
        raise SystemExit("hall: %s" % exc)


def cmd_init(args):
    room = Room.create(args.room, args.name, args.host, args.port, args.boards)
    print("hall %r in %s: broker %s:%d, %d board(s) admitted" % (room.name, room.path, room.host,
                                                                  room.port, len(room.boards)))
    return 0


def cmd_add(args):
    room = _room(args.room)
    new = room.add(args.boards)
    print("admitted %d new board(s); %d in all" % (len(new), len(room.boards)))
    pid = room.file("broker", "hall.pid")
    if new and os.path.exists(pid):       # a running hall: its broker reads the passwords again
        try:
            with open(pid) as f:
                os.kill(int(f.read().strip()), signal.SIGUSR1)
        except (OSError, ValueError):
            pass
    return 0


def cmd_keys(args):
    room = _room(args.room)
    print(room.board_key(args.board).hex())
    return 0


def cmd_broker(args):
    from host_tools.hall.broker import Broker, BrokerError
    room = _room(args.room)
    try:
        b = Broker(room, report_denied=True,
                   on_report=lambda kind, who, what: print("%s: %s %s" % (kind, who, what),
                                                           flush=True)).start()
    except BrokerError as exc:
        print("hall: %s" % exc, file=sys.stderr)
        return 1
    print("mosquitto for hall %r on %s:%d (Ctrl-C stops it)" % (room.name, room.host, room.port),
          flush=True)
    _wait()
    b.stop()
    return 0


def _wait():
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    try:
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m host_tools hall", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("init", help="make the hall's folder")
    p.add_argument("room")
    p.add_argument("boards", nargs="*")
    p.add_argument("--name", default="hall", help="the hall's topic root (default hall)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the broker's address (0.0.0.0: every network of this computer)")
    p.add_argument("--port", type=int, default=1883)
    p.set_defaults(fn=cmd_init)
    p = sub.add_parser("add", help="admit boards")
    p.add_argument("room")
    p.add_argument("boards", nargs="+")
    p.set_defaults(fn=cmd_add)
    p = sub.add_parser("keys", help="the key a board is provisioned with")
    p.add_argument("room")
    p.add_argument("board")
    p.set_defaults(fn=cmd_keys)
    p = sub.add_parser("broker", help="Mosquitto alone")
    p.add_argument("room")
    p.set_defaults(fn=cmd_broker)
    args = ap.parse_args(argv)
    return args.fn(args)


def _print_json(obj):
    print(json.dumps(obj, indent=1))
