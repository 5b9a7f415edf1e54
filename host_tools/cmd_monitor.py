"""Watch a board in the terminal: its live events and state over USB serial; type commands to send them.

Each protocol line is shown as one readable line (use --raw for the JSON as it came). Lines typed
on the terminal are sent to the board as commands (``status``, ``export``, ``new long`` ...).
"""

import argparse
import json
import sys
import threading
import time

from firmware.board.record import SIDES
from host_tools import prog
from host_tools.device.serial_link import SerialLink, find_board_ports


def _where(value):
    return "bar" if value == "bar" else "off" if value == "off" else str(value)


def describe(msg):
    """One terminal line for one protocol message (a dict), or None to show nothing."""
    kind = msg.get("t")
    if kind == "leds":
        return None
    if kind == "hello":
        return "hello: firmware %s on %s, %s" % (msg.get("fw"), msg.get("hw"), msg.get("variant"))
    if kind == "status":
        dice = "-".join(str(d) for d in msg.get("dice") or []) or "none"
        score = msg.get("score") or [0, 0]
        return ("status: %s, %s, %s to move, dice %s, score %d-%d of %s, board %s\n        %s"
                % (msg.get("variant"), msg.get("phase"), SIDES[msg.get("turn", 0)], dice,
                   score[0], score[1], msg.get("match_to"), msg.get("board", "?"),
                   msg.get("position")))
    if kind == "ev":
        name = msg.get("ev")
        side = SIDES[msg["side"]] if isinstance(msg.get("side"), int) and msg["side"] in (0, 1) else None
        if name in ("step", "undo") and "from" in msg:
            return "%-8s %s %s/%s (die %s)%s" % (name, side, _where(msg["from"]), _where(msg["to"]),
                                                msg.get("die"), " hit" if msg.get("hit") else "")
        if name in ("lift", "place") and "zone" in msg:
            zone = str(msg["zone"])
            return "%-8s %s%s (%s there)" % (name, "k" if zone.isdigit() else "", zone, msg.get("count"))
        if name == "roll":
            return "roll     %s rolls %s" % (side, "-".join(str(d) for d in msg.get("dice", [])))
        if name == "commit":
            steps = " ".join("%s/%s%s" % (_where(s[0]), _where(s[1]), "*" if s[3] else "")
                             for s in msg.get("steps", []))
            return "commit   %s: %s" % (side, steps or "(no move)")
        if name == "game_over":
            return "game over: %s wins %s point(s) (%s), score %s" % (
                SIDES[msg.get("winner", 0)], msg.get("points"), msg.get("how"), msg.get("score"))
        rest = " ".join("%s=%s" % (k, json.dumps(v)) for k, v in msg.items() if k not in ("t", "ev"))
        return "%-8s %s" % (name, rest)
    if kind == "err":
        return "refused: %s: %s" % (msg.get("cmd"), msg.get("msg"))
    if kind == "ok":
        return "ok %s" % msg.get("cmd")
    if kind == "record":
        return "record: %d events, head seal %s" % (len(msg.get("events", [])), msg.get("head"))
    return json.dumps(msg)


GREETING_WAIT_S = 1.5


class Monitor:
    """Prints what the board says, stamped with the time since the monitor started."""

    def __init__(self, out=sys.stdout, raw=False):
        self.out = out
        self.raw = raw
        self.lines = 0
        self.t0 = time.monotonic()
        self._lock = threading.Lock()
        self.greeted = threading.Event()     # the firmware said hello (it has just started)

    def line(self, text):
        if '"hello"' in text:
            self.greeted.set()
        with self._lock:
            self.lines += 1
            if self.raw:
                self.out.write(text + "\n")
            else:
                try:
                    msg = json.loads(text)
                    shown = describe(msg) if isinstance(msg, dict) else text
                except ValueError:
                    shown = "| " + text        # not protocol: REPL output, a traceback
                if shown is None:
                    return
                self.out.write("%8.3f  %s\n" % (time.monotonic() - self.t0, shown))
            self.out.flush()


def forward_typed_lines(link, stream=sys.stdin):
    """Send each line typed on the terminal as a command (in a daemon thread)."""
    def pump():
        for line in stream:
            if line.strip():
                link.send(line.strip())
    threading.Thread(target=pump, name="monitor-input", daemon=True).start()


def main(argv):
    p = argparse.ArgumentParser(prog=prog("monitor"), description=__doc__.split("\n\n")[0])
    p.add_argument("--port", help="serial port of the board (default: the first one found)")
    p.add_argument("--raw", action="store_true", help="print the protocol lines as they come")
    p.add_argument("--send", action="append", default=[], metavar="COMMAND",
                   help="send a command first (default: status); may be repeated")
    p.add_argument("--seconds", type=float, help="stop after this many seconds")
    args = p.parse_args(argv)
    port = args.port or next(iter(find_board_ports()), None)
    if port is None:
        print("monitor: no board found: plug one in over USB, or give --port", file=sys.stderr)
        return 1
    monitor = Monitor(raw=args.raw)
    gone = threading.Event()
    link = SerialLink(port)
    link.on_close = gone.set
    print("Watching the board on %s (Ctrl-C to stop)" % port, file=sys.stderr, flush=True)
    try:
        link.start(monitor.line)
    except OSError as exc:
        print("monitor: cannot open %s: %s" % (port, exc), file=sys.stderr)
        return 1
    # A board that is starting (just plugged in, reset) would lose commands sent before its
    # firmware reads the link: wait briefly for its hello; a board already running says nothing.
    monitor.greeted.wait(GREETING_WAIT_S)
    for command in args.send or ["status"]:
        link.send(command)
    if sys.stdin.isatty():
        forward_typed_lines(link)
    try:
        gone.wait(args.seconds)
    except KeyboardInterrupt:
        pass
    finally:
        link.close()
    if gone.is_set():
        print("monitor: the board went away", file=sys.stderr)
        return 1
    return 0
