"""The live view as the tournament director (``play --keys``): the page's acts on a real board go signed,
the board records them as the director's, and nothing else changed: the page's guards stand in
front, the hands stay the players', a bare command is still refused, a wrong key file is refused
at start. The real board is the firmware behind a pty (tests/ptyboard.py), opened by SerialLink."""

import json
import os
import re
import subprocess
import sys
import time

import pytest

from firmware.board.director import signature
from firmware.board.identity import MAC_HEX, Mac
from host_tools import cmd_director
from host_tools.records import export as ex
from host_tools.cmd_play import start_hub
from host_tools.records.director import Director, DirectorError
from host_tools.device.serial_link import SerialLink
from host_tools.web.actions import LIVE_READ_ONLY, REAL_HANDS
from host_tools.web.server import BoardPageServer
from host_tools.web.words import record_lines
from polling import wait_until
from ptyboard import PtyBoard
from test_web_server import Client, answer

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def director_cli(board, action, keyfile):
    """The director's own command on ``board`` (once the board is quiet: a client closed before)."""
    board.settle()
    assert cmd_director.main([action, "--port", board.port, "--keys", keyfile]) == 0, action


@pytest.fixture
def keyfile(tmp_path):
    path = str(tmp_path / "director.key")
    Director.create(path)
    return path


@pytest.fixture
def board(tmp_path):
    """A board, its key not given yet."""
    with PtyBoard(tmp_path / "flash") as b:
        yield b


@pytest.fixture
def locked_board(board, keyfile):
    """The board provisioned and locked by the director, with the director's own tools."""
    director_cli(board, "provision", keyfile)
    director_cli(board, "lock", keyfile)
    return board


def open_hub(board, keyfile=None):
    board.settle()
    hub = start_hub(SerialLink(board.port), Director.load(keyfile) if keyfile else None)
    wait_until(lambda: hub.status, what="the board's status")
    return hub


@pytest.fixture
def director_hub(locked_board, keyfile):
    hub = open_hub(locked_board, keyfile)
    yield hub
    hub.close()


def act(hub, line):
    return hub.page_action({"do": "command", "line": line}).wait()


def heard_since(board, mark):
    return board.heard[mark:]


def test_without_keys_the_live_view_of_a_locked_board_refuses_every_act(locked_board):
    hub = open_hub(locked_board)
    try:
        assert hub.snapshot()["director"] is False
        mark = len(locked_board.heard)
        for action in ({"do": "command", "line": "clock 600 12"}, {"do": "command", "line": "status"},
                       {"do": "command", "line": "roll 6 1"}, {"do": "press", "button": "p0"}):
            refused = hub.page_action(action).wait()
            assert refused["t"] == "err" and refused["msg"] == LIVE_READ_ONLY, action
        time.sleep(0.2)
        assert not [h for h in heard_since(locked_board, mark) if h.split()[0] in ("auth", "dir")]
    finally:
        hub.close()


