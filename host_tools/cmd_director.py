"""The tournament director: make the secret, provision, lock and unlock boards, send signed commands, check records.

    python -m host_tools director init KEYFILE
    python -m host_tools director identity  --port PORT
    python -m host_tools director provision --port PORT --keys KEYFILE
    python -m host_tools director lock      --port PORT --keys KEYFILE
    python -m host_tools director unlock    --port PORT --keys KEYFILE
    python -m host_tools director send      --port PORT --keys KEYFILE COMMAND...
    python -m host_tools director verify    --keys KEYFILE RECORD.json...

``init`` makes the director's secret (keep it: every board's key comes from it and a board's
records are checked with it; the players must never see it). ``provision`` gives a board its key
(a board that has none yet; one provisioned by this director already is left as it is).
``lock`` puts the board in tournament mode: its host link then takes only reads and the
director's signed commands, and its REPL is closed; ``unlock`` lifts it (to deploy, calibrate).
``send`` runs any protocol command as the director (e.g. ``send clock 600 12``). ``verify``
checks records as a tournament must: the board's seal on every line, nothing missing or cut short,
the dice, and a locked game kept locked; it lists the director's interventions and the resets.
Exit status 0 when done, 1 when the board or a record refused, 2 for bad arguments.
"""

import argparse
import json
import sys

from host_tools.director import BoardClient, Director, DirectorError


def _board(port):
    import serial
    from host_tools.serial_link import BAUD, exchange
    ser = serial.serial_for_url(port, baudrate=BAUD, timeout=0.2)
    return ser, BoardClient(lambda line: exchange(ser, line))


def main(argv):
    p = argparse.ArgumentParser(prog="python -m host_tools director",
                                description=__doc__.strip().splitlines()[0])
    p.add_argument("action", choices=("init", "identity", "provision", "lock", "unlock", "send",
                                      "verify"))
    p.add_argument("args", nargs="*", help="KEYFILE (init), COMMAND words (send), RECORD files")
    p.add_argument("--port", help="the board's serial port")
    p.add_argument("--keys", metavar="KEYFILE", help="the director's key file")
    try:
        a = p.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if a.action == "init":
            if len(a.args) != 1:
                print("director init KEYFILE", file=sys.stderr)
                return 2
            Director.create(a.args[0])
            print("the director's secret is in %s: keep it safe, never on a player's machine"
                  % a.args[0])
            return 0
        if a.action == "verify":
            return _verify(a)
        if not a.port:
            print("director %s needs --port" % a.action, file=sys.stderr)
            return 2
        director = Director.load(a.keys) if a.keys else None
        if a.action != "identity" and director is None:
            print("director %s needs --keys KEYFILE" % a.action, file=sys.stderr)
            return 2
        ser, board = _board(a.port)
        try:
            if a.action == "identity":
                out = board.identity()
            elif a.action == "provision":
                out = board.provision(director)
            elif a.action in ("lock", "unlock"):
                out = board.lock(director, a.action == "lock")
            else:
                if not a.args:
                    print("director send COMMAND...", file=sys.stderr)
                    return 2
                out = board.signed(director, " ".join(a.args))
        finally:
            ser.close()
        print(json.dumps(out))
        return 0
    except (DirectorError, OSError) as exc:
        print("director: %s" % exc, file=sys.stderr)
        return 1


def _verify(a):
    from host_tools.export import ExportError, Keyring, default_keyring, load_records, verify
    keyring = Keyring.from_file(a.keys) if a.keys else default_keyring()
    bad = 0
    for path in a.args:
        try:
            for rec in load_records(path):
                v = verify(rec, keyring)
                print("%s: board %s game %s: %d lines, %s%s" % (
                    path, rec.get("board"), rec.get("serial"), len(v.events),
                    "authenticated" if v.authenticated else "NOT authenticated (open key)",
                    ", locked" if v.locked else ""))
                for note in v.notes:
                    print("  " + note)
        except ExportError as exc:
            print("%s: refused: %s" % (path, exc))
            bad += 1
    return 1 if bad else 0
