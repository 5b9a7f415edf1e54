"""Play on the virtual board in your browser (or watch a real board live when one is plugged in).

With no board attached (or with --sim) the unchanged firmware runs on the simulated hardware,
on CPython, or under the real MicroPython unix port with --micropython, and a page on localhost
shows the board: move the checkers with the mouse, press the players' buttons, watch the LEDs.
With a board attached over USB, the same page watches it live (a spectator view), read-only;
with --keys DIRECTOR_KEYFILE the page acts on it as the tournament director: every command that
changes the game is signed (host_tools/records/director.py) and the board records it as the director's.
"""

import argparse
import os
import shutil
import signal
import sys
import tempfile
import threading
import webbrowser

from firmware.rules import variants
from host_tools import prog
from host_tools.records.director import Director, DirectorError
from host_tools.device.serial_link import SerialLink, find_board_ports
from host_tools.web.firmware_process import FirmwareProcess
from host_tools.web.hub import BoardHub
from host_tools.web.server import BoardPageServer

DEFAULT_HTTP_PORT = 8421
VARIANTS = tuple(variants.VARIANTS)     # every variant, in the rules core's order


def parse_args(argv):
    p = argparse.ArgumentParser(prog=prog("play"), description=__doc__.split("\n\n")[0])
    p.add_argument("--sim", action="store_true", help="use the virtual board even if a real one is attached")
    p.add_argument("--micropython", action="store_true",
                   help="run the firmware under the MicroPython unix port instead of CPython")
    p.add_argument("--port", help="serial port of a real board (default: the first one found)")
    p.add_argument("--variant", choices=VARIANTS, help="variant of the first game (virtual board)")
    p.add_argument("--seed", type=int,
                   help="virtual board: seed its random bits, so the same seed rolls the same dice")
    p.add_argument("--flash", help="folder standing for the virtual board's flash (default: a new temporary one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to serve the page on (default 127.0.0.1); the page answers to "
                        "that name and to 127.0.0.1, localhost and [::1] only")
    p.add_argument("--http-port", type=int, default=DEFAULT_HTTP_PORT,
                   help="port of the page (default %d; 0 = any free port)" % DEFAULT_HTTP_PORT)
    p.add_argument("--no-browser", action="store_true", help="print the address, do not open a browser")
    p.add_argument("--keys", metavar="DIRECTOR_KEYFILE",
                   help="live view: act on the real board as the tournament director, with the "
                        "director's key file (as `director` takes): the page's commands are "
                        "signed and recorded as the director's. Without it the live view is "
                        "read-only")
    p.add_argument("--no-setup", action="store_true",
                   help="virtual board: start with no checkers out (the page's button sets them out)")
    return p.parse_args(argv)


def choose_link(args, made=None):
    """The link the page will show: a real board when one is attached, else the simulated one
    (its flash in ``--flash``, else in a new temporary folder, added to ``made``)."""
    if not args.sim and not args.micropython:
        ports = [args.port] if args.port else find_board_ports()
        if ports:
            return SerialLink(ports[0])
    flash = args.flash
    if flash is None:
        flash = tempfile.mkdtemp(prefix="nardy-flash-")
        if made is not None:
            made.append(flash)
    return FirmwareProcess(micropython=args.micropython, variant=args.variant, flash_dir=flash,
                           seed=args.seed)


def bind_server(hub, host, port):
    """The page's server on the asked port, or on any free one when that port is taken."""
    try:
        return BoardPageServer(hub, host, port)
    except OSError:
        if port == 0:
            raise
        return BoardPageServer(hub, host, 0)


def can_open_browser():
    """True where a graphical browser can be expected (not on a bare terminal or in CI)."""
    if os.environ.get("CI"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt


def start_hub(link, director=None):
    """The hub on ``link``, started; with the director's keys, the board's key is checked first
    (a wrong key file is refused here, not at the first act). Raises OSError or DirectorError."""
    hub = BoardHub(link, director)
    hub.start()
    if hub.mode == "live" and director is not None:
        try:
            hub.check_director()
        except DirectorError:
            hub.close()
            raise
    return hub


def main(argv):
    made = []                       # the temporary flash folder, removed when play ends
    try:
        return _play(argv, made)
    finally:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)


def _play(argv, made):
    args = parse_args(argv)
    director = None
    if args.keys:
        try:
            director = Director.load(args.keys)
        except DirectorError as exc:
            print("play: %s" % exc, file=sys.stderr)
            return 2
        if args.sim or args.micropython:
            print("play: --keys is for a real board (the director's signed commands); the "
                  "virtual board takes the page's acts as they are", file=sys.stderr)
            return 2
        if not args.port and not find_board_ports():
            print("play: --keys acts on a real board, and none is attached (--port names its "
                  "serial port)", file=sys.stderr)
            return 1
    try:
        link = choose_link(args, made)
    except FileNotFoundError as exc:        # --micropython without the unix port installed
        print("play: %s" % exc, file=sys.stderr)
        return 1
    try:
        hub = start_hub(link, director)
    except OSError as exc:
        print("cannot reach the %s: %s" % (link.describe(), exc), file=sys.stderr)
        return 1
    except DirectorError as exc:
        print("play: %s: %s" % (args.keys, exc), file=sys.stderr)
        return 1
    if hub.mode == "sim" and not args.no_setup:
        hub.page_action({"do": "setup"})       # the checkers stand as the game has them
    server = bind_server(hub, args.host, args.http_port)
    server.serve_in_thread()
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    # Ctrl-C stops it even when started from a script that ignores SIGINT for its background
    # jobs (a child inherits the ignore; a test's teardown then waited for ever); set before the
    # address is printed, so a Ctrl-C sent as soon as it is seen is not lost
    signal.signal(signal.SIGINT, signal.default_int_handler)
    done = threading.Event()
    link_on_close = link.on_close

    def closed():
        if link_on_close:
            link_on_close()
        done.set()

    link.on_close = closed
    try:
        print("The %s is on %s" % (link.describe(), server.url))
        if hub.mode == "live" and hub.director is not None:
            print("Director: your acts on board %s are signed and recorded as the director's "
                  "(the players' own moves and buttons stay theirs)." % hub.identity["board"])
        elif hub.mode == "live":
            print("Live view: the page follows the game played on the real board, read-only "
                  "(--keys DIRECTOR_KEYFILE to act as the director; --sim for the virtual board).")
        else:
            print("Drag checkers with the mouse (Shift-drag: two at once); the buttons end a turn.")
        print("Ctrl-C to stop.", flush=True)
        if not args.no_browser and can_open_browser():
            try:
                webbrowser.open(server.url)
            except webbrowser.Error:
                pass
        while not done.wait(0.5):
            pass
        print("The %s went away." % link.describe(), file=sys.stderr)
        tail = getattr(link, "stderr_tail", None)
        if tail:
            print("\n".join(tail[-15:]), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print()
        return 0
    finally:
        server.stop()
        hub.close()
