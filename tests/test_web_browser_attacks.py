"""A page from another origin, in Debian's chromium, cannot drive the board or read the game: CSRF and DNS-rebinding attempts."""

import json
import os
import re
import shutil
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from test_web_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, start_play, stop_play

pytestmark = pytest.mark.browser

# the attacker's name resolves to this machine, as a rebinding DNS server would make it
ATTACKER = "attacker.test"
RESOLVER_ARGS = ["--host-resolver-rules=MAP %s 127.0.0.1" % ATTACKER]


@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (scripts/system_deps.sh installs it)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                               args=CHROMIUM_ARGS + RESOLVER_ARGS)
        yield b
        b.close()


@pytest.fixture
def board(tmp_path):
    """`play --sim` in a child process: (base address, token)."""
    proc, url = start_play(tmp_path)
    m = re.match(r"(http://[^/]+)/\?t=(\S+)$", url)
    assert m, url
    try:
        deadline = time.monotonic() + 10
        while snapshot(m.group(1), m.group(2))["status"] is None:
            assert time.monotonic() < deadline, "the board sent no status"
            time.sleep(0.05)
        yield m.group(1), m.group(2)
    finally:
        stop_play(proc)


def snapshot(base, token):
    req = urllib.request.Request(base + "/api/state", headers={"X-Nardy-Token": token})
    return json.load(urllib.request.urlopen(req, timeout=5))


def sent_lines(base, token):
    return [e["line"] for e in snapshot(base, token)["log"] if e["dir"] == "out"]


