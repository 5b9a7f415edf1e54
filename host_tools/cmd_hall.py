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
python -m host_tools hall drill [--boards 50] [--seed N]
    simulated boards play into a station while the broker restarts, bridges die and a board
    forges lines; prints lost, duplicated, rejected lines and the seed (host_tools/hall/drill.py)
"""

import argparse
import json
import os
import signal
import sys
import threading

from host_tools import prog
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


def cmd_run(args):
    from host_tools.hall.broker import Broker, BrokerError
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store, StoreError
    from host_tools.hall.web import HallServer
    room = _room(args.room)
    try:
        store = Store(args.db or room.file("station.db"))
    except (StoreError, Exception) as exc:
        print("hall: the station's database: %s" % exc, file=sys.stderr)
        return 1
    station = Station(room, store, delay=args.delay)
    broker = None
    if not args.no_broker:
        try:
            broker = Broker(room, on_report=station.broker_report).start()
        except BrokerError as exc:
            print("hall: %s" % exc, file=sys.stderr)
            return 1
    station.start()
    director = HallServer(station, True, args.http_host, args.http_port, public=args.public)
    spectators = HallServer(station, False, args.http_host, args.spectators_port,
                            public=args.public)
    director.serve_in_thread()
    spectators.serve_in_thread()
    pid = room.file("broker", "hall.pid")
    os.makedirs(os.path.dirname(pid), exist_ok=True)
    with open(pid, "w") as f:
        f.write("%d\n" % os.getpid())

    def admitted(*_):                     # hall add: the room's boards again, the broker too
        fresh = Room(room.path)
        room.boards = fresh.boards
        if broker is not None:
            broker.reload()

    signal.signal(signal.SIGUSR1, admitted)
    print("hall %r: %d boards admitted; broker %s:%d%s" % (
        room.name, len(room.boards), room.host, room.port,
        "" if broker else " (your own: --no-broker)"))
    print("director:   %s" % director.url)
    print("spectators: %s" % spectators.url, flush=True)
    try:
        _wait()
    finally:
        director.stop()
        spectators.stop()
        station.stop()
        if broker is not None:
            broker.stop()
        try:
            os.remove(pid)
        except OSError:
            pass
    return 0


def cmd_export(args):
    from host_tools.hall.exports import export_round
    from host_tools.hall.station import Station
    from host_tools.hall.store import Store
    room = _room(args.room)
    station = Station(room, Store(args.db or room.file("station.db")), client=False)
    r = args.round if args.round is not None else station.round
    out = args.out or room.file("exports", "round-%d" % r)
    files = export_round(station, r, out)
    for f in files:
        print(f)
    return 0


def cmd_picow(args):
    room = _room(args.room)
    if args.board not in room.boards:
        print("hall: board %s is not admitted (hall add %s %s)" % (args.board, args.room,
                                                                   args.board), file=sys.stderr)
        return 1
    conf = {"hall": room.name, "broker": args.broker or room.host, "port": room.port,
            "password": room.password(args.board), "ssid": args.ssid, "key": args.wifi_key}
    text = json.dumps(conf) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        print("%s written: copy it to the board's data folder (mpremote cp %s :/data/hall.json)"
              % (args.output, args.output))
    return 0


def cmd_umqtt(args):
    from host_tools.hall import umqtt
    from host_tools.web.firmware_process import REPO_ROOT
    target = args.target or umqtt.default_target(REPO_ROOT)
    if umqtt.installed(target) and not args.again:
        print("umqtt.simple is in %s" % target)
        return 0
    try:
        for path in umqtt.fetch(target):
            print(path)
    except umqtt.FetchError as exc:
        print("hall: %s" % exc, file=sys.stderr)
        return 1
    return 0


def cmd_drill(args):
    from host_tools.hall import drill
    r = drill.run(boards=args.boards, seed=args.seed, speed=args.speed, bridges=args.bridges,
                  timeout=args.timeout)
    d = r.as_dict()
    print(json.dumps(d, indent=1))
    print("hall drill seed %d: %s" % (r.seed, "OK" if r.ok else "FAILED (again: python -m "
                                      "host_tools hall drill --boards %d --seed %d)"
                                      % (args.boards, r.seed)))
    return 0 if r.ok else 1


def _wait():
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    try:
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("hall"), description=__doc__.splitlines()[0])
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
    p = sub.add_parser("run", help="the broker, the station and its pages")
    p.add_argument("room")
    p.add_argument("--delay", type=int, default=0, help="moves the spectators are held back")
    p.add_argument("--db", help="the station's database: a SQLite file (default ROOM/station.db) "
                                "or a postgresql:// URL (needs psycopg)")
    p.add_argument("--no-broker", action="store_true",
                   help="use a broker already running at the room's address (a cluster)")
    p.add_argument("--http-host", default="127.0.0.1", help="address of the two pages")
    p.add_argument("--http-port", type=int, default=8470, help="the director's page (0: any)")
    p.add_argument("--spectators-port", type=int, default=8471,
                   help="the spectators' page (0: any)")
    p.add_argument("--public", help="the name spectators and the director use to reach the "
                                    "pages (e.g. this computer's address in the hall)")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("export", help="a round's records and results")
    p.add_argument("room")
    p.add_argument("--round", type=int)
    p.add_argument("--db")
    p.add_argument("--out", help="folder (default ROOM/exports/round-N)")
    p.set_defaults(fn=cmd_export)
    p = sub.add_parser("picow", help="hall.json for a Pico W board")
    p.add_argument("room")
    p.add_argument("board")
    p.add_argument("--ssid", required=True)
    p.add_argument("--wifi-key", default="")
    p.add_argument("--broker", help="the broker's address as the board reaches it")
    p.add_argument("-o", "--output", default="hall.json")
    p.set_defaults(fn=cmd_picow)
    p = sub.add_parser("umqtt", help="fetch umqtt.simple for the MicroPython unix port")
    p.add_argument("--target")
    p.add_argument("--again", action="store_true")
    p.set_defaults(fn=cmd_umqtt)
    p = sub.add_parser("drill", help="simulated boards into a station while things break")
    p.add_argument("--boards", type=int, default=50)
    p.add_argument("--seed", type=int)
    p.add_argument("--speed", type=float, default=20.0,
                   help="simulated time at most this many times real time")
    p.add_argument("--bridges", type=int, default=5)
    p.add_argument("--timeout", type=float, default=900.0)
    p.set_defaults(fn=cmd_drill)
    args = ap.parse_args(argv)
    return args.fn(args)
