"""Carry USB boards into the tournament hall: their serial protocol read here, published on the hall's MQTT topics.

python -m host_tools hallbridge ROOM [PORT ...] [--auto] [--admit]
Each PORT is a board's serial port (or a pseudo-terminal: a simulated board); --auto takes every
attached board that looks like an RP2040 running MicroPython, and those plugged in later. The
bridge logs in to the hall's broker as each board (the room's credentials: ROOM is the hall's
folder, see `hall init`); --admit admits a board the hall does not know yet (the station's
room must admit it too: run the bridge on the station's computer, or `hall add` there).
Runs until Ctrl-C.
"""

import argparse
import signal
import sys
import threading

from host_tools import prog
from host_tools.hall.bridge import Relay
from host_tools.hall.room import Room, RoomError


def main(argv):
    ap = argparse.ArgumentParser(prog=prog("hallbridge"),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("room", help="the hall's folder (hall init)")
    ap.add_argument("ports", nargs="*", help="serial ports of boards")
    ap.add_argument("--auto", action="store_true", help="every attached board, now and later")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    try:
        room = Room(args.room)
    except RoomError as exc:
        print(exc, file=sys.stderr)
        return 2
    from host_tools.device.serial_link import SerialLink, find_board_ports
    note = (lambda text: None) if args.quiet else (lambda text: print(text, flush=True))
    if not args.ports and not args.auto:
        ap.error("name the boards' ports, or --auto")
    relays = {}

    def add(port):
        if port not in relays:
            note("bridge: %s" % port)
            relays[port] = Relay(room, lambda: SerialLink(port), note=note).start()

    for port in args.ports:
        add(port)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    try:
        while not stop.wait(2.0):
            if args.auto:
                for port in find_board_ports():
                    add(port)
    except KeyboardInterrupt:
        pass
    for r in relays.values():
        r.close()
    return 0