def test_the_directors_acts_go_signed_and_the_record_names_the_director(director_hub,
                                                                        locked_board, keyfile):
    hub, board = director_hub, locked_board
    assert hub.snapshot()["director"] is True and hub.identity["locked"] is True
    # a read goes as it is: no challenge asked for it
    mark = len(board.heard)
    assert act(hub, "status")["t"] == "ok"
    assert "status" in heard_since(board, mark) and "auth" not in heard_since(board, mark)
    # what changes the game: a fresh challenge each time, then the signed line
    for line in ("new backgammon", "dice manual", "clock 600 12"):
        mark = len(board.heard)
        assert act(hub, line) == {"t": "ok", "cmd": "dir"}, line
        sent = [h for h in heard_since(board, mark) if h.split()[0] in ("auth", "dir")]
        assert sent[0] == "auth" and re.fullmatch(r"dir [0-9a-f]{%d} " % MAC_HEX + line, sent[1]), sent
    # the players set the checkers out (the board's own sensing), then the director enters the
    # opening throw of the manual dice
    assert hub.send("sim setup", origin="hub").wait()["t"] == "ok"
    wait_until(lambda: hub.status["phase"] == "opening", what="the opening")
    assert act(hub, "roll 6 1") == {"t": "ok", "cmd": "dir"}
    wait_until(lambda: hub.status["phase"] == "move", what="White to move")
    assert hub.status["clock"]["reserve"] == 600000 and hub.status["locked"] is True
    # a bare host command is still refused by the board, and the hands stay the players'
    refused = hub.send("clock 300 12", origin="hub").wait()
    assert refused["t"] == "err" and "locked" in refused["msg"]
    mark = len(board.heard)
    for action in ({"do": "lift", "zone": 5}, {"do": "press", "button": "p0"}, {"do": "setup"}):
        assert hub.page_action(action).wait()["msg"] == REAL_HANDS
    assert heard_since(board, mark) == []
    # the record: every act of the page is the director's, checked with the director's key
    got = hub.exchange("export")
    assert got and got[-1]["t"] == "ok"
    wait_until(lambda: hub.record and any(e["k"] == "open" for e in hub.record["events"]),
               what="the record with the opening")
    by = {e["k"]: e["by"] for e in hub.record["events"]}
    assert by == {"game": "dir", "set": "dir", "clock": "dir", "open": "dir"}, hub.record["events"]
    with open(keyfile) as f:
        keyring = ex.Keyring(bytes.fromhex(json.load(f)["master"]))
    v = ex.verify(hub.record, keyring, partial=True)
    assert v.authenticated and v.locked
    assert any("the director: clock" in n for n in v.notes), v.notes
    lines = record_lines(hub.record)          # the page's record in words
    assert lines[0].startswith("game 1 of ") and lines[0].endswith("(the director)")
    assert lines[1:] == ["clock: 10 min each, 12 s delay (the director)",
                         "opening throw: White 6, Black 1 (the director)"]
    # the page's event list says who sent what
    words = [e["words"] for e in hub.snapshot()["log"] if e["dir"] == "out"]
    assert "sent as the director: clock 600 12" in words and "sent: status" in words


def test_the_boards_refusal_of_a_signed_command_reaches_the_page(director_hub):
    hub = director_hub
    # the board refuses what the game does not allow, signed or not
    r = act(hub, "roll 6 1")
    assert r["t"] == "err" and r["cmd"].startswith("dir ") and "dir" not in r["msg"], r
    # a signature under another key (a key file changed after the start): the board's own words
    before = hub.exchange("status")[-1] and dict(hub.status)
    hub.director = Director(bytes(range(32, 64)))
    r = act(hub, "clock 600 12")
    assert r["t"] == "err" and r["msg"] == "the director's signature does not match"
    assert hub.exchange("status")[-1]["t"] == "ok"
    assert [hub.status[k] for k in ("clock", "phase", "dice_mode", "variant")] \
        == [before[k] for k in ("clock", "phase", "dice_mode", "variant")]
    assert [o for o in hub.exchange("identity") if o["t"] == "identity"][0]["failures"] == 1


def test_the_pages_guards_stand_before_any_signing(director_hub, locked_board):
    hub, board = director_hub, locked_board
    server = BoardPageServer(hub, port=0)
    server.serve_in_thread()
    try:
        c = Client(server)
        mark = len(board.heard)
        clock = {"do": "command", "line": "clock 600 12"}
        for kwargs in ({"token": False}, {"origin": False},
                       {"origin": False, "extra": [("Origin", "http://evil.example")]},
                       {"extra": [("X-Nardy-Token", "wrong")], "token": False}):
            code, _, body = c.act(clock, **kwargs)
            assert code == 403 and answer(body)["t"] == "err", kwargs
        time.sleep(0.2)
        assert not [h for h in heard_since(board, mark) if h.split()[0] in ("auth", "dir")]
        code, _, body = c.act(clock)
        assert code == 200 and json.loads(body) == {"ok": True, "answer": {"t": "ok", "cmd": "dir"}}
        assert [h.split()[0] for h in heard_since(board, mark) if h.split()[0] in ("auth", "dir")] \
            == ["auth", "dir"]
        code, _, body = c.request("GET", "/api/state", [("X-Nardy-Token", c.token)])
        assert json.loads(body)["director"] is True
    finally:
        server.stop()


