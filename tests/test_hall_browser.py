"""The hall's pages in a real browser (Debian's chromium, Playwright): `hall run` with Mosquitto, simulated
boards through a bridge, the director's page (every board, one live, results, reports, its guard)
and the spectators' page (chosen boards, held back, read-only); screenshots in tests/artifacts/."""

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from test_web_browser import ARTIFACTS, CHROMIUM_ARGS, REPO, browser  # noqa: F401

pytestmark = pytest.mark.browser

DELAY = 2


@pytest.fixture(scope="module")
def hall(tmp_path_factory, mosquitto):
    """`hall run` on a fresh room, three simulated boards (one quick, two at a person's pace)
    through `hallbridge`; yields (room, director URL, spectators URL, board ids)."""
    from host_tools.hall.broker import free_port
    from host_tools.hall.room import Room
    tmp = tmp_path_factory.mktemp("hall")
    names = ["hb%d" % i for i in range(3)]
    ids = [n.encode().hex() for n in names]
    room = Room.create(str(tmp / "room"), port=free_port(), boards=ids + ["forger"])
    procs = []
    run = subprocess.Popen([sys.executable, "-m", "host_tools", "hall", "run", room.path,
                            "--delay", str(DELAY), "--http-port", "0", "--spectators-port", "0"],
                           cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    procs.append(run)
    try:
        text = ""
        while "spectators:" not in text:
            line = run.stdout.readline()
            assert line, "hall run stopped: " + text
            text += line
        director = re.search(r"director:\s+(\S+)", text).group(1)
        spectators = re.search(r"spectators:\s+(\S+)", text).group(1)
        ports = []
        for name, board, variant, speed in zip(names, ids, ("backgammon", "long", "short"),
                                               (40, 1, 1)):
            p = subprocess.Popen([sys.executable, "-m", "host_tools.hall.simboard", "--id", name,
                                  "--variant", variant, "--seed", "5", "--speed", str(speed),
                                  "--key", room.board_key(board).hex(), "--wait-host",
                                  "--noise", "low"],
                                 cwd=REPO, stdout=subprocess.PIPE, text=True)
            procs.append(p)
            ports.append(json.loads(p.stdout.readline())["port"])
        procs.append(subprocess.Popen([sys.executable, "-m", "host_tools", "hallbridge", "--quiet",
                                       room.path] + ports, cwd=REPO))
        yield room, director, spectators, ids
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()


def _page(browser, url):
    page = browser.new_page(viewport={"width": 1400, "height": 950}, bypass_csp=True)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    return page, errors


def _forge(room, victim):
    """The compromised board: a line of the victim's on its own topic, and one on the victim's."""
    import threading

    from host_tools.hall import mqtt
    ok = threading.Event()
    c = mqtt.connect(room, "forger", on_connect=lambda client: ok.set())
    assert ok.wait(10)
    line = '{"k": "roll", "dice": [6, 6], "by": "board", "n": 1}|' + "0" * 32
    for board in ("forger", victim):
        c.publish("%s/%s/line" % (room.name, board), json.dumps({"t": "rl", "s": 1, "l": line}),
                  qos=1).wait_for_publish(5)
    mqtt.close(c)


def test_the_directors_page_shows_every_board_one_live_results_and_reports(browser, hall):  # noqa: F811
    room, director, _spectators, ids = hall
    page, errors = _page(browser, director)
    try:
        # every board at a glance: connected, its variant and a position drawn
        page.wait_for_function("(ids) => ids.every(b => { const c = document.querySelector("
                               "`.card[data-board='${b}']`); return c && c.querySelector("
                               "'.dot.on') && c.querySelectorAll('circle.checker').length > 0; })",
                               arg=ids, timeout=60000)
        page.wait_for_function("(b) => hall.boards[b].lines > 8", arg=ids[1], timeout=60000)
        _forge(room, ids[1])
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.wait_for_function("() => document.querySelector('.card.needs')", timeout=20000)
        page.screenshot(path=os.path.join(ARTIFACTS, "hall-director.png"), full_page=True)
        text = page.locator("#grid").inner_text()
        assert "backgammon" in text and "long" in text and "short" in text
        # one board live: the big board, its moves, players seated for the round
        page.locator('.card[data-board="%s"]' % ids[1]).click()
        page.wait_for_function("() => document.querySelectorAll('#live-board circle.checker')"
                               ".length > 0 && document.querySelectorAll('#live-moves li')"
                               ".length > 0", timeout=30000)
        page.fill("#white", "Ada")
        page.fill("#black", "Boris")
        page.click("#seat")
        page.wait_for_function("() => $('seat-answer').textContent.includes('seated')")
        page.screenshot(path=os.path.join(ARTIFACTS, "hall-director-board.png"), full_page=True)
        # the quick board's game ends: results and standings
        page.click("#tab-results")
        page.wait_for_function("() => document.querySelectorAll('#results-table tr').length > 1",
                               timeout=240000, polling=1000)   # (a loaded machine plays slower)
        page.click("#tab-boards")
        page.click("#tab-results")
        page.wait_for_function("() => document.querySelectorAll('#standings tr').length > 1")
        page.click("#export")
        page.wait_for_function("() => $('export-answer').textContent.includes('file')",
                               timeout=30000)
        page.screenshot(path=os.path.join(ARTIFACTS, "hall-director-results.png"), full_page=True)
        csv = page.evaluate("() => api('/api/results.csv').then(r => r.text())")
        assert csv.startswith("round,board,serial,variant,white,black,winner")
        # the reports: the forgery, rejected by the station and refused by the broker
        page.click("#tab-reports")
        page.wait_for_function("() => $('reports-table').textContent.includes('denied')",
                               timeout=20000)
        reports = page.locator("#reports-table").inner_text()
        assert "rejected" in reports and "forger" in reports
        page.screenshot(path=os.path.join(ARTIFACTS, "hall-director-reports.png"), full_page=True)
        exported = os.listdir(room.file("exports", "round-1"))
        assert "results.csv" in exported and any(f.endswith(".mat") for f in exported)
        assert errors == [], errors
    finally:
        page.close()


def _status(url, method="GET", headers=None):
    req = urllib.request.Request(url, method=method, headers=headers or {},
                                 data=b"{}" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_directors_page_needs_its_key_and_its_own_address(hall):
    _room, director, _s, _ids = hall
    bare = director.split("?")[0]
    assert _status(director) == 200
    assert _status(bare) == 403
    assert _status(bare + "api/state?t=wrong") == 403
    assert _status(director.replace("/?", "/api/state?"), headers={"Host": "evil.example"}) == 403
    post = director.replace("/?", "/api/act?")
    assert _status(post, "POST", {"Content-Type": "application/json",
                                  "Origin": "http://evil.example"}) == 403


def test_the_spectators_page_shows_chosen_boards_held_back_and_changes_nothing(browser, hall):  # noqa: F811
    room, director, spectators, ids = hall
    page, errors = _page(browser, spectators + "?boards=" + ids[1])
    try:
        page.wait_for_function("(b) => document.querySelector(`.panel[data-board='${b}']`) && "
                               "document.querySelectorAll('#views .panel').length === 1",
                               arg=ids[1], timeout=30000)
        assert "behind" in page.locator("#delay").inner_text()
        # the view arrives live from the stream, DELAY moves behind what the station holds
        page.wait_for_function("() => window.lastView && window.lastView.turns > 3",
                               timeout=240000, polling=500)    # (a loaded machine plays slower)
        view = page.evaluate("() => window.lastView")
        assert view["behind"] == DELAY or view["result"] is not None
        token = director.split("t=")[1]
        live = json.loads(urllib.request.urlopen(urllib.request.Request(
            director.split("?")[0] + "api/board?id=%s&t=%s" % (ids[1], token))).read())
        assert len(live["moves"]) >= view["turns"] + DELAY or view["result"] is not None
        page.screenshot(path=os.path.join(ARTIFACTS, "hall-spectators.png"), full_page=True)
        # every board to choose from; a second one chosen appears
        page.locator("#choose input[value='%s']" % ids[2]).check()
        page.wait_for_function("() => document.querySelectorAll('#views .panel').length === 2",
                               timeout=30000)
        assert errors == [], errors
    finally:
        page.close()
    base = spectators.split("?")[0]
    for method in ("POST", "PUT", "DELETE"):
        assert _status(base + "api/views", method, {"Content-Type": "application/json"}) == 405
    assert _status(base + "api/views", headers={"Host": "evil.example"}) == 403
    assert _status(base + "api/state") == 404            # nothing of the director's
