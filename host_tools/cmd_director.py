"""The tournament director: make the secret, provision, lock and unlock boards, send signed commands, check records.

    python -m host_tools director init KEYFILE
    python -m host_tools director identity  --port PORT
    python -m host_tools director provision --port PORT --keys KEYFILE
    python -m host_tools director lock      --port PORT --keys KEYFILE
    python -m host_tools director unlock    --port PORT --keys KEYFILE
    python -m host_tools director send      --port PORT --keys KEYFILE COMMAND...
    python -m host_tools director verify    --keys KEYFILE RECORD.json...
    python -m host_tools director public    --keys KEYFILE BOARD_ID... [-o PUBLIC.json]

``init`` makes the director's secret (keep it: every board's key comes from it and a board's
records are checked with it; the players must never see it). ``provision`` gives a board its key
(a board that has none yet; one provisioned by this director already is left as it is).
``lock`` puts the board in tournament mode: its host link then takes only reads and the
director's signed commands, and its REPL is closed; ``unlock`` lifts it (to deploy, calibrate).
``public`` writes the boards' public keys (a file anyone may have: ``export --keys PUBLIC.json``
and ``director verify --keys PUBLIC.json`` check an ended game's signed record with it, without
the director's secret; ``provision`` prints the board's public key too). ``send`` runs any
protocol command as the director (e.g. ``send clock 600 12``). ``verify``
checks records as a tournament must: the board's seal on every line, nothing missing or cut short,
the dice, and a locked game kept locked; it lists the director's interventions and the resets.
Exit status 0 when done, 1 when the board or a record refused, 2 for bad arguments.
"""

import argparse
import json
import sys

from host_tools import prog
from host_tools.records.director import BoardClient, Director, DirectorError


def _board(port):
    import serial
    from host_tools.device.serial_link import BAUD, exchange
    ser = serial.serial_for_url(port, baudrate=BAUD, timeout=0.2)
    return ser, BoardClient(lambda line: exchange(ser, line))


def main(argv):
    p = argparse.ArgumentParser(prog=prog("director"),
                                description=__doc__.strip().splitlines()[0])
    p.add_argument("action", choices=("init", "identity", "provision", "lock", "unlock", "send",
                                      "verify", "public"))
    p.add_argument("args", nargs="*",
                   help="KEYFILE (init), COMMAND words (send), RECORD files (verify), BOARD ids "
                        "(public)")
    p.add_argument("-o", "--output", help="the file public writes (default: standard output)")
    p.add_argument("--port", help="the board's serial port")
    p.add_argument("--keys", metavar="KEYFILE", help="the director's key file")
    try:
        a = p.parse_intermixed_args(argv)
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
        if a.action == "public":
            return _public(a)
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
                out["public"] = director.public_key(out["board"]).hex()
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


def _public(a):
    if not a.keys or not a.args:
        print("director public --keys KEYFILE BOARD_ID...", file=sys.stderr)
        return 2
    director = Director.load(a.keys)
    text = json.dumps({"public": dict((b, director.public_key(b).hex()) for b in a.args)},
                      indent=1, sort_keys=True) + "\n"
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _verify(a):
    from host_tools.records.export import ExportError, Keyring, default_keyring, load_records, verify
    try:
        keyring = Keyring.from_file(a.keys) if a.keys else default_keyring()
    except ExportError as exc:
        print("director: %s" % exc, file=sys.stderr)
        return 1
    bad = 0
    for path in a.args:
        try:
            for rec in load_records(path):
                v = verify(rec, keyring)
                print("%s: board %s game %s: %d lines, %s%s%s" % (
                    path, rec.get("board"), rec.get("serial"), len(v.events),
                    "authenticated" if v.authenticated else "NOT authenticated (open key)",
                    ", signed" if v.signed else "", ", locked" if v.locked else ""))
                for note in v.notes:
                    print("  " + note)
        except ExportError as exc:
            print("%s: refused: %s" % (path, exc))
            bad += 1
    return 1 if bad else 0