def test_a_wrong_key_file_or_a_board_without_a_key_is_refused_at_start(board, keyfile, tmp_path):
    other = str(tmp_path / "other.key")
    Director.create(other)
    with pytest.raises(DirectorError, match="no key yet"):
        start_hub(SerialLink(board.port), Director.load(keyfile))
    director_cli(board, "provision", keyfile)
    with pytest.raises(DirectorError, match="not this director's"):
        start_hub(SerialLink(board.port), Director.load(other))
    # the command itself: refused before it serves a page, with the reason
    board.settle()
    run = subprocess.run([sys.executable, "-m", "host_tools", "play", "--port", board.port,
                          "--keys", other, "--no-browser", "--http-port", "0"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "http://" not in run.stdout, run
    assert "not this director's" in run.stderr and other in run.stderr, run.stderr
    # and the right one is taken (the board provisioned, not locked: still signed)
    hub = open_hub(board, keyfile)
    try:
        assert act(hub, "clock 300 12") == {"t": "ok", "cmd": "dir"}
    finally:
        hub.close()


@pytest.mark.parametrize("argv, why", [
    (["--sim"], "for a real board"), (["--micropython"], "for a real board")])
def test_keys_are_for_a_real_board(keyfile, argv, why, capsys):
    from host_tools.cmd_play import main
    assert main(argv + ["--keys", keyfile, "--no-browser"]) == 2
    assert why in capsys.readouterr().err


def test_an_unreadable_key_file_is_refused(tmp_path, capsys):
    from host_tools.cmd_play import main
    bad = tmp_path / "bad.key"
    bad.write_text("not json")
    assert main(["--keys", str(bad), "--no-browser"]) == 2
    assert "cannot read the director's key file" in capsys.readouterr().err


def test_the_signature_the_page_sends_is_the_boards(keyfile):
    """director_line signs exactly what the board checks (firmware/board/director.py)."""
    from host_tools.web.actions import director_line
    d = Director.load(keyfile)
    challenge = {"board": "b7", "nonce": "00ff" * 8}
    line = director_line({"do": "command", "line": "clock  600 12"}, d, lambda: challenge)
    mac = Mac(d.board_key("b7"))
    assert line == "dir %s clock 600 12" % signature(mac, "b7", challenge["nonce"], "clock 600 12")


@pytest.mark.browser
def test_the_page_shows_the_director_and_its_act_reaches_the_locked_board(locked_board, keyfile):
    """Debian's chromium on `play --port ... --keys ...`: the banner, a clock set from the page's
    own controls, on record as the director's; screenshot live-director.png."""
    import shutil
    from test_web_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, stop_play
    if not shutil.which(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (scripts/system_deps.sh installs it)")
    from playwright.sync_api import sync_playwright
    locked_board.settle()
    proc = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "play", "--port", locked_board.port, "--keys", keyfile,
         "--no-browser", "--http-port", "0"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first, second = proc.stdout.readline(), proc.stdout.readline()
        assert "board on " + locked_board.port in first, first + second + proc.stdout.read()
        assert second.startswith("Director: your acts on board 4e4152445953494d are signed"), second
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 950}, bypass_csp=True)
            errors = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(re.search(r"http://\S+", first).group(0))
            page.wait_for_function("window.nardy && nardy.ready && nardy.state.status !== null")
            banner = page.locator("#director")
            assert banner.is_visible() and page.locator("#readonly").is_hidden()
            assert "Director: your acts on this board are signed and recorded as the director's" \
                in " ".join(banner.text_content().split())
            assert page.locator("#set-clock").is_enabled() and page.locator("#setup").is_hidden()
            page.fill("#clock-min", "10")
            page.click("#set-clock")
            page.wait_for_function("nardy.state.status.clock.reserve === 600000")
            page.wait_for_function("nardy.state.record && nardy.state.record.events.some("
                                   "(e) => e.k === 'clock' && e.by === 'dir')")
            page.wait_for_function("Array.from(document.querySelectorAll('#record li')).some("
                                   "(li) => li.textContent.endsWith('12 s delay (the director)'))")
            page.wait_for_function("Array.from(document.querySelectorAll('#log li .words'))"
                                   ".some((w) => w.textContent === "
                                   "'sent as the director: clock 600 12')")
            assert page.locator("#answer").text_content() == ""
            assert page.evaluate("nardy.state.status.locked") is True
            os.makedirs(ARTIFACTS, exist_ok=True)
            page.screenshot(path=os.path.join(ARTIFACTS, "live-director.png"))
            assert errors == [], errors
            browser.close()
    finally:
        stop_play(proc)


def test_play_stops_on_ctrl_c_even_when_started_with_sigint_ignored(tmp_path):
    # a script's background job inherits SIGINT ignored: play must still stop on Ctrl-C
    import signal
    proc = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "play", "--sim", "--no-browser", "--http-port", "0",
         "--flash", str(tmp_path), "--seed", "1"], cwd=REPO, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert "http://" in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0          # (60 s: a loaded machine)
    finally:
        if proc.poll() is None:
            proc.kill()
