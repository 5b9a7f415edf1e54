"""The MicroPython side of packaging: manifest.py freezes what deploy sends, package.json lists it
for mip, and `mpremote mip install` really installs a board from it (served over loopback)."""

import functools
import http.server
import io
import json
import os
import subprocess
import sys
import threading
import time

import pytest
import serial

from host_tools import cmd_mip
from host_tools.__main__ import version
from host_tools.cmd_deploy import board_files

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


MANIFEST = os.path.join(REPO, "manifest.py")


def frozen_by_manifest(path=MANIFEST):
    """Run manifest.py with stand-ins for MicroPython's manifest functions (tools/manifestfile.py:
    relative paths are the manifest's folder; package() takes every .py under the package's
    folder, module() one file; the frozen name is the path given). Returns (frozen paths,
    included manifests, metadata)."""
    here = os.path.dirname(path)
    frozen, included, meta = [], [], {}

    def package(package_path, files=None, base_path=".", opt=None):
        top = os.path.join(here, base_path, package_path)
        assert os.path.isdir(top), package_path
        for folder, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for n in names:
                if n.endswith(".py") and (files is None or n in files):
                    rel = os.path.relpath(os.path.join(folder, n), os.path.join(here, base_path))
                    frozen.append(rel.replace(os.sep, "/"))

    def module(module_path, base_path=".", opt=None):
        assert os.path.isfile(os.path.join(here, base_path, module_path)), module_path
        frozen.append(module_path)

    env = {"package": package, "module": module, "include": included.append,
           "metadata": lambda **kw: meta.update(kw), "require": lambda *a, **kw: None}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), env)
    return sorted(frozen), included, meta


def test_the_manifest_freezes_exactly_the_modules_deploy_sends():
    frozen, included, meta = frozen_by_manifest()
    deployed = sorted(rel for rel, remote in board_files(REPO) if remote.startswith("/firmware/"))
    assert frozen == deployed
    assert not any(p.startswith("firmware/sim/") for p in frozen)
    assert "firmware/main.py" not in frozen           # the board runs /main.py from its flash
    assert included == ["$(PORT_DIR)/boards/manifest.py"]   # the port's asyncio, neopixel, ...
    assert meta["license"] == "MIT"


def test_package_json_lists_the_board_files_and_the_version():
    with open(os.path.join(REPO, "package.json")) as f:
        pkg = json.load(f)
    assert pkg["version"] == version()
    assert pkg["deps"] == []
    assert [tuple(u) for u in pkg["urls"]] == [(r.lstrip("/"), s) for s, r in board_files(REPO)]
    for dest, src in pkg["urls"]:
        assert os.path.isfile(os.path.join(REPO, src)), src
        assert not dest.startswith("/") and not src.startswith("/")
        assert not src.startswith("firmware/sim/")
    assert cmd_mip.main(["--check"]) == 0, "package.json is stale: run python -m host_tools mip"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def repo_over_http():
    """The repository served on loopback, as a git host serves its files to mip."""
    handler = functools.partial(_Quiet, directory=REPO)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.micropython
def test_mip_installs_the_firmware_on_a_board_and_it_starts(fake_board, repo_over_http):
    mpremote = os.path.join(os.path.dirname(sys.executable), "mpremote")
    done = subprocess.run([mpremote, "connect", fake_board.port, "mip", "install", "--target", "/",
                           repo_over_http + "/package.json"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for dest, src in cmd_mip.package()["urls"]:
        with open(os.path.join(fake_board.root, dest), "rb") as got, \
                open(os.path.join(REPO, src), "rb") as want:
            assert got.read() == want.read(), dest
    # the sources run: after a reset the firmware compiles itself and says hello
    with serial.Serial(fake_board.port, timeout=0.2) as line:
        subprocess.run([mpremote, "connect", fake_board.port, "reset"], check=True, timeout=60)
        seen = io.BytesIO()
        deadline = time.monotonic() + 60
        while b'"hello"' not in seen.getvalue() and time.monotonic() < deadline:
            seen.write(line.read(4096))
    assert b'"hello"' in seen.getvalue(), seen.getvalue()[-500:]