class AttackerSite:
    """A second web server on another port: the attacker's pages."""

    def __init__(self, pages):
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = site.pages.get(self.path.split("?")[0], "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.pages = pages
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://%s:%d" % (ATTACKER, self.httpd.server_address[1])
        threading.Thread(target=self.httpd.serve_forever, args=(0.1,), daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# Every attempt a page on another origin can make; each writes what it saw into the page.
ATTACK_PAGE = """<!doctype html><meta charset="utf-8"><title>attacker</title>
<style>body{font:15px sans-serif;background:#300;color:#fdd} li{margin:.3em 0}</style>
<h1>A page on another origin tries the board</h1><ol id="out"></ol>
<iframe name="sink" style="width:600px;height:80px;background:#fff"></iframe>
<form id="csrf" method="POST" action="BOARD/api/act?t=TOKEN" enctype="text/plain" target="sink">
<input type="hidden" name='{"do": "command", "line": "new long", "x": "' value='"}'></form>
<script>
const out = (what, how) => { const li = document.createElement("li"); li.textContent = what + ": " + how; document.getElementById("out").appendChild(li); };
const body = JSON.stringify({do: "command", line: "new long"});
const tries = [
  ["simple POST, no key", () => fetch("BOARD/api/act", {method: "POST", mode: "no-cors", body})],
  ["simple POST with the key in the address", () => fetch("BOARD/api/act?t=TOKEN", {method: "POST", mode: "no-cors", body})],
  ["JSON POST with the key header", () => fetch("BOARD/api/act", {method: "POST", headers: {"Content-Type": "application/json", "X-Nardy-Token": "TOKEN"}, body})],
  ["read the game", () => fetch("BOARD/api/state?t=TOKEN").then((r) => r.text())],
];
(async () => {
  for (const [what, go] of tries) {
    try { const r = await go(); out(what, typeof r === "string" ? "READ " + r.slice(0, 60) : "sent, answer opaque"); }
    catch (e) { out(what, "blocked (" + e.message + ")"); }
  }
  await new Promise((done) => {
    const es = new EventSource("BOARD/api/stream?t=TOKEN");
    es.onmessage = (e) => { out("event stream", "READ " + e.data.slice(0, 60)); es.close(); done(); };
    es.onerror = () => { out("event stream", "blocked"); es.close(); done(); };
  });
  window.triesDone = true;
})();
</script>"""


def test_a_page_on_another_origin_can_neither_drive_the_board_nor_read_the_game(browser, board):
    base, token = board
    before = snapshot(base, token)
    site = AttackerSite({"/attack.html": ATTACK_PAGE.replace("BOARD", base).replace("TOKEN", token)})
    page = browser.new_page(viewport={"width": 900, "height": 600})
    answers = []
    page.on("response", lambda r: answers.append((r.url, r.status)) if r.url.startswith(base) else None)
    try:
        page.goto(site.url + "/attack.html")
        page.wait_for_function("window.triesDone === true", timeout=15000)
        with page.expect_response(lambda r: r.request.method == "POST" and r.url.startswith(base)
                                  and r.request.post_data.startswith('{"do": "command"')) as form:
            page.evaluate("document.getElementById('csrf').submit()")
        assert form.value.status == 403
        page.evaluate("document.getElementById('out').insertAdjacentHTML('beforeend', '<li>form POST: sent</li>')")
        listed = page.locator("#out li").all_text_contents()
        assert len(listed) == 6, listed
        assert not any("READ" in text for text in listed), listed
        reached = [(url[len(base):].replace(token, "KEY"), status) for url, status in answers]
        page.evaluate("(t) => document.getElementById('out').insertAdjacentHTML('beforeend', "
                      "'<li>what the board answered: ' + t + '</li>')",
                      ", ".join("%s %d" % r for r in reached))
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.screenshot(path=os.path.join(ARTIFACTS, "attack-cross-origin.png"))
    finally:
        page.close()
        site.close()
    # every request that reached the board was refused (the JSON POST's preflight already fails)
    assert reached and all(status in (403, 501) for _, status in reached), reached
    assert ("/api/act?t=KEY", 403) in reached          # the form and the keyed simple POST
    after = snapshot(base, token)
    assert after["status"]["variant"] == before["status"]["variant"] == "short"
    assert not any("new long" in line for line in sent_lines(base, token))


def test_dns_rebinding_a_foreign_name_onto_the_board_is_refused(browser, board):
    base, token = board
    port = base.rsplit(":", 1)[1]
    foreign = "http://%s:%s" % (ATTACKER, port)     # the attacker's name, now resolving to 127.0.0.1
    page = browser.new_page(viewport={"width": 900, "height": 400}, bypass_csp=True)
    try:
        # even holding the key, the page is not served under a name that is not the board's
        response = page.goto(foreign + "/?t=" + token)
        assert response.status == 403
        assert "own address" in page.content()
        # scripts of that origin are same-origin with the board's port: no CORS in their way
        results = page.evaluate("""async (token) => {
            const read = await fetch("/api/state?t=" + token);
            const act = await fetch("/api/act", {method: "POST", headers: {"Content-Type": "application/json",
                "X-Nardy-Token": token}, body: JSON.stringify({do: "command", line: "new long"})});
            const js = await fetch("/static/common.js");
            return [read.status, await read.text(), act.status, js.status];
        }""", token)
        assert results[0] == 403 and "snapshot" not in results[1]
        assert results[2] == 403 and results[3] == 403
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.screenshot(path=os.path.join(ARTIFACTS, "attack-dns-rebinding.png"))
        # the same browser on the board's own address is served (the refusals are the checks')
        own = page.goto(base + "/?t=" + token)
        assert own.status == 200
        page.wait_for_function("window.nardy && nardy.ready && nardy.state.status !== null")
        local = page.goto(base.replace("127.0.0.1", "localhost") + "/?t=" + token)
        assert local.status == 200
    finally:
        page.close()
    assert not any("new long" in line for line in sent_lines(base, token))


def test_the_page_without_its_key_shows_why(browser, board):
    base, token = board
    page = browser.new_page(viewport={"width": 900, "height": 300})
    try:
        response = page.goto(base + "/")
        assert response.status == 403 and "?t=" in page.content()
        response = page.goto(base + "/?t=" + token[::-1])
        assert response.status == 403 and "wrong key" in page.content()
    finally:
        page.close()


def test_the_page_runs_under_its_own_content_security_policy(browser, board):
    base, token = board
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    violations = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        response = page.goto(base + "/?t=" + token)
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        deadline = time.monotonic() + 15
        while not page.evaluate("Boolean(window.nardy && nardy.ready && nardy.state.status)"):
            assert time.monotonic() < deadline, "the page did not come up under its CSP"
            time.sleep(0.1)
        assert page.locator("#board .point").count() == 24
        assert violations == [] and errors == []
    finally:
        page.close()
